"""The arena (spec/tournaments.md "Arena"): a fixed stretch of time in which everyone present plays as many
matches as they can, seated the moment they are free, with points for winning and winning in a row.

One class for every game (:meth:`ArenaFormat.of_game` registers it per game with the game's short table
options); what differs between games comes from the game's registry entry (its seat range gives the table
sizes) and from the places of a match's result, which every game's outcome has. The arena has one stage
that stays open until its time is over; the services open its tables on every pass of the referee's clock
(:meth:`pairing`, the pure rules in ``tournaments.arena``) and finish it when the last table after the end
has finished."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from typing import Any, ClassVar, cast

from django import forms
from django.conf import settings as django_settings
from django.db.models import Q
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games import registry
from games.models import Match, Seat, Table
from ratings.models import DEFAULT_MU, Rating, wertungszahl
from ratings.services import seat_places
from tournaments import arena
from tournaments.errors import TournamentError
from tournaments.fields import WholeNumberField, table_option_field, whole_number_field
from tournaments.formats.base import (
    IN_STANDINGS,
    CorrectionGroup,
    Seating,
    TournamentFormat,
    bad_result,
    clock_minutes,
    int_setting,
)
from tournaments.formats.base import (
    Rating as RatingOf,
)
from tournaments.models import Entry, StageTable

#: The longest an arena's end keeps new pairings back, in minutes: min(5, minutes / 10).
QUIET_MINUTES = 5
#: The most recent results the standings' strip shows.
STRIP_LENGTH = 10
#: The mark of a player on fire (two wins in a row: the next win counts double).
FIRE_MARK = "🔥"


def present_seconds() -> float:
    """How long after their last sign of life (a page of the arena or one of its tables open) a player still
    counts as present (``settings.TOURNAMENTS_ARENA_PRESENT_SECONDS``)."""
    return float(django_settings.TOURNAMENTS_ARENA_PRESENT_SECONDS)


def arena_sizes(game: str) -> tuple[tuple[int, ...], int | None]:
    """The tables an arena of ``game`` forms every pass (its seat range, at most 4, tables of fewer than 3
    only where the game has no larger ones), and the smaller table that two players left over play after a
    minute (None where there is none): gin ``((2,), None)``, Rommé ``((4, 3), 2)``."""
    least, most = registry.get(game).seats
    sizes = tuple(s for s in range(min(most, 4), least - 1, -1) if s >= 3) or (least,)
    return sizes, (least if least not in sizes else None)


class ArenaFormat(TournamentFormat):
    """``minutes`` (60, 20–240) of continuous pairing; no check-in, late entries welcome. Points per match:
    place 1 gets 2, place 2 gets 1 at tables of three or more; after two wins in a row each further win
    counts double. Standings: points, performance, matches played.

    **A void match** (ended without a result: by staff, or its tournament cancelled) scores nothing for
    anyone, is no match played and leaves streaks as they were; its players were still each other's last
    opponents."""

    name = "arena"
    game = ""  # of_game sets it
    label = gettext_lazy("Arena")
    continuous = True
    joins_late = True
    players_pause = True
    defaults: ClassVar[dict[str, Any]] = {"minutes": 60, "check_in_minutes": 0}
    #: The game's table options with the arena's short defaults (gin: to 50; Rommé: lists of 4 rounds).
    table_defaults: ClassVar[dict[str, Any]] = {}

    @classmethod
    def of_game(cls, game: str, *, table_defaults: dict[str, Any], min_players: int) -> type[ArenaFormat]:
        """The arena of ``game``, ready to register: its table options are ``table_defaults``' names and the
        turn time; ``min_players`` at the start (the smallest table it forms: gin 2, Rommé 3)."""
        return type(f"{game.title()}ArenaFormat", (cls,), {
            "game": game, "table_defaults": dict(table_defaults), "min_players": min_players,
            "table_option_names": (*table_defaults, "turn_seconds"), "__module__": cls.__module__,
        })

    # --- options ------------------------------------------------------------------------------------

    @classmethod
    def check_settings(cls, s: dict[str, Any]) -> None:
        int_setting("minutes", s["minutes"], 20, 240)
        if s["check_in_minutes"] != 0:
            raise TournamentError("bad_settings", "Eine Arena hat kein Einchecken (check_in_minutes 0).")

    @classmethod
    def check_options(cls, options: dict, settings: dict[str, Any]) -> dict:
        if "seats" in options:
            raise TournamentError("bad_options", "Die Tischgröße legt die Arena fest.")
        options = {**cls.table_defaults, **options}
        engine = registry.get(cls.game).engine
        sizes, late = arena_sizes(cls.game)
        normalized: dict = {}
        try:
            for seats in sorted({*sizes, *((late,) if late else ())}):
                normalized = engine.normalize_options(options, seats=seats)
        except (TypeError, ValueError) as error:
            raise TournamentError("bad_options", f"Ungültige Tischoption: {error}") from None
        if normalized.get("hollywood"):
            raise TournamentError("bad_options", "Hollywood kann unentschieden enden; im Turnier gibt es das nicht.")
        return options

    def table_options(self, seats: int) -> dict:
        return dict(self.t.options)

    @classmethod
    def own_form_fields(cls) -> dict[str, forms.Field]:
        fields: dict[str, forms.Field] = {
            "minutes": whole_number_field(gettext_lazy("Dauer (Minuten)"), low=20, high=240,
                                          default=cls.defaults["minutes"],
                                          help_text=gettext_lazy("Solange wird gepaart; in den letzten Minuten "
                                                                 "(ein Zehntel, höchstens 5) nicht mehr.")),
        }
        for name, default in cls.table_defaults.items():
            field = table_option_field(cls.game, name)
            if field is not None:
                field.initial = str(default)
                fields[name] = field
        return fields

    @classmethod
    def common_form_fields(cls) -> dict[str, forms.Field]:
        # No check-in and no stages, so no break between them.
        return {name: field for name, field in super().common_form_fields().items()
                if name not in ("check_in_minutes", "break_minutes")}

    @classmethod
    def form_defaults(cls) -> dict[str, Any]:
        return {**super().form_defaults(), **{n: v for n, v in cls.table_defaults.items() if n in cls.form_fields()}}

    # --- the clock ------------------------------------------------------------------------------------

    def ends_at(self) -> datetime | None:
        """When the arena's time is over (None before the start)."""
        if self.t.started_at is None:
            return None
        return self.t.started_at + clock_minutes(self.settings["minutes"])

    def pairing_ends_at(self) -> datetime | None:
        """When the last new pairing may be made: min(5, minutes / 10) minutes before the end."""
        ends = self.ends_at()
        if ends is None:
            return None
        return ends - clock_minutes(min(QUIET_MINUTES, self.settings["minutes"] / 10))

    def taking_tables(self, now: datetime) -> bool:
        ends = self.ends_at()
        return ends is not None and now < ends

    def pass_due(self, now: datetime) -> bool:
        stops = self.pairing_ends_at()
        if stops is None or not self.taking_tables(now):
            return True  # over: the pass ends the arena once its last table has finished
        if now >= stops:
            return False
        present = set(self._present(now).values_list("user_id", flat=True))
        free = present - self._busy()
        sizes, late = arena_sizes(self.game)
        if len(free) >= min(sizes):
            return True
        # Two Rommé players left over play a table of two once one of them has waited a minute: the pass
        # that seats them is due then, though fewer are free than the smallest table of every pass holds.
        return late is not None and len(free) >= late and self._present(now).filter(
            user_id__in=free, free_since__lte=now - timedelta(seconds=arena.SMALL_TABLE_WAIT)).exists()

    def _present(self, now: datetime) -> Any:
        return self.t.entries.filter(status=Entry.Status.PLAYING, paused=False,
                                     seen_at__gte=now - timedelta(seconds=present_seconds()))

    def _busy(self) -> set[int]:
        """Who sits at a table of this arena whose result is not recorded yet."""
        return {u for users in StageTable.objects.filter(stage__tournament=self.t, finished_at__isnull=True)
                .values_list("users", flat=True) for u in users}

    # --- stages: one, open while the arena runs --------------------------------------------------------

    def stage_count(self, players: int | None = None) -> int:
        return 1

    def seating(self, number: int, rating: RatingOf) -> Seating:
        return []  # the pairing passes seat the arena, from its start on

    def is_over(self, number: int) -> bool:
        return True

    def pairing(self, now: datetime, rating: RatingOf) -> Seating:
        stops = self.pairing_ends_at()
        if stops is None or now >= stops or self.t.started_at is None:
            return []
        sizes, late = arena_sizes(self.game)
        tables = arena.arena_tables(self.free_players(now, rating), sizes=sizes, late_size=late,
                                    first_minute=now < self.t.started_at + clock_minutes(1))
        return [[cast(int, u) for u in table] for table in tables]

    def free_players(self, now: datetime, rating: RatingOf) -> list[arena.FreePlayer]:
        """Who may be seated now: playing, not paused, seen within :func:`present_seconds`, at no table of
        this arena that is still to be recorded, and holding no live seat at a ranked or tournament table
        (one live table at a time)."""
        entries = list(self._present(now).select_related("user").order_by("number"))
        if not entries:
            return []
        ids = [e.user_id for e in entries]
        busy = self._busy()
        busy |= set(Seat.objects.filter(user_id__in=ids, left=False,
                                        table__status__in=(Table.Status.OPEN, Table.Status.PLAYING))
                    .filter(Q(table__ranked=True) | Q(table__tournament=True)).values_list("user_id", flat=True))
        outcomes, last = self._outcomes()
        # The arena rank is the place in the arena's standings, among everyone in them (the absent and the
        # paused, and those at a table, hold their places too), not among the free players alone.
        everyone = list(self.t.entries.filter(status__in=IN_STANDINGS).values_list("user_id", flat=True))
        places = dict((u, place) for place, u in arena.arena_places(self._scores(outcomes, everyone)))
        return [arena.FreePlayer(e.user_id, rank=places[e.user_id], rating=int(rating(e.user).display),
                                 last=frozenset(last.get(e.user_id, ())),
                                 waited=(now - (e.free_since or now)).total_seconds())
                for e in entries if e.user_id not in busy]

    # --- results ------------------------------------------------------------------------------------

    def table_result(self, st: StageTable, match: Match) -> dict:
        result = match.result or {}
        places = result.get("places")
        if match.status != Match.Status.FINISHED or not isinstance(places, list) or len(places) != len(st.users):
            return {"void": True}
        left = set(match.left_seats or [])
        # Whoever left is placed below everyone who stayed, as the rating does it (ratings.md).
        placed = seat_places(places=places, left_seats=sorted(left))
        return {"seats": [{"user_id": u, "place": placed[i], "left": i in left} for i, u in enumerate(st.users)]}

    def abandoned(self, result: dict) -> dict[int, bool]:
        return {seat["user_id"]: seat["left"] for seat in result.get("seats", [])}

    def abandoned_entry(self) -> dict[str, Any]:
        return {"paused": True}  # a player who leaves a table is paused until they resume

    def corrected_result(self, st: StageTable, result: dict) -> dict:
        seats = result.get("seats")
        if (not isinstance(seats, list) or not all(isinstance(s, dict) for s in seats)
                or Counter(s.get("user_id") for s in seats) != Counter(st.users)):
            raise bad_result()
        out = []
        for seat in seats:
            place = seat.get("place")
            if isinstance(place, bool) or not isinstance(place, int) or not 1 <= place <= len(st.users):
                raise bad_result()
            out.append({"user_id": seat["user_id"], "place": place, "left": bool(seat.get("left", False))})
        order = {u: i for i, u in enumerate(st.users)}
        return {"seats": sorted(out, key=lambda s: order[s["user_id"]])}

    def correction_fields(self, st: StageTable, names: dict[int, str]) -> list[CorrectionGroup]:
        """Each seat's place and whether they left, a group per seat in seat order."""
        seats = {s.get("user_id"): s for s in (st.result or {}).get("seats", [])}
        groups: list[CorrectionGroup] = []
        for u in st.users:
            name = names.get(u, str(u))
            fields: dict[str, forms.Field] = {
                f"place_{u}": WholeNumberField(label=_("Platz %(name)s") % {"name": name}, min_value=1,
                                               max_value=len(st.users)),
                f"left_{u}": forms.BooleanField(label=_("Verlassen %(name)s") % {"name": name}, required=False),
            }
            seat = seats.get(u, {})
            groups.append((name, fields, {f"place_{u}": seat.get("place", 1), f"left_{u}": seat.get("left", False)}))
        return groups

    def correction_result(self, st: StageTable, values: dict[str, Any]) -> dict:
        return {"seats": [{"user_id": u, "place": values[f"place_{u}"], "left": values[f"left_{u}"]}
                          for u in st.users]}

    # --- standings ----------------------------------------------------------------------------------

    def _ratings(self, user_ids: list[int]) -> dict[int, int]:
        """The Wertungszahl of each player in the arena's game (never rated: the default, 1500)."""
        stored = dict(Rating.objects.filter(game=self.game, user_id__in=user_ids).values_list("user_id", "display"))
        default = wertungszahl(DEFAULT_MU)
        return {u: stored.get(u, default) for u in user_ids}

    def _outcomes(self) -> tuple[dict[int, list[tuple[int, int, bool, list[int]]]], dict[int, list[int]]]:
        """Per player, their recorded matches in the order they were seated (place, seats, left, opponents),
        void ones left out; and the opponents of each player's last match, void or not."""
        outcomes: dict[int, list[tuple[int, int, bool, list[int]]]] = {}
        last: dict[int, list[int]] = {}
        for st in self.finished_tables():
            users = [u for u in st.users if u is not None]
            for u in users:
                last[u] = [o for o in users if o != u]
            for seat in (st.result or {}).get("seats", []):
                u = seat["user_id"]
                outcomes.setdefault(u, []).append((seat["place"], len(users), seat["left"],
                                                   [o for o in users if o != u]))
        return outcomes, last

    def _scores(self, outcomes: dict[int, list[tuple[int, int, bool, list[int]]]],
                players: list[int]) -> dict[Any, arena.ArenaScore]:
        ratings = self._ratings(sorted({*players, *(o for rows in outcomes.values() for *_r, opp in rows
                                                      for o in opp)}))
        return {u: arena.arena_score([arena.Outcome(place, seats, left, tuple(ratings[o] for o in opponents))
                                      for place, seats, left, opponents in outcomes.get(u, [])])
                for u in players}

    def standings(self) -> list[dict]:
        entries = {e.user_id: e for e in self.participants()}
        outcomes, _last = self._outcomes()
        scores = self._scores(outcomes, list(entries))
        rows = []
        for place, player in arena.arena_places(scores):
            u = cast(int, player)
            s = scores[u]
            strip = s.strip[-STRIP_LENGTH:]
            rows.append({"user_id": u, "place": place, "stages": [], "points": s.points,
                         "performance": s.performance, "matches": s.matches, "strip": strip, "fire": s.on_fire,
                         "strip_text": " ".join(map(str, strip)) + (f" {FIRE_MARK}" if s.on_fire else ""),
                         "paused": entries[u].paused})
        return rows

    # --- the page -----------------------------------------------------------------------------------

    live_template = "tournaments/_arena.html"

    def live_facts(self, user_id: int | None, now: datetime) -> dict[str, Any]:
        """The time left, and the player's own state: ``"table"`` (at table ``table_number``), ``"paused"``,
        ``"waiting"`` for a table, ``"over"`` (no more pairing); which of pause, resume and joining they may."""
        ends, stops = self.ends_at(), self.pairing_ends_at()
        running = self.t.status == self.t.Status.RUNNING
        pairing = running and stops is not None and now < stops
        facts: dict[str, Any] = {"ends_at": ends if running else None, "pairing": pairing, "state": None,
                                 "can_pause": False, "can_resume": False, "can_join": False}
        entry = self.t.entries.filter(user_id=user_id).first() if user_id is not None else None
        if entry is None or entry.status not in (Entry.Status.REGISTERED, Entry.Status.PLAYING):
            facts["can_join"] = user_id is not None and pairing and (entry is None or entry.status == Entry.Status.WITHDRAWN)
            return facts
        if not running and self.t.status != self.t.Status.REGISTRATION:
            return facts
        facts["can_pause"], facts["can_resume"] = not entry.paused, entry.paused
        if not running:
            facts["state"] = "paused" if entry.paused else None
            return facts
        mine = next((st for st in StageTable.objects.filter(stage__tournament=self.t, finished_at__isnull=True)
                     .only("users", "number", "table_id") if user_id in st.users), None)
        if mine is not None:
            facts.update(state="table", table_id=mine.table_id, table_number=mine.number)
        else:
            facts["state"] = "paused" if entry.paused else "waiting" if pairing else "over"
        return facts


    def words(self) -> list[str]:
        minutes = self.settings["minutes"]
        quiet = min(QUIET_MINUTES, minutes / 10)
        sizes, late = arena_sizes(self.game)
        words = [
            ngettext("Arena: %(m)d Minute, gepaart, sobald man frei ist", "Arena: %(m)d Minuten, gepaart, sobald man "
                     "frei ist", minutes) % {"m": minutes},
            _("Sieg: 2 Punkte; nach zwei Siegen in Folge zählt jeder weitere doppelt"),
            # A quiet time of 2.5 minutes is "Minuten" too: the singular only for exactly one.
            ngettext("In der letzten Minute keine neuen Paarungen; laufende Partien zählen",
                     "In den letzten %(q)s Minuten keine neuen Paarungen; laufende Partien zählen",
                     1 if quiet == 1 else 2) % {"q": f"{quiet:g}"},
            _("Einsteigen jederzeit, Pause jederzeit"),
        ]
        if max(sizes) > 2:
            words.insert(2, _("Tische zu %(sizes)s; Platz 2 an Tischen ab 3 Spielern: 1 Punkt") % {
                "sizes": _(" oder ").join(map(str, sizes))})
        if late:
            words.insert(3, _("Zwei Übrige spielen nach einer Minute Warten zu zweit"))
        return words

    def stage_break_words(self, minutes: int) -> str:
        return ""

    def columns(self) -> list[tuple[str, str]]:
        return [(_("Punkte"), "points"), (_("Verlauf"), "strip_text"), (_("Leistung"), "performance"),
                (_("Partien"), "matches")]

    def csv_columns(self) -> list[str]:
        return ["points", "performance", "matches"]

    def stage_label(self, number: int) -> str:
        return str(self.label)

    def stage_tables_title(self, number: int) -> str:
        return _("Es spielen gerade")

    def stage_table_label(self, stage: int, table: int) -> str:
        return _("Arena, Tisch %(n)s") % {"n": table}

    def stage_started_label(self, number: int) -> str:
        return _("Arena gestartet")

    def stage_cell(self, entry: dict | None, names: dict[int, str]) -> str:
        return "–"
