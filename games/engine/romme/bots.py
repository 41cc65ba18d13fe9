"""Rommé computer players: ``choose_action(view, level, rng)`` picks one action from a seat's own view.

``simple`` opens as soon as it can, lays off what it can and discards a card that is in no meld (its heuristic
would throw the highest; by design it picks one at random, see below).
``expert`` also goes out whenever it can, holds its cards back for a Hand-Rommé when that is worth it,
remembers what the others took from the discard pile and avoids discarding cards they could use, does not
feed open melds when it can help it, keeps the loose cards with the most live outs (unseen cards that would
make a meld with them: it counts what it saw laid and discarded, never a hidden card), looks one draw ahead
for its discard (``_look_ahead``) and sheds Augen when another hand is nearly out. It takes the open card
when it can lay it off this turn, and swaps a joker off the table when the joker then makes a new meld with its
hand, or makes its hand open (``_swap_to_lay``); it keeps the cards the table's jokers stand for and takes them
from the pile when it can swap them this turn. ``advanced``
(Fortgeschritten) draws and keeps cards like the expert but remembers nothing of the others and never holds
back an opening. The levels are distinct by design (issue 28: each step at least 58 % of the head-to-head
comparisons against the one below): ``simple`` throws a random card in no meld instead of its highest one,
``advanced`` does so half of the time (``SLIPS``), the expert never. Bots see only their seat's view
(``match.view``).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence

from games.engine.cards import JOKER, RANKS, SUITS, romme_deck
from games.engine.romme.hints import going_out, table_melds
from games.engine.romme.melds import (
    Meld,
    best_layout,
    best_opening,
    hand_augen,
    most_cards_layout,
)
from games.engine.romme.round import layoff_ends, swap_lays
from games.engine.romme.round import swappable as _swappable

LEVELS = ("simple", "advanced", "expert")
#: The levels whose decisions search (the referee runs them in its thinker's worker, ``games.thinking``): the
#: expert's lookahead costs up to a few hundred milliseconds on a full hand, too long for the referee's pass.
SEARCH_LEVELS = ("expert",)
# Tuning of the expert (the benchmark measured these against three simple bots).
HOLD_FOR_HAND_ROMME = True
HOLD_LOOSE = 4  # the most loose cards (beside the melds) of a hand the expert holds back for a Hand-Rommé
HOLD_SHORTEST = 8  # ... while every other hand holds at least this many cards
DANGER_WEIGHT_OPENED = 2
DANGER_WEIGHT_CLOSED = 0
NEIGHBOUR_WEIGHT = 3
FEED_GUARD = True
# The expert weighs a loose card by its live outs (unseen cards that make a meld with it and one more card
# of the hand) instead of the advanced level's count of neighbours in the hand.
OUTS_WEIGHT = 4
EXPERT_NEIGHBOUR_WEIGHT = 0
OUTS_WEIGHT_OPENED = 2  # ... once the seat has opened
ENDGAME_CARDS = 7  # when another hand is down to this many cards or fewer, the expert's discard weighs Augen
ENDGAME_AUGEN = 2  # ... this many times
# The expert's lookahead on a discard: of its LOOKAHEAD_CANDIDATES best discards by the heuristic, it keeps the
# one that gives the best chance to open (or, once opened with at most LOOKAHEAD_HAND cards, to go out) with
# the next card drawn, over every card it has not seen (weighted by the copies unseen). It switches from the
# heuristic's choice only when that chance is LOOKAHEAD_MARGIN higher. Before opening it looks ahead only
# when its best opening is worth LOOKAHEAD_NEAR points or more.
LOOKAHEAD_CANDIDATES = 3
LOOKAHEAD_MARGIN = 0.02
LOOKAHEAD_HAND = 6
LOOKAHEAD_NEAR = 20
#: The expert takes the discard pile's top card when it can lay it off on the table this turn (it has opened, or
#: opens with it): a card shed for sure, where the stock's card is a guess.
TAKE_FOR_LAYOFF = True
#: Once opened, the expert swaps a joker off the table for a card of its hand when the joker then makes a new
#: meld with cards of its hand (the swap and the lay are one action): cards shed that no lay-off would shed.
SWAP_TO_LAY = True
#: Before opening, the expert swaps a joker off the table into its opening when the hand opens only with it.
SWAP_TO_OPEN = True
#: A card of the hand that a joker on the table stands for is a joker to come: the expert's discard weighs it
#: this much more (a king weighs 10), and before opening it takes such an open card when the hand with a joker
#: more would open. 0: off.
SWAP_CARD_WEIGHT = 10
#: The levels are distinct by design: below the expert each level slips now and then, throwing a random card of
#: those in no meld of its best layout (never a joker) instead of the discard its heuristic chose, this share
#: of its discards (measured with ``python -m bench.romme``: each step at least 58 % against the one below).
SLIPS = {"simple": 1.0, "advanced": 0.5, "expert": 0.0}


def _table(view: dict) -> list[tuple[int, int, Meld]]:
    return table_melds(view.get("melds", []))


def _remove(hand: Sequence[str], cards: Sequence[str]) -> list[str]:
    rest = list(hand)
    for c in cards:
        rest.remove(c)
    return rest


def _danger(card: str, view: dict, table: list[tuple[int, int, Meld]], picked: list[str]) -> int:
    """How useful ``card`` would be to the others: fits an open meld, or goes with cards they took."""
    score = 0
    if any(layoff_ends(meld, card) for _, _, meld in table):
        score += 3
    if card == JOKER:
        return score
    for other in picked:
        if other == JOKER:
            continue
        same_rank = other[0] == card[0] and other[1] != card[1]
        close_by = other[1] == card[1] and abs(RANKS.index(other[0]) - RANKS.index(card[0])) <= 2
        if same_rank or close_by:
            score += 2
    return score


def _neighbours(card: str, hand: Sequence[str]) -> int:
    """Cards of the hand that could one day make a meld with ``card`` (same rank, or same suit close by)."""
    if card == JOKER:
        return 0
    rank = RANKS.index(card[0])
    count = 0
    for other in set(hand):
        if other in (JOKER, card):
            continue
        if other[0] == card[0] or (other[1] == card[1] and abs(RANKS.index(other[0]) - rank) <= 2):
            count += 1
    return count


def _public_pile(view: dict) -> list[str]:
    """The discard pile as far as the public history shows it, top last. The upcard of the deal is not in
    the history: it is known only while it is still the top (``discard_top``), so a covered upcard counts as
    unseen (a harmless miscount of one card)."""
    pile: list[str] = []
    for m in view.get("history", []):
        act = m.get("action")
        if act == "discard" and "card" in m:
            pile.append(m["card"])
        elif act == "draw" and m.get("from") == "discard" and pile:
            pile.pop()
        elif act == "reshuffle":
            pile = pile[-1:]
    top = view.get("discard_top")
    if top is not None and (not pile or pile[-1] != top):
        pile.append(top)
    return pile


def unseen_cards(view: dict) -> Counter[str]:
    """The cards the seat has not seen (two decks with jokers, less its hand, the table and the pile): the
    cards that may be in the stock or in the others' hands."""
    unseen = Counter(romme_deck())
    seen = Counter(view["hand"])
    for t in view.get("melds", []):
        seen.update(t["cards"])
    seen.update(_public_pile(view))
    unseen.subtract(seen)
    return +unseen


