"""Rommé benchmark: solver time on seeded 14-card hands, self-play speed, and the expert bot's strength.

Run ``.venv/bin/python -m bench.romme`` (``make bench``); every count is a flag (``--help``). Figures, no
pass/fail: the solver goals are a median under 1 ms and a worst case under 20 ms per 14-card hand. The levels'
crosstable (``--level-lists``) plays each level against three of each lower one; the lower levels slip by design
(``bots.SLIPS``), ``--no-slips`` plays their heuristics alone.
"""

from __future__ import annotations

import argparse
import gc
import multiprocessing
import os
import random
import statistics
import time

from games.engine.cards import JOKER, RANKS, SUITS, romme_deck
from games.engine.romme import bots, melds
from games.engine.romme import match as romme
from games.engine.romme.bots import choose_action
from games.kinds.romme import points as romme_points

HAND = 14


def random_hand(rng: random.Random) -> list[str]:
    deck = romme_deck()
    rng.shuffle(deck)
    return deck[:HAND]


def jokers_and_long_suit(rng: random.Random) -> list[str]:
    """4–6 jokers with a long suit (both decks' copies), the rest random: the solver's hardest kind."""
    hand = [JOKER] * rng.randint(4, 6)
    suit = rng.choice(SUITS)
    long = [r + suit for r in RANKS] * 2
    rng.shuffle(long)
    hand += long[: rng.randint(6, HAND - len(hand))]
    rest = [c for c in romme_deck() if c != JOKER]
    rng.shuffle(rest)
    while len(hand) < HAND:
        hand.append(rest.pop())
    return hand


def near_runs(rng: random.Random) -> list[str]:
    """Many near-runs: four-card stretches in every suit with holes, some sets across them, a joker or two."""
    hand: list[str] = []
    start = rng.randint(2, 9)
    for suit in SUITS:
        for r in range(start, start + 4):
            if rng.random() < 0.75:
                hand.append(RANKS[r - 1] + suit)
    hand += [JOKER] * rng.randint(0, 2)
    rest = romme_deck()
    rng.shuffle(rest)
    while len(hand) < HAND:
        hand.append(rest.pop())
    rng.shuffle(hand)
    return hand[:HAND]


SOLVERS = {
    "best opening": lambda hand: melds.best_opening(hand),
    "fewest Augen": lambda hand: melds.best_layout(hand),
    "most cards (go out)": lambda hand: melds.most_cards_layout(hand),
}


def time_hands(hands: list[list[str]]) -> dict[str, list[float]]:
    """Seconds per hand for each solver and for all three together (the cache is cleared before each)."""
    times: dict[str, list[float]] = {name: [] for name in [*SOLVERS, "all three"]}
    gc.disable()  # no collector pauses inside a timing; it runs between batches instead
    try:
        for i, hand in enumerate(hands):
            if i % 50 == 0:
                gc.collect()
            total = 0.0
            for name, solve in SOLVERS.items():
                melds._best_cached.cache_clear()  # time the search, not the cache
                start = time.perf_counter()
                solve(hand)
                elapsed = time.perf_counter() - start
                times[name].append(elapsed)
                total += elapsed
            times["all three"].append(total)
    finally:
        gc.enable()
    return times


def report_times(name: str, times: list[float]) -> None:
    ms = sorted(t * 1000 for t in times)
    if not ms:
        return
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    print(f"    {name:<22} median {statistics.median(ms):6.2f} ms   p99 {p99:7.2f} ms   worst {ms[-1]:7.2f} ms")


def play_list(seed: int, levels: list[str], scoring: str, times: dict[str, list[float]] | None = None) -> dict:
    """One whole list played by bots that see only their own views; ``times`` collects the seconds of each
    decision (view built and action chosen) per level."""
    rng = random.Random(seed)
    m = romme.new_match({"scoring": scoring}, seats=len(levels), rng=rng)
    while not m.over:
        if m.phase == "round_over":
            m = romme.deal_next_round(m, rng)
            continue
        seat = m.to_act
        start = time.perf_counter()
        action = choose_action(romme.view(m, seat), levels[seat], rng)
        if times is not None:
            times.setdefault(levels[seat], []).append(time.perf_counter() - start)
        m = romme.apply_action(m, seat, action, rng=rng)
    return {"result": romme_points.outcome(m.facts()), "rounds": len(m.summaries)}


