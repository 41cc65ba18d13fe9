"""What every tournament format is: one class with the same few methods (its options, its stages, the
seating of a stage, the result of a finished table, the standings, when it is over, what its page shows),
so that ``tournaments.services``, ``selectors`` and ``views`` ask the format and never branch on its name.

A format is bound to one tournament (``formats.of(t)``); the class methods are for before a tournament
exists (checking the options staff give). Formats read the tournament's rows and compute; they never
write: the services write what a format decides, under the tournament's lock.

:class:`PairedFormat` is the shared half of the gin formats (one gin match per pairing, match points).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games import engines
from games.models import Match
from tournaments import pairing
from tournaments.errors import TournamentError
from tournaments.models import Entry, StageTable, Tournament

#: Who sits where at each table of a stage (user ids by seat); a list with None is a bye or a walkover.
Seating = list[list[int | None]]
#: The rating that seeds a user: anything with ``display`` (a number) and ``provisional`` (a bool).
Rating = Callable[[Any], Any]

#: The options every format has, with their defaults (spec/tournaments.md).
COMMON_DEFAULTS: dict[str, Any] = {"max_players": None, "check_in_minutes": 10, "break_minutes": 2}
#: Entries that belong in the standings: playing, out after an Abbruch (still PLAYING), removed.
IN_STANDINGS = (Entry.Status.PLAYING, Entry.Status.REMOVED)


def int_setting(name: str, value: Any, low: int, high: int | None = None) -> int:
    """``value`` if it is a whole number from ``low`` to ``high``; else a clear refusal."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        where = f"{low} bis {high}" if high is not None else f"mindestens {low}"
        raise TournamentError("bad_settings", f"Die Turnieroption {name} muss eine ganze Zahl sein ({where}).")
    return value


def bad_result() -> TournamentError:
    return TournamentError("bad_result", "Das Ergebnis hat nicht die erwartete Form.")


