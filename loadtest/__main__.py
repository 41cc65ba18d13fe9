"""``python -m loadtest``: the site and the bare stack under the same load, in the same run, side by side.

    python -m loadtest                                  # every profile on both stacks (what `make loadtest` runs)
    python -m loadtest --profile ceiling --stack embedded --seconds 20
    python -m loadtest --profile evening --tables 500 --stack scaled
    python -m loadtest --profile burst --tables 500
    python -m loadtest --profile arena --stack embedded --players 1000 --seconds 150

Profiles: ``ceiling`` (closed loop: each table moves as soon as the last move reached both seats),
``evening`` (a move every ``--think`` seconds per table, connects spread over ``--ramp`` seconds) and
``burst`` (every socket connects at once, then the evening's pace), ``tournament`` (a gin Swiss started by
staff) and ``arena`` (a gin arena of ``--players``, paired by the referee on its clock, each table played
to its end at a move every ``--think`` seconds, re-paired as it ends; no bare counterpart). Everything listens on 127.0.0.1 only and
stops by itself; each stack runs alone on the machine while it is measured. The ceiling runs three rounds of
each side and the evening two, the sides taking turns, each side's rounds taken together (``_run_rounds``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import resource
import signal
import sys
import threading
import time

from loadtest import players, servers, stages

PROFILES = {
    # tables, think seconds (None: set from the bare stack's ceiling, see --fraction), ramp seconds, seconds
    # of play, seconds before the measured window (the ceiling and the evening: per round, ``--ceiling-rounds``
    # and ``--evening-rounds``)
    "ceiling": {"tables": 20, "think": 0.0, "ramp": 0.0, "seconds": 20.0, "warmup": 3.0},
    "evening": {"tables": 500, "think": None, "ramp": 10.0, "seconds": 40.0, "warmup": 12.0},
    "burst": {"tables": 500, "think": None, "ramp": 0.0, "seconds": 20.0, "warmup": 5.0},
    # 2 × tables players in a gin Swiss started by staff; the bare stack's counterpart is the burst
    "tournament": {"tables": 500, "think": None, "ramp": 0.0, "seconds": 20.0, "warmup": 5.0},
    # 2 × tables players in a gin arena (issue 30), paired by the referee on its clock; no bare counterpart
    # and its goals absolute, but its pace set from the bare ceiling as the others' (a fixed "a move every 3 s"
    # was 85 % of the bare ceiling on a machine 2.5× slower than the one it was chosen on: overload)
    "arena": {"tables": 500, "think": None, "ramp": 0.0, "seconds": 180.0, "warmup": 20.0},
}

#: Issue 24's goals: each a ratio to the bare stack in the same run (a figure outside is marked, the run
#: goes on; the exit code is 1).
GOALS = {
    "ceiling": {"ratio": 0.70, "cpu": 1.5},
    "evening": {"failed": 0, "dropped": 0, "p99": 2.0, "connect_p99": 1.5},
    "burst": {"failed": 0, "dropped": 0, "p99": 2.0, "connect_p99": 1.5},
    "tournament": {"failed": 0, "dropped": 0, "p99": 2.0, "connect_p99": 1.5, "start_seconds": 5.0},
}
#: Issue 30's goals for the arena, absolute (it has no bare counterpart): a pairing pass's server time p99,
#: the most passes a player stays free while another free player exists.
ARENA_GOALS = {"pass_p99": 1.0, "passes_free": 2}


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:.1f} ms"


def _raise_file_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = min(hard, 65536) if hard != resource.RLIM_INFINITY else 65536
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def _cpu_busy(seconds: float = 1.0) -> float:
    """The share of the machine's CPU time in use over ``seconds`` (what others run, before we start)."""

    def read():
        with open("/proc/stat") as fh:
            values = [int(v) for v in fh.readline().split()[1:]]
        idle = values[3] + values[4]
        return sum(values), idle

    total0, idle0 = read()
    time.sleep(seconds)
    total1, idle1 = read()
    return 1 - (idle1 - idle0) / max(1, total1 - total0)


@contextlib.contextmanager
def no_collector_pauses():
    """The load generator's garbage collector off while it drives a stack (and what it held before frozen out
    of later collections), then on again and run once. One process drives 1,000 sockets of both stacks in turn:
    its collections paused every socket at once (full ones 120-442 ms, the later and longer ones in the site's
    part of a run), and its moves went out in bursts after each pause (docs/scale.md, "The scaled evening's
    tail and the collector"). Real clients are separate machines that never stall together."""
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.unfreeze()
        gc.collect()


def _cpu_readings(srv: servers.Servers) -> tuple[float, float, float, float]:
    """CPU seconds used so far by: the stack's own processes (daphne, the referee), this load generator, the
    shared services (PostgreSQL, PgBouncer, Redis) and the whole machine. The embedded stack uses no service:
    what they spend meanwhile is someone else's (another test run on the machine), not counted."""
    services = servers.services_cpu_seconds() if srv.stack == "scaled" else 0.0
    return srv.cpu_seconds(), time.process_time(), services, servers.machine_cpu_seconds()


