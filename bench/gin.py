"""Gin benchmark: best_melds time per hand (against RLCard when installed), self-play speed, expert vs simple.

Run ``.venv/bin/python -m bench.gin`` (``make bench``); every count is a flag (``--help``). Figures, no
pass/fail. Goals on a 2-core machine: best_melds worst case under 50 µs per 10-card hand and at least 10×
RLCard's ``get_best_meld_clusters`` in the same run; self-play (simple vs simple) at least 500 hands/s.
"""

from __future__ import annotations

import argparse
import gc
import math
import multiprocessing
import os
import random
import statistics
import time

from games.engine.cards import gin_deck
from games.engine.gin import match as gin
from games.engine.gin.bots import choose_action
from games.engine.gin.melds import best_melds, clear_caches

NARROW_RANKS = "3456789"  # a narrow slice of the deck: seven ranks in four suits deal meld-rich hands


def seeded_hands(count: int, seed: int) -> list[list[str]]:
    """Half uniform 10-card deals, half dealt from the narrow slice (many overlapping melds)."""
    rng = random.Random(seed)
    deck = gin_deck()
    narrow = [c for c in deck if c[0] in NARROW_RANKS]
    return [rng.sample(deck if i % 2 == 0 else narrow, 10) for i in range(count)]


def _best_time(solve, hand, repeats: int, cold: bool) -> float:
    """Microseconds for one hand: the best of ``repeats`` runs (scheduler noise only ever adds time)."""
    best = math.inf
    for _ in range(repeats):
        if cold:
            clear_caches()
        start = time.perf_counter_ns()
        solve(hand)
        best = min(best, time.perf_counter_ns() - start)
    return best / 1000


def bench_melds(count: int, seed: int, repeats: int = 3) -> None:
    hands = seeded_hands(count, seed)
    print(f"best_melds on {count} seeded 10-card hands (half uniform, half from ranks {NARROW_RANKS}):")
    try:
        from rlcard.games.gin_rummy.utils import melding, utils
    except ImportError:
        melding = utils = None
    rl_hands = [[utils.card_from_text(c) for c in hand] for hand in hands] if utils else []
    # One untimed pass each first: the interpreter specialises hot code and the lookup tables get paged in.
    for hand in hands:
        best_melds(hand)
    if melding is not None:
        for hand in rl_hands:
            melding.get_best_meld_clusters(hand)
    ours: list[float] = []
    rl: list[float] = []
    gc.disable()
    try:
        # The solvers take turns on chunks of 100 hands, so a machine that gets busier or quieter during the
        # run slows both alike, while each still runs in a loop of its own.
        for first in range(0, count, 100):
            ours += [_best_time(best_melds, hand, repeats, cold=True) for hand in hands[first:first + 100]]
            if melding is not None:
                rl += [_best_time(melding.get_best_meld_clusters, hand, repeats, cold=False)
                       for hand in rl_hands[first:first + 100]]
    finally:
        gc.enable()
    print(f"  best_melds (every cache emptied before each call)  median {statistics.median(ours):6.1f} µs   "
          f"mean {statistics.fmean(ours):6.1f} µs   worst {max(ours):6.1f} µs")
    if melding is None:
        print("  RLCard: skipped (rlcard==1.2.0 not installed; pip install -r requirements-bench.txt)")
        return
    disagree = 0
    for hand, rl_hand in zip(hands, rl_hands, strict=True):
        clusters = melding.get_best_meld_clusters(rl_hand)
        rl_deadwood = (utils.get_deadwood_count(rl_hand, clusters[0]) if clusters
                       else sum(utils.get_deadwood_value(c) for c in rl_hand))
        disagree += rl_deadwood != best_melds(hand)[1]
    print(f"  RLCard get_best_meld_clusters                      median {statistics.median(rl):6.1f} µs   "
          f"mean {statistics.fmean(rl):6.1f} µs   worst {max(rl):6.1f} µs")
    print(f"  speed-up over RLCard: median {statistics.median(rl) / statistics.median(ours):.1f}×, "
          f"mean (throughput) {statistics.fmean(rl) / statistics.fmean(ours):.1f}×, worst case "
          f"{max(rl) / max(ours):.1f}×; hands where the deadwood differs: {disagree}")


