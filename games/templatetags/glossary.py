"""The glossary in templates: ``{{ n|minus }}`` writes a negative number with the site's one minus sign (U+2212)."""

from __future__ import annotations

from typing import Any

from django import template

from games import glossary

register = template.Library()


@register.filter
def minus(value: Any) -> Any:
    """``-19`` → ``−19``; other values (text, a dash for nothing) as they are."""
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        return f"{glossary.MINUS}{-value}"
    return value