def _cpu_line(kind: str, changes: int, cpu: tuple[float, ...]) -> str:
    """CPU per change: the stack's processes, the services, the load generator and the whole machine."""
    server, client, services, machine = (seconds / changes * 1000 for seconds in cpu)
    return (f"  {kind} CPU per change (all {changes} moves and readies of the run): server {server + services:.2f} ms "
            f"(daphne and referee {server:.2f}, database and Redis {services:.2f}), load generator {client:.2f} ms; "
            f"whole machine {machine:.2f} ms")


def _plan(profile: dict, now: float) -> players.Plan:
    return players.Plan(think=profile["think"], ramp=profile["ramp"], start_at=now,
                        measure_from=now + profile["warmup"], stop_at=now + profile["seconds"])


async def _drive(kind: str, tables_info, ports: list[int], profile: dict, seed: int, between=None):
    figures = players.Figures()
    rng = random.Random(seed)
    if kind == "site":
        tables = [players.SiteTable(i, t, ports, figures, random.Random(rng.random())) for i, t in enumerate(tables_info)]
    else:
        tables = [players.BareTable(i, ports, figures, random.Random(rng.random())) for i in range(tables_info)]
    await players.drive(tables, _plan(profile, time.perf_counter()), figures, between)
    return figures, tables


async def _drive_tournament(info: dict, ports: list[int], profile: dict, seed: int, between=None):
    figures = players.Figures()

    def start() -> int:
        return players.post_start(ports[0], info["tournament"], info["staff"])

    start_figures, tables = await players.drive_tournament(
        info, ports, lambda now: _plan(profile, now), figures, start, random.Random(seed), between=between)
    return figures, tables, start_figures


def _run_one(kind: str, stack: str, name: str, profile: dict, workdir, args, *, round_no: int = 0) -> dict:
    """Seed, serve, drive and stop one stack for one profile; returns its figures (and the check). With
    ``--stages`` only the first round (``round_no`` 0) is traced."""
    n = profile["tables"]
    start_figures = None
    trace = None
    if args.stages and round_no == 0:
        trace = workdir / f"stages-{stack}-{name}"
        trace.mkdir(exist_ok=True)
        stages.client = True
    if kind == "bare":
        bare = servers.BareStack(stack, workdir, backlog=args.backlog)
        bare.seed(n)
        srv = bare.start(trace)
        info = n
    else:
        site = args._sites.setdefault(stack, servers.SiteStack(stack, workdir, referee=args.referee,
                                                               backlog=args.backlog))
        prefix = f"{name[:2]}{int(time.time()) % 100000}x"
        info = site.seed_tournament(2 * n, prefix) if name == "tournament" else site.seed(n, prefix)
        srv = site.start(trace)
    busy = os.getloadavg()[0]
    try:
        srv.settle()  # every process started up, the referee too: its start is not the run's
        cpu = _cpu_readings(srv)
        steal = servers.machine_steal()
        # Traced: each server's census (stages.census) once the play is over, every socket still open.
        between = (lambda: stages.ask_census(srv.processes, trace, kind)) if trace is not None else None
        with no_collector_pauses():
            if kind == "site" and name == "tournament":
                figures, tables, start_figures = asyncio.run(
                    _drive_tournament(info, srv.ports, profile, args.seed, between))
            else:
                figures, tables = asyncio.run(_drive(kind, info, srv.ports, profile, args.seed, between))
        cpu = tuple(now - then for now, then in zip(_cpu_readings(srv), cpu, strict=True))
        stolen = servers.stolen_share(steal, servers.machine_steal())
    finally:
        srv.stop()
    result = {"figures": figures, "load": busy, "server_errors": srv.errors_logged(),
              "cpu": cpu, "start": start_figures, "steal": stolen}
    if trace is not None:
        stages.flush(trace / f"{kind}-client.jsonl")
        result["stages"] = stages.summary(stages.read(trace, kind), kind)
        result["stages"]["census"] = stages.censuses(trace, kind)
    if result["server_errors"] and args.verbose:
        print(srv.log_tail(), file=sys.stderr)
    if kind == "site":
        result["check"] = site.verify({str(t.id): t.record() for t in tables}, f"{stack}-{name}-{round_no}")
    return result


def _run_rounds(stack: str, name: str, profile: dict, workdir, args) -> tuple[dict, list[dict]]:
    """``profile["rounds"]`` rounds of each side (``--only``: one), their order alternating (bare then site,
    site then bare, bare then site, ...): the host's steal and the machine's drift come and go within minutes
    (docs/scale.md, "The host's steal"), so a side measured in one stretch of time and the other in the next
    can differ by the host alone; interleaved, both sides sample the same stretches. Returns every side's
    rounds taken together (``_together``) and the rounds as they were."""
    kinds = [kind for kind in ("bare", "site") if not args.only or args.only == kind]
    rounds = []
    for round_no in range(max(1, profile.get("rounds", 1))):
        order = kinds if round_no % 2 == 0 else kinds[::-1]
        done = {kind: _run_one(kind, stack, name, profile, workdir, args, round_no=round_no) for kind in order}
        rounds.append({kind: done[kind] for kind in kinds})
    return _together(rounds), rounds


