"""What the generated hostile-input tests share: the hypothesis settings (few examples while developing, more
on CI, always the same examples: ``derandomize``), the error codes docs/protocol.md documents, and the
strategies that build hostile messages from the protocol's message types and real card codes."""

from __future__ import annotations

import os
import re
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

PROTOCOL = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"

#: ``FUZZ_EXAMPLES`` overrides; CI (``CI=true``) runs more examples than a developer's ``make test``.
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES") or (40 if os.environ.get("CI") else 15))

FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,  # the same examples on every run and every machine: a CI failure reproduces
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)


def documented_error_codes() -> set[str]:
    """The codes of the ``error`` table in docs/protocol.md (first column, each in backticks)."""
    text = PROTOCOL.read_text(encoding="utf-8")
    section = text.split("### `error`", 1)[1].split("\n### ", 1)[0]
    codes: set[str] = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            codes |= set(re.findall(r"`([a-z_]+)`", line.split("|")[1]))
    return codes


class Raw(str):
    """A text frame sent as it is (not JSON-encoded)."""


class Binary(bytes):
    """A binary frame."""


#: Stands for the table's version at the moment the message is sent.
CURRENT = "<current version>"
#: Stands for one of the actions the sender's last state offered (or a plain draw if none).
LEGAL = "<a legal action>"

CARD_CODES = [rank + suit for rank in "A23456789TJQK" for suit in "CDHS"] + ["JK", "J1", "J2"]
TYPES = ["hello", "sync", "ping", "join", "leave", "bots", "start", "move", "ready", "resign", "abort",
         "rematch", "chat", "meld_preview"]
ACTIONS = ["draw", "discard", "knock", "pass", "big_gin", "lay_out", "lay_off", "swap_joker", "resign", "gin"]

# Text of every kind: any code point, lone surrogates included (they arrive as "\ud800" escapes in JSON).
characters = st.one_of(st.characters(), st.characters(categories=["Cs"]), st.sampled_from("<>&\"'\\\x00\n\t"))
text = st.text(alphabet=characters, max_size=24)
long_text = st.text(alphabet=characters, min_size=250, max_size=2500)
#: Whole numbers past every limit: past 64 bits, past what a browser holds exactly, a thousand digits.
huge = st.one_of(st.integers(min_value=-(2**70), max_value=2**70), st.sampled_from([2**53, -(2**53), 2**63, 2**64]),
                 st.integers(min_value=10**999, max_value=10**1000))
scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70), huge,
                    st.floats(allow_nan=True, allow_infinity=True), text)
junk = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                      st.dictionaries(text, inner, max_size=3)), max_leaves=6)
card = st.one_of(st.sampled_from(CARD_CODES), st.sampled_from(["ah", "10H", "", "🂡", "KS ", "\ud800"]), junk)
versions = st.one_of(st.just(CURRENT), st.integers(min_value=-3, max_value=10**20), huge, junk)
actions = st.one_of(
    st.just(LEGAL),
    st.fixed_dictionaries(
        {"action": st.one_of(st.sampled_from(ACTIONS), junk)},
        optional={
            "from": st.one_of(st.sampled_from(["stock", "discard", "hand"]), junk),
            "card": card,
            "cards": st.lists(card, max_size=14),
            "melds": st.lists(st.lists(card, max_size=5), max_size=4),
            "meld": st.one_of(st.integers(min_value=-2, max_value=20), junk),
            "end": st.one_of(st.sampled_from(["low", "high"]), junk),
            "seat": st.one_of(st.integers(min_value=-1, max_value=7), junk),
            "joker": card,
        },
    ),
    junk,
)
shaped = st.fixed_dictionaries(
    {"type": st.sampled_from(TYPES)},
    optional={
        "version": versions,
        "action": actions,
        "text": st.one_of(text, long_text, junk),
        "seat": st.one_of(st.integers(min_value=-2, max_value=8), junk),
        "invite": st.one_of(text, junk),
        "level": st.one_of(st.sampled_from(["simple", "expert"]), junk),
    },
)
real_card = st.one_of(st.sampled_from(CARD_CODES), card)
#: Meld previews: real cards (four jokers and a long run among them), cards with surrogates, and an ``id`` of
#: every kind: numbers small and huge, text with lone surrogates, junk.
preview_cards = st.one_of(
    st.lists(real_card, min_size=1, max_size=14),
    st.lists(st.one_of(st.sampled_from([r + "H" for r in "A23456789TJQK"]), st.just("JK")), min_size=3, max_size=14),
    st.lists(st.sampled_from(["7H", "\ud800", "\ud800H", "JK", "\udfff\ud800"]), min_size=1, max_size=5),
    st.lists(real_card, min_size=15, max_size=20),
    junk,
)
previews = st.fixed_dictionaries(
    {"type": st.just("meld_preview")},
    optional={"id": st.one_of(st.integers(min_value=-5, max_value=10**6), huge, text, junk,
                              st.sampled_from(["\ud800", "a\udfffb", "\ud83d"])),
              "cards": st.one_of(st.sampled_from([["7H", "JK", "5H"], ["JK"] * 4 + [r + "H" for r in "A245689JQA"]]),
                                 preview_cards)},
)
card_actions = st.fixed_dictionaries(
    {"action": st.sampled_from(ACTIONS)},
    optional={"from": st.sampled_from(["stock", "discard"]), "card": real_card,
              "melds": st.lists(st.lists(real_card, min_size=3, max_size=4), min_size=1, max_size=3),
              "meld": st.integers(min_value=0, max_value=6), "end": st.sampled_from(["low", "high"])},
)
#: Moves that look right (the current version, a legal action or one built from real cards) and so reach
#: the rules, with the wrong sender, at the wrong moment, with the wrong cards.
plausible_moves = st.fixed_dictionaries({
    "type": st.just("move"),
    "version": st.one_of(st.just(CURRENT), st.just(CURRENT), st.just(CURRENT), versions),
    "action": st.one_of(st.just(LEGAL), st.just(LEGAL), card_actions, actions),
})
plain = st.one_of(
    st.fixed_dictionaries({"type": st.sampled_from(TYPES)}),
    st.fixed_dictionaries({"type": st.just("chat"), "text": st.one_of(text, long_text)}),
    st.fixed_dictionaries({"type": st.just("ready"), "version": versions}),
    st.fixed_dictionaries({"type": st.just("join")}, optional={"seat": st.integers(min_value=-1, max_value=6),
                                                             "invite": text}),
)
table_messages = st.one_of(
    previews,
    previews,
    plausible_moves,
    plausible_moves,
    plausible_moves,
    plain,
    plain,
    shaped,
    st.dictionaries(st.one_of(st.just("type"), text), junk, max_size=4),
    st.builds(Raw, st.one_of(text, st.sampled_from(["{", "[]", "null", '{"type": "move"', "[" * 3000 + "]" * 3000]))),
    st.builds(Raw, st.text(min_size=4097, max_size=4200, alphabet="x")),
    st.builds(Binary, st.binary(max_size=40)),
    junk,
)
