"""What the site knows about one game, besides its rules: the base class every game's registry entry is made
from (``games.registry``), with the parts the pages and services ask for.

An entry names its engine (a ``games.engine.interface.MatchEngine``) and bots, its seats, its presets and
table options (with the lobby's form fields and labels), turns the engine's facts into points (outcome,
score sheet, replay summary), steps a record through for the replay viewer, and answers the few questions
other apps ask about a finished match (how a score reads, who won for a rating). Hooks are methods a game
overrides, so nothing above the engine asks which game it is.
"""

from __future__ import annotations

import importlib
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext

from games.engine.interface import MatchEngine, MatchState

JSON = dict[str, Any]
Label = str | Promise

YES_NO: tuple[tuple[str, Label], ...] = (("true", gettext_lazy("ja")), ("false", gettext_lazy("nein")))
NO_YES: tuple[tuple[str, Label], ...] = (("false", gettext_lazy("nein")), ("true", gettext_lazy("ja")))
TURN_SECONDS: tuple[tuple[str, Label], ...] = (("45", "45 s"), ("30", "30 s"), ("60", "60 s"), ("90", "90 s"),
                                               ("600", "10 min"))


class BadOption(ValueError):
    """A table option the lobby's form sent that cannot be read (the message is for the player)."""


@dataclass(frozen=True)
class OptionField:
    """One of the create-table form's details: the option, its label and its choices (value as sent, label).
    ``kind`` says how the sent text becomes what the engine expects: ``int``, ``bool`` or ``str``."""

    name: str
    label: Label
    choices: tuple[tuple[str, Label], ...]
    kind: type = str

    def parse(self, raw: str) -> Any:
        """The option's value from the form's text; ``BadOption`` when it cannot be one."""
        if self.kind is int:
            try:
                return int(raw)
            except ValueError:
                raise BadOption(_("%(name)s muss eine ganze Zahl sein.") % {"name": self.name}) from None
        if self.kind is bool:
            if raw not in ("true", "false"):
                raise BadOption(_("%(name)s ist ja oder nein.") % {"name": self.name})
            return raw == "true"
        return raw


@dataclass(frozen=True)
class Preset:
    """A named set of table options the lobby offers first, with one line that says what it is."""

    code: str
    name: Label
    help: Label
    options: JSON = field(default_factory=dict)


@dataclass(frozen=True)
class SheetRow:
    """A row of a finished match's score sheet on its page."""

    label: str
    cells: list = field(default_factory=list)
    note: str = ""
    winner: int | None = None
    kind: str = "round"  # round | total | bonus | final | place


#: How a round ended, as the match page's score sheet says it: the ends any game may have. A game's own ends
#: (gin's knock, Rommé's Hand-Rommé) are its entry's ``round_results``.
ROUND_RESULTS: dict[str, Label] = {
    "dead": gettext_lazy("tote Runde"),
    "abandoned": gettext_lazy("abgebrochen"),
}