def _outs(card: str, hand: Sequence[str], unseen: Counter[str]) -> int:
    """Live outs of ``card``: unseen cards that make a three-card meld with it and one other card of ``hand``."""
    if card == JOKER:
        return 0
    rank, suit = card[0], card[1]
    r = RANKS.index(rank)
    wanted: set[str] = set()
    others = set(hand) - {card, JOKER}
    set_suits = {o[1] for o in others if o[0] == rank}
    if set_suits:
        wanted.update(rank + s for s in SUITS if s != suit and s not in set_suits)
    for o in others:
        if o[1] != suit:
            continue
        d = RANKS.index(o[0]) - r
        lo, hi = min(r, r + d), max(r, r + d)
        if abs(d) == 1:
            for x in (lo - 1, hi + 1):
                if 0 <= x < len(RANKS):
                    wanted.add(RANKS[x] + suit)
            if hi == len(RANKS) - 1:
                wanted.add("A" + suit)  # Q K A
        elif abs(d) == 2:
            wanted.add(RANKS[lo + 1] + suit)
    if not wanted:
        return 0
    return sum(unseen[w] for w in wanted) + unseen[JOKER]


def _picked_by_others(view: dict) -> list[str]:
    seat = view.get("seat")
    return [m["card"] for m in view.get("history", [])
            if m.get("action") == "draw" and m.get("from") == "discard" and m.get("seat") != seat and "card" in m]