def _together(rounds: list[dict]) -> dict:
    """Each side's rounds as one run: moves/s over the windows of all of them, quantiles over all their
    samples, CPU over all their changes, the checks added up; the steal the rounds' mean (their windows are of
    one length); the load average and the traced stages of the first round."""
    if len(rounds) == 1:
        return rounds[0]
    together = {}
    for kind in rounds[0]:
        runs = [r[kind] for r in rounds]
        figures = players.Figures()
        for run in runs:
            figures.absorb(run["figures"])
        steals = [run["steal"] for run in runs if run.get("steal") is not None]
        merged = {"figures": figures, "load": runs[0]["load"],
                  "server_errors": sum(run["server_errors"] for run in runs),
                  "cpu": tuple(sum(parts) for parts in zip(*(run["cpu"] for run in runs), strict=True)),
                  "start": runs[0]["start"], "steal": sum(steals) / len(steals) if steals else None}
        if "stages" in runs[0]:
            merged["stages"] = runs[0]["stages"]
        if "check" in runs[0]:
            check = {key: sum(run["check"][key] for run in runs) for key in runs[0]["check"] if key != "examples"}
            check["examples"] = [example for run in runs for example in run["check"]["examples"]][:5]
            merged["check"] = check
        together[kind] = merged
    return together


def _round_lines(rounds: list[dict]) -> list[str]:
    """One line per round when there were several: each side's moves/s, CPU per change and steal, and the
    round's own site ÷ bare, in the order the rounds ran."""
    if len(rounds) < 2:
        return []
    lines = []
    for i, r in enumerate(rounds, 1):
        parts = []
        for kind in r:
            f, cpu, steal = r[kind]["figures"], _cpu_per_change(r[kind]), r[kind].get("steal")
            parts.append(f"{kind} {f.moves_per_second:.0f} moves/s" + (f", CPU {cpu * 1000:.2f} ms" if cpu else "")
                         + (f", steal {steal:.1%}" if steal is not None else ""))
        if "bare" in r and "site" in r and r["bare"]["figures"].moves_per_second:
            parts.append(f"site/bare {r['site']['figures'].moves_per_second / r['bare']['figures'].moves_per_second:.2f}×")
        lines.append(f"  round {i}: " + "; ".join(parts))
    return lines


def _run_arena(stack: str, profile: dict, workdir, args) -> dict:
    """The arena profile on ``stack``: seed an arena and its players, serve, open every notice socket,
    register everyone and start it through the staff page, let the referee pair them on its clock and the
    players play what they are told until the time is up; then read the referee's passes from the servers'
    logs and check the records."""
    players_count = 2 * profile["tables"]
    site = args._sites.setdefault(stack, servers.SiteStack(stack, workdir, referee=args.referee,
                                                           backlog=args.backlog))
    prefix = f"ar{int(time.time()) % 100000}x"
    # Long enough that its last minutes (no pairing) never fall into the run.
    minutes = min(240, max(20, int(profile["seconds"] / 60) + 10))
    info = site.seed_arena(players_count, prefix, minutes)
    srv = site.start(log_level="INFO")  # the referee's pass lines (tournaments.passes) are INFO
    busy = os.getloadavg()[0]
    figures = players.Figures()
    try:
        srv.settle()  # every process started up, the referee too: its start is not the run's
        cpu = _cpu_readings(srv)
        steal = servers.machine_steal()

        def register() -> None:
            site.register_arena(info["tournament"], [p["user"] for p in info["players"]])

        def start() -> int:
            return players.post_start(srv.ports[0], info["tournament"], info["staff"])

        with no_collector_pauses():
            stats, tables = asyncio.run(players.drive_arena(info, srv.ports, lambda now: _plan(profile, now), figures,
                                                            register, start, random.Random(args.seed)))
        cpu = tuple(now - then for now, then in zip(_cpu_readings(srv), cpu, strict=True))
        stolen = servers.stolen_share(steal, servers.machine_steal())
    finally:
        srv.stop()
    passes = [p for p in srv.arena_passes() if p["tournament"] == info["tournament"]]
    result = {"figures": figures, "load": busy, "server_errors": srv.errors_logged(),
              "cpu": cpu, "start": None, "arena": stats, "passes": passes, "steal": stolen}
    if result["server_errors"] and args.verbose:
        print(srv.log_tail(), file=sys.stderr)
    result["check"] = site.verify({str(t.id): t.record() for t in tables}, f"{stack}-arena")
    result["arena_check"] = site.verify_arena(
        {"tournament": info["tournament"], "stop": stats.stop_wall, "start_end": stats.start_wall,
         "passes": [[p["at"], p["seconds"]] for p in passes], "told": stats.told}, f"{stack}-arena")
    return result


