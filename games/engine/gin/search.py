"""Gin's look-ahead: determinised Monte Carlo over the cards a seat cannot see.

From one seat's view (never more) :func:`action_values` deals the hidden cards many times over (the
opponent's hand and the stock order), each deal consistent with the round's public history: the cards the
opponent took from the pile and still holds are in their hand, and the unseen cards near what they threw
away or refused are dealt to them less often than the others. On each deal (a *determinisation*) every
candidate action is played and the round finished by a fast playout policy for both seats; a knock is
settled at once against the dealt hand (no playout: the settlement is exact). An action's value is its mean
result for the seat, in round points (won positive, lost negative, a dead round 0), over the same deals for
every action, so that the actions are compared on equal cards.

Deterministic given ``(view, rng, iterations)``: the only randomness is ``rng``, and a wall-clock budget
enters only through ``stop`` (a callable the caller owns; the engine reads no clock).

>>> import random
>>> from games.engine.gin import match as gin
>>> m = gin.new_match({"target": 0}, rng=random.Random(3))
>>> values = action_values(gin.view(m, m.to_act), random.Random(1), iterations=8)
>>> sorted(v.action["action"] for v in values)
['draw', 'pass']
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from games.engine.cards import ALL_CARDS
from games.engine.gin.melds import BIT, FULL_DECK, VALUE, deadwood_of, indexes_of, mask_of, meldable_part
from games.engine.gin.settle import Scoring, settle_big_gin, settle_knock

_INDEX = {code: i for i, code in enumerate(ALL_CARDS)}
#: Plain discards that leave this many stock cards or fewer end the round dead (gin.md); draws cap it too.
DEAD_STOCK = 2
DRAW_CAP = 200
#: How much less often an unseen card is dealt to the opponent for each card near it they threw away or
#: refused, and how much more often for each card near it they took from the pile and keep.
REFUSED_FACTOR = 0.6
TAKEN_FACTOR = 2.0
#: A hand a player has kept for some turns holds more melds than a random one. Dealt uniformly, the opponent's hand
#: at the expert's knock decisions had 35.6 deadwood on average where the real hand had 22.6 (against ``simple``;
#: 33.5 against 11.8 against ``advanced``): every knock looked safe and rich, and the search overrode the
#: heuristic's play for gin with early knocks (388 in 400 mirrored matches against ``simple``, seed 777). So each
#: deal replays the opponent's draws from the stock this round (at most this many) on the hand dealt to it: a
#: random unseen card in, the card leaving the least deadwood out (19.2 and 18.0 deadwood dealt on average, a
#: fifth of the early knocks). Making the unseen cards near each dealt card likelier instead (five times) dealt
#: 17.3 and 18.3 from the first turn on, when the opponent's hand is still the random deal.
REPLAY_DRAWS = 30
#: The playout policy knocks with at most this much deadwood (within the limit) once the stock holds at most this
#: many cards (any pair): the searching seat as the expert's heuristic does (``bots.EXPERT_KNOCK``: it waits for
#: gin), the opponent at once (the prudent assumption: it leaves the least time).
PLAYOUT_KNOCK: tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]] = (
    ((0, 31), (4, 4), (10, 2)),  # the searching seat
    ((10, 31),),  # the opponent
)
#: The search looks at this many plain discards (the best by deadwood left) and knocks (least deadwood).
DISCARD_CANDIDATES = 4
KNOCK_CANDIDATES = 2
#: How the round's winner scores between two players of the heuristics' strength (measured with the slip-free
#: heuristics in self-play, 4,000 rounds: share of scored rounds per 5 points, 0–4, 5–9, ... 70 and more);
#: dead rounds are rare (under 1 %). The match-aware value (:func:`match_chances`) reads it.
ROUND_POINTS = (685, 699, 454, 314, 179, 862, 363, 155, 110, 68, 52, 26, 18, 3, 9)


@dataclass(frozen=True)
class ActionValue:
    """One legal action's estimated result for the seat, in round points: the mean of ``results``, one per deal
    (the same deals for every action of one search, so two actions' results can be compared deal by deal)."""

    action: dict[str, Any]
    value: float
    results: tuple[float, ...]

    @property
    def samples(self) -> int:
        return len(self.results)

    def lead_over(self, other: ActionValue) -> tuple[float, float]:
        """How much better this action did than ``other`` on the same deals: (mean, standard error)."""
        diffs = [a - b for a, b in zip(self.results, other.results, strict=True)]
        n = len(diffs)
        mean = sum(diffs) / n
        if n < 2:
            return mean, float("inf")
        variance = sum((d - mean) ** 2 for d in diffs) / (n - 1)
        return mean, (variance / n) ** 0.5


@dataclass(frozen=True)
class Rules:
    """What a playout needs of the table's options and the round."""

    knock_limit: int
    scoring: Scoring
    big_gin: bool
    dealer: int


@dataclass
class Position:
    """A determinised round: every card placed. Mutable, and copied for every playout."""

    hands: list[int]
    stock: list[int]  # top first
    pile: list[int]  # bottom first
    to_act: int
    phase: str  # first_turn | draw | discard
    passes: int
    must_draw_stock: bool
    taken: int
    draws: int

    def copy(self) -> Position:
        return Position(list(self.hands), self.stock, list(self.pile), self.to_act, self.phase, self.passes,
                        self.must_draw_stock, self.taken, self.draws)


@dataclass(frozen=True)
class Knowledge:
    """What the seat knows of the round from its view: its own hand, the pile, what the opponent holds for sure,
    and how likely each unseen card is in the opponent's hand (a weight per card)."""

    seat: int
    hand: int
    pile: tuple[int, ...]
    opp_known: int
    unseen: tuple[int, ...]
    weights: tuple[float, ...]
    opp_count: int
    stock_size: int
    passes: int
    must_draw_stock: bool
    taken: int
    opp_draws: int = 0  # how often the opponent drew from the stock this round


def _neighbours(card: int) -> int:
    """Cards that meld with ``card``: same rank, and the two either side in its suit."""
    rank = card % 13
    base = card - rank
    mask = 0
    for s in range(4):
        mask |= BIT[s * 13 + rank]
    for d in (-2, -1, 1, 2):
        if 0 <= rank + d <= 12:
            mask |= BIT[base + rank + d]
    return mask & ~BIT[card]


#: Per card, the cards that meld with it (``_neighbours``); the bots' danger and outs read it too.
NEAR = tuple(_neighbours(c) for c in range(52))


def read_history(view: dict[str, Any]) -> tuple[int, list[int], list[int], int, bool]:
    """What the round's public history tells the seat whose view this is: (the cards the opponent holds for
    sure, the cards it refused in order: what it threw away, and the pile's top card when it passed it or drew
    from the stock instead, the discard pile bottom to top, how often the first upcard was passed, whether
    the next draw must be from the stock: both passed it). The pile is rebuilt move by move; the bots' memory reads it too."""
    me = view["seat"]
    opp_has = 0
    refused: list[int] = []
    pile = [_INDEX[view["upcard"]]]
    passes = 0
    must_draw_stock = False
    for move in view["history"]:
        action = move["action"]
        mine = move["seat"] == me
        if action == "draw" and move["from"] == "discard":
            card = pile.pop()
            if not mine:
                opp_has |= BIT[card]
        elif action in ("discard", "knock"):
            card = _INDEX[move["card"]]
            pile.append(card)
            if not mine:
                opp_has &= ~BIT[card]
                refused.append(card)
        elif action == "pass":
            passes += 1
            must_draw_stock = passes == 2
            if not mine:
                refused.append(pile[-1])
        elif action == "draw" and not mine and pile:
            refused.append(pile[-1])
        if action == "draw":
            must_draw_stock = False
    return opp_has, refused, pile, passes, must_draw_stock


def knowledge_of(view: dict[str, Any]) -> Knowledge:
    """Read the seat's knowledge from its view's public history (``read_history``)."""
    me = view["seat"]
    hand = mask_of(view["hand"])
    opp_has, refused, pile, passes, must_draw_stock = read_history(view)
    kept = indexes_of(opp_has)
    pile_mask = 0
    for card in pile:
        pile_mask |= BIT[card]
    unseen = indexes_of(FULL_DECK & ~hand & ~pile_mask & ~opp_has)
    weights = []
    for card in unseen:
        weight = 1.0
        near = NEAR[card]
        for other in refused:
            if near & BIT[other]:
                weight *= REFUSED_FACTOR
        for other in kept:
            if near & BIT[other]:
                weight *= TAKEN_FACTOR
        weights.append(weight)
    opp_count = view["hand_counts"][1 - me]
    taken = _INDEX[view["taken"]] if view.get("taken") else -1
    knowledge = Knowledge(me, hand, tuple(pile), opp_has, unseen, tuple(weights), opp_count, view["stock_size"],
                          passes, must_draw_stock, taken,
                          sum(1 for move in view["history"] if move["seat"] != me and move["action"] == "draw"
                              and move["from"] == "stock"))
    if len(unseen) != opp_count - opp_has.bit_count() + knowledge.stock_size:
        raise ValueError("the view's history does not account for its cards")
    return knowledge


def rules_of(view: dict[str, Any]) -> Rules:
    options = view["options"]
    scoring = Scoring(undercut_bonus=options["undercut_bonus"], gin_bonus=options["gin_bonus"],
                      big_gin_bonus=options["big_gin_bonus"], double=bool(view["doubled"]))
    return Rules(knock_limit=view["knock_limit"], scoring=scoring, big_gin=bool(options["big_gin"]),
                 dealer=view["dealer"])


def determinise(knowledge: Knowledge, phase: str, rng: random.Random) -> Position:
    """One deal of the hidden cards consistent with the knowledge: the opponent's missing cards drawn by
    weight without replacement, its draws from the stock replayed on them (``REPLAY_DRAWS``), the rest shuffled
    into the stock."""
    cards = list(knowledge.unseen)
    weights = list(knowledge.weights)
    opp = knowledge.opp_known
    for _ in range(knowledge.opp_count - knowledge.opp_known.bit_count()):
        pick = rng.random() * sum(weights)
        i = 0
        while i < len(weights) - 1 and pick >= weights[i]:
            pick -= weights[i]
            i += 1
        opp |= BIT[cards[i]]
        cards[i] = cards[-1]
        weights[i] = weights[-1]
        cards.pop()
        weights.pop()
    if REPLAY_DRAWS:
        # The opponent has drawn from the stock and kept the best of its cards that often: replay it on the dealt
        # hand, a random unseen card in, the loose card leaving the least deadwood out (never one it is known to
        # hold), the card thrown back among the unseen.
        for _ in range(min(knowledge.opp_draws, REPLAY_DRAWS)):
            i = rng.randrange(len(cards))
            card = cards[i]
            out, _left = best_discard(opp | BIT[card], -1)
            if knowledge.opp_known & BIT[out]:
                continue
            opp = (opp | BIT[card]) & ~BIT[out]
            cards[i] = out
    rng.shuffle(cards)
    hands = [0, 0]
    hands[knowledge.seat] = knowledge.hand
    hands[1 - knowledge.seat] = opp
    return Position(hands, cards, list(knowledge.pile), knowledge.seat, phase, knowledge.passes,
                    knowledge.must_draw_stock, knowledge.taken, 0)


# --------------------------------------------------------------------------------------------------
# The playout policy: fast, on masks, the same for both seats


def _wants(hand: int, card: int) -> bool:
    """Whether ``card`` would sit in a meld of the best arrangement of ``hand`` with it."""
    return deadwood_of(hand | BIT[card]) < deadwood_of(hand) + VALUE[card]


def best_discard(hand: int, taken: int) -> tuple[int, int]:
    """(card, deadwood left) of the discard leaving the least deadwood; among equals the highest card."""
    melded = meldable_part(hand)
    whole = deadwood_of(hand)
    best_card = -1
    best_key = (1 << 30, 0, 0)
    loose = hand & ~melded
    if taken >= 0:
        loose &= ~BIT[taken]
    if loose:
        # A card in no meld at all leaves exactly its value less; the highest of them is the best such card.
        card = max(indexes_of(loose), key=lambda c: (VALUE[c], c))
        best_card = card
        best_key = (whole - VALUE[card], -VALUE[card], -card)
    for card in indexes_of(melded):
        if card == taken:
            continue
        key = (deadwood_of(hand ^ BIT[card]), -VALUE[card], -card)
        if key < best_key:
            best_key, best_card = key, card
    return best_card, best_key[0]


def _knock_result(position: Position, knocker: int, rules: Rules) -> int:
    """Round points for seat 0 (seat 1's are the negative) of ``knocker`` knocking with the hands as they are."""
    hands = position.hands
    settlement = settle_knock(knocker=hands[knocker], defender=hands[1 - knocker], knock_limit=rules.knock_limit,
                              scoring=rules.scoring)
    points = settlement.points if settlement.winner_is_knocker else -settlement.points
    return points if knocker == 0 else -points


def playout(position: Position, rules: Rules, me: int,
            opponent_knock: tuple[tuple[int, int], ...] | None = None) -> int:
    """Finish the round with the playout policy (``me``: the searching seat, knocking by ``PLAYOUT_KNOCK[0]``; the
    opponent by ``opponent_knock``, default ``PLAYOUT_KNOCK[1]``); round points for seat 0 (a dead round: 0).
    Changes ``position``."""
    hands = position.hands
    stock = position.stock
    pile = position.pile
    seat = position.to_act
    phase = position.phase
    taken = position.taken
    draws = position.draws
    limit = rules.knock_limit
    pos = 0
    theirs = PLAYOUT_KNOCK[1] if opponent_knock is None else opponent_knock
    knock_rule = [theirs, theirs]
    knock_rule[me] = PLAYOUT_KNOCK[0]
    if phase == "first_turn":
        passes = position.passes
        while phase == "first_turn":
            if _wants(hands[seat], pile[-1]):
                taken = pile.pop()
                hands[seat] |= BIT[taken]
                draws += 1
                phase = "discard"
            else:
                passes += 1
                if passes == 2:
                    seat = 1 - rules.dealer
                    phase = "draw"
                    # Both passed: the non-dealer draws from the stock.
                    hands[seat] |= BIT[stock[0]]
                    pos = 1
                    draws += 1
                    taken = -1
                    phase = "discard"
                else:
                    seat = rules.dealer
    must_draw_stock = position.must_draw_stock
    while True:
        hand = hands[seat]
        if phase == "draw":
            if pile and not must_draw_stock and _wants(hand, pile[-1]):
                taken = pile.pop()
            else:
                taken = -1
                card = stock[pos]
                pos += 1
                hand |= BIT[card]
            if taken >= 0:
                hand |= BIT[taken]
            draws += 1
            must_draw_stock = False
        phase = "draw"
        if rules.big_gin and deadwood_of(hand) == 0:
            hands[seat] = hand
            s = settle_big_gin(knocker=hand, defender=hands[1 - seat], scoring=rules.scoring)
            return s.points if seat == 0 else -s.points
        card, left = best_discard(hand, taken)
        hand ^= BIT[card]
        hands[seat] = hand
        stock_left = len(stock) - pos
        if left <= limit and any(left <= most and stock_left <= below for most, below in knock_rule[seat]):
            return _knock_result(position, seat, rules)
        pile.append(card)
        if stock_left <= DEAD_STOCK or draws >= DRAW_CAP:
            return 0
        seat = 1 - seat


# --------------------------------------------------------------------------------------------------
# What a round's points are worth in the match


def _point_chances() -> list[float]:
    """The chance of each round score 1..75 for its winner: ``ROUND_POINTS`` spread evenly over each bin."""
    total = sum(ROUND_POINTS)
    chances = [0.0] * 76
    for b, count in enumerate(ROUND_POINTS):
        for points in range(max(1, 5 * b), 5 * b + 5):
            chances[points] += count / total / (5 if b else 4)
    return chances


_CHANCES: dict[int, list[list[float]]] = {}


def match_chances(target: int) -> list[list[float]]:
    """``table[mine][theirs]``: the chance of winning a match to ``target`` with ``mine`` and ``theirs`` round points
    still to make (1..target each; index 0 means reached), between equal players: each scored round won half
    the time, for points drawn from ``ROUND_POINTS``. The first to reach the target wins the match.

    >>> table = match_chances(100)
    >>> round(table[100][100], 6)
    0.5
    >>> table[5][60] > table[60][60] > table[60][5]
    True
    """
    if target in _CHANCES:
        return _CHANCES[target]
    chances = _point_chances()
    table = [[0.0] * (target + 1) for _ in range(target + 1)]
    for mine in range(target + 1):
        for theirs in range(target + 1):
            if mine == 0:
                table[mine][theirs] = 1.0
            elif theirs == 0:
                table[mine][theirs] = 0.0
            else:
                win = sum(p * table[max(0, mine - points)][theirs] for points, p in enumerate(chances) if p)
                lose = sum(p * table[mine][max(0, theirs - points)] for points, p in enumerate(chances) if p)
                table[mine][theirs] = 0.5 * win + 0.5 * lose
    _CHANCES[target] = table
    return table


def match_value(view: dict[str, Any]) -> Callable[[int], float] | None:
    """For the view's seat, a round's points (won positive, lost negative) as its chance of winning the match, in
    per cent, from the score before the round; None where the match is not a plain race to a target (one-round
    matches, Hollywood: round points are the value there)."""
    options = view["options"]
    target = int(options.get("target") or 0)
    totals = (view.get("scores") or {}).get("totals")
    if target <= 0 or options.get("hollywood") or not totals:
        return None
    me = view["seat"]
    mine = max(1, target - int(totals[me]))
    theirs = max(1, target - int(totals[1 - me]))
    table = match_chances(target)
    mine_row = table[mine]
    cache: dict[int, float] = {}

    def value(points: int) -> float:
        if points not in cache:
            if points > 0:
                cache[points] = 100 * table[max(0, mine - points)][theirs]
            else:
                cache[points] = 100 * mine_row[max(0, theirs + points)]
        return cache[points]

    return value


# --------------------------------------------------------------------------------------------------
# The search


def _apply_root(position: Position, action: dict[str, Any], rules: Rules) -> int | None:
    """Play the root action on a determinised position: the round's result if it ends it (points for seat 0),
    else None with ``position`` ready for the playout."""
    seat = position.to_act
    hands = position.hands
    name = action["action"]
    if name == "pass":
        position.passes += 1
        if position.passes == 2:
            position.to_act = 1 - rules.dealer
            position.phase = "draw"
            position.must_draw_stock = True
        else:
            position.to_act = rules.dealer
        return None
    if name == "draw":
        if action["from"] == "discard":
            position.taken = position.pile.pop()
            hands[seat] |= BIT[position.taken]
        else:
            hands[seat] |= BIT[position.stock[0]]
            position.stock = position.stock[1:]
            position.taken = -1
        position.draws += 1
        position.phase = "discard"
        return None
    if name == "big_gin":
        s = settle_big_gin(knocker=hands[seat], defender=hands[1 - seat], scoring=rules.scoring)
        return s.points if seat == 0 else -s.points
    card = _INDEX[action["card"]]
    hands[seat] ^= BIT[card]
    if name == "knock":
        return _knock_result(position, seat, rules)
    position.pile.append(card)
    if len(position.stock) <= DEAD_STOCK or position.draws >= DRAW_CAP:
        return 0
    position.to_act = 1 - seat
    position.phase = "draw"
    position.taken = -1
    return None


def candidates(view: dict[str, Any]) -> list[dict[str, Any]]:
    """The legal actions worth a look: every draw choice; the best few discards and knocks by deadwood left
    (gin at once, when it is there, alone)."""
    legal = view["legal_actions"]
    if view["phase"] != "discard":
        return list(legal)
    if {"action": "big_gin"} in legal:
        return [{"action": "big_gin"}]
    meter = view["meter"]
    if meter.get("can_gin"):
        return [{"action": "knock", "card": meter["best_discard"]}]
    choices = sorted(meter["discards"], key=lambda c: (c["deadwood"], -VALUE[_INDEX[c["card"]]], c["card"]))
    out = [{"action": "discard", "card": c["card"]} for c in choices[:DISCARD_CANDIDATES]]
    out += [{"action": "knock", "card": c["card"]} for c in choices if c["knock"]][:KNOCK_CANDIDATES]
    return [a for a in out if a in legal]


def action_values(view: dict[str, Any], rng: random.Random, *, iterations: int = 48,
                  stop: Callable[[], bool] | None = None,
                  actions: list[dict[str, Any]] | None = None, match: bool = False,
                  opponents: tuple[tuple[tuple[int, int], ...], ...] | None = None) -> list[ActionValue]:
    """The estimated value (mean round points for the view's seat) of each action, best first.

    ``actions``: those to value (default: :func:`candidates`; pass ``view["legal_actions"]`` for every one).
    ``match``: value each result by the seat's chance of winning the match after it, in per cent
    (:func:`match_value`; round points where the match is no plain race to a target).
    ``opponents``: knock rules the opponent may play by (a seat cannot know the other's level); each deal draws
    one of them, the same for every action on that deal (default: ``PLAYOUT_KNOCK[1]`` alone).
    At most ``iterations`` deals; ``stop`` (checked after each deal, at least one deal is played) ends the
    search early, e.g. at a wall-clock deadline the caller keeps.
    """
    if not view.get("legal_actions"):
        raise ValueError("it is not this seat's turn: the view has no legal actions")
    chosen = candidates(view) if actions is None else list(actions)
    knowledge = knowledge_of(view)
    rules = rules_of(view)
    me = knowledge.seat
    sign = 1 if me == 0 else -1
    worth = match_value(view) if match else None
    results: list[list[float]] = [[] for _ in chosen]
    played = 0
    if len(chosen) > 1:
        for _ in range(max(1, iterations)):
            deal = determinise(knowledge, view["phase"], rng)
            deal.draws = int(view.get("draws", 0))
            opponent = None
            if opponents:
                opponent = opponents[rng.randrange(len(opponents))] if len(opponents) > 1 else opponents[0]
            for i, action in enumerate(chosen):
                position = deal.copy()
                result = _apply_root(position, action, rules)
                if result is None:
                    result = playout(position, rules, me, opponent)
                results[i].append(sign * result if worth is None else worth(sign * result))
            played += 1
            if stop is not None and stop():
                break
    values = [ActionValue(a, sum(r) / played if played else 0.0, tuple(r)) for a, r in zip(chosen, results, strict=True)]
    # A stable sort: among equal values the candidates' own order (least deadwood first) decides.
    return sorted(values, key=lambda v: -v.value)


def best_action(view: dict[str, Any], rng: random.Random, *, iterations: int = 48,
                stop: Callable[[], bool] | None = None) -> dict[str, Any]:
    """The action with the best estimated value."""
    return action_values(view, rng, iterations=iterations, stop=stop)[0].action


__all__ = ["ActionValue", "Knowledge", "Position", "Rules", "action_values", "best_action", "best_discard",
           "candidates", "determinise", "knowledge_of", "playout", "rules_of"]
