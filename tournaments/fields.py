"""The form fields of the tournament staff's forms, shared by ``tournaments.forms`` and the format classes
(``tournaments.formats``), which declare the fields of their own options with them: whole numbers with a
range, minutes, and a game's table option as its registry entry offers it (``games.registry``)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, cast

from django import forms
from django.core.exceptions import ValidationError
from django.utils.functional import Promise, lazy
from django.utils.translation import gettext_lazy as _

from games import registry

DAY_MINUTES = 24 * 60
#: A bound on what the field takes, not a rule of the game: "no limit" is an empty field.
MAX_PLAYERS = 10_000

if TYPE_CHECKING:  # the stubs' name for a text or a lazy translation
    from django_stubs_ext import StrOrPromise as Label
else:
    Label = str | Promise


def lazy_format(message: Label, **values: Any) -> str:
    """``message % values``, translated when it is shown (fields are built once, at import, in no language)."""
    return lazy(lambda: str(message) % values, str)()


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


def whole_number_field(label: Label, *, low: int, high: int, default: int | None = None,
                       help_text: Label = "") -> WholeNumberField:
    """An optional whole number from ``low`` to ``high``; empty takes ``default`` (shown as the placeholder)."""
    return WholeNumberField(label=label, min_value=low, max_value=high, required=False, placeholder=default,
                            help_text=help_text)


def minutes_field(label: Label, *, low: int = 0, default: int, help_text: Label = "") -> WholeNumberField:
    return whole_number_field(label, low=low, high=DAY_MINUTES, default=default, help_text=help_text)


def _coerce_bool(value: str) -> bool:
    return value == "true"


def table_option_field(game: str, name: str, *, label: Label | None = None, help_text: Label = "",
                       only: tuple[str, ...] | None = None) -> forms.TypedChoiceField | None:
    """The table option ``name`` of ``game`` as a select with the choices its registry entry offers (the
    lobby's), the first one the default; ``only`` keeps those of the values given. None when the game has no
    such option: a format then offers no field for it."""
    option = registry.get(game).option_field(name)
    if option is None:
        return None
    choices = [(value, text) for value, text in option.choices if only is None or value in only]
    coerce: Any = int if option.kind is int else _coerce_bool if option.kind is bool else str
    return forms.TypedChoiceField(label=label or cast("Label", option.label), choices=choices, coerce=coerce, required=False,
                                  empty_value=None, initial=choices[0][0] if choices else None,
                                  help_text=help_text)


def table_option_default(game: str, name: str) -> Any:
    """The value a table option takes when its field is left empty: the first of the registry's choices."""
    field = table_option_field(game, name)
    if field is None or not field.choices:
        return None
    return field.coerce(field.choices[0][0])  # type: ignore[index]
