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

import datetime as dt
import hashlib
import json
import os
import secrets
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone

from games import panels, registry
from games.models import Match, Round
from games.reads import matches as match_selectors

ALGORITHM = "Ed25519"
#: The largest integer a record may hold and still be read alike everywhere (a browser's numbers are doubles).
SAFE_INTEGER = 2**53 - 1
#: How to make a key, in every message that asks for one.
KEY_HINT = ("Make one with `python manage.py records_signing_key` (or: python -c \"import secrets; "
            "print(secrets.token_hex(32))\") and set it in the environment as RECORDS_SIGNING_KEY.")
MISSING_KEY = "RECORDS_SIGNING_KEY must be set when DEBUG is off (64 hex digits: the 32-byte Ed25519 private key). "


# --- the key ------------------------------------------------------------------------------------------------


def new_private_key_hex() -> str:
    """A fresh random signing key, as RECORDS_SIGNING_KEY wants it (64 hex digits)."""
    return secrets.token_hex(32)


def _parse_seed(configured: str) -> bytes:
    try:
        seed = bytes.fromhex(configured.strip())
    except ValueError:
        seed = b""
    if len(seed) != 32:
        raise ImproperlyConfigured("RECORDS_SIGNING_KEY must be 64 hex digits (a 32-byte Ed25519 private key). "
                                   + KEY_HINT)
    return seed


def _dev_seed(path: str) -> bytes:
    """The development key: random, made once and kept in ``path`` (readable by its owner only)."""
    file = Path(path)
    try:
        return _parse_seed(file.read_text())
    except FileNotFoundError:
        pass
    file.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first
        return _parse_seed(file.read_text())
    with os.fdopen(fd, "w") as out:
        out.write(new_private_key_hex() + "\n")
    return _parse_seed(file.read_text())


@lru_cache(maxsize=4)
def _private_seed(configured: str, dev_file: str) -> bytes:
    if configured:
        return _parse_seed(configured)
    if dev_file:
        return _dev_seed(dev_file)
    raise ImproperlyConfigured(MISSING_KEY + KEY_HINT)


def site_private_key() -> bytes:
    """The site's 32-byte signing seed: ``settings.RECORDS_SIGNING_KEY``; without it (DEBUG only) a random key
    made once and kept in ``settings.RECORDS_SIGNING_KEY_FILE``. Never derived from another secret."""
    return _private_seed(settings.RECORDS_SIGNING_KEY, settings.RECORDS_SIGNING_KEY_FILE)


def public_key_of(private_key: bytes) -> bytes:
    """The 32-byte Ed25519 public key of a 32-byte private seed."""
    key = Ed25519PrivateKey.from_private_bytes(private_key).public_key()
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_id(public_key: bytes) -> str:
    """A key's id: the first 16 hex digits of the SHA-256 of its 32 public bytes.

    >>> key_id(public_key_of(bytes(32)))
    '139e3940e64b5491'
    """
    return hashlib.sha256(public_key).hexdigest()[:16]


def site_public_key() -> bytes:
    return public_key_of(site_private_key())


def retired_public_keys() -> list[bytes]:
    """The public keys of earlier signing keys (``settings.RECORDS_RETIRED_PUBLIC_KEYS``): records they signed
    still hold. A value that is not 64 hex digits is refused clearly."""
    keys = []
    for text in settings.RECORDS_RETIRED_PUBLIC_KEYS:
        try:
            key = bytes.fromhex(text.strip())
        except ValueError:
            key = b""
        if len(key) != 32:
            raise ImproperlyConfigured("RECORDS_RETIRED_PUBLIC_KEYS must be 64 hex digits each (comma-separated).")
        keys.append(key)
    return keys


def accepted_public_keys() -> list[bytes]:
    """The site's key first, then the retired ones: every key whose records the site says hold."""
    current = site_public_key()
    return [current] + [k for k in retired_public_keys() if k != current]


def pem_of(public_key: bytes) -> str:
    """A public key as a PEM block (SubjectPublicKeyInfo), for ``openssl`` and most libraries."""
    key = Ed25519PublicKey.from_public_bytes(public_key)
    return key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def site_public_key_pem() -> str:
    return pem_of(site_public_key())


# --- signing ------------------------------------------------------------------------------------------------