class TournamentFormat(ABC):
    """One way of running a tournament. Subclasses set the class attributes and fill in the methods."""

    #: The name stored in ``Tournament.format`` and used in the registry.
    name: ClassVar[str]
    #: The game every table of the tournament plays (a ``games.engines`` name).
    game: ClassVar[str]
    #: What the page calls the format (German).
    label: ClassVar[str]
    #: The format's own options and their defaults (besides :data:`COMMON_DEFAULTS` and ``min_players``).
    defaults: ClassVar[dict[str, Any]] = {}
    #: The fewest players staff may set as ``min_players``, and its default.
    min_players: ClassVar[int] = 2

    def __init__(self, tournament: Tournament):
        self.t = tournament

    @property
    def settings(self) -> dict[str, Any]:
        return self.t.settings

    # --- options ------------------------------------------------------------------------------------

    @classmethod
    def normalize_settings(cls, given: dict | None) -> dict[str, Any]:
        """Every tournament option of this format with its default filled in, each checked."""
        if given is not None and not isinstance(given, dict):
            raise TournamentError("bad_settings", "Die Turnieroptionen müssen ein Objekt sein.")
        defaults = {**COMMON_DEFAULTS, "min_players": cls.min_players, **cls.defaults}
        unknown = set(given or {}) - set(defaults)
        if unknown:
            raise TournamentError(
                "bad_settings", f"Unbekannte Turnieroption(en): {', '.join(sorted(map(str, unknown)))}."
            )
        s = {**defaults, **(given or {})}
        if s["max_players"] is not None:
            int_setting("max_players", s["max_players"], 2)
        int_setting("min_players", s["min_players"], cls.min_players)
        int_setting("check_in_minutes", s["check_in_minutes"], 0, 24 * 60)
        int_setting("break_minutes", s["break_minutes"], 0, 24 * 60)
        cls.check_settings(s)
        return s

    @classmethod
    def check_settings(cls, s: dict[str, Any]) -> None:
        """Check (and where the format says so, fill in) the format's own options in ``s``."""
        return None

    @classmethod
    @abstractmethod
    def check_options(cls, options: dict, settings: dict[str, Any]) -> dict:
        """The table options staff gave (a dict), checked against the game's rules; refused if bad."""

    @abstractmethod
    def table_options(self, seats: int) -> dict:
        """The options a table of this tournament with ``seats`` seats opens with."""

    # --- stages -------------------------------------------------------------------------------------

    @abstractmethod
    def stage_count(self, players: int | None = None) -> int:
        """How many stages the tournament has (fixed at the start; ``players`` defaults to the participants)."""

    def seeds(self, entries: list[Entry], rating: Rating) -> dict[int, int]:
        """Seeds fixed at the start (user id → seed, 1 the best); most formats have none."""
        return {}

    @abstractmethod
    def seating(self, number: int, rating: Rating) -> Seating:
        """Who sits where in stage ``number``: one list of user ids per table (None: a bye)."""

    def deal_seeds(self, seating: Seating) -> dict[str, str]:
        """Shared deal seeds of a stage (table size → seed), for same-deal formats; none by default."""
        return {}

    def bye_result(self, seats: list[int | None]) -> dict:
        """The result of a table with a missing seat (a bye, a walkover), recorded when the stage starts."""
        raise ValueError(f"{self.name} seats nobody alone: {seats}")

    @abstractmethod
    def table_result(self, st: StageTable, match: Match) -> dict:
        """The result of a tournament table whose match ended (``StageTable.result``). A match that ended
        without a result (called off by any path, ended by staff) is void: ``{"void": True}``; what a void
        means is the format's to say, and must never be a win for anyone."""

    def abandoned(self, result: dict) -> dict[int, bool]:
        """Who abandoned their table in ``result`` (user id → True) and is out of later stages."""
        return {}

    def is_over(self, number: int) -> bool:
        """Whether the tournament ends with stage ``number``."""
        return number >= self.stage_count()

    @abstractmethod
    def corrected_result(self, st: StageTable, result: dict) -> dict:
        """A staff correction of ``st`` (a dict), checked and in the form ``table_result`` records."""

    def check_reinstate(self) -> None:
        """Refuse reinstating a removed player where the format does not allow it."""
        return None

    def forfeit_minutes(self) -> int | None:
        """After how many minutes a player who never moved loses their match (None: no forfeit rule)."""
        return None

    # --- reads --------------------------------------------------------------------------------------

    @abstractmethod
    def standings(self) -> list[dict]:
        """Best first: ``[{"user_id", "place", "stages": [per stage], ...}]``."""

    # --- the page -----------------------------------------------------------------------------------

    def words(self) -> list[str]:
        """The format's options in plain words (translated), for the tournament's page."""
        return []

    @abstractmethod
    def columns(self) -> list[tuple[str, str]]:
        """The standings' columns after place and name: ``(label, key of the standings row)``."""

    def stage_label(self, number: int) -> str:
        return _("Runde %(n)s") % {"n": number}

    # A stage in the format's own words, wherever a page names one (a Rommé series says "Serie", never "Runde").

    def stage_tables_title(self, number: int) -> str:
        return _("Tische der Runde %(n)s") % {"n": number}

    def stage_break_words(self, minutes: int) -> str:
        return ngettext("%(m)d Minute Pause zwischen den Runden", "%(m)d Minuten Pause zwischen den Runden",
                        minutes) % {"m": minutes}

    def next_stage_countdown_label(self) -> str:
        return _("Nächste Runde in")

    def next_stage_now_label(self) -> str:
        return _("Nächste Runde jetzt")

    def stage_started_label(self, number: int) -> str:
        return _("Runde %(n)s gestartet") % {"n": number}

    def stage_table_label(self, stage: int, table: int) -> str:
        return _("%(stage)s, Tisch %(n)s") % {"stage": self.stage_label(stage), "n": table}

    @abstractmethod
    def stage_cell(self, entry: dict | None, names: dict[int, str]) -> str:
        """One player's cell for one stage in the standings (``entry`` from the row's ``stages``)."""

    def bracket(self, names: dict[int, str]) -> list[dict] | None:
        """The bracket, round by round, for formats that have one; None otherwise."""
        return None

    def crosstable(self, standings: list[dict], names: dict[int, str]) -> dict | None:
        """Everyone against everyone as a grid, for formats where that is the picture; None otherwise."""
        return None

    # --- the tournament's rows, for the methods above -----------------------------------------------

    def playing(self) -> list[Entry]:
        return list(self.t.entries.filter(status=Entry.Status.PLAYING).select_related("user").order_by("number"))

    def participants(self) -> list[Entry]:
        return list(self.t.entries.filter(status__in=IN_STANDINGS).order_by("number"))

    def removed(self) -> set[int]:
        return set(self.t.entries.filter(status=Entry.Status.REMOVED).values_list("user_id", flat=True))

    def finished_tables(self) -> Iterable[StageTable]:
        return (StageTable.objects.filter(stage__tournament=self.t, finished_at__isnull=False)
                .select_related("stage").order_by("stage__number", "number"))


