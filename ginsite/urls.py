"""Top-level URLs: the pages of each app, allauth's account pages, the admin and i18n."""

from urllib.parse import urlencode

from django.contrib import admin
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import include, path, reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.generic import TemplateView

from ratings import urls as ratings_urls


def admin_login(request: HttpRequest) -> HttpResponse:
    """The admin signs in through allauth's sign-in page, so allauth's limits on failed sign-ins hold there
    too (the admin's own form has none, issue 25): this view takes ``/admin/login/`` and sends the browser
    to allauth's page with ``next``. A signed-in staff member goes on to ``next``; a signed-in person who is
    not staff is refused (sending them to the sign-in page again would loop)."""
    wanted = request.GET.get("next") or reverse("admin:index")
    if not url_has_allowed_host_and_scheme(wanted, allowed_hosts={request.get_host()},
                                           require_https=request.is_secure()):
        wanted = reverse("admin:index")
    if request.user.is_authenticated:
        if request.user.is_active and request.user.is_staff:
            return HttpResponseRedirect(wanted)
        reason = _("Die Verwaltung ist nur für Mitarbeiter; du bist als %(name)s angemeldet.") % {
            "name": request.user.get_username()}
        return render(request, "errors/403.html", {"reason": reason}, status=403)
    return HttpResponseRedirect(reverse("account_login") + "?" + urlencode({"next": wanted}))


urlpatterns = [
    path("", TemplateView.as_view(template_name="home.html"), name="home"),
    # Before the admin's own URLs, so its login view is never reached (allauth's limits apply to the admin).
    path("admin/login/", admin_login, name="admin_login_via_allauth"),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("accounts/", include("allauth.urls")),
    path("profil/api-schluessel/", include("api.web_urls")),
    path("profil/", include("accounts.urls")),
    path("bestenliste/", include(ratings_urls)),
    path("spielen/gewertet/", include((ratings_urls.pool_patterns, "pool"))),
    path("spielen/", include("games.web.urls")),
    path("partie/", include("games.web.match_urls")),
    path("turniere/", include("tournaments.urls")),
    path("api/v1/", include("api.urls", namespace="api-v1")),
]

handler403 = "ginsite.views.permission_denied"
handler404 = "ginsite.views.page_not_found"
handler500 = "ginsite.views.server_error"
