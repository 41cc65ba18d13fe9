"""The staff's forms on the tournament pages: every field staff can post (create, edit, publish, start, next
stage, pause, resume, cancel, remove, reinstate, correct a result) is checked here by a Django form before a
service is called, so bad input is a field error in German (English through gettext), never a server error.
Times are read in the site's time zone (``settings.TIME_ZONE``) unless they name an offset, and a start in the
past is refused: the referee would start (and, short of players, cancel) such a tournament at once."""

from __future__ import annotations

import copy
import re
from datetime import UTC, datetime
from typing import Any

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.functional import lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games.engine.gin.match import OPTION_CHOICES as GIN_OPTION_CHOICES
from tournaments import services
from tournaments.formats.series import romme_rounds_allowed
from tournaments.models import StageTable, Tournament

NAME_LENGTH = 120  # Tournament.name
REASON_LENGTH = 300  # AuditEntry.reason and Tournament.notice (a cancel's reason becomes the notice)
DAY_MINUTES = 24 * 60
#: A bound on what the field takes, not a rule of the game: "no limit" is an empty field.
MAX_PLAYERS = 10_000
#: What a hand-corrected list or match may hold; far beyond any real result, small enough for every database.
MAX_RESULT = 100_000

KINDS = (
    ("romme:series", _("Rommé: Serienturnier (Masters)")),
    ("gin:swiss", _("Gin Rommé: Schweizer System")),
    ("gin:knockout", _("Gin Rommé: K.-o.-System")),
    ("gin:round_robin", _("Gin Rommé: Jeder gegen jeden")),
)
#: Which of the create form's options each game has (the others' fieldset is ignored for it).
ROMME_ONLY = ("series", "table_size", "same_deals")
GIN_ONLY = ("target", "forfeit_minutes")
COMMON = ("rounds", "max_players", "check_in_minutes", "break_minutes")
#: Formats whose number of stages staff choose (the others follow from the number of players).
ROUNDS_CHOSEN = ("series", "swiss")


def lazy_format(message, **values: Any):
    """``message % values``, translated when it is shown (fields are built once, at import, in no language)."""
    return lazy(lambda: str(message) % values, str)()


def option_names(game: str, format: str) -> tuple[str, ...]:
    """The options of the create form that a tournament of ``game`` and ``format`` has."""
    common = COMMON if format in ROUNDS_CHOSEN else tuple(n for n in COMMON if n != "rounds")
    return common + (ROMME_ONLY if game == "romme" else GIN_ONLY)


def check_options(form: forms.Form, game: str, format: str) -> None:
    """The rules between a tournament's kind and its options, as field errors of ``form``."""
    data = form.cleaned_data
    rounds = data.get("rounds")
    if rounds is not None and format not in ROUNDS_CHOSEN:
        form.add_error("rounds", gettext("Die Zahl der Runden wählt man nur bei Rommé und im Schweizer "
                                         "System; hier folgt sie aus der Zahl der Teilnehmer."))
    elif rounds is not None and game == "romme" and rounds not in romme_rounds_allowed():
        form.add_error("rounds", gettext("Rommé: %(allowed)s Runden je Liste.") % {
            "allowed": ", ".join(map(str, romme_rounds_allowed()))})
    minimum = 3 if game == "romme" else 2
    if data.get("max_players") is not None and data["max_players"] < minimum:
        form.add_error("max_players", gettext("Mindestens %(n)d Teilnehmer braucht dieses Turnier.") % {
            "n": minimum})


def time_zone_name() -> str:
    """The zone every time on the staff pages is entered and shown in."""
    return settings.TIME_ZONE


class WholeNumberField(forms.IntegerField):
    """A whole number in ASCII digits (an optional minus sign) from ``min_value`` to ``max_value``. "4.5",
    "1e3", "١٢", a NUL byte or 5,000 digits are the same clear field error, with the range in it."""

    _shape = re.compile(r"-?[0-9]+")

    def __init__(self, *, min_value: int, max_value: int, placeholder: int | None = None, **kwargs: Any) -> None:
        super().__init__(min_value=min_value, max_value=max_value, **kwargs)
        if placeholder is not None:  # the default an empty field takes
            self.widget.attrs["placeholder"] = str(placeholder)
        message = lazy_format(_("Bitte eine ganze Zahl von %(low)s bis %(high)s eingeben."), low=min_value,
                              high=max_value)
        self.error_messages = {**self.error_messages, "invalid": message, "min_value": message,
                               "max_value": message}

    def to_python(self, value: Any) -> int | None:
        if value in self.empty_values:
            return None
        text = str(value).strip()
        if not self._shape.fullmatch(text):
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        if len(text.lstrip("-")) > len(str(self.max_value)) + 1:  # never hand int() thousands of digits
            raise ValidationError(self.error_messages["max_value"], code="max_value")
        return int(text)


