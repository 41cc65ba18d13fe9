"""The staff's forms on the tournament pages: every field staff can post (create, edit, publish, start, next
stage, pause, resume, cancel, remove, reinstate, correct a result) is checked here by a Django form before a
service is called, so bad input is a field error in German (English through gettext), never a server error.
The options of a tournament are the fields its format declares (``tournaments.formats``; a table option's
choices come from the game's registry entry): nothing here knows a game or a format by name.
Times are read in the site's time zone (``settings.TIME_ZONE``) unless they name an offset, and a start in the
past is refused: the referee would start (and, short of players, cancel) such a tournament at once."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.http import QueryDict
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from tournaments import formats
from tournaments.errors import TournamentError
from tournaments.fields import Label, lazy_format
from tournaments.formats.base import TournamentFormat
from tournaments.models import StageTable, Tournament

NAME_LENGTH = 120  # Tournament.name
REASON_LENGTH = 300  # AuditEntry.reason and Tournament.notice (a cancel's reason becomes the notice)


def kind_choices() -> list[tuple[str, str]]:
    """The create form's kinds: every registered format, as ``game:format`` with its label."""
    return [(cls.kind(), cls.kind_label()) for cls in formats.classes()]


def default_kind() -> str:
    classes = formats.classes()
    return classes[0].kind() if classes else ""


def time_zone_name() -> str:
    """The zone every time on the staff pages is entered and shown in."""
    return settings.TIME_ZONE


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
        if when is None:
            return None
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


def reason_field(*, required: bool, label: Label | None = None) -> forms.CharField:
    return forms.CharField(label=label or _("Grund"), max_length=REASON_LENGTH, strip=True, required=required)


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


def _posted(data: Any, name: str) -> bool:
    """Whether a post carries a value for ``name`` (an empty field is no value: it takes the default)."""
    values = data.getlist(name) if isinstance(data, QueryDict) else [data.get(name)]
    return any(v not in (None, "") for v in values)


def add_format_fields(form: forms.Form, fmt: type[TournamentFormat]) -> list[str]:
    """Add the fields ``fmt`` declares for its options to ``form``; their names, in the page's order."""
    fields = fmt.form_fields()
    form.fields.update(fields)
    return list(fields)


def check_format_fields(form: StaffForm, fmt: type[TournamentFormat], names: list[str]) -> None:
    """The format's own rules between its fields, as field errors of ``form``."""
    values = {n: form.cleaned_data.get(n) for n in names if n in form.cleaned_data}
    for name, message in fmt.form_errors(values).items():
        if name in form.fields and name not in form.errors:
            form.add_error(name, message)


def refuse_other_kinds(form: StaffForm, fmt: type[TournamentFormat], own: list[str]) -> None:
    """Refuse a post that fills a field of another kind (a format's option that ``fmt`` does not have), naming
    the fields: staff learn that the value would not apply, instead of it being dropped without a word. An
    empty field is no value (a page without its script posts the other kinds' empty fields)."""
    mine = set(own) | set(form.base_fields)
    labels: dict[str, str] = {}
    for cls in formats.classes():
        for name, field in cls.form_fields().items():
            if name not in mine and name not in labels and _posted(form.data, name):
                labels[name] = str(field.label)
    if labels:
        form.add_error(None, ngettext(
            "Das Feld %(fields)s gehört nicht zu „%(kind)s“. Bitte leeren oder die Art wählen, zu der es gehört.",
            "Die Felder %(fields)s gehören nicht zu „%(kind)s“. Bitte leeren oder die Art wählen, zu der sie "
            "gehören.", len(labels)) % {"kind": fmt.kind_label(),
                                        "fields": ", ".join(gettext("„%(label)s“") % {"label": label}
                                                          for label in labels.values())})


