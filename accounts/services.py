"""Every write to a player's account that is not allauth's own: profile edits, language, deletion."""

from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from accounts.models import Profile
from accounts.protocols import Person
from accounts.signals import account_deleted

# User names of deleted accounts start with this; sign-up refuses it so a deleted name cannot be taken over.
DELETED_USERNAME_PREFIX = "geloescht_"


def profile_for(*, user: Person) -> Profile:
    """The user's profile, made on the spot for a user that predates profiles."""
    profile, _ = Profile.objects.get_or_create(user_id=user.pk)
    return profile


def profile_update(*, profile: Profile, display_name: str, language: str) -> Profile:
    profile.display_name = display_name
    profile.language = language
    profile.save(update_fields=["display_name", "language"])
    return profile


def profile_language_set(*, user: Person, language: str) -> None:
    """Remember the language chosen on the language switch, so every later visit uses it."""
    Profile.objects.filter(user_id=user.pk).exclude(language=language).update(language=language)


@transaction.atomic
def account_delete(*, user: Person) -> None:
    """Delete a player's account by anonymising it.

    The row stays because matches, move logs and tournament tables refer to it and other players' histories
    must stay whole; everything that identifies the person goes: user name, e-mail addresses, names,
    display name, password (unusable, which also ends every other session). The user name and the e-mail
    address become free for a new sign-up. Receivers of ``accounts.signals.account_deleted`` run in the same
    transaction, so a failing receiver leaves the account as it was.
    """
    User = get_user_model()
    user = User.objects.select_for_update().get(pk=user.pk)
    EmailAddress.objects.filter(user=user).delete()
    user.username = f"{DELETED_USERNAME_PREFIX}{user.pk}"
    user.email = ""
    user.first_name = ""
    user.last_name = ""
    user.is_active = False
    user.is_staff = False
    user.is_superuser = False
    user.set_unusable_password()
    user.save()
    user.groups.clear()
    user.user_permissions.clear()
    profile = profile_for(user=user)
    profile.display_name = ""
    profile.deleted_at = timezone.now()
    profile.save(update_fields=["display_name", "deleted_at"])
    account_deleted.send(sender=type(user), user=user)
