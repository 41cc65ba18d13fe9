"""Writes tests/games/signature_cases.json: records and what a checker must say of their signature, run by
both checkers (Python: test_signature_cases.py; the browser's canonical.js through node). Each case states
by construction whether it holds; the signatures are Ed25519 (deterministic) with a fixed test key, so the
file is the same each time it is made: ``python tests/games/make_signature_cases.py``."""

from __future__ import annotations

import json
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

SEED = bytes(range(1, 33))
OTHER = bytes(range(101, 133))
OUT = Path(__file__).with_name("signature_cases.json")


def public_hex(seed: bytes) -> str:
    key = Ed25519PrivateKey.from_private_bytes(seed).public_key()
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()


def canonical(value: object) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def signature(signed: bytes, seed: bytes = SEED) -> dict:
    return {"algorithm": "Ed25519", "public_key": public_hex(seed),
            "value": Ed25519PrivateKey.from_private_bytes(seed).sign(signed).hex()}


BASE = {"game": "gin", "options": {"target": 25}, "players": ["anna", "ben"], "player_ids": [3, 4],
        "signed_at": "2026-12-02T13:00:00Z", "rounds": []}


def text_of(record_text_without_signature: str, sig: dict) -> str:
    """The record's text with its signature appended as the last key (the text is kept as written)."""
    assert record_text_without_signature.endswith("}")
    return record_text_without_signature[:-1] + ',"signature":' + json.dumps(sig) + "}"


def cases() -> list[dict]:
    plain = json.dumps(BASE)
    out = [
        {"name": "signed as is", "holds": True, "text": text_of(plain, signature(canonical(BASE)))},
        {"name": "indented, non-ASCII written as is", "holds": True,
         "text": json.dumps({**BASE, "players": ["Jürgen 😀", "ben"], "signature": signature(
             canonical({**BASE, "players": ["Jürgen 😀", "ben"]}))}, ensure_ascii=False, indent=2)},
        {"name": "a player renamed", "holds": False,
         "text": text_of(json.dumps({**BASE, "players": ["ben", "anna"]}), signature(canonical(BASE)))},
        {"name": "signed by another key", "holds": False,
         "text": text_of(plain, signature(canonical(BASE), OTHER))},
        # A top-level "__proto__" the signer never saw: JavaScript's old builder dropped it (an assignment to
        # __proto__ sets the prototype) and said the signature held; Python reads it as a key like any other.
        {"name": "__proto__ added at the top", "holds": False,
         "text": text_of(plain[:-1] + ',"__proto__":{"winner":1}}', signature(canonical(BASE)))},
        {"name": "__proto__ signed at the top", "holds": True,
         "text": text_of(plain[:-1] + ',"__proto__":{"winner":1}}',
                         signature(canonical({**BASE, "__proto__": {"winner": 1}})))},
        {"name": "__proto__ signed inside", "holds": True,
         "text": text_of(json.dumps({**BASE, "options": {"target": 25, "__proto__": 1}}),
                         signature(canonical({**BASE, "options": {"target": 25, "__proto__": 1}})))},
        {"name": "constructor and toString keys", "holds": True,
         "text": text_of(json.dumps({**BASE, "constructor": 1, "toString": "x"}),
                         signature(canonical({**BASE, "constructor": 1, "toString": "x"})))},
        # 25.0 is not 25 in Python (a float, written 25.0), while JSON.parse cannot tell them apart.
        {"name": "25.0 for 25", "holds": False, "text": text_of(plain.replace('"target": 25', '"target": 25.0'),
                                                                 signature(canonical(BASE)))},
        {"name": "2.5e1 for 25", "holds": False, "text": text_of(plain.replace('"target": 25', '"target": 2.5e1'),
                                                                  signature(canonical(BASE)))},
        {"name": "25.0 signed as 25.0", "holds": False,
         "text": text_of(plain.replace('"target": 25', '"target": 25.0'),
                         signature(canonical({**BASE, "options": {"target": 25.0}})))},
        {"name": "an integer beyond 2**53", "holds": False,
         "text": text_of(plain.replace('"target": 25', '"target": 9007199254740993'),
                         signature(canonical({**BASE, "options": {"target": 9007199254740993}})))},
        {"name": "a negative integer", "holds": True,
         "text": text_of(plain.replace('"target": 25', '"target": -25'),
                         signature(canonical({**BASE, "options": {"target": -25}})))},
        {"name": "an escaped lone surrogate in a name", "holds": True,
         "text": text_of(json.dumps({**BASE, "players": ["\ud800", "ben"]}),
                         signature(canonical({**BASE, "players": ["\ud800", "ben"]})))},
        {"name": "keys beyond the BMP sorted by code point", "holds": True,
         "text": text_of(json.dumps({**BASE, "x": {"\U0001f600": 1, "\uffff": 2}}),
                         signature(canonical({**BASE, "x": {"\U0001f600": 1, "\uffff": 2}})))},
        {"name": "a string holding 1.5 is no number", "holds": True,
         "text": text_of(json.dumps({**BASE, "note": "1.5 \\\" 2e3"}),
                         signature(canonical({**BASE, "note": "1.5 \\\" 2e3"})))},
        {"name": "no signature", "holds": False, "text": plain},
    ]
    return out


if __name__ == "__main__":
    OUT.write_text(json.dumps({"public_key": public_hex(SEED), "private_key": SEED.hex(), "cases": cases()},
                              indent=1, ensure_ascii=True) + "\n")