class StartField(forms.DateTimeField):
    """A start time, read in the site's time zone unless it names an offset (a time that the clocks skip or
    repeat there is refused by Django's own check), and not in the past."""

    _shape = re.compile(r"[0-9T:.+\- Z]{1,40}")
    widget = forms.DateTimeInput(format="%Y-%m-%d %H:%M")
    #: Both forms the help text offers, in every language of the page (ISO with an offset is read first).
    input_formats = ["%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S", "%d.%m.%Y %H:%M", "%d.%m.%Y %H:%M:%S", "%d.%m.%Y"]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.error_messages = {
            **self.error_messages,
            "invalid": _("Bitte Datum und Uhrzeit als JJJJ-MM-TT HH:MM eingeben (oder TT.MM.JJJJ HH:MM)."),
            "past": _("Diese Startzeit liegt in der Vergangenheit."),
        }
        self.help_text = lazy_format(_("Uhrzeit in der Zeitzone %(zone)s; leer: Start durch die Turnierleitung."),
                                     zone=time_zone_name())
        self.widget.attrs.update({"placeholder": _("JJJJ-MM-TT HH:MM"), "maxlength": "40",
                                  "autocomplete": "off"})

    def to_python(self, value: Any) -> datetime | None:
        if value in self.empty_values:
            return None
        if isinstance(value, str) and not self._shape.fullmatch(value.strip()):
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        when = super().to_python(value)
        try:  # the database keeps UTC: a time that has no UTC (year 1 in Berlin, 9999-12-31 at -12:00) is bad
            when.astimezone(UTC)
            when = timezone.localtime(when)
        except (OverflowError, ValueError):
            raise ValidationError(self.error_messages["invalid"], code="invalid") from None
        return when

    def validate(self, value: datetime | None) -> None:
        super().validate(value)
        if value is not None and value <= timezone.now():
            raise ValidationError(self.error_messages["past"], code="past")


def name_field() -> forms.CharField:
    return forms.CharField(label=_("Name"), max_length=NAME_LENGTH, strip=True)


def reason_field(*, required: bool, label=None) -> forms.CharField:
    return forms.CharField(label=label or _("Grund"), max_length=REASON_LENGTH, strip=True, required=required)


def minutes_field(label, *, low: int = 0, default: int) -> WholeNumberField:
    return WholeNumberField(label=label, min_value=low, max_value=DAY_MINUTES, required=False, placeholder=default)