def one_against_three(job: tuple[int, str, str]) -> tuple[int, int, float, int, int, float, list[float]]:
    """``level`` in seat ``seed % 4`` against three ``below`` bots at a Masters table: (its result, its WP,
    the others' mean result, its place, rounds, its share of the three head-to-head comparisons won (a tie
    half), its decision times)."""
    seed, level, below = job
    seat = seed % 4
    levels = [level if s == seat else below for s in range(4)]
    times: dict[str, list[float]] = {}
    out = play_list(seed, levels, scoring="masters", times=times)
    result = out["result"]
    final = result["final"]
    others = [final[s] for s in range(4) if s != seat]
    beaten = sum(1.0 if final[seat] > o else 0.5 if final[seat] == o else 0.0 for o in others) / len(others)
    return (final[seat], result["wertungspunkte"][seat], statistics.mean(others), result["places"][seat],
            out["rounds"], beaten, times.get(level, []))


def expert_list(seed: int) -> tuple[int, int, float, int, int]:
    """Expert in seat ``seed % 4`` against three simple bots: (expert result, expert WP, simple mean, place, rounds)."""
    return one_against_three((seed, "expert", "simple"))[:5]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000, help="random 14-card deals to solve")
    parser.add_argument("--adversarial", type=int, default=300, help="hands of each adversarial kind")
    parser.add_argument("--self-play-lists", type=int, default=10, help="lists of four simple bots, timed")
    parser.add_argument("--lists", type=int, default=200, help="lists of expert vs three simple bots")
    parser.add_argument("--level-lists", type=int, default=200,
                        help="lists of each pairing of the levels (advanced vs three simple, expert vs three advanced,"
                             " expert vs three simple)")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--no-slips", action="store_true",
                        help="the lower levels without their designed slips (bots.SLIPS): the heuristics alone, the"
                             " reference of the expert's strength before the levels were made distinct")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    if args.no_slips:
        bots.SLIPS.update(dict.fromkeys(bots.SLIPS, 0.0))  # forked workers inherit it

    print("Rommé solver per 14-card hand (goals: median < 1 ms, worst < 20 ms); load average now "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    rng = random.Random(args.seed)
    every: dict[str, list[float]] = {}
    for kind, make, count in [("random deals", random_hand, args.hands),
                              ("4-6 jokers + long suit", jokers_and_long_suit, args.adversarial),
                              ("many near-runs", near_runs, args.adversarial)]:
        print(f"  {kind} ({count} hands)")
        for name, times in time_hands([make(rng) for _ in range(count)]).items():
            report_times(name, times)
            every.setdefault(name, []).extend(times)
    print(f"  all {sum(map(len, every.values())) // max(1, len(every))} hands together")
    for name, times in every.items():
        report_times(name, times)

    if args.self_play_lists > 0:
        self_play(args)
    if args.lists > 0:
        expert_vs_simple(args)
    if args.level_lists > 0:
        level_steps(args)


def self_play(args: argparse.Namespace) -> None:
    print(f"Self-play: {args.self_play_lists} lists of four simple bots (one process, views and bots included)")
    start, cpu = time.perf_counter(), time.process_time()
    rounds = 0
    for i in range(args.self_play_lists):
        rounds += play_list(args.seed + i, ["simple"] * 4, scoring="casual")["rounds"]
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(f"  {args.self_play_lists / elapsed * 60:8.1f} lists per minute of wall time,"
          f" {args.self_play_lists / cpu * 60:.1f} per minute of CPU time ({rounds / cpu:.1f} rounds per CPU second)")


def mean_ci(values: list[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95 % confidence interval (normal approximation)."""
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else float("inf")
    return mean, half


def play_lists(args: argparse.Namespace, jobs: list[tuple[int, str, str]]) -> list:
    if args.workers > 1:
        with multiprocessing.Pool(args.workers) as pool:
            return pool.map(one_against_three, jobs, chunksize=4)
    return [one_against_three(job) for job in jobs]


def report_decisions(level: str, outcomes: list) -> None:
    ms = sorted(t * 1000 for o in outcomes for t in o[6])
    if not ms:
        return
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    print(f"  {level} decision time (view built and action chosen, one core of a worker): {len(ms)} decisions,"
          f" median {statistics.median(ms):.2f} ms, p99 {p99:.2f} ms, worst {ms[-1]:.1f} ms")


NAMES = {"simple": "Anfänger", "advanced": "Fortgeschritten", "expert": "Experte"}


def level_steps(args: argparse.Namespace) -> None:
    """Anfänger < Fortgeschritten < Experte: each level against three of a lower level at Masters tables, as a
    crosstable of the head-to-head comparisons won (its list result against each of the three; a tie half)."""
    print(f"Levels, each against three of a lower level at Masters tables: {args.level_lists} lists per pairing,"
          f" seat rotating; slips by design {bots.SLIPS}; 95 % confidence intervals; a step is met when the upper"
          " level beats the lower in at least 58 % of the head-to-head comparisons (its result against each of"
          " the three), shown when the interval's lower end is at 58 % or above")
    table: dict[tuple[str, str], tuple[float, float]] = {}
    for number, (level, below) in enumerate((("advanced", "simple"), ("expert", "advanced"), ("expert", "simple"))):
        start = time.perf_counter()
        outcomes = play_lists(args, [(args.seed * 1000 + 500_000 + 10_000 * number + i, level, below)
                                     for i in range(args.level_lists)])
        ahead, ahead_ci = mean_ci([o[0] - o[2] for o in outcomes])
        beaten, beaten_ci = mean_ci([o[5] for o in outcomes])
        table[(level, below)] = (beaten, beaten_ci)
        step = below == bots.LEVELS[bots.LEVELS.index(level) - 1]
        verdict = ("shown" if beaten - beaten_ci >= 0.58 else "met, not shown" if beaten >= 0.58 else "not met")
        print(f"  {level:>8} vs {below:<8} ahead of the three by {ahead:6.1f} ± {ahead_ci:.1f} list points per list;"
              f" beats them in {100 * beaten:.1f} % ± {100 * beaten_ci:.1f} % of comparisons"
              f"{f' (the step at 58 %: {verdict})' if step else ''}; {time.perf_counter() - start:.0f} s", flush=True)
        report_decisions(level, outcomes)
    width = 24
    print("level crosstable (row's share of head-to-head comparisons won against the column, 95 % interval):")
    print(" " * 18 + "".join(f"{NAMES[b]:>{width}}" for b in bots.LEVELS))
    for a in bots.LEVELS:
        cells = []
        for b in bots.LEVELS:
            if (a, b) in table:
                share, half = table[(a, b)]
            elif (b, a) in table:
                share, half = table[(b, a)]
                share = 1 - share
            else:
                cells.append(f"{'—':>{width}}")
                continue
            cells.append(f"{f'{100 * share:.1f} % ({100 * (share - half):.0f}–{100 * (share + half):.0f})':>{width}}")
        print(f"  {NAMES[a]:<16}" + "".join(cells))


def expert_vs_simple(args: argparse.Namespace) -> None:
    print(f"Expert vs three simple bots at Masters tables: {args.lists} lists, expert seat rotating,"
          f" {args.workers} worker(s), the lower levels' designed slips {bots.SLIPS}; per list, 95 % confidence"
          " intervals")
    start = time.perf_counter()
    outcomes = play_lists(args, [(args.seed * 1000 + i, "expert", "simple") for i in range(args.lists)])
    elapsed = time.perf_counter() - start
    result, result_ci = mean_ci([o[0] for o in outcomes])
    simple, simple_ci = mean_ci([o[2] for o in outcomes])
    ahead, ahead_ci = mean_ci([o[0] - o[2] for o in outcomes])
    wp, wp_ci = mean_ci([o[1] for o in outcomes])
    first = sum(1 for o in outcomes if o[3] == 1) / len(outcomes)
    first_ci = 1.96 * (first * (1 - first) / len(outcomes)) ** 0.5
    print(f"  expert Wertungspunkte per list {wp:6.2f} ± {wp_ci:.2f}; first place in {100 * first:.0f} % "
          f"± {100 * first_ci:.0f} % of lists (a fair share: 25 %)")
    print(f"  list result (10 x WP - Augen): expert {result:7.1f} ± {result_ci:.1f}, simple {simple:7.1f} "
          f"± {simple_ci:.1f}; expert ahead of the simple mean by {ahead:.1f} ± {ahead_ci:.1f}")
    beaten, beaten_ci = mean_ci([o[5] for o in outcomes])
    print(f"  expert beats a simple bot in {100 * beaten:.1f} % ± {100 * beaten_ci:.1f} % of the head-to-head"
          " comparisons (its result against each of the three)")
    report_decisions("expert", outcomes)
    print(f"  ({elapsed:.1f} s)")


if __name__ == "__main__":
    main()
