"""The ceiling's rounds: the sides take turns (bare, site; site, bare; bare, site), so that the host's steal and
the machine's drift, which come and go within minutes, fall on both sides alike; the rounds are then taken
together per side. No server is started here: a round's measuring is replaced by made-up figures."""

from __future__ import annotations

import argparse

from loadtest import __main__ as loadtest
from loadtest import players


def _figures(moves: int, window: float, latency: list[float]) -> players.Figures:
    f = players.Figures(sockets=4, moves=moves, window=window, all_moves=moves + 2, other_changes=1)
    f.latency.extend(latency)
    f.connect.extend([0.01, 0.02])
    return f


def _fake_rounds(monkeypatch, outcomes: dict[tuple[str, int], dict]) -> list[tuple[str, int]]:
    ran: list[tuple[str, int]] = []

    def run_one(kind, stack, name, profile, workdir, args, *, round_no=0):
        ran.append((kind, round_no))
        return outcomes[(kind, round_no)]

    monkeypatch.setattr(loadtest, "_run_one", run_one)
    return ran


def _run(kind: str, moves: int, cpu: float, steal: float, lost: int = 0) -> dict:
    check = {"tables": 2, "logged": moves, "seen": moves, "lost": lost, "twice": 0, "unknown": 0,
             "not_player": 0, "behind": 0, "examples": [{"move": lost}] if lost else []}
    run = {"figures": _figures(moves, 10.0, [0.1] * moves), "load": 1.0, "server_errors": 0,
           "cpu": (cpu, 0.5, 0.0, cpu + 0.5), "start": None, "steal": steal}
    if kind == "site":
        run["check"] = check
    return run


def test_the_ceiling_s_rounds_take_turns_and_are_taken_together_per_side(monkeypatch):
    outcomes = {
        ("bare", 0): _run("bare", 2000, 16.0, 0.0), ("site", 0): _run("site", 1500, 15.0, 0.0),
        ("bare", 1): _run("bare", 1000, 10.0, 0.2), ("site", 1): _run("site", 1400, 14.0, 0.0, lost=1),
        ("bare", 2): _run("bare", 2100, 17.0, 0.1), ("site", 2): _run("site", 1600, 16.0, 0.0),
    }
    ran = _fake_rounds(monkeypatch, outcomes)
    args = argparse.Namespace(only=None)
    together, rounds = loadtest._run_rounds("scaled", "ceiling", {"rounds": 3}, None, args)

    assert ran == [("bare", 0), ("site", 0), ("site", 1), ("bare", 1), ("bare", 2), ("site", 2)]
    assert len(rounds) == 3 and all(list(r) == ["bare", "site"] for r in rounds)
    bare, site = together["bare"], together["site"]
    assert bare["figures"].moves_per_second == (2000 + 1000 + 2100) / 30.0
    assert site["figures"].moves_per_second == (1500 + 1400 + 1600) / 30.0
    assert len(site["figures"].latency) == 4500 and len(site["figures"].connect) == 6
    assert site["cpu"] == (45.0, 1.5, 0.0, 46.5)
    # CPU per change over every change of every round: (45 s + 0 s of services) / (4,500 moves + 6 + 3 others)
    assert loadtest._cpu_per_change(site) == 45.0 / (4500 + 6 + 3)
    assert abs(bare["steal"] - 0.1) < 1e-9
    assert site["check"]["lost"] == 1 and site["check"]["seen"] == 4500 and site["check"]["examples"] == [{"move": 1}]
    assert "check" not in bare
    lines = loadtest._round_lines(rounds)
    assert [line.split(":")[0] for line in lines] == ["  round 1", "  round 2", "  round 3"]
    assert lines[1].endswith("site/bare 1.40×")  # the round where the bare stack had the host's steal
    goals = loadtest._goals("ceiling", together)
    assert goals[0] == "  goal: ceiling ≥ 70% of the bare stack's moves/s (150 against 170: 88%): met"
    assert goals[-1] == "  goal: nothing lost or applied twice: NOT met"


def test_one_round_is_reported_as_it_ran(monkeypatch):
    outcomes = {("site", 0): _run("site", 1500, 15.0, 0.0)}
    ran = _fake_rounds(monkeypatch, outcomes)
    together, rounds = loadtest._run_rounds("embedded", "evening", {"rounds": 1}, None,
                                            argparse.Namespace(only="site"))
    assert ran == [("site", 0)]
    assert together == rounds[0] and together["site"] is outcomes[("site", 0)]
    assert loadtest._round_lines(rounds) == []


def test_profiles_are_named_one_or_several_in_their_order_and_an_unknown_one_is_refused():
    assert loadtest._profiles("all") == "all"
    assert loadtest._profiles("burst") == ["burst"]
    assert loadtest._profiles("evening, burst") == ["evening", "burst"]
    try:
        loadtest._profiles("evening,brust")
    except argparse.ArgumentTypeError as error:
        assert "brust" in str(error) and "burst" in str(error)
    else:
        raise AssertionError("an unknown profile was taken")
