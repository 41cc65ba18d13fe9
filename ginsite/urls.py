"""Top-level URLs: the pages of each app, allauth's account pages, the admin and i18n."""

from django.contrib import admin
from django.urls import include, path
from django.views.generic import TemplateView

from ratings import urls as ratings_urls

urlpatterns = [
    path("", TemplateView.as_view(template_name="home.html"), name="home"),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("accounts/", include("allauth.urls")),
    path("profil/", include("accounts.urls")),
    path("bestenliste/", include(ratings_urls)),
    path("spielen/gewertet/", include((ratings_urls.pool_patterns, "pool"))),
    path("spielen/", include("games.urls")),
    path("partie/", include("games.match_urls")),
    path("turniere/", include("tournaments.urls")),
]

handler403 = "ginsite.views.permission_denied"
handler404 = "ginsite.views.page_not_found"
handler500 = "ginsite.views.server_error"