def _arena_report(stack: str, profile: dict, r: dict) -> list[str]:
    f, a, c, ac = r["figures"], r["arena"], r["check"], r["arena_check"]
    seconds = [p["seconds"] for p in r["passes"]]
    seating = [p for p in r["passes"] if p["tables"]]
    gaps = [b["at"] - a["at"] for a, b in zip(r["passes"], r["passes"][1:], strict=False)]
    q = players.quantile
    lines = [
        f"=== arena: a gin arena of {a.players} players ({profile['tables']} tables at a time), paired by the "
        f"referee on its clock, a move per {profile['think']:.2f} s per table"
        f"{' (' + profile['pace'] + ')' if profile.get('pace') else ''}, {profile['seconds']:g} s of play "
        f"— {servers.STACKS[stack]['label']}",
        "  (no bare counterpart: the arena's goals are absolute, issue 30's)",
        f"  start: {a.notice_sockets} of {a.players} notice sockets open; everyone registered in "
        f"{_ms(a.register_seconds)}, then the staff start answered {a.start_status} in {_ms(a.start_seconds)} "
        f"(it seats everyone present at once: the arena's first pass, not among the referee's passes below)",
        f"  pairing passes: {len(seconds)} (of them {len(seating)} seated someone: "
        f"{sum(p['seated'] for p in r['passes'])} players at {sum(p['tables'] for p in r['passes'])} tables, "
        f"the most in one pass {max((p['seated'] for p in r['passes']), default=0)}); server time per pass "
        f"p50 {_ms(q(seconds, .5))}, p99 {_ms(q(seconds, .99))}, most {_ms(max(seconds, default=None))}; "
        f"from one pass's start to the next's p50 {_ms(q(gaps, .5))}, most {_ms(max(gaps, default=None))} "
        f"(a pass runs on a tick of the referee, GAMES_TICK_SECONDS, when someone is free)",
        f"  tables: {ac['tables']} opened, {a.matches} played to their end, {a.unfinished} still playing at the "
        f"stop; players paired {ac['paired']} of {ac['players']}, twice or more {ac['paired_twice']}",
        f"  told: from a table's opening to each player's table_ready p50 {_ms(ac['told_p50'])}, p99 "
        f"{_ms(ac['told_p99'])} (the start's tables: p50 {_ms(ac['told_start_p50'])}, p99 "
        f"{_ms(ac['told_start_p99'])}); table_ready to holding the table's state p50 "
        f"{_ms(q(a.to_table, .5))}, p99 {_ms(q(a.to_table, .99))}; a match's end to the next table_ready p50 "
        f"{_ms(q(a.wait, .5))}, p99 {_ms(q(a.wait, .99))}, most {_ms(max(a.wait, default=None))}",
        f"  free: the most passes a player stayed free while another was free too: {ac['most_passes_free']} "
        f"(over {ac['passes']} passes before the stop); the longest anyone was free: {ac['longest_free']:.1f} s; "
        f"live-part fetches of players waiting over {players.ARENA_REFRESH:g} s: {a.refreshes}",
        f"{'':<12}{'moves/s':>9}{'move p50':>12}{'move p99':>12}{'connect p50':>13}{'connect p99':>13}"
        f"{'failed':>8}{'errors':>8}",
        _line("site", f),
    ]
    if f.error_kinds:
        lines.append(f"  site errors: {json.dumps(f.error_kinds, sort_keys=True)}")
    if r["server_errors"]:
        lines.append(f"  site server log: {r['server_errors']} error lines")
    lines.append(
        f"  check: {c['seen']} moves seen by both seats, {c['logged']} in the move log; lost {c['lost']}, "
        f"applied twice {c['twice']}, unknown {c['unknown']}, not by a player {c['not_player']}, "
        f"sockets behind the table {c['behind']}" + (f" {c['examples']}" if c["examples"] else ""))
    lines.append(
        f"  arena check: {ac['recorded']} ends recorded, {ac['unrecorded']} ended but not recorded, "
        f"{ac['at_two_tables']} players at two tables at once, {ac['not_told']} tables not told to both players, "
        f"{ac['told_wrong']} told to someone not seated" + (f" {ac['examples']}" if ac["examples"] else ""))
    changes = f.all_moves + f.other_changes
    if changes:
        lines.append(_cpu_line("site", changes, r["cpu"]).replace("of the run)", "of the run, pairing included)"))
    lines.extend(_arena_goals(r))
    lines.append(f"  machine load average (1 min) at start: {r['load']:.1f}")
    lines.extend(_steal_lines({"site": r}))
    return lines