class TournamentCreateForm(StaffForm):
    """A new tournament (a draft): its kind (the format), name and start, and the options the chosen format
    declares (``TournamentFormat.form_fields``); an empty option takes its default. A value posted for an
    option the chosen kind does not have (one of another kind's fields) is refused, never dropped."""

    name = name_field()
    kind = forms.ChoiceField(label=_("Art"), choices=kind_choices)
    starts_at = StartField(label=_("Start"), required=False)

    def __init__(self, data: Any = None, *, kind: object = None, **kwargs: Any) -> None:
        super().__init__(data, **kwargs)
        chosen = self.data.get("kind") if self.is_bound else kind
        fmt = formats.of_kind(chosen)
        if fmt is None and not self.is_bound:
            fmt = formats.of_kind(default_kind())
        self.format = fmt
        self.fields["kind"].widget.attrs["data-role"] = "kind"
        if fmt is not None:
            self.initial.setdefault("kind", fmt.kind())
        self.options = add_format_fields(self, fmt) if fmt is not None else []

    def option_fields(self) -> list[forms.BoundField]:
        return [self[n] for n in self.options]

    def kind_fieldsets(self) -> list[dict[str, Any]]:
        """One set of option fields per kind, for the page: the chosen kind's are this form's fields (with what
        was posted); every other kind's are a form of their own, with ids of their own and the same names.
        The page shows the chosen set and disables the others (disabled fields are not posted); its script
        swaps them as the kind changes."""
        sets = []
        for cls in formats.classes():
            if cls is self.format:
                fields = self.option_fields()
            else:
                other = StaffForm(auto_id=f"id_create_{cls.game}_{cls.name}_%s")
                fields = [other[n] for n in add_format_fields(other, cls)]
            sets.append({"kind": cls.kind(), "label": cls.kind_label(), "chosen": cls is self.format,
                         "fields": fields})
        return sets

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        fmt = self.format
        if fmt is None:
            return data
        refuse_other_kinds(self, fmt, self.options)
        check_format_fields(self, fmt, self.options)
        if not self.errors:  # every rule the service applies, as the page's message rather than a refusal later
            settings_, options = self.format_values()
            try:
                fmt.check_options(options, fmt.normalize_settings(settings_))
            except TournamentError as error:
                self.add_error(None, error.message)
        return data

    def format_values(self) -> tuple[dict[str, Any], dict[str, Any]]:
        assert self.format is not None
        return self.format.form_values({n: self.cleaned_data.get(n) for n in self.options})

    def service_kwargs(self) -> dict[str, Any]:
        """The keyword arguments of ``services.tournament_create`` (``by`` aside)."""
        assert self.format is not None
        settings_, options = self.format_values()
        return {"name": self.cleaned_data["name"], "game": self.format.game, "format": self.format.name,
                "settings": settings_, "options": options, "starts_at": self.cleaned_data.get("starts_at")}


class TournamentEditForm(StaffForm):
    """A draft's name, start (empty: staff start it) and the options its format declares, as on the create
    form. An option left empty takes its default; one the post does not name at all stays as it is."""

    name = name_field()
    starts_at = StartField(label=_("Start"), required=False)

    def __init__(self, *args: Any, tournament: Tournament, **kwargs: Any) -> None:
        self.format = formats.get(tournament.format, tournament.game)
        given = {**tournament.settings, **{n: tournament.options.get(n) for n in self.format.table_option_names}}
        initial = {"name": tournament.name, "starts_at": tournament.starts_at}
        super().__init__(*args, tournament=tournament, initial=kwargs.pop("initial", None) or initial, **kwargs)
        self.options = add_format_fields(self, self.format)
        for n in self.options:
            self.initial.setdefault(n, given.get(n))

    def option_fields(self) -> list[forms.BoundField]:
        return [self[n] for n in self.options]

    def kind_label(self) -> str:
        return self.format.kind_label()

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        refuse_other_kinds(self, self.format, self.options)
        check_format_fields(self, self.format, self.options)
        return data

    def service_kwargs(self) -> dict[str, Any]:
        """The keyword arguments of ``services.tournament_edit`` (``tournament_id`` and ``by`` aside)."""
        t, data, fmt = self.tournament, self.cleaned_data, self.format
        assert t is not None
        defaults = fmt.form_defaults()
        posted = [n for n in self.options if n in self.data]
        chosen = {n: defaults[n] if data.get(n) is None else data[n] for n in posted}
        if posted:  # an unticked box is not posted at all
            chosen.update({n: bool(data.get(n)) for n in self.options
                           if isinstance(self.fields[n], forms.BooleanField)})
        settings_ = {n: v for n, v in chosen.items() if n not in fmt.table_option_names}
        options = {n: v for n, v in chosen.items() if n in fmt.table_option_names}
        return {"name": data["name"], "starts_at": data["starts_at"], "settings": settings_ or None,
                "options": {**t.options, **options} if options else None}