def _never() -> bool:
    return False


def _discard(view: dict, hand: list[str], level: str, stop: Callable[[], bool] = _never) -> dict:
    legal = {a["card"] for a in view.get("legal_actions", []) if a["action"] == "discard"}
    unseen: Counter[str] = Counter()
    melds, _ = best_layout(hand) if len(hand) > 1 else ((), 0)
    in_melds = [c for m in melds for c in m]
    loose = _remove(hand, in_melds)
    candidates = [c for c in loose if c in legal] or [c for c in hand if c in legal]
    if not candidates:
        candidates = sorted(legal)
    if level == "advanced":
        def key(card: str) -> tuple[int, str]:
            return (hand_augen(card) - NEIGHBOUR_WEIGHT * _neighbours(card, hand), card)
    elif level == "expert":
        table = _table(view)
        picked = _picked_by_others(view)
        seat: int = view["seat"]
        opened = view.get("opened", [])
        next_seat = (seat + 1) % len(opened) if opened else None
        if FEED_GUARD and next_seat is not None and opened[next_seat]:
            # Never hand the next player a card for the table's melds when another card will do.
            safe = [c for c in candidates if not any(layoff_ends(meld, c) for _, _, meld in table)]
            candidates = safe or candidates
        opponents_opened = any(o for s, o in enumerate(view.get("opened", [])) if s != view.get("seat"))
        weight = DANGER_WEIGHT_OPENED if opponents_opened else DANGER_WEIGHT_CLOSED
        unseen = unseen_cards(view) if OUTS_WEIGHT or LOOKAHEAD_CANDIDATES else Counter()
        me_opened = view["opened"][seat]
        outs_weight = OUTS_WEIGHT_OPENED if me_opened else OUTS_WEIGHT
        shortest = min((n for s, n in enumerate(view["hand_counts"]) if s != seat), default=13)
        augen_weight = ENDGAME_AUGEN if me_opened and shortest <= ENDGAME_CARDS else 1

        swap_cards = {meaning for _, meaning in _swappable(table)} if SWAP_CARD_WEIGHT else set()

        def key(card: str) -> tuple[int, str]:
            return (augen_weight * hand_augen(card) - weight * _danger(card, view, table, picked)
                    - EXPERT_NEIGHBOUR_WEIGHT * _neighbours(card, hand) - outs_weight * _outs(card, hand, unseen)
                    - SWAP_CARD_WEIGHT * (card in swap_cards), card)
    else:
        def key(card: str) -> tuple[int, str]:
            return (hand_augen(card), card)
    non_jokers = [c for c in candidates if c != JOKER] or candidates
    best = max(non_jokers, key=key)
    if level == "expert" and LOOKAHEAD_CANDIDATES > 1 and len(set(non_jokers)) > 1:
        ranked = sorted(set(non_jokers), key=key, reverse=True)[:LOOKAHEAD_CANDIDATES]
        best = _look_ahead(view, hand, ranked, unseen, stop) or best
    return {"action": "discard", "card": best}


def _related(card: str, hand: Sequence[str]) -> bool:
    """Could ``card`` make a meld with cards of ``hand`` (same rank, or same suit close by)? A joker always."""
    if card == JOKER:
        return True
    rank = RANKS.index(card[0])
    return any(o != JOKER and (o[0] == card[0] or (o[1] == card[1] and abs(RANKS.index(o[0]) - rank) <= 2))
               for o in hand)


