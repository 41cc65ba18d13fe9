"""``/api/v1/``: the API's URLs, each view limited per address and open to any origin (``api.limits``)."""

from django.urls import URLPattern, URLResolver

from api.api import api
from api.limits import public

patterns, app_name, namespace = api.urls


def _limited(entries: list) -> list:
    for entry in entries:
        if isinstance(entry, URLPattern):
            entry.callback = public(entry.callback)
        elif isinstance(entry, URLResolver):
            _limited(entry.url_patterns)
    return entries


urlpatterns = _limited(list(patterns))
