"""The profile page's part of the API: a player makes a personal API token (shown once, on the page the form
answers with) and revokes one. Tokens are the API's (``api.tokens``); the profile page only loads the card
(``api.templatetags.api_tokens``)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from api import tokens


@login_required
@require_POST
def token_create(request: HttpRequest) -> HttpResponse:
    try:
        token, raw = tokens.token_create(user=request.user, name=request.POST.get("name", ""))
    except tokens.TokenError as error:
        messages.error(request, str(error))
        return redirect("accounts:profile")
    # The token is in this answer only: no redirect (a message would keep it in the session), never cached.
    response = render(request, "api/token_made.html", {"token": token, "raw": raw})
    add_never_cache_headers(response)
    return response


@login_required
@require_POST
def token_revoke(request: HttpRequest, token_id: int) -> HttpResponse:
    try:
        token = tokens.token_revoke(user=request.user, token_id=token_id)
    except tokens.TokenError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, _("Der API-Schlüssel „%(name)s“ ist widerrufen.") % {"name": token.name})
    return redirect("accounts:profile")
