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
from datetime import datetime, timedelta
from typing import Any, ClassVar, cast

from django import forms
from django.conf import settings as django_settings
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from games import glossary, registry
from games.models import Match
from games.reads.matches import forfeited_seat
from tournaments import pairing
from tournaments.errors import TournamentError
from tournaments.fields import (
    MAX_PLAYERS,
    Label,
    WholeNumberField,
    lazy_format,
    minutes_field,
    table_option_default,
    table_option_field,
    whole_number_field,
)
from tournaments.models import Entry, StageTable, Tournament

#: Who sits where at each table of a stage (user ids by seat); a list with None is a bye or a walkover.
Seating = list[list[int | None]]
#: The rating that seeds a user: anything with ``display`` (a number) and ``provisional`` (a bool).
Rating = Callable[[Any], Any]
#: A group of the result correction's fields: its heading ("" for none), the fields by name, their initial values.
CorrectionGroup = tuple[str, dict[str, forms.Field], dict[str, Any]]
#: What a hand-corrected list or match may hold; far beyond any real result, small enough for every database.
MAX_RESULT = 100_000

#: The options every format has, with their defaults (spec/tournaments.md).
COMMON_DEFAULTS: dict[str, Any] = {"max_players": None, "check_in_minutes": 10, "break_minutes": 2}
#: Entries that belong in the standings: playing, out after an Abbruch (still PLAYING), removed.
IN_STANDINGS = (Entry.Status.PLAYING, Entry.Status.REMOVED)