def play_round(levels: tuple[str, str], rng: random.Random, bot_rng: random.Random) -> gin.Match:
    m = gin.new_match({"target": 0}, rng=rng)
    while m.phase != "round_over" and not m.over:
        seat = m.to_act
        m = gin.apply_action(m, seat, choose_action(gin.view(m, seat), levels[seat], bot_rng))
    return m


def bench_selfplay(hands: int, seed: int) -> None:
    rng = random.Random(seed)
    bot_rng = random.Random(seed + 1)
    clear_caches()
    start = time.perf_counter()
    cpu = time.process_time()
    for _ in range(hands):
        play_round(("simple", "simple"), rng, bot_rng)
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu
    print(f"self-play simple vs simple: {hands} hands in {elapsed:.2f} s = {hands / elapsed:.0f} hands/s on the "
          f"clock, {hands / cpu:.0f} hands/s of CPU time (one core; every move through view() and "
          "choose_action())")


def play_match(levels: tuple[str, str], seed: int) -> gin.Match:
    """A match to 100 whose deals come from ``seed`` alone, so swapping the seats replays the same deals."""
    deal_rng = random.Random(seed)
    bot_rng = random.Random(seed ^ 0x5EED)
    m = gin.new_match({"target": 100}, rng=deal_rng)
    while not m.over:
        if m.phase == "round_over":
            m = gin.deal_next_round(m, deal_rng)
            continue
        seat = m.to_act
        m = gin.apply_action(m, seat, choose_action(gin.view(m, seat), levels[seat], bot_rng))
    return m


def mirrored_pair(seed: int) -> tuple[int, int]:
    """Expert's match wins and rounds played in the two seatings of one seed."""
    first = play_match(("expert", "simple"), seed)
    second = play_match(("simple", "expert"), seed)
    return int(first.winner == 0) + int(second.winner == 1), len(first.finished) + len(second.finished)


def bench_strength(matches: int, seed: int, workers: int) -> None:
    pairs = max(1, matches // 2)
    seeds = [seed * 1_000_003 + i for i in range(pairs)]
    start = time.perf_counter()
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            results = pool.map(mirrored_pair, seeds, chunksize=max(1, pairs // (workers * 8)))
    else:
        results = [mirrored_pair(s) for s in seeds]
    elapsed = time.perf_counter() - start
    wins = sum(w for w, _ in results)
    rounds = sum(r for _, r in results)
    played = 2 * pairs
    rate = wins / played
    margin = 1.96 * math.sqrt(rate * (1 - rate) / played)
    print(f"expert vs simple: {played} matches to 100 ({pairs} deal sets, each played with the seats swapped), "
          f"{rounds} rounds: expert won {wins} = {100 * rate:.1f} % ± {100 * margin:.1f} % (95 %) "
          f"in {elapsed:.0f} s on {workers} worker(s)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.gin", description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=4000, help="10-card hands for the solver timing")
    parser.add_argument("--selfplay", type=int, default=2000, help="hands of simple vs simple self-play")
    parser.add_argument("--matches", type=int, default=2000, help="mirrored matches to 100, expert vs simple")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes for the matches")
    parser.add_argument("--seed", type=int, default=20261130)
    args = parser.parse_args(argv)
    print(f"gin bench (seed {args.seed})")
    bench_melds(args.hands, args.seed)
    if args.selfplay:
        bench_selfplay(args.selfplay, args.seed)
    if args.matches:
        bench_strength(args.matches, args.seed, args.workers)


if __name__ == "__main__":
    main()
