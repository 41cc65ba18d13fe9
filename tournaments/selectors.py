"""Reads of tournaments: the current stage's tables, the standings (computed from the recorded table
results with ``tournaments.scoring`` and ``tournaments.pairing``), lists for the pages."""

from __future__ import annotations

from tournaments import pairing
from tournaments.models import Entry, Stage, StageTable, Tournament
from tournaments.scoring import ListStanding, rank_list

#: Entries that belong in the standings: playing, out after an Abbruch (still PLAYING), removed.
_IN_STANDINGS = (Entry.Status.PLAYING, Entry.Status.REMOVED)


def tournament_tables(*, tournament_id) -> list[dict]:
    """The current stage: ``[{"table": table_id, "stage": n, "users": [user_id per seat]}]``; a gin bye is
    ``{"table": None, "stage": n, "users": [user_id, None]}``."""
    t = Tournament.objects.get(pk=tournament_id)
    stage = t.stages.filter(number=t.current_stage).first()
    if stage is None:
        return []
    return [{"table": st.table_id, "stage": stage.number, "users": list(st.users)}
            for st in stage.tables.order_by("number")]


def _participants(t: Tournament) -> list[Entry]:
    return list(t.entries.filter(status__in=_IN_STANDINGS).order_by("number"))


def _finished_tables(t: Tournament):
    return (StageTable.objects.filter(stage__tournament=t, finished_at__isnull=False)
            .select_related("stage").order_by("stage__number", "number"))


def tournament_standings(*, tournament_id) -> list[dict]:
    """Best first: ``[{"user_id", "place", "stages": [per stage], ...}]`` (see spec/api.md)."""
    t = Tournament.objects.get(pk=tournament_id)
    if t.status == Tournament.Status.FINISHED and t.final_standings is not None:
        return t.final_standings
    if t.game == "romme":
        return _romme_standings(t)
    return _gin_standings(t)


def _romme_standings(t: Tournament) -> list[dict]:
    entries = _participants(t)
    stages = t.stages.count()
    rows = {e.user_id: {"user_id": e.user_id, "place": None, "stages": [None] * stages, "result": 0,
                        "wertungspunkte": 0, "augen": 0, "rounds_won": 0, "out": e.out,
                        "removed": e.status == Entry.Status.REMOVED} for e in entries}
    for st in _finished_tables(t):
        for seat in (st.result or {}).get("seats", []):
            row = rows.get(seat["user_id"])
            if row is None:
                continue
            row["stages"][st.stage.number - 1] = {k: seat[k] for k in
                                                  ("result", "wertungspunkte", "augen", "rounds_won", "abbruch")}
            for key in ("result", "wertungspunkte", "augen", "rounds_won"):
                row[key] += seat[key]
    ranked = rank_list([ListStanding(u, r["result"], r["wertungspunkte"], r["augen"], r["rounds_won"])
                        for u, r in rows.items()])
    out = []
    for place, standing in ranked:
        row = rows[standing.player]
        row["place"] = place
        out.append(row)
    return out


def gin_results(t: Tournament) -> list[pairing.GinResult]:
    """Every recorded gin result of the tournament, as the pairing functions take them (void ones left out)."""
    results = []
    for st in _finished_tables(t):
        r = st.result or {}
        if "winner" in r:
            results.append(pairing.GinResult(r["winner"], r["loser"], r.get("margin", 0)))
    return results


def knockout_winner(st: StageTable):
    """Who goes through from a knockout table: the winner; a void match: the better seed (seat 0)."""
    r = st.result or {}
    return r.get("winner", st.users[0])


