"""Personal API tokens: made on the profile page and shown once, stored as a digest, revocable, read scope only
(a token sees what a visitor sees), and counted per token where a request without one is counted per address."""

from __future__ import annotations

import hashlib

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from accounts import services as account_services
from api import tokens
from api.models import ApiToken
from tests.api.conftest import make_private

pytestmark = pytest.mark.django_db


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def made(client: Client, name: str = "Vereinsseite") -> str:
    """The token the profile's form answers with (the only place it is ever shown)."""
    response = client.post(reverse("api_tokens:create"), {"name": name})
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    html = response.content.decode()
    start = html.index('id="api-token-raw">') + len('id="api-token-raw">')
    return html[start:html.index("<", start)]


def api(path: str, raw: str | None = None, address: str = "203.0.113.7"):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {raw}"} if raw is not None else {}
    return Client(REMOTE_ADDR=address).get(path, **headers)


def test_a_token_made_on_the_profile_page_is_shown_once_and_stored_as_its_digest(people):
    anna = people[0]
    client = signed_in(anna)
    assert "api-tokens" in client.get(reverse("accounts:profile")).content.decode()
    raw = made(client)
    assert raw.startswith(tokens.PREFIX) and len(raw) > 40
    token = ApiToken.objects.get(user=anna)
    assert token.digest == hashlib.sha256(raw.encode()).hexdigest() and token.scope == "read"
    assert raw not in {str(v) for v in ApiToken.objects.values_list("name", "prefix", "digest").get()}
    profile = client.get(reverse("accounts:profile")).content.decode()
    assert "Vereinsseite" in profile and token.prefix in profile and raw not in profile
    assert raw not in str(dict(client.session))
    assert "Vereinsseite" not in Client().get(reverse("accounts:public", args=["anna"])).content.decode()


def test_a_request_with_a_token_reads_as_a_visitor(people, play):
    """Read scope only: the owner's token does not show the owner's private table, nor does it write."""
    anna, ben, _ = people
    make_private(play([anna, ben]))
    raw = made(signed_in(anna))
    response = api("/api/v1/players/anna/matches", raw)
    assert response.status_code == 200 and response.json()["items"] == []
    assert Client().post("/api/v1/players/anna", HTTP_AUTHORIZATION=f"Bearer {raw}").status_code == 405


def test_a_token_is_counted_on_its_own_not_by_address(people, settings, one_window):
    settings.API_RATE_LIMIT, settings.API_TOKEN_RATE_LIMIT, settings.API_RATE_WINDOW = 2, 3, 60
    cache.clear()
    first, second = made(signed_in(people[0]), "eins"), made(signed_in(people[1]), "zwei")
    assert [api("/api/v1/keys").status_code for _ in range(3)] == [200, 200, 429]  # the address is spent
    assert [api("/api/v1/keys", first).status_code for _ in range(3)] == [200, 200, 200]
    over = api("/api/v1/keys", first)
    assert over.status_code == 429 and "this token" in over.json()["detail"]
    assert over["Retry-After"] == "30"
    assert api("/api/v1/keys", second).status_code == 200  # another token, the same address


def test_a_revoked_or_unknown_token_is_refused_with_401(people):
    anna = people[0]
    client = signed_in(anna)
    raw = made(client)
    assert api("/api/v1/keys", raw).status_code == 200
    token = ApiToken.objects.get(user=anna)
    assert ApiToken.objects.get(pk=token.pk).last_used_at is not None
    assert client.post(reverse("api_tokens:revoke", args=[token.pk])).status_code == 302
    refused = api("/api/v1/keys", raw)
    assert refused.status_code == 401 and refused["WWW-Authenticate"] == 'Bearer error="invalid_token"'
    assert refused["Access-Control-Allow-Origin"] == "*"
    assert "grk_" not in client.get(reverse("accounts:profile")).content.decode()
    for wrong in (tokens.PREFIX + "x" * 43, "x" * 47, ""):
        assert api("/api/v1/keys", wrong).status_code == 401
    assert api("/api/v1/keys").status_code == 200  # no token: counted by address


def test_wrong_tokens_count_against_the_address(people, settings, one_window):
    settings.API_RATE_LIMIT, settings.API_RATE_WINDOW = 2, 60
    cache.clear()
    guesses = [api("/api/v1/keys", tokens.PREFIX + f"guess{n}").status_code for n in range(3)]
    assert guesses == [401, 401, 429]
    assert api("/api/v1/keys").status_code == 429


def test_only_the_owner_revokes_a_token(people):
    anna, ben, _ = people
    raw = made(signed_in(anna))
    token = ApiToken.objects.get(user=anna)
    signed_in(ben).post(reverse("api_tokens:revoke", args=[token.pk]))
    assert ApiToken.objects.get(pk=token.pk).revoked_at is None
    assert api("/api/v1/keys", raw).status_code == 200
    with pytest.raises(tokens.TokenError):
        tokens.token_revoke(user=ben, token_id=token.pk)


def test_at_most_five_valid_tokens_and_a_name_each(people):
    anna = people[0]
    for n in range(tokens.MAX_ACTIVE):
        tokens.token_create(user=anna, name=f"t{n}")
    with pytest.raises(tokens.TokenError):
        tokens.token_create(user=anna, name="one more")
    tokens.token_revoke(user=anna, token_id=ApiToken.objects.filter(user=anna).first().pk)
    tokens.token_create(user=anna, name="one more")
    with pytest.raises(tokens.TokenError):
        tokens.token_create(user=people[1], name="   ")
    response = signed_in(people[1]).post(reverse("api_tokens:create"), {"name": ""})
    assert response.status_code == 302 and not ApiToken.objects.filter(user=people[1]).exists()


def test_a_closed_accounts_tokens_stop_working(people):
    anna = people[0]
    raw = made(signed_in(anna))
    account_services.account_delete(user=anna)
    assert api("/api/v1/keys", raw).status_code == 401


def test_making_a_token_needs_a_signed_in_post(people):
    assert Client().post(reverse("api_tokens:create"), {"name": "x"}).status_code == 302  # to sign-in
    assert signed_in(people[0]).get(reverse("api_tokens:create")).status_code == 405
    assert not ApiToken.objects.exists()


def test_the_tokens_card_and_page_speak_english(people):
    anna = people[0]
    anna.profile.language = "en"
    anna.profile.save()
    client = signed_in(anna)
    page = client.get(reverse("accounts:profile"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "API tokens" in page and "counted on its own instead of by your address" in page
    assert "Make a token" in page and "Schlüssel erstellen" not in page
    made_page = client.post(reverse("api_tokens:create"), {"name": "bot"}, HTTP_ACCEPT_LANGUAGE="en")
    assert "it is shown this once only" in made_page.content.decode()


def test_staff_revoke_an_abused_token_in_the_admin(people, django_user_model):
    raw = made(signed_in(people[0]))
    boss = django_user_model.objects.create_superuser("chefin", "chefin@example.org", "pw")
    admin = signed_in(boss)
    listing = admin.get("/admin/api/apitoken/").content.decode()
    assert "Vereinsseite" in listing and raw not in listing
    token = ApiToken.objects.get()
    admin.post("/admin/api/apitoken/", {"action": "revoke", "_selected_action": [token.pk]})
    assert api("/api/v1/keys", raw).status_code == 401
