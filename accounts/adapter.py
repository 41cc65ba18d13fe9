"""The one place where the site adjusts django-allauth's behaviour."""

from allauth.account.adapter import DefaultAccountAdapter
from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Q
from django.utils import translation
from django.utils.translation import gettext as _

from accounts.names import name_refusal
from accounts.services import DELETED_USERNAME_PREFIX, profile_for, profile_language_set

SITE_NAME = "Gin Rommé"


class AccountAdapter(DefaultAccountAdapter):
    def clean_username(self, username, shallow=False):
        username = super().clean_username(username, shallow=shallow)
        if username.lower().startswith(DELETED_USERNAME_PREFIX):
            raise forms.ValidationError(_("Dieser Benutzername ist reserviert. Bitte wähle einen anderen."))
        if not shallow:
            refusal = name_refusal(username, user_id=None)  # looks like another's name, or a label of the site
            if refusal:
                raise forms.ValidationError(refusal)
        return username

    def save_user(self, request, user, form, commit=True):
        user = super().save_user(request, user, form, commit=commit)
        if commit:
            # Whoever signs up on the English pages wants English mails and pages from then on.
            language = translation.get_language() or settings.LANGUAGE_CODE
            if language in dict(settings.LANGUAGES):
                profile_for(user=user)
                profile_language_set(user=user, language=language)
        return user

    def _get_login_attempts_cache_key(self, request, **credentials):
        # allauth counts failed sign-ins per name typed: "anna", "Anna@Example.com" and "anna@example.com"
        # would be separate budgets for one account. Count per account (its id) when the name is one.
        login = str(credentials.get("email") or credentials.get("username") or "").strip()
        User = get_user_model()
        account = (User.objects.filter(Q(username__iexact=login) | Q(email__iexact=login))
                   .order_by("pk").values_list("pk", flat=True).first()) if login else None
        if account is None:
            return super()._get_login_attempts_cache_key(request, **credentials)
        return f"account:{account}"

    def format_email_subject(self, subject):
        # allauth would prefix the host name (there is no sites framework); the brand reads better.
        return f"[{SITE_NAME}] {subject}"

    def pre_login(self, request, user, **kwargs):
        # An administrator made with `createsuperuser` has an e-mail but no allauth address: whoever can run that
        # command owns the site, and a confirmation mail would only lock them out of their own admin.
        if user.is_superuser and user.email:
            from allauth.account.models import EmailAddress

            if not EmailAddress.objects.filter(user=user).exists():
                EmailAddress.objects.create(user=user, email=user.email.lower(), verified=True, primary=True)
        return super().pre_login(request, user, **kwargs)