def _arena_goals(r: dict) -> list[str]:
    f, a, c, ac = r["figures"], r["arena"], r["check"], r["arena_check"]
    seconds = [p["seconds"] for p in r["passes"]]
    p99 = players.quantile(seconds, .99)
    out = [
        f"pairing pass p99 ≤ {ARENA_GOALS['pass_p99']:g} s of server time ({_ms(p99)} over {len(seconds)} "
        f"passes): {_mark(p99 is not None and p99 <= ARENA_GOALS['pass_p99'])}",
        f"nobody free for more than {ARENA_GOALS['passes_free']} passes while another free player exists "
        f"(the most: {ac['most_passes_free']}): "
        f"{_mark(ac['passes'] > 0 and ac['most_passes_free'] <= ARENA_GOALS['passes_free'])}",
        f"0 failed connects ({f.failed_connects} failed, {a.partner_missing} tables a player never came to): "
        f"{_mark(f.failed_connects == 0 and a.partner_missing == 0)}",
        f"0 dropped (sockets closed by the server, moves or frames that never arrived: {f.errors}): "
        f"{_mark(f.errors == 0)}",
    ]
    clean = (c["lost"] == 0 and c["twice"] == 0 and c["unknown"] == 0 and c["behind"] == 0
             and ac["unrecorded"] == 0 and ac["at_two_tables"] == 0 and ac["not_told"] == 0 and ac["told_wrong"] == 0)
    out.append(f"nothing lost (moves, ends recorded, tables told, one table at a time): {_mark(clean)}")
    return ["  goal: " + line for line in out]


def _cpu_per_change(result: dict) -> float | None:
    f = result["figures"]
    changes = f.all_moves + f.other_changes
    # The server's CPU: its own processes and the services they use (PostgreSQL, PgBouncer, Redis): on a machine
    # that runs them all, what one stack saves in daphne by leaving work to the database still counts.
    return (result["cpu"][0] + result["cpu"][2]) / changes if changes else None


def _cpu_parts(result: dict) -> dict | None:
    """Seconds of CPU per change, by whom: the stack's processes, the load generator, the services, the machine."""
    f = result["figures"]
    changes = f.all_moves + f.other_changes
    if not changes:
        return None
    return dict(zip(("server", "load_generator", "services", "machine"),
                    (seconds / changes for seconds in result["cpu"]), strict=True))


def _line(label: str, f: players.Figures) -> str:
    return (f"{label:<12}{f.moves_per_second:>9.0f}{_ms(players.quantile(f.latency, .5)):>12}"
            f"{_ms(players.quantile(f.latency, .99)):>12}{_ms(players.quantile(f.connect, .5)):>13}"
            f"{_ms(players.quantile(f.connect, .99)):>13}{f.failed_connects:>8}{f.errors:>8}")


def _report(name: str, stack: str, profile: dict, results: dict, rounds: list[dict] | None = None) -> list[str]:
    pace = "closed loop" if not profile["think"] else f"a move per {profile['think']:.2f} s per table"
    if profile.get("pace"):
        pace += f" ({profile['pace']})"
    ramp = f", connects over {profile['ramp']:g} s" if profile["ramp"] else ", all sockets at once"
    what = f"{profile['tables']} tables ({2 * profile['tables']} sockets)"
    times = profile.get("rounds", 1)
    if name == "tournament":
        what = (f"a {2 * profile['tables']}-player gin Swiss started by staff ({profile['tables']} tables), "
                f"bare stack: the same sockets as a burst")
    lines = [
        f"=== {name}: {what}, {pace}{ramp}, "
        f"{profile['seconds']:g} s ({profile['seconds'] - profile['warmup']:g} s measured)"
        + (f" × {times} rounds per side, alternating, taken together" if times > 1 else "")
        + f" — {servers.STACKS[stack]['label']}",
        f"{'':<12}{'moves/s':>9}{'move p50':>12}{'move p99':>12}{'connect p50':>13}{'connect p99':>13}"
        f"{'failed':>8}{'errors':>8}",
    ]
    for kind, label in (("bare", "bare stack"), ("site", "site")):
        if kind in results:
            lines.append(_line(label, results[kind]["figures"]))
    if "bare" in results and "site" in results:  # (a ratio line, then the rounds below it)
        b, s = results["bare"]["figures"], results["site"]["figures"]
        def ratio(x, y):
            return f"{x / y:.2f}×" if x is not None and y else "-"
        lines.append(f"{'site/bare':<12}{ratio(s.moves_per_second, b.moves_per_second):>9}"
                     f"{ratio(players.quantile(s.latency, .5), players.quantile(b.latency, .5)):>12}"
                     f"{ratio(players.quantile(s.latency, .99), players.quantile(b.latency, .99)):>12}"
                     f"{ratio(players.quantile(s.connect, .5), players.quantile(b.connect, .5)):>13}"
                     f"{ratio(players.quantile(s.connect, .99), players.quantile(b.connect, .99)):>13}")
    lines.extend(_round_lines(rounds or []))
    start = results.get("site", {}).get("start")
    if start is not None:
        lines.append(
            f"  start: {start.notice_sockets} of {start.players} notice sockets open; staff start answered "
            f"{start.start_status} in {_ms(start.start_seconds)}; table_ready to {len(start.told)} "
            f"(not told {start.not_told}), from the start: p50 {_ms(players.quantile(start.told, .5))}, "
            f"p99 {_ms(players.quantile(start.told, .99))}, last {_ms(max(start.told, default=None))}; "
            f"{start.tables} tables seated")
    for kind in ("bare", "site"):
        if kind in results:
            f = results[kind]["figures"]
            if f.error_kinds:
                lines.append(f"  {kind} errors: {json.dumps(f.error_kinds, sort_keys=True)}")
            if results[kind]["server_errors"]:
                lines.append(f"  {kind} server log: {results[kind]['server_errors']} error lines")
    if "site" in results:
        c = results["site"]["check"]
        lines.append(
            f"  check: {c['seen']} moves seen by both seats, {c['logged']} in the move log; lost {c['lost']}, "
            f"applied twice {c['twice']}, unknown {c['unknown']}, not by a player {c['not_player']}, "
            f"sockets behind the table {c['behind']}" + (f" {c['examples']}" if c["examples"] else "")
        )
    for kind, r in results.items():
        f = r["figures"]
        changes = f.all_moves + f.other_changes
        if changes:
            lines.append(_cpu_line(kind, changes, r["cpu"]))
    if "site" in results and "bare" in results and "stages" in results["site"]:
        lines.append("  where a move's time goes inside the servers (ms; loadtest.stages):")
        lines.append(stages.table(results["site"]["stages"], results["bare"]["stages"]))
    if "site" in results:
        lines.extend(_goals(name, results))
    loads = ", ".join(f"{k} {v['load']:.1f}" for k, v in results.items())
    lines.append(f"  machine load average (1 min) at start: {loads}")
    lines.extend(_steal_lines(results))
    return lines


