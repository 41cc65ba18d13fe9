"""What a table's state frames cost on their way between two daphne processes (issue 24), CPU only.

On the scaled stack the two seats of a table sit on two processes, and the turn passes between them. Each change's
frames are wired by the process that made it (``events.wire``: texts, digest, the delta where it sent the group
the version before), packed per receiving socket with msgpack as channels-redis does, unpacked by the receiving
process, and turned into what the socket sends (the sender's delta, or one made here with
``events.delta_received``, or the whole text), as ``TableConsumer.table_frame`` does. This plays a gin match with
two simple bots through that path, process A for seat 0's moves and socket, process B for seat 1's, and times
the whole path per change, in two modes in the same run:

- ``parts``: as the site sends them now, each state's parts travel with it (``StateParts.wired``);
- ``text``: the parts stripped from every message on the way, so the receiving process parses the text again
  (what the site did before).

It prints the CPU per change of each mode (median of ``--repeats``), the ratio, and how many frames each socket
got as a delta or whole; both modes must hand every socket the very same states.

    .venv/bin/python -m bench.delta_relay
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from typing import Any

import msgpack


def _frames(rounds: int, seed: int) -> list[tuple[int, list[dict[str, Any]]]]:
    """Each change of a gin match of simple bots: the seat that made it, and its frames (seat 0, seat 1,
    public) shaped as the site's (``type``, ``version``, ``table``, the engine's ``view``)."""
    from games.engine.gin import bots
    from games.engine.gin import match as gin

    rng = random.Random(seed)
    m = gin.new_match({"target": 200}, seats=2, rng=rng)
    table = {"id": 7, "game": "gin", "status": "playing", "options": {"target": 200, "turn_seconds": 45},
             "seats": [{"index": 0, "user_id": 1, "name": "anna", "bot": None},
                       {"index": 1, "user_id": 2, "name": "ben", "bot": None}]}
    out = []
    version = 0
    while not m.over and m.round_number <= rounds:
        if m.to_act is None:
            m = gin.deal_next_round(m, rng)
            mover = 0
        else:
            mover = m.to_act
            m = gin.apply_action(m, m.to_act, bots.choose_action(gin.view(m, m.to_act), "simple", rng), rng=rng)
        version += 1
        out.append((mover, [{"type": "state", "version": version, "table": table, "view": gin.view(m, seat)}
                            for seat in (0, 1, None)]))
    return out


class _Socket:
    def __init__(self, user: int):
        self.user, self.base, self.deltas, self.wholes = user, None, 0, 0
        self.state: dict | None = None


def relay(changes: list[tuple[int, list[dict[str, Any]]]], *, parts: bool,
          check: bool = False) -> tuple[list[_Socket], list[dict]]:
    """Every change through the path (see the module), returning the sockets and (``check``: the client's
    side played too, not timed) the states they hold after each change."""
    from games.delivery import events

    processes = [events._LastSent(), events._LastSent()]
    sockets = [_Socket(1), _Socket(2)]
    held = []
    for mover, frames in changes:
        groups = [events.user_group(7, 1), events.user_group(7, 2), events.public_group(7)]
        events._last_sent = processes[mover]
        wired = events.wire([(group, {"type": "table.frame", "audience": "public" if frame["view"] is None
                                      or group.endswith("public") else "user", "frame": frame})
                             for group, frame in zip(groups, frames, strict=True)])
        for index, socket in enumerate(sockets):
            message = dict(wired[index][1])
            if not parts:
                message.pop("parts", None)
            message = msgpack.unpackb(msgpack.packb(message))  # channels-redis, to the socket's process
            events._last_sent = processes[index]
            group = groups[index]
            if message.get("delta") is not None and message.get("base") == socket.base:
                events.state_noted(group, message)
                text = message["delta"]
            elif socket.base is not None:
                text = events.delta_received(group, message, socket.base) or message["text"]
            else:
                text = message["text"]
            socket.base = message["digest"]
            if not check:
                continue
            frame = json.loads(text)  # the client's side, to check what it holds
            if frame["type"] == "delta":
                socket.deltas += 1
                assert socket.state is not None
                socket.state = events.apply_delta(socket.state, frame)
            else:
                socket.wholes += 1
                socket.state = frame
            held.append(socket.state)
    return sockets, held


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the match played")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    import django

    django.setup()
    changes = _frames(args.rounds, args.seed)
    results = {}
    for mode in ("text", "parts"):
        sockets, held = relay(changes, parts=mode == "parts", check=True)
        results[mode] = {"held": held, "deltas": [s.deltas for s in sockets], "wholes": [s.wholes for s in sockets]}
    assert results["text"]["held"] == results["parts"]["held"], "both modes hand the sockets the same states"
    times: dict[str, list[float]] = {"text": [], "parts": []}
    for _ in range(args.repeats):
        for mode in ("text", "parts"):  # taking turns, so both meet the same machine
            start = time.process_time()
            relay(changes, parts=mode == "parts")
            times[mode].append((time.process_time() - start) / len(changes))
    cpu = {mode: statistics.median(values) * 1e6 for mode, values in times.items()}
    print(f"gin, {len(changes)} changes over {args.rounds} rounds, two processes taking turns")
    for mode in ("text", "parts"):
        print(f"  {mode:5}  {cpu[mode]:7.1f} µs of CPU per change (both processes); frames per socket "
              f"as a delta {results[mode]['deltas']}, whole {results[mode]['wholes']}")
    print(f"  parts / text: {cpu['parts'] / cpu['text']:.2f}")


if __name__ == "__main__":
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ginsite.settings")
    main()