class GameEntry:
    """One game as the site knows it. Subclasses set the attributes and override the hooks they need."""

    #: The game's code, as tables, matches, records and URLs carry it ("gin").
    name: str
    #: Its name in German, as the models' choices carry it ("Gin Rommé").
    label: str
    #: Its name in the page's language, as titles show it (``pgettext_lazy("Spielname", ...)``).
    title: Label
    engine: MatchEngine
    #: The computer players: a module (or object) with ``choose_action(view, level, rng)``; None: none.
    bots: Any = None
    #: The seats a table may have, and how many when the options do not say.
    seats: tuple[int, int] = (2, 2)
    default_seats: int = 2
    #: The lobby's presets in the order it offers them; the first is the default.
    presets: tuple[Preset, ...] = ()
    #: The lobby's details under the presets.
    option_fields: tuple[OptionField, ...] = ()
    #: The game's suit sign in the lobby (the quick-game buttons, the table list), and its CSS class.
    sign: str = "♠"
    sign_class: str = ""
    #: What "won" counts on a profile and on the leaderboard (gin: matches, Rommé: lists), and the pool's note on
    #: how its tables form (empty: none).
    profile_wins_label: Label = gettext_lazy("Gewonnen")
    leaderboard_wins_label: Label = gettext_lazy("Siegquote")
    pool_note: Label = ""
    #: The replay function of the game's engine: a record in, the match's facts out (``InvalidRecord``).
    replay: Callable[[JSON], JSON]
    #: The game's client module, as a static path ("gin/client.js", in the game's own ``static/<game>/``): an ES
    #: module that exports ``table`` and ``replay``, each a function that imports that page's hooks. The table
    #: page and the replay viewer load it (``{% static %}``) and call its hooks; the shells name no game.
    client_module: str = ""
    #: The game's own stylesheet, as a static path in its own ``static/<game>/`` ("gin/gin.css"), or "" for none:
    #: the look of what only it shows (gin's Klopfen button, Rommé's red in the lobby). The table page and the
    #: replay viewer load it after the shared stylesheets; the lobby loads every game's.
    stylesheet: str = ""
    #: How the game's own rounds end, by the stored round result's ``result`` ("knock": "Klopfen"), beside the
    #: ends any game may have (``ROUND_RESULTS``).
    round_results: Mapping[str, Label] = {}
    #: The keys of a seat's view that only that seat may see, beyond its hand and legal actions (which the
    #: presenter strips from every spectator's view whatever the game): gin's deadwood meter, Rommé's Augen.
    seat_only_keys: tuple[str, ...] = ()
    #: The fields of a stored round result the game's profile statistics read (``profile_statistics``).
    profile_round_facts: tuple[str, ...] = ("result", "winner")
    #: The game's meld builder's question, "what do these cards make?": card codes in, the meld's order and
    #: points (or the rules' reason why they are none) out; None: the game has no meld builder. A module-level
    #: function of the engine (standard library only), as it runs in a worker process of its own
    #: (``games.reads.previews``).
    meld_preview: Callable[[list[str]], JSON] | None = None
    #: The game's post-match analysis (``games.analysis``): the name of an engine module (standard library only,
    #: as it runs in a worker process of its own) with ``decisions(record, seats)``, the views a record's seats
    #: had before each of their moves, and ``analyse(view, action, rng, stop=...)``, the expert's move and the
    #: estimated cost of ``action`` in the game's points; "" for none (the match page then shows no analysis).
    analysis: str = ""
    #: What the analysis's costs are counted in, as the match page says it ("Punkte der Runde").
    analysis_unit: Label = gettext_lazy("Punkte")

    # --- words ----------------------------------------------------------------------------------------

    def table_words(self) -> JSON:
        """The game's own words on the table page (its buttons, numbers, score sheet), in the request's
        language, beside the shell's (``games.templatetags.table_i18n``): ``{key: text}``, a text with a number
        as ``{"one": ..., "other": ...}``. A hook: none by default."""
        return {}

    def replay_words(self) -> JSON:
        """The game's own words in the replay viewer (its moves, how its rounds end), beside the viewer's."""
        return {}

    # --- tables and options ---------------------------------------------------------------------------

    @property
    def default_preset(self) -> str:
        return self.presets[0].code if self.presets else ""

    def preset(self, code: str) -> Preset | None:
        return next((p for p in self.presets if p.code == code), None)

    def option_field(self, name: str) -> OptionField | None:
        return next((f for f in self.option_fields if f.name == name), None)

    def form_options(self, preset: str, options: JSON) -> JSON:
        """The options the lobby's form asks for, once the preset is known (a hook: nothing by default)."""
        return options

    def masters_scoring(self, options: JSON) -> bool:
        """Whether a table with these options is tournament play (Masters scoring: no chat)."""
        return False

    def option_summary(self, options: JSON) -> list[str]:
        """The options that matter at a glance, as short labels for the lobby (without the turn time)."""
        return []

    # --- play -----------------------------------------------------------------------------------------

    def bot_action(self, state: MatchState, seat: int, level: str, rng: random.Random) -> JSON:
        """The action the computer player of ``seat`` chooses, seeing only its own view."""
        return self.bots.choose_action(self.engine.view(state, seat), level, rng)

    def bot_searches(self, level: str) -> bool:
        """Whether this level's decisions take a search (the referee runs those in its thinker's worker, with
        ``choose_action(view, level, rng, stop=...)``): the bots' ``SEARCH_LEVELS``."""
        return self.bots is not None and level in getattr(self.bots, "SEARCH_LEVELS", ())

    # --- the stored state -----------------------------------------------------------------------------

    def stored_state(self, state: MatchState) -> JSON:
        """The match state as the table row keeps it (a hook: whole). A game may leave out what the site keeps
        elsewhere (gin and Rommé: the records of finished rounds but the last, which the Round rows hold);
        the engine's ``from_json`` must read it back, and ``record()`` of what it reads may then refuse."""
        return state.to_json()

    def round_record(self, state: MatchState, number: int) -> JSON | None:
        """The records.md record of finished round ``number`` (1-based) of ``state``, as the Round row keeps it;
        None if that round did not finish (a resignation ended the match in it). A hook: from ``record()``; a
        game whose ``stored_state`` leaves older records out reads the round's record alone."""
        rounds = state.record().get("rounds", [])
        return rounds[number - 1] if len(rounds) >= number else None

    def with_round_record(self, state: MatchState, number: int, record: JSON) -> MatchState:
        """``state`` holding the record of finished round ``number`` again (the Round row's ``record``), for a
        change that adds to that record (a Rommé seat resigning between rounds). A hook: a whole stored state
        holds it already."""
        return state

    # --- points from facts ----------------------------------------------------------------------------

    def result(self, state: MatchState) -> JSON | None:
        """The result of the match ``state`` is in once it is over (``Match.result``), else None."""
        return self.outcome(state.facts()) if state.over else None

    def outcome(self, facts: JSON) -> JSON | None:
        """The result of a finished match (``Match.result``: ``winner``, ``final``, ``places``, ...) or None."""
        raise NotImplementedError

    def score_sheet(self, facts: JSON) -> JSON:
        """The score sheet a view carries (``view["scores"]``)."""
        raise NotImplementedError

    def summary(self, facts: JSON) -> JSON:
        """The replay summary ``manage.py replay`` prints for a replayed record's facts."""
        raise NotImplementedError

    def last_round_shown(self, last_round: JSON | None) -> JSON | None:
        """The engine view's ``last_round`` as views show it (a hook: as the engine gave it)."""
        return last_round

    def points(self, state: MatchState) -> JSON:
        """The points part of every view of ``state``: the score sheet and the result. The same for every
        audience, so the presenter computes it once per state and shares it (``view(..., points=)``)."""
        facts = state.facts()
        return {"scores": self.score_sheet(facts), "result": self.outcome(facts)}

    def view(self, state: MatchState, seat: int | None, *, points: JSON | None = None) -> JSON:
        """What ``seat`` may see (None: a spectator), with the points in it (``points``: this state's, already
        computed)."""
        view = self.engine.view(state, seat)
        if points is None:
            points = self.points(state)
        view["scores"] = points["scores"]
        view["result"] = points["result"]
        view["last_round"] = self.last_round_shown(view["last_round"])
        return view

    def replay_summary(self, record: JSON) -> JSON:
        """Replay a record with the engine and summarise it; ``InvalidRecord`` names round, move and reason."""
        return self.summary(self.replay(record))

    def replay_positions(self, record: JSON) -> tuple[list[JSON], list[JSON]]:
        """Every position of a legal record for the replay viewer: ``(rounds, positions)``, see
        ``ratings.replay.replay_positions``."""
        raise NotImplementedError

    # --- the analysis of a finished match -------------------------------------------------------------

    def analysis_module(self) -> Any:
        """The game's analysis module (``analysis``); ValueError for a game that has none."""
        if not self.analysis:
            raise ValueError(f"the game {self.name!r} has no analysis")
        return importlib.import_module(self.analysis)

    def analyse_decision(self, view: JSON, action: JSON, budget: float, *, rng: random.Random | None = None) -> JSON:
        """The expert's move in ``view`` (the deciding seat's own view, nothing more) and the estimated cost of
        ``action`` against it, within ``budget`` seconds of wall-clock time: ``{"best", "cost", "values",
        "samples"}``. A hook through ``analysis``: each game's playouts are its own."""
        deadline = time.monotonic() + budget
        return self.analysis_module().analyse(view, action, rng or random.Random(0),
                                              stop=lambda: time.monotonic() >= deadline)

    def describe_action(self, action: JSON) -> str:
        """A move in words, in the active language, for the analysis (a hook: the action's name by default)."""
        return str(action.get("action", ""))

    # --- a finished match, as other pages read it -----------------------------------------------------

    def record_extras(self, result: JSON) -> JSON:
        """What a finished match's record carries besides its rounds so that it replays to its result."""
        return {}

    def score_kind(self, options: JSON) -> str:
        """What a player's final score is: ``points`` (more is better), ``minus`` or ``result``."""
        return "points"

    def won(self, result: JSON, seat: int, place: int) -> bool:
        """Whether ``seat`` (who stayed) won the match, for the rating's win count: a sole first place."""
        return result.get("winner") == seat

    def result_label(self, round_result: JSON) -> str:
        """How a round ended, in a word, for the match page's score sheet: the game's own word for it, else
        the word any game has (a dead round), else the stored code."""
        kind = round_result.get("result") or ""
        label = self.round_results.get(kind, ROUND_RESULTS.get(kind))
        return str(label) if label is not None else kind or "–"

    def match_sheet(self, result: JSON, rounds: Sequence[Any], seats: int) -> JSON:
        """A finished match's score sheet on its page, from the stored result and rounds (``Round`` rows):
        ``{"mode", "rounds": [SheetRow], "sums": [SheetRow]}``. By default the final scores and places."""
        rows = [SheetRow(label=str(rnd.number), cells=[""] * seats, winner=(rnd.result or {}).get("winner"),
                         note=self.result_label(rnd.result or {})) for rnd in rounds]
        sums = [
            SheetRow(label=_("Endstand"), cells=list(result.get("final") or []), kind="final",
                     winner=result.get("winner")),
            SheetRow(label=_("Platz"), cells=list(result.get("places") or []), kind="place"),
        ]
        return {"mode": self.name, "rounds": rows, "sums": sums}

    def profile_facts(self, stats: JSON) -> list[tuple[str, str, str]]:
        """The game's own lines of a profile's facts, from ``profile_statistics``: (slug, label, shown value)."""
        return []

    def profile_statistics(self, *, matches: Sequence[tuple[int, JSON]], rounds: Sequence[tuple[int, JSON]]) -> JSON:
        """The game's own statistics on a profile: ``matches`` are the player's finished matches as
        ``(seat, result)``, ``rounds`` their finished rounds as ``(seat, facts)``, ``facts`` the stored round
        result's fields the entry names in ``profile_round_facts`` (a field the result lacks is None). By
        default the rounds won."""
        return {"rounds_won": sum(1 for seat, facts in rounds if facts.get("winner") == seat)}

    # --- the meld builder ---------------------------------------------------------------------------------

    def meld_preview_unsearched(self, cards: list[str]) -> JSON | None:
        """The meld preview's answer where no search is needed, given at once in the serving process; None:
        ask ``meld_preview`` (in the worker). A hook for a game that has a preview."""
        return None

    def __repr__(self) -> str:
        return f"<GameEntry {self.name}>"


_SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def card_text(code: str) -> str:
    """A card in a move line, in the active language, as the browser's ``cardShort`` writes it: "♥D" (German)
    / "♥Q" (English), "♣10", "Joker"."""
    if code == "JK":
        return "Joker"
    rank = code[:1]
    labels = {"T": "10", "J": pgettext("Kartenwert", "B"), "Q": pgettext("Kartenwert", "D")}
    return f"{_SUITS.get(code[1:2], '?')}{labels.get(rank, rank)}"


#: The parts of a record round that make its deal (what the site hashed when it began).
DEAL_KEYS = ("dealer", "hands", "upcard", "stock")


def deal_of(record_round: dict) -> dict:
    """The deal of a record round: exactly the object whose canonical JSON the site hashed when it began."""
    return {key: record_round[key] for key in DEAL_KEYS}


class RoundRowRecordsEntry(GameEntry):
    """A game whose table row keeps the summaries of its finished rounds but none of their records: a round's
    record is in its Round row from the change that ends the round (which still holds it in memory), and
    loading and saving the records on every move cost most of the row's time and bytes (docs/scale.md, issue
    24). Its engine's ``Match`` has ``to_json(keep_records=...)``, ``round_record(number)`` and
    ``with_round_record(number, record)``."""

    def stored_state(self, state: MatchState) -> JSON:
        return cast(Any, state).to_json(keep_records=0)

    def round_record(self, state: MatchState, number: int) -> JSON | None:
        return cast(Any, state).round_record(number)

    def with_round_record(self, state: MatchState, number: int, record: JSON) -> MatchState:
        return cast(Any, state).with_round_record(number, record)