#: More of the machine's time than this taken by the host (steal) during a side's run, and the run measured the
#: host as much as the stack: on this kind of machine steal came and went within minutes, 0 % in one run and
#: 30-40 % in the next (docs/scale.md, "The host's steal").
STEAL_WARNING = 0.05


def _steal_lines(results: dict) -> list[str]:
    """The share of the machine's time the host gave to its other guests during each side's run; a warning
    where it was large enough to make the run's times the host's (a ratio of two runs then says little)."""
    shares = {kind: r["steal"] for kind, r in results.items() if r.get("steal") is not None}
    if not shares:
        return []
    line = "  taken by the host (steal) during the run: " + ", ".join(
        f"{kind} {share:.1%}" for kind, share in shares.items()) + " of the machine's time"
    worst = max(shares.values())
    if worst > STEAL_WARNING:
        line += (f" — over {STEAL_WARNING:.0%}: this run's times are partly the host's; run the profile again "
                 f"before reading its ratios")
    return [line]


def _mark(ok: bool) -> str:
    return "met" if ok else "NOT met"


def _goals(name: str, results: dict) -> list[str]:
    """Issue 24's goals for ``name``, each against the bare stack of the same run."""
    goal, site = GOALS[name], results["site"]["figures"]
    bare = results["bare"]["figures"] if "bare" in results else None
    out = []

    def versus(label: str, site_value, bare_value, limit: float, unit=_ms) -> None:
        if bare is None:
            out.append(f"{label} ≤ {limit:g}× the bare stack: no bare stack measured")
            return
        ok = site_value is not None and bare_value is not None and site_value <= limit * bare_value
        out.append(f"{label} ≤ {limit:g}× the bare stack ({unit(site_value)} against {unit(bare_value)}, "
                   f"limit {unit(limit * bare_value if bare_value is not None else None)}): {_mark(ok)}")

    if "ratio" in goal and bare is not None:
        b = bare.moves_per_second
        ratio = site.moves_per_second / b if b else 0
        out.append(f"ceiling ≥ {goal['ratio']:.0%} of the bare stack's moves/s ({site.moves_per_second:.0f} "
                   f"against {b:.0f}: {ratio:.0%}): {_mark(ratio >= goal['ratio'])}")
    if "cpu" in goal:
        versus("server CPU per move", _cpu_per_change(results["site"]),
               _cpu_per_change(results["bare"]) if bare is not None else None, goal["cpu"])
    if "failed" in goal:
        start = results["site"].get("start")
        missing = (start.not_told + (start.players - 2 * start.tables)) if start is not None else 0
        ok = site.failed_connects == 0 and len(site.connect) == site.sockets and missing == 0
        out.append(f"0 failed connects ({site.failed_connects} failed, {len(site.connect)} of {site.sockets} "
                   f"connected" + (f", {start.not_told} never told their table" if start is not None else "")
                   + f"): {_mark(ok)}")
    if "dropped" in goal:
        out.append(f"0 dropped (sockets closed by the server, moves or frames that never arrived: "
                   f"{site.errors}): {_mark(site.errors == 0)}")
    if "p99" in goal:
        versus("move p99", players.quantile(site.latency, .99),
               players.quantile(bare.latency, .99) if bare is not None else None, goal["p99"])
    if "connect_p99" in goal:
        versus("connect p99", players.quantile(site.connect, .99),
               players.quantile(bare.connect, .99) if bare is not None else None, goal["connect_p99"])
    if "start_seconds" in goal:
        start = results["site"]["start"]
        seconds = start.start_seconds if start is not None else None
        ok = seconds is not None and seconds <= goal["start_seconds"] and start.start_status == 302
        out.append(f"the stage start ({start.tables} tables) in ≤ {goal['start_seconds']:g} s of server time "
                   f"({_ms(seconds)}, HTTP {start.start_status}): {_mark(ok)}")
    c = results["site"]["check"]
    clean = c["lost"] == 0 and c["twice"] == 0 and c["unknown"] == 0 and c["behind"] == 0
    out.append(f"nothing lost or applied twice: {_mark(clean)}")
    return ["  goal: " + line for line in out]


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def _profiles(text: str) -> str | list[str]:
    """``--profile``: "all", or profile names separated by commas."""
    if text == "all":
        return text
    names = [name.strip() for name in text.split(",")]
    unknown = [name for name in names if name not in PROFILES]
    if unknown:
        raise argparse.ArgumentTypeError(f"no profile {', '.join(unknown)} (there are: all, {', '.join(PROFILES)})")
    return names


