"""Setting a site up the Django way works without knowing this project's extra steps: `migrate` alone leaves
sign-in working, an administrator made with `createsuperuser` signs in at once, and a person who confirms their
e-mail address from the mail is signed in."""

from __future__ import annotations

import re

from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import call_command
from django.urls import reverse

from tests.accounts.conftest import PASSWORD
from tests.ginsite.test_settings_cache import manage, run_python

SIGN_IN_ONCE = (
    "from django.test import Client\n"
    "from django.urls import reverse\n"
    "from django.contrib.auth import get_user_model\n"
    "from allauth.account.models import EmailAddress\n"
    "user = get_user_model().objects.create_user(username='anna', email='anna@example.com', password='Herz-Dame-42!')\n"
    "EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)\n"
    "client = Client()\n"
    "client.post(reverse('account_login'), {'login': 'anna', 'password': 'Herz-Dame-42!'})\n"
    "print('signed in' if '_auth_user_id' in client.session else 'refused')\n"
)


def test_migrate_alone_leaves_a_site_whose_sign_in_works(tmp_path):
    # Before, the cache table came only from `createcachetable`: "no such table: ginsite_cache" on sign-in.
    env = {"SQLITE_PATH": str(tmp_path / "site.sqlite3"), "DEBUG": "1"}
    manage("migrate", "--noinput", "-v", "0", **env)
    assert run_python(SIGN_IN_ONCE, **env) == "signed in"


def test_an_administrator_made_with_createsuperuser_signs_in_without_confirming_a_mail(client, monkeypatch):
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", PASSWORD)
    call_command("createsuperuser", "--noinput", username="chefin", email="Chefin@Example.com", verbosity=0)

    response = client.post(reverse("account_login"), {"login": "chefin", "password": PASSWORD})

    assert client.session.get("_auth_user_id") == str(get_user_model().objects.get(username="chefin").pk)
    assert mail.outbox == []  # no confirmation mail asked for
    assert response.status_code == 302


def test_a_person_who_confirms_their_address_is_signed_in(client):
    client.post(reverse("account_signup"), {"username": "berta", "email": "berta@example.com",
                                            "password1": PASSWORD, "password2": PASSWORD})
    assert "_auth_user_id" not in client.session  # mandatory confirmation: not yet
    link = re.search(r"https?://[^/\s]+(/\S*/confirm-email/\S+/)", mail.outbox[-1].body)
    assert link, mail.outbox[-1].body

    client.post(link.group(1))

    assert client.session.get("_auth_user_id") == str(get_user_model().objects.get(username="berta").pk)
