"""The profile page's card of personal API tokens: ``{% load api_tokens %}{% api_tokens request.user %}``.

The profile page belongs to ``accounts``, which imports no other app; the tokens are the API's."""

from __future__ import annotations

from typing import Any

from django import template

from api import tokens

register = template.Library()


@register.inclusion_tag("api/_tokens.html", takes_context=True)
def api_tokens(context: Any, player: Any) -> dict[str, Any]:
    return {"tokens": tokens.tokens_of(user=player), "max_active": tokens.MAX_ACTIVE,
            "csrf_token": context.get("csrf_token")}
