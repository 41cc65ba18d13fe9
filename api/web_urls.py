"""``/profil/api-schluessel/``: making and revoking personal API tokens (``api.web``)."""

from django.urls import path

from api import web

app_name = "api_tokens"
urlpatterns = [
    path("", web.token_create, name="create"),
    path("<int:token_id>/widerrufen/", web.token_revoke, name="revoke"),
]
