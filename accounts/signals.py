"""Gives every new user a profile, whichever way the user was made (sign-up, admin, createsuperuser).

Also defines ``account_deleted``, sent (with ``user``) inside the deletion's transaction once the account is
anonymised: other apps hook in there, e.g. the games app resigns the player from tables still in play.
"""

from django.conf import settings
from django.db.models.signals import post_save
from django.dispatch import Signal, receiver

from accounts.models import Profile

account_deleted = Signal()


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="accounts.profile_for_new_user")
def profile_for_new_user(sender, instance, created, raw=False, **kwargs):
    # Fixtures (raw) bring their own profiles.
    if created and not raw:
        Profile.objects.get_or_create(user=instance)