def _look_ahead(view: dict, hand: list[str], ranked: list[str], unseen: Counter[str],
                stop: Callable[[], bool] = _never) -> str | None:
    """The discard of ``ranked`` (best first by the heuristic) with the best chance that the next card drawn
    opens the hand or ends the round, when it beats the first by LOOKAHEAD_MARGIN; else None. The candidates
    are weighed in order; once ``stop()`` says the time is up only those weighed so far count."""
    seat = view["seat"]
    opened = view["opened"][seat]
    limit = view["options"]["opening_points"]
    if opened:
        if len(hand) > LOOKAHEAD_HAND:
            return None
        table = _table(view)
        next_number = len(view.get("melds", [])) + 1

        def made(cards: list[str]) -> bool:
            return going_out(cards, table, opened=True, next_number=next_number) is not None
    else:
        if best_opening(hand, opening_points=limit).value < LOOKAHEAD_NEAR:
            return None

        def made(cards: list[str]) -> bool:
            return best_opening(cards, opening_points=limit).reaches
    total = sum(unseen.values())
    if not total:
        return None
    chances: list[float] = []
    for card in ranked:
        if chances and stop():
            break
        rest = _remove(hand, [card])
        hits = sum(n for x, n in unseen.items() if _related(x, rest) and made(rest + [x]))
        chances.append(hits / total)
    top = max(range(len(chances)), key=lambda i: (chances[i], -i))
    return ranked[top] if chances[top] >= chances[0] + LOOKAHEAD_MARGIN else None


def _wants_discard(view: dict, hand: list[str], level: str) -> bool:
    top = view.get("discard_top")
    if top is None or not any(a == {"action": "draw", "from": "discard"} for a in view.get("legal_actions", [])):
        return False
    if any(move.get("action") == "draw" and move.get("from") == "discard" and move.get("card") == top
           for move in view.get("history", [])):
        # Taken from the pile before in this round and back on it: taken again, it could go to and fro between
        # two hands for ever (taking the open card and putting it straight back is allowed), the stock untouched.
        return False
    if top == JOKER:
        return True
    if level == "expert" and TAKE_FOR_LAYOFF and _lays_off_this_turn(view, hand, top):
        return True
    if level == "expert" and (SWAP_TO_LAY or SWAP_CARD_WEIGHT) and any(
            meaning == top for _, meaning in _swappable(_table(view))):
        if view["opened"][view["seat"]]:
            if SWAP_TO_LAY:  # an opened seat's swap is the one that lays (``_swap_to_lay``)
                return True  # swapped for a joker of the table this turn
        elif SWAP_CARD_WEIGHT and best_opening(hand + [JOKER],
                                               opening_points=view["options"]["opening_points"]).reaches:
            return True  # swapped for a joker of the table into the opening this turn
    with_top = hand + [top]
    _, augen_with = best_layout(with_top)
    _, augen_without = best_layout(hand)
    # The card pays if it ends up in a meld: the hand then holds less than before, card included.
    gain = augen_without - augen_with
    if level != "simple":
        return gain > 0
    return gain >= hand_augen(top) and gain > 0


def _swap_to_lay(hand: list[str], table: list[tuple[int, int, Meld]], opening_points: int | None = None
                 ) -> dict | None:
    """A joker swap whose joker makes new melds with the hand, the one that leaves the fewest Augen (the first of
    the legal actions' ``swap_lays``); None if there is none. With ``opening_points`` (a seat that has not
    opened, whose hand does not open) the swap whose joker makes the hand open: the opening that is worth most."""
    best: tuple[int, dict] | None = None
    for augen, action in swap_lays(hand, table, opening_points=opening_points):
        if best is None or augen < best[0]:
            best = (augen, action)
    return best[1] if best else None


