"""The one builder of the record the site exports (records.md): the rounds played to their end, each with the
deal hash published when it began, whatever the registered panels add (ratings: the Wertungszahl of each seat
before and after), all signed with the site's Ed25519 key so that anyone shown a record can tell whether it
is exactly what the site played.

The signed bytes are the canonical JSON of the record without its ``signature`` field: keys sorted,
separators ``,`` and ``:``, every character outside ASCII escaped as ``\\uXXXX`` (Python's
``json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=True)``), so the bytes are ASCII
and the same in any language; the deal hashes are made the same way (docs/protocol.md).

>>> record = record_sign({"game": "gin", "rounds": []}, private_key=bytes(32))
>>> record["signature"]["algorithm"], len(record["signature"]["value"])
('Ed25519', 128)
>>> record_signature_holds(record, public_key=public_key_of(bytes(32)))
True
>>> record_signature_holds({**record, "game": "romme"}, public_key=public_key_of(bytes(32)))
False
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from games import match_selectors, panels, registry
from games.models import Match, Round

ALGORITHM = "Ed25519"
#: HKDF's salt and info when the key is derived from SECRET_KEY; changing them changes every site's key.
_HKDF_SALT = b"ginsite records"
_HKDF_INFO = b"Ed25519 signing key for exported game records, v1"


# --- the key ------------------------------------------------------------------------------------------------


@lru_cache(maxsize=4)
def _private_seed(configured: str, secret_key: str) -> bytes:
    if configured:
        try:
            seed = bytes.fromhex(configured)
        except ValueError:
            seed = b""
        if len(seed) != 32:
            raise ImproperlyConfigured("RECORDS_SIGNING_KEY must be 64 hex digits (a 32-byte Ed25519 private key).")
        return seed
    hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=_HKDF_SALT, info=_HKDF_INFO)
    return hkdf.derive(secret_key.encode())


def site_private_key() -> bytes:
    """The site's 32-byte signing seed: ``settings.RECORDS_SIGNING_KEY``, or derived from ``SECRET_KEY``."""
    return _private_seed(settings.RECORDS_SIGNING_KEY, settings.SECRET_KEY)


def public_key_of(private_key: bytes) -> bytes:
    """The 32-byte Ed25519 public key of a 32-byte private seed."""
    key = Ed25519PrivateKey.from_private_bytes(private_key).public_key()
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def site_public_key() -> bytes:
    return public_key_of(site_private_key())


def site_public_key_pem() -> str:
    """The site's public key as a PEM block (SubjectPublicKeyInfo), for ``openssl`` and most libraries."""
    key = Ed25519PublicKey.from_public_bytes(site_public_key())
    return key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


# --- signing ------------------------------------------------------------------------------------------------


def signed_bytes(record: dict[str, Any]) -> bytes:
    """The bytes a record's signature covers: its canonical JSON without the ``signature`` field."""
    unsigned = {key: value for key, value in record.items() if key != "signature"}
    return json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode("ascii")


def record_sign(record: dict[str, Any], *, private_key: bytes | None = None) -> dict[str, Any]:
    """A copy of ``record`` with ``signature``: ``{"algorithm": "Ed25519", "public_key": hex, "value": hex}``
    (by default with the site's key)."""
    seed = site_private_key() if private_key is None else private_key
    key = Ed25519PrivateKey.from_private_bytes(seed)
    unsigned = {k: v for k, v in record.items() if k != "signature"}
    return {
        **unsigned,
        "signature": {
            "algorithm": ALGORITHM,
            "public_key": public_key_of(seed).hex(),
            "value": key.sign(signed_bytes(unsigned)).hex(),
        },
    }


def record_signature_holds(record: object, *, public_key: bytes | None = None) -> bool:
    """Whether ``record`` carries a signature that ``public_key`` (by default the site's) made over exactly
    these contents. Any other shape (no signature, another algorithm, bad hex) does not hold."""
    if not isinstance(record, dict):
        return False
    signature = record.get("signature")
    if not isinstance(signature, dict) or signature.get("algorithm") != ALGORITHM:
        return False
    try:
        value = bytes.fromhex(signature.get("value") or "")
        data = signed_bytes(record)
    except (TypeError, ValueError):  # a value that is not hex; NaN or a float too large in a pasted record
        return False
    key = Ed25519PublicKey.from_public_bytes(site_public_key() if public_key is None else public_key)
    try:
        key.verify(value, data)
    except InvalidSignature:
        return False
    return True


# --- the record ---------------------------------------------------------------------------------------------


def record_export(
    *,
    match: Match,
    rounds: list[Round] | None = None,
    players: list[match_selectors.Player] | None = None,
) -> dict[str, Any]:
    """The signed records.md record of ``match``: every round that has ended (a match still being played has
    only those), each with its published ``deal_hash``; a gin resignation; the panels' fields (ratings of a
    rated match). Replaying it gives the match's result; ``replay`` ignores the extra fields.

    Whether the caller may see the match (and its deals) is the caller's to check before."""
    rounds = match_selectors.finished_rounds(match) if rounds is None else rounds
    players = match_selectors.players_of(match) if players is None else players
    record: dict[str, Any] = {
        "game": match.game,
        "options": match.options,
        "players": [p.name for p in players],
        "rounds": [{**r.record, "deal_hash": r.deal_hash} for r in rounds if r.record],
    }
    record.update(registry.get(match.game).record_extras(match.result or {}))
    for fields in panels.collect(panels.RECORD, match=match, players=players):
        clash = set(fields) & (set(record) | {"signature"})
        if clash:
            raise ValueError(f"a record panel may not replace {', '.join(sorted(clash))}")
        record.update(fields)
    return record_sign(record)