def main(argv: list[str] | None = None) -> int:
    """Run the load test; ``kill`` (SIGTERM) or Ctrl-C stop it with every server it started (they run in
    sessions of their own, so a signal to the load generator alone reached none of them, and ``kill`` left
    them serving): the run unwinds through each stack's ``stop`` and exits with 130."""
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("stopped before the end; every server the run started is stopped", file=sys.stderr, flush=True)
        return 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loadtest", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profile", type=_profiles, default="all",
                        help=f"all, or one or more of {', '.join(PROFILES)}, comma-separated, run in that order")
    parser.add_argument("--stack", choices=[*servers.STACKS, "both"], default="both")
    parser.add_argument("--tables", type=int, help="tables (two sockets each) of the evening, burst and tournament "
                        "(a tournament or an arena has twice as many players); the profile's default otherwise")
    parser.add_argument("--players", type=int, help="players of the arena (default 1000; --tables × 2 otherwise)")
    parser.add_argument("--ceiling-tables", type=int, default=20, help="tables of the closed-loop ceiling")
    parser.add_argument("--fraction", type=float, default=0.5,
                        help="the evening's, burst's and tournament's pace as a share of the bare stack's ceiling")
    parser.add_argument("--seconds", type=float, help="seconds of play per stack, connects included")
    parser.add_argument("--think", type=float, help="seconds before each move (0: closed loop); "
                        "without it, set from the bare ceiling and --fraction")
    parser.add_argument("--ramp", type=float, help="seconds over which the tables connect (0: all at once)")
    parser.add_argument("--warmup", type=float, help="seconds of play before the measured window")
    parser.add_argument("--only", choices=["site", "bare"], help="measure one side only (no ratio)")
    parser.add_argument("--referee", choices=["auto", "process", "none"], default="auto",
                        help="auto: a referee process with Redis, none without (the site runs it inside daphne)")
    parser.add_argument("--backlog", type=int, default=2048, help="listen backlog of every daphne (both sides)")
    parser.add_argument("--ceiling-rounds", type=int, default=3,
                        help="rounds of the ceiling on each side, the sides taking turns, taken together")
    parser.add_argument("--evening-rounds", type=int, default=2,
                        help="rounds of the evening on each side, the sides taking turns, taken together")
    parser.add_argument("--seed", type=int, default=1, help="seed of the players' random choices")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (logs, databases)")
    parser.add_argument("--stages", action="store_true",
                        help="note each move's stages inside the servers and print where its time goes (loadtest.stages)")
    parser.add_argument("--verbose", action="store_true", help="print the servers' log tails on server errors")
    args = parser.parse_args(argv)
    _raise_file_limit()
    args._sites = {}
    names = list(PROFILES) if args.profile == "all" else args.profile
    stacks = list(servers.STACKS) if args.stack == "both" else [args.stack]
    if "scaled" in stacks:
        missing = servers.services_available()
        if missing:
            if args.stack == "scaled":
                print(f"cannot run the scaled stack: {missing}", file=sys.stderr)
                return 2
            print(f"skipping the scaled stack: {missing}", file=sys.stderr)
            stacks.remove("scaled")
    print(f"machine: {os.cpu_count()} cores, {_cpu_busy():.0%} busy before the run, "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    out, failed = [], False
    with servers.workspace(keep=args.keep) as workdir:
        if args.keep:
            print(f"work folder: {workdir}")
        for stack in stacks:
            bare_ceiling = None  # moves/s of the bare stack, closed loop: what the other profiles' pace is set from
            for name in names:
                profile = dict(PROFILES[name])
                for key in ("tables", "seconds", "think", "ramp", "warmup"):
                    if getattr(args, key) is not None and not (key == "tables" and name == "ceiling"):
                        profile[key] = getattr(args, key)
                if name == "ceiling":
                    profile["tables"], profile["rounds"] = args.ceiling_tables, args.ceiling_rounds
                if name == "evening":
                    profile["rounds"] = args.evening_rounds
                if name == "arena" and args.players is not None:
                    profile["tables"] = max(1, args.players // 2)
                profile["warmup"] = min(profile["warmup"], profile["seconds"] * 0.5)
                if name == "arena" and args.only == "bare":
                    continue
                if profile["think"] is None:
                    if bare_ceiling is None:  # no ceiling profile in this run: measure the bare stack's alone
                        ceiling = dict(PROFILES["ceiling"], tables=args.ceiling_tables)
                        ceiling["rounds"] = args.ceiling_rounds
                        if args.seconds is not None:
                            ceiling["seconds"] = args.seconds
                            ceiling["warmup"] = min(ceiling["warmup"], args.seconds * 0.5)
                        bare_ceiling = _run_rounds(stack, "ceiling", ceiling, workdir,
                                                   argparse.Namespace(**{**vars(args), "only": "bare"}))[0][
                            "bare"]["figures"].moves_per_second
                        print(f"bare stack ceiling ({servers.STACKS[stack]['label']}): {bare_ceiling:.0f} moves/s",
                              flush=True)
                    # A table moves every ``think`` s: all of them together at ``fraction`` of the ceiling.
                    profile["think"] = profile["tables"] / max(1e-6, args.fraction * bare_ceiling)
                    profile["pace"] = f"{args.fraction:.0%} of the bare ceiling ({bare_ceiling:.0f} moves/s)"
                if name == "arena":
                    result = _run_arena(stack, profile, workdir, args)
                    lines = _arena_report(stack, profile, result)
                    failed |= any("NOT met" in line for line in lines)
                    print("\n".join(lines) + "\n", flush=True)
                    a, passes = result["arena"], [p["seconds"] for p in result["passes"]]
                    gaps = [y["at"] - x["at"] for x, y in zip(result["passes"], result["passes"][1:], strict=False)]
                    out.append({"profile": name, "stack": stack, "settings": profile,
                                "goals": [line for line in lines if line.startswith("  goal: ")],
                                "site": {"moves_per_s": result["figures"].moves_per_second,
                                         "move_p50": players.quantile(result["figures"].latency, .5),
                                         "move_p99": players.quantile(result["figures"].latency, .99),
                                         "connect_p50": players.quantile(result["figures"].connect, .5),
                                         "connect_p99": players.quantile(result["figures"].connect, .99),
                                         "failed_connects": result["figures"].failed_connects,
                                         "errors": result["figures"].errors,
                                         "error_kinds": result["figures"].error_kinds, "check": result["check"],
                                         "cpu_per_change": _cpu_per_change(result), "cpu_parts": _cpu_parts(result),
                                         "steal": result.get("steal"),
                                         "arena": {**{k: v for k, v in a.__dict__.items()
                                                      if k not in ("told", "to_table", "wait")},
                                                   "to_table_p50": players.quantile(a.to_table, .5),
                                                   "to_table_p99": players.quantile(a.to_table, .99),
                                                   "wait_p50": players.quantile(a.wait, .5),
                                                   "wait_p99": players.quantile(a.wait, .99),
                                                   "wait_max": max(a.wait, default=None),
                                                   "passes": len(passes),
                                                   "pass_p50": players.quantile(passes, .5),
                                                   "pass_p99": players.quantile(passes, .99),
                                                   "pass_max": max(passes, default=None),
                                                   "pass_gap_p50": players.quantile(gaps, .5),
                                                   "pass_gap_max": max(gaps, default=None),
                                                   "check": result["arena_check"]}}})
                    continue
                results, rounds = _run_rounds(stack, name, profile, workdir, args)
                if name == "ceiling" and "bare" in results:
                    bare_ceiling = results["bare"]["figures"].moves_per_second
                lines = _report(name, stack, profile, results, rounds)
                failed |= any("NOT met" in line for line in lines)
                print("\n".join(lines) + "\n", flush=True)
                out.append({"profile": name, "stack": stack, "settings": profile,
                            "goals": [line for line in lines if line.startswith("  goal: ")],
                            "rounds": [{kind: {"moves_per_s": r[kind]["figures"].moves_per_second,
                                               "cpu_per_change": _cpu_per_change(r[kind]),
                                               "steal": r[kind].get("steal")} for kind in r} for r in rounds], **{
                    kind: {"moves_per_s": r["figures"].moves_per_second,
                           "move_p50": players.quantile(r["figures"].latency, .5),
                           "move_p99": players.quantile(r["figures"].latency, .99),
                           "connect_p50": players.quantile(r["figures"].connect, .5),
                           "connect_p99": players.quantile(r["figures"].connect, .99),
                           "failed_connects": r["figures"].failed_connects, "errors": r["figures"].errors,
                           "error_kinds": r["figures"].error_kinds, "check": r.get("check"),
                           "cpu_per_change": _cpu_per_change(r), "cpu_parts": _cpu_parts(r), "stages": r.get("stages"),
                           "steal": r.get("steal"),
                           "start": r["start"].__dict__ if r.get("start") is not None else None}
                    for kind, r in results.items()}})
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=2)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
