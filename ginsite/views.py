"""Styled error pages (403, 404, 500) in the site's layout."""

from django.shortcuts import render


def permission_denied(request, exception=None):
    return render(request, "errors/403.html", status=403)


def page_not_found(request, exception=None):
    return render(request, "errors/404.html", status=404)


def server_error(request):
    # The 500 page must not depend on anything that may have failed, so it renders without context.
    return render(request, "errors/500.html", status=500)
