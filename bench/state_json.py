"""What loading and saving the table row's match state costs per move (issue 24), whole against compact.

Every move reads the state from the table row (the JSON text decoded, ``Match.from_json``) and writes it back
(``to_json``, encoded): this times that round trip, CPU only, for a state in round 1 and one in round ``--round``
(gin: two simple bots, target 200; Rommé: four, one list long enough), stored whole (``to_json()``, the site
before issue 24) and as the site stores it now (the entry's ``stored_state``: the record of the last finished round
only). Prints the size of each stored state and the CPU per load+save (median of ``--repeats`` runs), and the
ratio compact / whole in the same run.

    .venv/bin/python -m bench.state_json --round 8
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from games.engine.gin import bots as gin_bots
from games.engine.gin import match as gin
from games.engine.romme import bots as romme_bots
from games.engine.romme import match as romme

GAMES: dict[str, tuple[Any, Any, dict[str, Any], int]] = {
    "gin": (gin, gin_bots, {"target": 200}, 2),
    "romme": (romme, romme_bots, {"seats": 4, "rounds": 16}, 4),
}


def state_in_round(game: str, number: int) -> Any:
    """A match played by simple bots until round ``number`` is dealt and a few moves into it (the first seed
    whose match gets there)."""
    engine, bots, options, seats = GAMES[game]
    for seed in range(100):
        m = _played(engine, bots, options, seats, number, random.Random(seed))
        if m is not None:
            return m
    raise RuntimeError(f"no {game} match of the first 100 seeds reached round {number}")


def _played(engine: Any, bots: Any, options: dict[str, Any], seats: int, number: int, rng: random.Random) -> Any:
    m = engine.new_match(options, seats=seats, rng=rng)
    while True:
        if m.over:
            return None
        if m.to_act is None:
            m = engine.deal_next_round(m, rng)
            continue
        if m.round_number == number and len(m.to_json()["round"]["moves"]) >= 6:
            return m
        action = bots.choose_action(engine.view(m, m.to_act), "simple", rng)
        m = engine.apply_action(m, m.to_act, action, rng=rng)


def cpu_per_call(work: Callable[[], Any], repeats: int, inner: int = 200) -> float:
    """Median CPU seconds of one call of ``work`` over ``repeats`` runs of ``inner`` calls."""
    times = []
    for _ in range(repeats):
        start = time.process_time()
        for _ in range(inner):
            work()
        times.append((time.process_time() - start) / inner)
    return statistics.median(times)


def measure(game: str, number: int, repeats: int) -> dict[str, Any]:
    engine = GAMES[game][0]
    m = state_in_round(game, number)
    out: dict[str, Any] = {"game": game, "round": m.round_number}
    for form, keep in (("whole", None), ("compact", 1)):
        text = json.dumps(m.to_json(keep_records=keep))

        def load_save(text: str = text, keep: int | None = keep) -> str:
            return json.dumps(engine.Match.from_json(json.loads(text)).to_json(keep_records=keep))

        assert load_save() == text
        out[form] = {"bytes": len(text), "ms": cpu_per_call(load_save, repeats) * 1000}
    out["ratio"] = out["compact"]["ms"] / out["whole"]["ms"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--round", type=int, default=8, help="the round of the later state (default 8)")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    for game in GAMES:
        for number in (1, args.round):
            r = measure(game, number, args.repeats)
            print(f"{game:6} round {r['round']:2}: whole {r['whole']['bytes'] / 1000:5.1f} KB "
                  f"{r['whole']['ms']:.3f} ms, compact {r['compact']['bytes'] / 1000:5.1f} KB "
                  f"{r['compact']['ms']:.3f} ms CPU per load+save (compact/whole {r['ratio']:.2f})")


if __name__ == "__main__":
    main()
