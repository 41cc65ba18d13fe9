"""What every response of the public API gets: a limit per client address, counted in the cache every process
shares (Redis when REDIS_URL is set), and CORS open to any origin for reads.

The limit is a fixed window: ``API_RATE_LIMIT`` requests per ``API_RATE_WINDOW`` seconds per address; the
request over it is answered ``429`` with ``Retry-After`` (the seconds until the window ends). The address is
the one allauth counts sign-ins by (its adapter honours ``TRUSTED_PROXY_COUNT`` behind a proxy).
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


def limit_and_window() -> tuple[int, int]:
    """``settings.API_RATE_LIMIT`` requests per ``settings.API_RATE_WINDOW`` seconds (from the environment)."""
    return int(settings.API_RATE_LIMIT), max(1, int(settings.API_RATE_WINDOW))


def client_address(request: HttpRequest) -> str:
    try:
        return get_adapter(request).get_client_ip(request)
    except PermissionDenied:  # no address at all: such requests share one count
        return "unknown"


def retry_after(request: HttpRequest, *, now: float | None = None) -> int | None:
    """Count this request against its address; None if it may go on, else the seconds to wait."""
    limit, window = limit_and_window()
    now = time.time() if now is None else now
    started = int(now // window) * window
    address = hashlib.sha256(client_address(request).encode()).hexdigest()[:32]
    key = f"api-limit:{address}:{started}"
    # add() then incr(): atomic in Redis (INCR); the database cache's incr is a read and a write, so requests
    # racing there may be undercounted by a few, which a limit can bear. The key outlives its window a little.
    cache.add(key, 0, timeout=window + 5)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.add(key, 1, timeout=window + 5)
        count = 1
    if count <= limit:
        return None
    return max(1, int(started + window - now + 0.999))


def too_many(seconds: int) -> HttpResponse:
    body = {"detail": f"Too many requests from this address; try again in {seconds} seconds."}
    response = HttpResponse(json.dumps(body), status=429, content_type="application/json")
    response["Retry-After"] = str(seconds)
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


def public(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A view of the public API: limited per address, open to any origin (no cookies are read cross-site:
    ``Access-Control-Allow-Origin: *`` never carries credentials)."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if request.method == "OPTIONS":
            response = HttpResponse(status=204)
            response["Access-Control-Allow-Methods"] = "GET, HEAD, OPTIONS"
            response["Access-Control-Allow-Headers"] = "Accept, Content-Type"
            response["Access-Control-Max-Age"] = "86400"
        else:
            seconds = retry_after(request)
            response = too_many(seconds) if seconds is not None else _answer(view, request, *args, **kwargs)
        response["Access-Control-Allow-Origin"] = "*"
        response["Access-Control-Expose-Headers"] = "Retry-After"
        return response

    return wrapped
