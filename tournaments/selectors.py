"""Reads of tournaments: the current stage's tables, the standings (computed by the tournament's format
from the recorded table results), lists for the pages."""

from __future__ import annotations

from tournaments import formats
from tournaments.formats.base import IN_STANDINGS as _IN_STANDINGS
from tournaments.models import Entry, Stage, Tournament


def tournament_tables(*, tournament_id) -> list[dict]:
    """The current stage: ``[{"table": table_id, "stage": n, "users": [user_id per seat]}]``; a gin bye is
    ``{"table": None, "stage": n, "users": [user_id, None]}``."""
    t = Tournament.objects.get(pk=tournament_id)
    stage = t.stages.filter(number=t.current_stage).first()
    if stage is None:
        return []
    return [{"table": st.table_id, "stage": stage.number, "users": list(st.users)}
            for st in stage.tables.order_by("number")]


def tournament_standings(*, tournament_id) -> list[dict]:
    """Best first: ``[{"user_id", "place", "stages": [per stage], ...}]`` (see spec/api.md), as the
    tournament's format computes them; frozen once the tournament has finished."""
    t = Tournament.objects.get(pk=tournament_id)
    if t.status == Tournament.Status.FINISHED and t.final_standings is not None:
        return t.final_standings
    return formats.of(t).standings()


def tournament_format(*, tournament: Tournament) -> formats.TournamentFormat:
    """The format of ``tournament`` (what its page shows: columns, stage labels, a bracket)."""
    return formats.of(tournament)


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
