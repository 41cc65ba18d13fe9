"""How long the post-match analysis (``games.analysis``) takes: whole matches played by computer players (one
seat careless: a random legal move a third of the time, so its choices differ from the expert's), analysed for
that seat as the site's worker does (``analyse_record`` with the per-decision budget of
``GAMES_ANALYSIS_SECONDS``, the match cap ``MATCH_SECONDS``). Prints per game the time per match and per
decision (median, p99, worst), the share of decisions a deadline cut, and the careless seat's accuracy.

    nice -n 19 .venv/bin/python -m bench.analysis --matches 3 --seconds 0.5
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from games import analysis
from games.engine.gin import bots as gin_bots
from games.engine.gin import match as gin
from games.engine.romme import bots as romme_bots
from games.engine.romme import match as romme


def gin_record(seed: int) -> dict:
    rng = random.Random(seed)
    m = gin.new_match({"target": 100}, rng=rng)
    while not m.over:
        if m.to_act is None:
            m = gin.deal_next_round(m, rng)
            continue
        seat = m.to_act
        view = gin.view(m, seat)
        careless = seat == 0 and rng.random() < 1 / 3
        action = rng.choice(view["legal_actions"]) if careless else gin_bots.choose_action(view, "advanced", rng)
        m = gin.apply_action(m, seat, action)
    return m.record()


def romme_record(seed: int, seats: int) -> dict:
    rng = random.Random(seed)
    m = romme.new_match({"seats": seats}, rng=rng)
    while not m.over:
        if m.to_act is None:
            m = romme.deal_next_round(m, rng)
            continue
        seat = m.to_act
        view = romme.view(m, seat)
        careless = seat == 0 and rng.random() < 1 / 3
        action = rng.choice(view["legal_actions"]) if careless else romme_bots.choose_action(view, "simple", rng)
        m = romme.apply_action(m, seat, action, rng=rng)
    return m.record()


def run(name: str, module: str, records: list[dict], seconds: float) -> None:
    per_match, per_decision, cut, accuracy = [], [], 0, []
    count = 0
    for record in records:
        started = time.perf_counter()
        marks: list[float] = []
        game = __import__(module, fromlist=["analyse"])
        original = game.analyse

        def timed(*args, original=original, marks=marks, **kwargs):
            t = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                marks.append(time.perf_counter() - t)

        game.analyse = timed
        try:
            data = analysis.analyse_record(module, record, [0], seconds=seconds, seed=len(per_match))
        finally:
            game.analyse = original
        per_match.append(time.perf_counter() - started)
        per_decision += marks
        cut += data["cut"]
        count += len(data["decisions"])
        accuracy.append(data["seats"]["0"]["accuracy"])
    ms = sorted(1000 * t for t in per_decision)
    p99 = ms[min(len(ms) - 1, int(0.99 * len(ms)))]
    print(f"{name}: {len(records)} matches, {count} decisions of the careless seat, budget {seconds} s a decision")
    print(f"  per match   median {statistics.median(per_match):6.1f} s   worst {max(per_match):6.1f} s")
    print(f"  per decision median {statistics.median(ms):6.0f} ms  p99 {p99:6.0f} ms  worst {ms[-1]:6.0f} ms; "
          f"cut by the deadline: {cut} of {count}")
    print(f"  the careless seat's accuracy: {', '.join(f'{a} %' for a in accuracy)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=0.5, help="a decision's budget (GAMES_ANALYSIS_SECONDS)")
    parser.add_argument("--seats", type=int, default=4, help="Rommé seats")
    parser.add_argument("--seed", type=int, default=20261205)
    args = parser.parse_args()
    run("gin (to 100)", "games.engine.gin.analysis", [gin_record(args.seed + i) for i in range(args.matches)],
        args.seconds)
    run(f"Rommé ({args.seats} seats, a whole list)", "games.engine.romme.analysis",
        [romme_record(args.seed + i, args.seats) for i in range(args.matches)], args.seconds)


if __name__ == "__main__":
    main()