class StaffForm(forms.Form):
    """A staff form of one tournament. Labels carry no colon: the templates place them."""

    def __init__(self, *args: Any, tournament: Tournament | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.tournament = tournament

    def error_lines(self) -> list[str]:
        """Every error, each with the label of its field, for the summary at the top of the page."""
        lines = []
        for name, errors in self.errors.items():
            label = self.fields[name].label if name in self.fields else None
            lines += [f"{label}: {e}" if label else str(e) for e in errors]
        return lines


class TournamentCreateForm(StaffForm):
    """A new tournament (a draft): its kind, name, start and options; an empty option takes its default."""

    name = name_field()
    kind = forms.ChoiceField(label=_("Art"), choices=KINDS, initial="romme:series")
    starts_at = StartField(label=_("Start"), required=False)
    series = WholeNumberField(label=_("Serien"), min_value=1, max_value=10, required=False, placeholder=3)
    table_size = WholeNumberField(label=_("Tischgröße"), min_value=3, max_value=6, required=False, placeholder=4)
    same_deals = forms.BooleanField(label=_("Gleiche Karten an allen Tischen einer Größe"), required=False)
    target = forms.TypedChoiceField(
        label=_("Ziel"), coerce=int, required=False, empty_value=None, initial=GIN_OPTION_CHOICES["target"][0],
        choices=[(str(v), lazy_format(_("%(n)d Punkte"), n=v) if v else _("eine Runde")) for v in
                 sorted(GIN_OPTION_CHOICES["target"])],
    )
    forfeit_minutes = minutes_field(_("Aufgabe nach (Minuten)"), low=1, default=5)
    rounds = WholeNumberField(label=_("Runden (Rommé: je Liste 6, 12, 18, 24; Gin Schweizer System: Anzahl)"),
                              min_value=1, max_value=30, required=False)
    max_players = WholeNumberField(label=_("Höchstens Teilnehmer"), min_value=2, max_value=MAX_PLAYERS,
                                   required=False)
    check_in_minutes = minutes_field(_("Einchecken (Minuten vor dem Start, 0: keins)"), default=10)
    break_minutes = minutes_field(_("Pause zwischen den Runden (Minuten)"), default=2)

    def game_format(self) -> tuple[str, str]:
        game, _sep, format = self.cleaned_data["kind"].partition(":")
        return game, format

    def clean(self) -> dict:
        data = super().clean()
        if "kind" in data:
            check_options(self, *self.game_format())
        return data

    def service_kwargs(self) -> dict:
        """The keyword arguments of ``services.tournament_create`` (``by`` aside)."""
        data = self.cleaned_data
        game, format = self.game_format()
        names = COMMON + (ROMME_ONLY if game == "romme" else GIN_ONLY)
        chosen = {n: data[n] for n in names if n != "target" and data.get(n) is not None}
        if game == "romme":
            chosen["same_deals"] = bool(data.get("same_deals"))
        options = {"target": data["target"]} if game == "gin" and data.get("target") is not None else {}
        return {"name": data["name"], "game": game, "format": format, "settings": chosen, "options": options,
                "starts_at": data.get("starts_at")}


class TournamentEditForm(StaffForm):
    """A draft's name, start (empty: staff start it) and the options of its kind, as on the create form. An
    option left empty takes its default; one the post does not name at all stays as it is."""

    name = name_field()
    starts_at = StartField(label=_("Start"), required=False)

    def __init__(self, *args: Any, tournament: Tournament, **kwargs: Any) -> None:
        given = {**tournament.settings, "target": tournament.options.get("target")}
        initial = {"name": tournament.name, "starts_at": tournament.starts_at}
        self.options = option_names(tournament.game, tournament.format)
        initial.update({n: given.get(n) for n in self.options})
        kwargs.setdefault("initial", initial)
        super().__init__(*args, tournament=tournament, **kwargs)
        for n in self.options:
            self.fields[n] = copy.deepcopy(TournamentCreateForm.base_fields[n])

    def option_fields(self) -> list:
        return [self[n] for n in self.options]

    def clean(self) -> dict:
        data = super().clean()
        check_options(self, self.tournament.game, self.tournament.format)
        return data

    def service_kwargs(self) -> dict:
        """The keyword arguments of ``services.tournament_edit`` (``tournament_id`` and ``by`` aside)."""
        t, data = self.tournament, self.cleaned_data
        defaults = {**services.normalize_settings(t.game, t.format, {}),
                    "target": GIN_OPTION_CHOICES["target"][0]}
        posted = [n for n in self.options if n in self.data]
        chosen = {n: defaults[n] if data.get(n) is None else data[n] for n in posted}
        if "same_deals" in self.options and posted:
            chosen["same_deals"] = bool(data.get("same_deals"))  # an unticked box is not posted at all
        options = None
        if "target" in chosen:
            options = {**t.options, "target": chosen.pop("target")}
        return {"name": data["name"], "starts_at": data["starts_at"], "settings": chosen or None,
                "options": options}


class PublishForm(StaffForm):
    """Publishing opens registration: refused while the draft's start has already passed (the referee would
    start the tournament the moment it is published, before anyone could register)."""

    def clean(self) -> dict:
        data = super().clean()
        starts_at = self.tournament.starts_at if self.tournament else None
        if starts_at is not None and starts_at <= timezone.now():
            raise ValidationError(
                gettext("Die Startzeit (%(when)s, %(zone)s) liegt in der Vergangenheit: bitte zuerst ändern.") % {
                    "when": date_format(timezone.localtime(starts_at), "DATETIME_FORMAT"), "zone": time_zone_name()},
                code="past")
        return data


class ReasonForm(StaffForm):
    """Pause or resume, with an optional reason for the log."""

    reason = reason_field(required=False)


class CancelForm(StaffForm):
    reason = reason_field(required=True)


class PlayerForm(StaffForm):
    """Remove or reinstate one participant (a reason is required: it is shown in the log)."""

    user_id = forms.TypedChoiceField(label=_("Teilnehmer"), coerce=int, widget=forms.HiddenInput)
    reason = reason_field(required=True)

    def __init__(self, *args: Any, tournament: Tournament, user_ids: list[int] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, tournament=tournament, **kwargs)
        if user_ids is None:
            user_ids = list(tournament.entries.values_list("user_id", flat=True))
        self.fields["user_id"].choices = [(str(u), str(u)) for u in user_ids]


class ResultCorrectForm(StaffForm):
    """A finished table's corrected result: gin, the winner and the margin; Rommé, each seat's Wertungspunkte,
    Augen, rounds won and Abbruch. ``stage_table`` is the table the post names (None: not a finished table
    of this tournament, which ``stage_table_id`` then reports)."""

    stage_table_id = forms.TypedChoiceField(label=_("Tisch"), coerce=int, widget=forms.HiddenInput)
    reason = reason_field(required=True, label=_("Begründung"))

    def __init__(self, *args: Any, tournament: Tournament, stage_table: StageTable | None,
                 tables: list[StageTable], names: dict, **kwargs: Any) -> None:
        super().__init__(*args, tournament=tournament, **kwargs)
        self.stage_table = stage_table
        self.fields["stage_table_id"].choices = [(str(st.pk), str(st.pk)) for st in tables]
        if stage_table is None:
            return
        self.initial.setdefault("stage_table_id", stage_table.pk)
        result = stage_table.result or {}
        self.seat_names = [(u, names.get(u, str(u))) for u in stage_table.users]
        if tournament.game == "gin":
            self.fields["winner"] = forms.TypedChoiceField(
                label=_("Sieger"), coerce=int, choices=[(str(u), name) for u, name in self.seat_names])
            self.fields["margin"] = WholeNumberField(label=_("Differenz"), min_value=0, max_value=MAX_RESULT)
            self.initial.setdefault("winner", result.get("winner"))
            self.initial.setdefault("margin", result.get("margin", 0))
            return
        rounds = tournament.settings.get("rounds") or 24
        seats = {s.get("user_id"): s for s in result.get("seats", [])}
        for u, name in self.seat_names:
            seat = seats.get(u, {})
            self.fields[f"wp_{u}"] = WholeNumberField(label=_("WP %(name)s") % {"name": name},
                                                      min_value=-MAX_RESULT, max_value=MAX_RESULT)
            self.fields[f"augen_{u}"] = WholeNumberField(label=_("Augen %(name)s") % {"name": name},
                                                         min_value=0, max_value=MAX_RESULT)
            self.fields[f"won_{u}"] = WholeNumberField(label=_("Gewonnene Runden %(name)s") % {"name": name},
                                                       min_value=0, max_value=rounds)
            self.fields[f"abbruch_{u}"] = forms.BooleanField(label=_("Abbruch %(name)s") % {"name": name},
                                                             required=False)
            self.initial.update({f"wp_{u}": seat.get("wertungspunkte", 0), f"augen_{u}": seat.get("augen", 0),
                                 f"won_{u}": seat.get("rounds_won", 0), f"abbruch_{u}": seat.get("abbruch", False)})

    def seat_fields(self) -> list[dict]:
        """Rommé: each seat's name and its four fields, in seat order (for the template)."""
        if self.stage_table is None or self.tournament.game == "gin":
            return []
        return [{"name": name, "fields": [self[f"{k}_{u}"] for k in ("wp", "augen", "won", "abbruch")]}
                for u, name in self.seat_names]

    def result(self) -> dict:
        """The result in the shape ``services.tournament_result_correct`` takes."""
        data = self.cleaned_data
        if self.tournament.game == "gin":
            return {"winner": data["winner"], "margin": data["margin"]}
        return {"seats": [{"user_id": u, "wertungspunkte": data[f"wp_{u}"], "augen": data[f"augen_{u}"],
                           "rounds_won": data[f"won_{u}"], "abbruch": data[f"abbruch_{u}"]}
                          for u, _name in self.seat_names]}


def correctable_tables(t: Tournament) -> list[StageTable]:
    """The finished, played tables of ``t`` whose result staff may correct (not a bye)."""
    tables = StageTable.objects.filter(stage__tournament=t, finished_at__isnull=False, table__isnull=False)
    return [st for st in tables.select_related("stage").order_by("stage__number", "number")
            if None not in st.users]


def result_correct_form(data=None, *, tournament: Tournament, names: dict, stage_table: StageTable | None = None,
                        tables: list[StageTable] | None = None, **kwargs: Any) -> ResultCorrectForm:
    """The correction form of the table a post names (``data['stage_table_id']``) or of ``stage_table``."""
    tables = correctable_tables(tournament) if tables is None else tables
    if data is not None:
        wanted = str(data.get("stage_table_id", "")).strip()
        stage_table = next((st for st in tables if str(st.pk) == wanted), None)
    return ResultCorrectForm(data, tournament=tournament, stage_table=stage_table, tables=tables, names=names,
                             **kwargs)