class PairedFormat(TournamentFormat):
    """Gin formats: each pairing plays one gin match with the tournament's table options. Match points:
    win ``win`` (1), loss ``loss`` (0), bye ``bye`` (1); the margin is the winner's final score minus the
    loser's. A player who never moves ``forfeit_minutes`` after the start loses the match.

    **A void match** (it ended without a result: called off by any path, or ended by staff) is a loss
    for both players: each gets ``loss`` points, margin 0, nobody a win, and they have met. Staff who
    ended a table correct its result to what was played (``tournament_result_correct``)."""

    game = "gin"
    min_players = 2
    #: Whether the standings carry Buchholz (the Swiss tie-break).
    buchholz: ClassVar[bool] = False
    defaults: ClassVar[dict[str, Any]] = {"forfeit_minutes": 5, "win": 1, "loss": 0, "bye": 1}

    @classmethod
    def check_settings(cls, s: dict[str, Any]) -> None:
        int_setting("forfeit_minutes", s["forfeit_minutes"], 1, 24 * 60)
        for name in ("win", "loss", "bye"):
            int_setting(name, s[name], 0, 10)

    @classmethod
    def check_options(cls, options: dict, settings: dict[str, Any]) -> dict:
        try:
            normalized = engines.engine(cls.game).normalize_options(options)
        except ValueError as error:
            raise TournamentError("bad_options", f"Ungültige Tischoption: {error}") from None
        if normalized["hollywood"]:
            raise TournamentError("bad_options", "Hollywood kann unentschieden enden; im Turnier gibt es das nicht.")
        return options

    def table_options(self, seats: int) -> dict:
        return dict(self.t.options)

    def forfeit_minutes(self) -> int | None:
        return self.settings.get("forfeit_minutes", 5)

    def points(self) -> dict[str, int]:
        s = self.settings
        return {"win": s["win"], "loss": s["loss"], "bye": s["bye"]}

    # --- results ------------------------------------------------------------------------------------

    def bye_result(self, seats: list[int | None]) -> dict:
        winner = next(u for u in seats if u is not None)
        return {"winner": winner, "loser": None, "margin": 0}

    def table_result(self, st: StageTable, match: Match) -> dict:
        result = match.result or {}
        winner = result.get("winner")
        if match.status != Match.Status.FINISHED or not result or not isinstance(winner, int):
            return {"void": True}
        final = result.get("final") or [0, 0]
        return {"winner": st.users[winner], "loser": st.users[1 - winner],
                "margin": max(0, int(final[winner]) - int(final[1 - winner]))}

    def corrected_result(self, st: StageTable, result: dict) -> dict:
        winner, margin = result.get("winner"), result.get("margin", 0)
        if (None in st.users or winner not in st.users or isinstance(margin, bool) or not isinstance(margin, int)
                or margin < 0):
            raise bad_result()
        return {"winner": winner, "loser": next(u for u in st.users if u != winner), "margin": margin}

    def results(self) -> list[pairing.GinResult]:
        """Every recorded result, as the pairing functions take them (a void match as a loss for both)."""
        out = []
        for st in self.finished_tables():
            r = st.result or {}
            if "winner" in r:
                out.append(pairing.GinResult(r["winner"], r["loser"], r.get("margin", 0)))
            elif r.get("void") and None not in st.users:
                out.append(pairing.GinResult.void_match(*st.users))
        return out

    def stage_entries(self, players: list[int]) -> dict[int, list]:
        """Per player, per stage: ``{"opponent", "won", "margin"}`` (a void match also ``"void": True``)."""
        stages = self.t.stages.count()
        per_stage: dict[int, list] = {u: [None] * stages for u in players}
        for st in self.finished_tables():
            r, n = st.result or {}, st.stage.number - 1
            if "winner" in r:
                if r["winner"] in per_stage:
                    per_stage[r["winner"]][n] = {"opponent": r["loser"], "won": True, "margin": r["margin"]}
                if r["loser"] in per_stage:
                    per_stage[r["loser"]][n] = {"opponent": r["winner"], "won": False, "margin": r["margin"]}
            elif r.get("void"):  # played, nobody won
                a, b = st.users
                for me, other in ((a, b), (b, a)):
                    if me in per_stage:
                        per_stage[me][n] = {"opponent": other, "won": False, "margin": 0, "void": True}
        return per_stage

    def ranked(self, players: list[int], results: list[pairing.GinResult]) -> list[pairing.GinStanding]:
        """The format's order of the players (the tie-breaks differ per format)."""
        return pairing.round_robin_standings(players, results, **self.points())

    def standings(self) -> list[dict]:
        players = [e.user_id for e in self.participants()]
        per_stage = self.stage_entries(players)
        rows = []
        for g in self.ranked(players, self.results()):
            row = {"user_id": g.player, "place": g.place, "stages": per_stage[g.player],
                   "match_points": g.match_points, "margin": g.margin}
            if self.buchholz:
                row["buchholz"] = g.buchholz
            rows.append(row)
        return rows

    # --- the page -----------------------------------------------------------------------------------

    def description(self) -> str:
        return self.label

    def more_words(self) -> list[str]:
        return []

    def words(self) -> list[str]:
        s = self.settings
        target = self.t.options.get("target", 100)
        return [
            self.description(), *self.more_words(),
            _("Eine Partie bis %(t)d Punkte") % {"t": target} if target else _("Eine Runde entscheidet"),
            _("Sieg %(w)d, Niederlage %(l)d, Freilos %(b)d Punkt(e)") % {"w": s["win"], "l": s["loss"], "b": s["bye"]},
            _("Wer %(m)d Minuten nach Beginn nicht gespielt hat, verliert") % {"m": s["forfeit_minutes"]},
        ]

    def columns(self) -> list[tuple[str, str]]:
        return [(_("Punkte"), "match_points"), (_("Differenz"), "margin")]

    def stage_cell(self, entry: dict | None, names: dict[int, str]) -> str:
        if not entry:
            return "–"
        if not entry.get("opponent"):
            return _("Freilos")
        sign = "+" if entry["won"] else "−"
        return f"{sign}{entry['margin']} {_('gegen')} {names.get(entry['opponent'], _('Freilos'))}"