class PublishForm(StaffForm):
    """Publishing opens registration: refused while the draft's start has already passed (the referee would
    start the tournament the moment it is published, before anyone could register)."""

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
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
        field = self.fields["user_id"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [(str(u), str(u)) for u in user_ids]


class ResultCorrectForm(StaffForm):
    """A finished table's corrected result, with the fields its format declares
    (``TournamentFormat.correction_fields``: a gin match's winner and margin, each Rommé seat's Wertungspunkte,
    Augen, rounds won and Abbruch). ``stage_table`` is the table the post names (None: not a finished table
    of this tournament, which ``stage_table_id`` then reports)."""

    stage_table_id = forms.TypedChoiceField(label=_("Tisch"), coerce=int, widget=forms.HiddenInput)
    reason = reason_field(required=True, label=_("Begründung"))

    def __init__(self, *args: Any, tournament: Tournament, stage_table: StageTable | None,
                 tables: list[StageTable], names: dict[int, str], **kwargs: Any) -> None:
        super().__init__(*args, tournament=tournament, **kwargs)
        self.stage_table = stage_table
        field = self.fields["stage_table_id"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [(str(st.pk), str(st.pk)) for st in tables]
        self.groups: list[tuple[str, list[str]]] = []
        if stage_table is None:
            return
        self.format = formats.of(tournament)
        self.initial.setdefault("stage_table_id", stage_table.pk)
        for heading, fields, initial in self.format.correction_fields(stage_table, names):
            self.fields.update(fields)
            for name, value in initial.items():
                self.initial.setdefault(name, value)
            self.groups.append((heading, list(fields)))

    def seat_fields(self) -> list[dict[str, Any]]:
        """The correction's fields in their groups (a heading, e.g. a Rommé seat's player, and the fields)."""
        return [{"name": heading, "fields": [self[n] for n in names]} for heading, names in self.groups]

    def result(self) -> dict:
        """The result in the shape ``services.tournament_result_correct`` takes."""
        assert self.stage_table is not None
        return self.format.correction_result(self.stage_table, self.cleaned_data)


def correctable_tables(t: Tournament) -> list[StageTable]:
    """The finished, played tables of ``t`` whose result staff may correct (not a bye)."""
    tables = StageTable.objects.filter(stage__tournament=t, finished_at__isnull=False, table__isnull=False)
    return [st for st in tables.select_related("stage").order_by("stage__number", "number")
            if None not in st.users]


def result_correct_form(data: Any = None, *, tournament: Tournament, names: dict[int, str],
                        stage_table: StageTable | None = None, tables: list[StageTable] | None = None,
                        **kwargs: Any) -> ResultCorrectForm:
    """The correction form of the table a post names (``data['stage_table_id']``) or of ``stage_table``."""
    tables = correctable_tables(tournament) if tables is None else tables
    if data is not None:
        wanted = str(data.get("stage_table_id", "")).strip()
        stage_table = next((st for st in tables if str(st.pk) == wanted), None)
    return ResultCorrectForm(data, tournament=tournament, stage_table=stage_table, tables=tables, names=names,
                             **kwargs)
