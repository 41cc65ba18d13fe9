"""The one place where the site adjusts django-allauth's behaviour."""

from allauth.account.adapter import DefaultAccountAdapter


class AccountAdapter(DefaultAccountAdapter):
    pass
