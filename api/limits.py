"""What every response of the public API gets: a limit per client address or per personal API token, counted
in the cache every process shares (Redis when REDIS_URL is set), and CORS open to any origin for reads.

The limit is a fixed window: ``API_RATE_LIMIT`` requests per ``API_RATE_WINDOW`` seconds per address, or
``API_TOKEN_RATE_LIMIT`` per token for a request that names one (``Authorization: Bearer grk_…``, made on the
profile page: ``api.tokens``); the request over it is answered ``429`` with ``Retry-After`` (the seconds until
the window ends). A token that is unknown or revoked is answered ``401``. The address is the one allauth counts
sign-ins by (its adapter honours ``TRUSTED_PROXY_COUNT`` behind a proxy).
"""

from __future__ import annotations

import functools
import hashlib
import json
import time
from collections.abc import Callable
from typing import Any

from allauth.account.adapter import get_adapter
from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse

from api import tokens
from api.models import ApiToken


def limit_and_window(*, token: bool = False) -> tuple[int, int]:
    """Requests per window (``settings.API_RATE_LIMIT``, or ``API_TOKEN_RATE_LIMIT`` for a token) and the
    window's seconds (``settings.API_RATE_WINDOW``), from the environment."""
    limit = settings.API_TOKEN_RATE_LIMIT if token else settings.API_RATE_LIMIT
    return int(limit), max(1, int(settings.API_RATE_WINDOW))


def client_address(request: HttpRequest) -> str:
    try:
        return get_adapter(request).get_client_ip(request)
    except PermissionDenied:  # no address at all: such requests share one count
        return "unknown"


def bearer(request: HttpRequest) -> str | None:
    """The token an ``Authorization: Bearer …`` header names, or None without one."""
    scheme, _, value = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer":
        return None
    return value.strip()


def retry_after(request: HttpRequest, *, token: ApiToken | None = None, now: float | None = None) -> int | None:
    """Count this request against its token, or its address without one; None if it may go on, else the
    seconds to wait."""
    limit, window = limit_and_window(token=token is not None)
    now = time.time() if now is None else now
    started = int(now // window) * window
    if token is not None:
        bucket = f"token:{token.pk}"
    else:
        bucket = "address:" + hashlib.sha256(client_address(request).encode()).hexdigest()[:32]
    key = f"api-limit:{bucket}:{started}"
    count = _count(key, timeout=window + 5)  # the key outlives its window a little
    if count <= limit:
        return None
    return max(1, int(started + window - now + 0.999))


def _count(key: str, *, timeout: int) -> int:
    """One more request in ``key``'s window: its count now. incr() first, add() only for the window's first
    request: one cache call a request rather than two (the database cache: a read and a write, 4 queries of
    its table, where add() then incr() made 7; Redis: EXISTS and INCR, where it was SET NX, EXISTS, INCR).
    Atomic in Redis (INCR); the database cache's incr is a read and a write, so requests racing there may be
    undercounted by a few, which a limit can bear."""
    try:
        return cache.incr(key)
    except ValueError:  # the window's first request (or its key has expired)
        pass
    if cache.add(key, 1, timeout=timeout):
        return 1
    return cache.incr(key)  # another request added it between our incr() and add(): it exists now


def too_many(seconds: int, *, token: bool = False) -> HttpResponse:
    who = "this token" if token else "this address"
    body = {"detail": f"Too many requests from {who}; try again in {seconds} seconds."}
    response = HttpResponse(json.dumps(body), status=429, content_type="application/json")
    response["Retry-After"] = str(seconds)
    return response


def unauthorized() -> HttpResponse:
    body = {"detail": "That API token is not valid (unknown or revoked); send none to be counted by address."}
    response = HttpResponse(json.dumps(body), status=401, content_type="application/json")
    response["WWW-Authenticate"] = 'Bearer error="invalid_token"'
    return response


def is_head(request: HttpRequest) -> bool:
    """Whether the client asked ``HEAD``: a view answers it as ``GET`` (``_answer``) but may leave out the work
    that only makes the body (the export's stream is then never made)."""
    return request.META.get("REQUEST_METHOD") == "HEAD"


def _answer(view: Callable[..., HttpResponse], request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    """The view's answer; to ``HEAD`` (``curl -I``) the answer to ``GET`` with its headers and no body.

    The ``GET`` answer is dropped, never ``close()``d: closing a response sends ``request_finished``, whose
    ``close_old_connections`` would close the database connection in the middle of this request (and, in a
    test, under its transaction). A view whose body is a stream makes none for ``HEAD`` (``is_head``)."""
    if request.method != "HEAD":
        return view(request, *args, **kwargs)
    request.method = "GET"  # ninja routes the operation by method; META keeps "HEAD" for is_head()
    full = view(request, *args, **kwargs)
    response = HttpResponse(status=full.status_code)
    for header, value in full.items():
        response[header] = value
    return response


def _limited(view: Callable[..., HttpResponse], request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    raw = bearer(request)
    token = tokens.token_get(raw=raw) if raw else None
    # A request with a token that is not valid counts against its address: guessing tokens is limited too.
    seconds = retry_after(request, token=token)
    if seconds is not None:
        return too_many(seconds, token=token is not None)
    if raw is not None and token is None:
        return unauthorized()
    return _answer(view, request, *args, **kwargs)


def public(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A view of the public API: limited per address or token, open to any origin (no cookies are read cross-site:
    ``Access-Control-Allow-Origin: *`` never carries credentials)."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method == "OPTIONS":
            response = HttpResponse(status=204)
            response["Access-Control-Allow-Methods"] = "GET, HEAD, OPTIONS"
            response["Access-Control-Allow-Headers"] = "Accept, Authorization, Content-Type"
            response["Access-Control-Max-Age"] = "86400"
        else:
            response = _limited(view, request, *args, **kwargs)
        response["Access-Control-Allow-Origin"] = "*"
        response["Access-Control-Expose-Headers"] = "Retry-After"
        return response

    return wrapped