def _gin_standings(t: Tournament) -> list[dict]:
    entries = _participants(t)
    players = [e.user_id for e in entries]
    results = gin_results(t)
    s = t.settings
    stages = t.stages.count()
    per_stage: dict[int, list] = {u: [None] * stages for u in players}
    for st in _finished_tables(t):
        r, n = st.result or {}, st.stage.number - 1
        if "winner" in r:
            if r["winner"] in per_stage:
                per_stage[r["winner"]][n] = {"opponent": r["loser"], "won": True, "margin": r["margin"]}
            if r["loser"] in per_stage:
                per_stage[r["loser"]][n] = {"opponent": r["winner"], "won": False, "margin": r["margin"]}
        else:  # a void match: played, nobody scored
            a, b = st.users
            for me, other in ((a, b), (b, a)):
                if me in per_stage:
                    per_stage[me][n] = {"opponent": other, "won": False, "margin": 0, "void": True}
    points = dict(win=s["win"], loss=s["loss"], bye=s["bye"])
    if t.format == "knockout":
        return _knockout_rows(t, entries, results, per_stage, points)
    if t.format == "swiss":
        standings = pairing.swiss_standings(players, results, **points)
    else:
        standings = pairing.round_robin_standings(players, results, **points)
    rows = []
    for g in standings:
        row = {"user_id": g.player, "place": g.place, "stages": per_stage[g.player],
               "match_points": g.match_points, "margin": g.margin}
        if t.format == "swiss":
            row["buchholz"] = g.buchholz
        rows.append(row)
    return rows


def _knockout_rows(t, entries, results, per_stage, points) -> list[dict]:
    rounds = pairing.knockout_rounds(len(entries))
    lost_in: dict[int, int] = {}
    for st in _finished_tables(t):
        r = st.result or {}
        if r.get("loser") is not None:
            lost_in[r["loser"]] = st.stage.number
        elif "void" in r and None not in st.users:
            lost_in[st.users[1]] = st.stage.number
    removed = {e.user_id for e in entries if e.status == Entry.Status.REMOVED}
    mp = pairing.match_points(results, **points)
    rows = []
    for e in entries:
        out = lost_in.get(e.user_id)
        place = pairing.knockout_place(rounds=rounds, lost_in=out)
        if out is None and e.user_id in removed:
            place = pairing.knockout_place(rounds=rounds, lost_in=max(1, t.current_stage))
        rows.append({"user_id": e.user_id, "place": place, "stages": per_stage[e.user_id],
                     "match_points": mp.get(e.user_id, 0), "seed": e.seed,
                     "margin": sum((x["margin"] if x["won"] else -x["margin"]) for x in per_stage[e.user_id] if x)})
    rows.sort(key=lambda r: (r["place"], r["seed"] or 0))
    return rows


# --- for the pages ----------------------------------------------------------------------------------------


def tournaments_listed() -> dict[str, list[Tournament]]:
    """``/turniere/``: upcoming (registration open), running, finished (the latest first)."""
    qs = Tournament.objects.exclude(status=Tournament.Status.DRAFT)
    return {
        "upcoming": list(qs.filter(status=Tournament.Status.REGISTRATION).order_by("starts_at", "pk")),
        "running": list(qs.filter(status=Tournament.Status.RUNNING).order_by("started_at")),
        "finished": list(qs.filter(status__in=(Tournament.Status.FINISHED, Tournament.Status.CANCELLED))
                         .order_by("-finished_at")[:30]),
    }


def places_left(t: Tournament) -> int | None:
    cap = t.settings.get("max_players")
    if cap is None:
        return None
    return max(0, cap - t.entries.filter(status=Entry.Status.REGISTERED).count())


def entry_of(*, tournament: Tournament, user) -> Entry | None:
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return tournament.entries.filter(user=user).first()


def stages_of(t: Tournament) -> list[Stage]:
    return list(t.stages.prefetch_related("tables").order_by("number"))


def finished_tournaments_of(*, user) -> list[dict]:
    """Finished tournaments a player took part in, with their final place (for the profile)."""
    out = []
    entries = (Entry.objects.filter(user=user, status__in=_IN_STANDINGS,
                                    tournament__status=Tournament.Status.FINISHED)
               .select_related("tournament").order_by("-tournament__finished_at"))
    for e in entries:
        row = next((r for r in e.tournament.final_standings or [] if r["user_id"] == user.pk), None)
        out.append({"tournament": e.tournament, "place": row["place"] if row else None})
    return out