def _lays_off_this_turn(view: dict, hand: list[str], card: str) -> bool:
    """Could the seat lay ``card`` off on a meld of the table this turn: it fits one, and the seat has opened
    or opens with ``card`` in its hand."""
    if not any(layoff_ends(meld, card) for _, _, meld in _table(view)):
        return False
    if view["opened"][view["seat"]]:
        return True
    return best_opening(hand + [card], opening_points=view["options"]["opening_points"]).reaches


def choose_action(view: dict, level: str, rng: random.Random, stop: Callable[[], bool] = _never) -> dict:
    """One action for the seat of ``view`` (which must be the seat to act). ``stop``: a search's deadline
    (``games.thinking``); once it returns True the expert's lookahead ends with what it has weighed."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    legal = view.get("legal_actions") or []
    if not legal:
        raise ValueError("this seat has nothing to do now")
    hand = list(view["hand"])
    seat = view["seat"]
    if view["phase"] == "draw":
        return {"action": "draw", "from": "discard" if _wants_discard(view, hand, level) else "stock"}

    opened = view["opened"][seat]
    table = _table(view)
    next_number = len(view.get("melds", [])) + 1
    limit = view["options"]["opening_points"]

    # Going out this turn beats everything (a Hand-Rommé, too).
    # (Below the opening minimum this is a Hand-Rommé, which the rules allow.)
    plan = going_out(hand, table, opened=opened, next_number=next_number) if len(hand) > 1 else None
    if plan is not None:
        return plan[0]

    if not opened:
        opening = best_opening(hand, opening_points=limit)
        if opening.reaches and not (level == "expert" and HOLD_FOR_HAND_ROMME and _hold_for_hand_romme(view, hand)):
            return {"action": "lay", "melds": [list(m) for m in opening.melds]}
        if level == "expert" and SWAP_TO_OPEN and not opening.reaches:
            swap = _swap_to_lay(hand, table, opening_points=limit)
            if swap is not None:
                return swap
    else:
        melds, _ = best_layout(hand)
        if melds:
            return {"action": "lay", "melds": [list(m) for m in melds]}
        if level == "expert" and SWAP_TO_LAY:
            swap = _swap_to_lay(hand, table)
            if swap is not None:
                return swap
        layoffs = [a for a in legal if a["action"] == "lay_off"]
        natural = [a for a in layoffs if a["card"] != JOKER]
        if natural:
            return max(natural, key=lambda a: (hand_augen(a["card"]), a["card"]))
        # The swaps that lay their joker off again (a swap into new melds is ``_swap_to_lay``'s, the expert's).
        swaps = [a for a in legal if a["action"] == "swap" and a["then"]["action"] == "lay_off"]
        if swaps:
            return swaps[0]
        if layoffs:
            return layoffs[0]
    return _slipped(view, hand, _discard(view, hand, level, stop), SLIPS[level], rng)


def _slipped(view: dict, hand: list[str], action: dict, share: float, rng: random.Random) -> dict:
    """``action`` (a discard), or ``share`` of the time a random card in no meld of the hand's best layout
    (never a joker): the designed slip of a lower level (``SLIPS``)."""
    if share <= 0 or rng.random() >= share:
        return action
    legal = {a["card"] for a in view.get("legal_actions", []) if a["action"] == "discard"}
    melds, _ = best_layout(hand) if len(hand) > 1 else ((), 0)
    loose = sorted(c for c in set(_remove(hand, [c for m in melds for c in m])) if c in legal and c != JOKER)
    return {"action": "discard", "card": rng.choice(loose)} if loose else action


def _hold_for_hand_romme(view: dict, hand: list[str]) -> bool:
    """Expert: keep an opening back while a Hand-Rommé is near and nobody is about to go out."""
    melds = most_cards_layout(hand)
    loose = len(hand) - sum(len(m) for m in melds)
    seat = view["seat"]
    shortest = min((n for s, n in enumerate(view["hand_counts"]) if s != seat), default=13)
    nobody_opened = not any(o for s, o in enumerate(view["opened"]) if s != seat)
    return loose <= HOLD_LOOSE and nobody_opened and shortest >= HOLD_SHORTEST
