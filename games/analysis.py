"""The analysis of a finished match ("Analyse"), computed after the match, off the live path.

For each decision of a person (a seat that no computer played) the game's analysis module names the move the
expert would have made and estimates the cost of the move made, in the game's points, by playouts from that
seat's view at that moment (rebuilt by stepping the record through the engine: nothing the seat could not see
enters). A game offers it through its registry entry (``GameEntry.analysis``: the name of a module with
``decisions(record, seats)`` and ``analyse(view, action, rng, stop=...)``, standard library only), so a third
game plugs in the same way.

:func:`analyse_record` is the whole work for one match, bounded in time: each decision gets at most
``seconds`` of wall-clock time (its playouts stop at the first deal after the deadline, at least one is played),
and the whole match about ``match_seconds`` (the later decisions' budgets shrink to share what is left; once it is
spent each decision plays one deal). The referee's clock runs
it in a worker process of its own (:class:`Analyst`, spawned and niced like the bots' thinker in
``games.thinking``), one match at a time, never on the event loop nor in the referee's pass; ``manage.py
analyse`` runs it in its own process.

Like ``games.thinking`` this module imports nothing of Django: the spawned worker imports it.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import multiprocessing
import os
import random
import threading
import time
from collections.abc import Callable
from typing import Any

logger = logging.getLogger(__name__)

#: A decision whose estimated cost is at most this many points counts as accurate (the playouts' own noise is
#: of that order, so a smaller cost says nothing about the move).
ACCURATE_COST = 3.0
#: The costliest decisions a match's analysis highlights.
HIGHLIGHTS = 3
#: The wall-clock budget of one match's analysis in seconds, all decisions together.
MATCH_SECONDS = 120.0
#: A decision's budget never shrinks below this (the first playout is played whatever the budget).
MIN_DECISION_SECONDS = 0.02
#: The referee's clock analyses matches that ended this many days ago at the most (older: ``manage.py analyse``).
RECENT_DAYS = 30
#: After finding no match to analyse the clock looks again after this many seconds, or sooner when a match
#: has ended since (a cheap check).
IDLE_SECONDS = 30.0
#: The layout of a stored analysis (``MatchAnalysis.data["version"]``).
VERSION = 1


def analyse_record(module: str, record: dict[str, Any], seats: list[int], *, seconds: float,
                   match_seconds: float = MATCH_SECONDS, seed: int = 0, skip: list[list[int]] | None = None,
                   clock: Callable[[], float] = time.monotonic) -> dict[str, Any]:
    """The analysis of a record's decisions by ``seats`` with the game's analysis module ``module``:
    ``{"version", "threshold", "decisions": [...], "seats": {seat: summary}, "top": [decision indexes],
    "seconds", "cut"}``. ``skip``: moves (``[round number, move index]``) that were no decision (the server's
    move for a seat whose time ran out). Deterministic given ``seed`` as long as no deadline cuts a decision
    short."""
    game = importlib.import_module(module)
    started = clock()
    skipped = {(number, index) for number, index in skip or []}
    found = [d for d in game.decisions(record, set(seats)) if (d[0], d[1]) not in skipped]
    out: list[dict[str, Any]] = []
    cut = 0
    for i, (number, index, seat, view, action) in enumerate(found):
        now = clock()
        left = max(0.0, started + match_seconds - now)
        budget = max(MIN_DECISION_SECONDS, min(seconds, left / (len(found) - i)))
        deadline = now + budget

        def stop(deadline: float = deadline) -> bool:
            return clock() >= deadline

        result = game.analyse(view, action, random.Random(seed * 1_000_003 + i), stop=stop)
        if clock() > deadline:
            cut += 1
        out.append({"round": number, "move": index, "seat": seat, "action": action, "best": result["best"],
                    "cost": round(float(result["cost"]), 1), "samples": int(result["samples"])})
    return summarise(out, seats, seconds=round(clock() - started, 2), cut=cut)


def summarise(decisions: list[dict[str, Any]], seats: list[int], *, seconds: float = 0.0,
              cut: int = 0) -> dict[str, Any]:
    """The stored analysis from its decisions: per seat the decisions, how many were accurate (cost at most
    :data:`ACCURATE_COST`), the accuracy in per cent and the points lost; the costliest :data:`HIGHLIGHTS`
    decisions that cost anything (indexes into ``decisions``, costliest first)."""
    per_seat: dict[str, dict[str, Any]] = {}
    for seat in seats:
        mine = [d for d in decisions if d["seat"] == seat]
        accurate = sum(1 for d in mine if d["cost"] <= ACCURATE_COST)
        per_seat[str(seat)] = {
            "decisions": len(mine),
            "accurate": accurate,
            "accuracy": round(100.0 * accurate / len(mine)) if mine else None,
            "lost": round(sum(d["cost"] for d in mine), 1),
        }
    costly = sorted((i for i, d in enumerate(decisions) if d["cost"] > 0),
                    key=lambda i: (-decisions[i]["cost"], i))[:HIGHLIGHTS]
    return {"version": VERSION, "threshold": ACCURATE_COST, "decisions": decisions, "seats": per_seat,
            "top": costly, "seconds": seconds, "cut": cut}


def _work(conn: Any, module: str, record: dict[str, Any], seats: list[int], seconds: float, seed: int,
          skip: list[list[int]]) -> None:
    """In the worker process: the analysis, or why it failed, sent back through ``conn``."""
    with contextlib.suppress(OSError):  # a platform without nice
        os.nice(19)  # the analysis yields to the site
    try:
        conn.send(("ok", analyse_record(module, record, seats, seconds=seconds, seed=seed, skip=skip)))
    except Exception as exc:  # noqa: BLE001 - the referee stores the reason
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


class AnalysisFailed(Exception):
    """What the worker said went wrong (or that it died)."""


class Analyst:
    """The referee's analyses: one match at a time, each in a fresh worker process of its own (spawned, not
    forked: the serving process has threads a fork would copy; a daemon at the lowest CPU priority, so that
    stopping the site does not wait for it, and a fresh one per match keeps the meld solvers' memos from
    growing). :meth:`start` hands a match over, :meth:`done` gives back what finished."""

    def __init__(self) -> None:
        self._job: tuple[int, Any, Any] | None = None
        self._lock = threading.Lock()
        #: When the clock last found nothing to analyse (the site's time), and when it looks again regardless.
        self.idle_since: Any = None
        self.look_again_at = 0.0
        #: Until when the clock's looks after one that found nothing walk only the matches that ended since.
        self.narrow_until = 0.0

    def busy(self) -> bool:
        with self._lock:
            return self._job is not None

    def start(self, match_id: int, *, module: str, record: dict[str, Any], seats: list[int], seconds: float,
              skip: list[list[int]] | None = None) -> None:
        context = multiprocessing.get_context("spawn")
        with self._lock:
            if self._job is not None:
                raise RuntimeError("the analyst is busy with another match")
            receive, send = context.Pipe(duplex=False)
            process = context.Process(target=_work, args=(send, module, record, seats, seconds, match_id, skip or []),
                                      daemon=True, name=f"analysis-{match_id}")
            process.start()
            send.close()
            self._job = (match_id, process, receive)

    def done(self) -> tuple[int, dict[str, Any] | BaseException] | None:
        """``(match id, analysis or the exception)`` of the finished job (taken out), or None: none, or still
        running."""
        with self._lock:
            if self._job is None:
                return None
            match_id, process, receive = self._job
            outcome: dict[str, Any] | BaseException
            if receive.poll():
                try:
                    kind, value = receive.recv()
                except EOFError:
                    kind, value = "error", f"the worker process ended without an answer ({process.exitcode})"
                outcome = value if kind == "ok" else AnalysisFailed(value)
            elif not process.is_alive():
                outcome = AnalysisFailed(f"the worker process died ({process.exitcode})")
            else:
                return None
            self._job = None
        receive.close()
        process.join(timeout=5)
        return match_id, outcome

    def shutdown(self) -> None:
        """Stop the running analysis, if any (its match waits for the next one)."""
        with self._lock:
            job, self._job = self._job, None
        if job is not None:
            _, process, receive = job
            process.terminate()
            process.join(timeout=5)
            receive.close()