def clock_minutes(minutes: float) -> timedelta:
    """A span of the tournaments' clock (check-in, break, forfeit, an arena's length): ``settings.
    TOURNAMENTS_MINUTE_SECONDS`` (60) seconds a minute; the clock tests shorten it."""
    return timedelta(seconds=float(minutes) * float(django_settings.TOURNAMENTS_MINUTE_SECONDS))


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
    #: The game every table of the tournament plays (a ``games.registry`` name).
    game: ClassVar[str]
    #: What the page calls the format (German source, translated when shown).
    label: ClassVar[Label]
    #: The format's own options and their defaults (besides :data:`COMMON_DEFAULTS` and ``min_players``).
    defaults: ClassVar[dict[str, Any]] = {}
    #: The fewest players staff may set as ``min_players``, and its default.
    min_players: ClassVar[int] = 2
    #: The most players the format takes (``max_players`` and ``min_players`` stay within it).
    max_players: ClassVar[int] = MAX_PLAYERS
    #: The create form's fields whose values are table options (``Tournament.options``), not settings.
    table_option_names: ClassVar[tuple[str, ...]] = ("turn_seconds",)
    #: The create form's label of ``break_minutes`` (a Rommé series says "Serien").
    break_label: ClassVar[Label] = gettext_lazy("Pause zwischen den Runden (Minuten)")
    #: Whether the format seats players on every pass of the referee's clock (:meth:`pairing`) in one stage
    #: that stays open while :meth:`taking_tables`, instead of stage after stage (the arena).
    continuous: ClassVar[bool] = False
    #: Whether players may register while the tournament runs (and play at once).
    joins_late: ClassVar[bool] = False
    #: Whether players pause and resume themselves (not seated while paused).
    players_pause: ClassVar[bool] = False

    def __init__(self, tournament: Tournament) -> None:
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
            int_setting("max_players", s["max_players"], 2, cls.max_players)
        int_setting("min_players", s["min_players"], cls.min_players, cls.max_players)
        int_setting("check_in_minutes", s["check_in_minutes"], 0, 24 * 60)
        int_setting("break_minutes", s["break_minutes"], 0, 24 * 60)
        cls.check_settings(s)
        if s["max_players"] is not None and s["min_players"] > s["max_players"]:
            raise TournamentError("bad_settings", "Mindestens mehr Teilnehmer als höchstens: "
                                  f"min_players {s['min_players']} > max_players {s['max_players']}.")
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

    # --- the staff's create and edit forms ------------------------------------------------------------

    @classmethod
    def kind(cls) -> str:
        """The create form's value for this format: ``game:format`` ("gin:swiss")."""
        return f"{cls.game}:{cls.name}"

    @classmethod
    def kind_label(cls) -> str:
        """The create form's label for this format, in the page's language ("Gin Rommé: Schweizer System")."""
        return _("%(game)s: %(format)s") % {"game": registry.get(cls.game).title, "format": cls.label}

    @classmethod
    def form_fields(cls) -> dict[str, forms.Field]:
        """The create and edit forms' fields of this format's options, in the page's order, each a new field
        whose empty value takes the option's default: the format's own (:meth:`own_form_fields`), then the
        turn time, then what every format has. A value goes to the settings, or to the tables' options when
        its name is in ``table_option_names``."""
        return {**cls.own_form_fields(), **cls.common_form_fields()}

    @classmethod
    def own_form_fields(cls) -> dict[str, forms.Field]:
        """The fields of the format's own options (none by default)."""
        return {}

    @classmethod
    def common_form_fields(cls) -> dict[str, forms.Field]:
        """The turn time (the game's choices, through its registry entry) and the options every format has."""
        fields: dict[str, forms.Field] = {}
        turn = table_option_field(cls.game, "turn_seconds", label=gettext_lazy("Bedenkzeit pro Zug"),
                                  help_text=gettext_lazy("Für jeden Zug an den Turniertischen; wer sie überschreitet, "
                                                         "für den zieht der Server."))
        if turn is not None:
            fields["turn_seconds"] = turn
        fields["min_players"] = whole_number_field(
            gettext_lazy("Mindestens Teilnehmer"), low=cls.min_players, high=cls.max_players, default=cls.min_players,
            help_text=gettext_lazy("Sind beim Start weniger da (eingecheckt, oder ohne Einchecken "
                                   "angemeldet), wird das Turnier abgesagt."))
        fields["max_players"] = whole_number_field(
            gettext_lazy("Höchstens Teilnehmer"), low=cls.min_players, high=cls.max_players,
            help_text=gettext_lazy("Leer: keine Grenze. Wer sich danach anmeldet, kommt auf die Warteliste.")
            if cls.max_players == MAX_PLAYERS else
            lazy_format(gettext_lazy("Leer: %(n)d. Wer sich danach anmeldet, kommt auf die Warteliste."),
                        n=cls.max_players))
        fields["check_in_minutes"] = minutes_field(
            gettext_lazy("Einchecken (Minuten vor dem Start)"), default=COMMON_DEFAULTS["check_in_minutes"],
            help_text=gettext_lazy("0: kein Einchecken. Wer beim Start nicht eingecheckt ist, spielt nicht mit."))
        fields["break_minutes"] = minutes_field(cls.break_label, default=COMMON_DEFAULTS["break_minutes"])
        return fields

    @classmethod
    def form_defaults(cls) -> dict[str, Any]:
        """What each of the form's fields takes when it is left empty."""
        settings = cls.normalize_settings({})
        return {name: table_option_default(cls.game, name) if name in cls.table_option_names else settings.get(name)
                for name in cls.form_fields()}

    @classmethod
    def form_errors(cls, values: dict[str, Any]) -> dict[str, str]:
        """The rules between the form's checked ``values`` (None: left empty), as messages by field name."""
        errors: dict[str, str] = {}
        low, high = values.get("min_players"), values.get("max_players")
        if low is not None and high is not None and low > high:
            errors["min_players"] = _("Mindestens %(low)d Teilnehmer, aber höchstens %(high)d: das passt "
                                      "nicht zusammen.") % {"low": low, "high": high}
        return errors

    @classmethod
    def form_values(cls, values: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The settings and the table options that the form's checked ``values`` give; an empty field (None)
        is left out, so it takes its default."""
        settings = {n: v for n, v in values.items() if v is not None and n not in cls.table_option_names}
        options = {n: v for n, v in values.items() if v is not None and n in cls.table_option_names}
        return settings, options

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

    def abandoned_entry(self) -> dict[str, Any]:
        """What an abandon changes on the player's entry: out of later stages (the arena: paused)."""
        return {"out": True}

    def pairing(self, now: datetime, rating: Rating) -> Seating:
        """Continuous formats: the tables to open now for the players free now; none by default."""
        return []

    def pass_due(self, now: datetime) -> bool:
        """Continuous formats: whether a pairing pass has anything to do now (an unlocked look, so that an idle
        arena costs the referee no write lock): players to seat, or an end to check."""
        return self.continuous

    def taking_tables(self, now: datetime) -> bool:
        """Whether the current stage stays open for tables still to come although none plays now (an arena
        before its end); a stage of the other formats ends with its last table."""
        return False

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

    #: A part of the tournament page's live body that the format adds (a template name), or None.
    live_template: ClassVar[str | None] = None

    def live_facts(self, user_id: int | None, now: datetime) -> dict[str, Any]:
        """What :attr:`live_template` shows to ``user_id`` (None: not signed in) at ``now``."""
        return {}

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

    # --- correcting a result (the staff page) ---------------------------------------------------------

    def correction_fields(self, st: StageTable, names: dict[int, str]) -> list[CorrectionGroup]:
        """The correction form of the finished table ``st``: by default a table of two that someone won, its
        winner and the margin (what :meth:`corrected_result` takes by default)."""
        result = st.result or {}
        winner = forms.TypedChoiceField(label=gettext_lazy("Sieger"), coerce=int,
                                        choices=[(str(u), names.get(u, str(u))) for u in st.users if u is not None])
        margin = WholeNumberField(label=gettext_lazy("Differenz"), min_value=0, max_value=MAX_RESULT)
        return [("", {"winner": winner, "margin": margin},
                 {"winner": result.get("winner"), "margin": result.get("margin", 0)})]

    def correction_result(self, st: StageTable, values: dict[str, Any]) -> dict:
        """The correction form's checked ``values`` in the shape :meth:`corrected_result` takes."""
        return {"winner": values["winner"], "margin": values["margin"]}

    # --- the standings as CSV -------------------------------------------------------------------------

    def csv_columns(self) -> list[str]:
        """The standings keys the CSV has after place and player (by default those of :meth:`columns`)."""
        return [key for _label, key in self.columns()]

    def csv_stage_codes(self, number: int) -> list[str]:
        """The CSV's header codes of stage ``number`` (the page puts them in words)."""
        return [f"stage {number}"]

    def csv_stage_cells(self, entry: dict | None, names: dict[int, str]) -> list[Any]:
        """One player's cells of one stage (as many as :meth:`csv_stage_codes`); numbers stay numbers."""
        return [self.stage_cell(entry, names) if entry else ""]

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
    table_option_names: ClassVar[tuple[str, ...]] = ("target", "turn_seconds")

    @classmethod
    def own_form_fields(cls) -> dict[str, forms.Field]:
        fields: dict[str, forms.Field] = {}
        target = table_option_field(cls.game, "target", label=gettext_lazy("Partie bis"),
                                    help_text=gettext_lazy("Punkte, mit denen eine Partie gewonnen ist, mit "
                                                           "Partie- und Rundenbonus."))
        if target is not None:
            fields["target"] = target
        fields["forfeit_minutes"] = minutes_field(
            gettext_lazy("Kampflos verloren nach (Minuten)"), low=1, default=cls.defaults["forfeit_minutes"],
            help_text=gettext_lazy("Wer so lange nach dem Beginn der Partie keinen eigenen Zug gemacht hat, "
                                   "verliert sie kampflos."))
        return fields

    @classmethod
    def check_settings(cls, s: dict[str, Any]) -> None:
        int_setting("forfeit_minutes", s["forfeit_minutes"], 1, 24 * 60)
        for name in ("win", "loss", "bye"):
            int_setting(name, s[name], 0, 10)

    @classmethod
    def check_options(cls, options: dict, settings: dict[str, Any]) -> dict:
        try:
            normalized = registry.get(cls.game).engine.normalize_options(options)
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
        recorded = {"winner": st.users[winner], "loser": st.users[1 - winner],
                    "margin": max(0, int(final[winner]) - int(final[1 - winner]))}
        if forfeited_seat(match=match) is not None:  # the loser never played: "kampflos" wherever it shows
            recorded["forfeit"] = True
        elif match.ending == Match.Ending.RESIGNED:  # "durch Aufgabe": a 0 margin then still says who won
            recorded["resigned"] = True
        return recorded

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
        """Per player, per stage: ``{"opponent", "won", "margin"}`` (a void match also ``"void": True``, a match
        lost by forfeit ``"forfeit": True`` for both players, a resigned one ``"resigned": True``)."""
        stages = self.t.stages.count()
        per_stage: dict[int, list] = {u: [None] * stages for u in players}
        for st in self.finished_tables():
            r, n = st.result or {}, st.stage.number - 1
            if "winner" in r:
                forfeit = {key: True for key in ("forfeit", "resigned") if r.get(key)}
                if r["winner"] in per_stage:
                    per_stage[r["winner"]][n] = {"opponent": r["loser"], "won": True, "margin": r["margin"],
                                                 **forfeit}
                if r["loser"] in per_stage:
                    per_stage[r["loser"]][n] = {"opponent": r["winner"], "won": False, "margin": r["margin"],
                                                **forfeit}
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
            row = {"user_id": g.player, "place": g.place, "stages": per_stage[cast(int, g.player)],
                   "match_points": g.match_points, "margin": g.margin}
            if self.buchholz:
                row["buchholz"] = g.buchholz
            rows.append(row)
        return rows

    # --- the page -----------------------------------------------------------------------------------

    def description(self) -> str:
        return str(self.label)

    def more_words(self) -> list[str]:
        return []

    def words(self) -> list[str]:
        s = self.settings
        target = self.t.options.get("target", 100)
        return [
            self.description(), *self.more_words(),
            _("Eine Partie bis %(t)d Punkte") % {"t": target} if target else _("Eine Runde entscheidet"),
            _("Sieg: %(w)s, Niederlage: %(l)s, Freilos: %(b)s") % {
                "w": glossary.points(s["win"]), "l": glossary.points(s["loss"]), "b": glossary.points(s["bye"])},
            ngettext("Wer %(m)d Minute nach Beginn nicht gespielt hat, verliert",
                     "Wer %(m)d Minuten nach Beginn nicht gespielt hat, verliert", s["forfeit_minutes"])
            % {"m": s["forfeit_minutes"]},
        ]

    def columns(self) -> list[tuple[str, str]]:
        return [(_("Punkte"), "match_points"), (_("Differenz"), "margin")]

    def stage_cell(self, entry: dict | None, names: dict[int, str]) -> str:
        if not entry:
            return "–"
        if not entry.get("opponent"):
            return str(glossary.BYE)
        if entry.get("forfeit"):
            return f"{glossary.FORFEIT} {_('gegen')} {names.get(entry['opponent'], '')}"
        opponent = names.get(entry["opponent"], str(glossary.BYE))
        if entry.get("resigned"):
            # A resignation before anyone scored leaves a margin of 0: the cell says who won in words.
            head = (glossary.signed(entry["margin"] if entry["won"] else -entry["margin"]) if entry["margin"]
                    else glossary.WIN if entry["won"] else glossary.LOSS)
            return f"{head} {_('gegen')} {opponent} {glossary.BY_RESIGNATION}"
        margin = glossary.signed(entry["margin"] if entry["won"] else -entry["margin"])
        return f"{margin} {_('gegen')} {opponent}"

    def csv_stage_codes(self, number: int) -> list[str]:
        return [f"stage {number}", f"stage {number} opponent"]

    def csv_stage_cells(self, entry: dict | None, names: dict[int, str]) -> list[Any]:
        # The margin in a cell of its own, as a number (won positive, lost negative); the opponent beside it.
        if not entry:
            return ["", ""]
        if not entry.get("opponent"):
            return ["", "bye"]
        margin = entry["margin"] if entry["won"] else -entry["margin"]
        return [margin, names.get(entry["opponent"], "?")]