def _only_safe_integers(value: object, depth: int = 0) -> bool:
    """Whether every number in ``value`` is an integer a browser reads exactly (records.md: a record the site
    writes holds no other numbers), so that Python and the browser rebuild the same bytes."""
    if depth > 200:
        return False
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return True
    if isinstance(value, int):
        return -SAFE_INTEGER <= value <= SAFE_INTEGER
    if isinstance(value, list):
        return all(_only_safe_integers(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(_only_safe_integers(v, depth + 1) for v in value.values())
    return False  # a float (25.0, 1e3), or anything JSON does not hold


def signed_bytes(record: dict[str, Any]) -> bytes:
    """The bytes a record's signature covers: its canonical JSON without the ``signature`` field."""
    unsigned = {key: value for key, value in record.items() if key != "signature"}
    return json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode("ascii")


def record_sign(record: dict[str, Any], *, private_key: bytes | None = None) -> dict[str, Any]:
    """A copy of ``record`` with ``signature``: ``{"algorithm": "Ed25519", "key_id": ..., "public_key": hex,
    "value": hex}`` (by default with the site's key)."""
    seed = site_private_key() if private_key is None else private_key
    key = Ed25519PrivateKey.from_private_bytes(seed)
    unsigned = {k: v for k, v in record.items() if k != "signature"}
    if not _only_safe_integers(unsigned):
        raise ValueError("a signed record holds only integers that fit in 53 bits")
    public = public_key_of(seed)
    return {
        **unsigned,
        "signature": {
            "algorithm": ALGORITHM,
            "key_id": key_id(public),
            "public_key": public.hex(),
            "value": key.sign(signed_bytes(unsigned)).hex(),
        },
    }


def record_signature_holds(record: object, *, public_key: bytes | None = None) -> bool:
    """Whether ``record`` carries a signature that ``public_key`` (by default the site's key or one of its
    retired keys, the one the record names) made over exactly these contents. Any other shape (no signature,
    another algorithm, bad hex, a number that is not a safe integer) does not hold."""
    if not isinstance(record, dict):
        return False
    signature = record.get("signature")
    if not isinstance(signature, dict) or signature.get("algorithm") != ALGORITHM:
        return False
    if public_key is None:
        named = signature.get("public_key")
        public_key = next((k for k in accepted_public_keys() if k.hex() == named), None)
        if public_key is None:
            return False
    if not _only_safe_integers(record):
        return False
    try:
        value = bytes.fromhex(signature.get("value") or "")
        data = signed_bytes(record)
    except (TypeError, ValueError):  # a value that is not hex; NaN or a float too large in a pasted record
        return False
    key = Ed25519PublicKey.from_public_bytes(public_key)
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
    panel_fields: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The signed records.md record of ``match``: every round that has ended (a match still being played has
    only those), each with its published ``deal_hash``; a gin resignation; the panels' fields (ratings of a
    rated match). Replaying it gives the match's result; ``replay`` ignores the extra fields.

    Whether the caller may see the match (and its deals) is the caller's to check before. ``rounds``,
    ``players`` and ``panel_fields`` (the ``RECORD`` panels' fields) are read here when not given."""
    rounds = match_selectors.finished_rounds(match) if rounds is None else rounds
    players = match_selectors.players_of(match) if players is None else players
    record: dict[str, Any] = {
        "game": match.game,
        "options": match.options,
        "players": [p.name for p in players],
        # Who each seat is, not only what they were called: the account's id (null for a computer player or
        # a deleted account), and when the site signed this record (UTC, ISO 8601).
        "player_ids": [p.user_id for p in players],
        "signed_at": timezone.now().astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "rounds": [{**r.record, "deal_hash": r.deal_hash} for r in rounds if r.record],
    }
    record.update(registry.get(match.game).record_extras(match.result or {}))
    if panel_fields is None:
        panel_fields = panels.collect(panels.RECORD, match=match, players=players)
    for fields in panel_fields:
        clash = set(fields) & (set(record) | {"signature"})
        if clash:
            raise ValueError(f"a record panel may not replace {', '.join(sorted(clash))}")
        record.update(fields)
    return record_sign(record)


def records_export(matches: list[Match]) -> Iterator[dict[str, Any]]:
    """``record_export`` of each of ``matches`` (read with their tables), in their order, with a fixed number
    of queries for all of them (their rounds, their players, one per ``RECORD_MANY`` panel) rather than a few
    a match: the NDJSON export's chunk. Each record is made as it is asked for."""
    rounds = match_selectors.finished_rounds_for_records(matches)
    players = match_selectors.players_of_many(matches)
    extras = panels.collect(panels.RECORD_MANY, matches=matches, players=players)
    for match in matches:
        fields = [by_match[match.pk] for by_match in extras if match.pk in by_match]
        yield record_export(match=match, rounds=rounds.pop(match.pk), players=players.pop(match.pk),
                            panel_fields=fields)
