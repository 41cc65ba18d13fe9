"""The profile pages: own, public, edit, delete.

The match history on the profile pages is the games app's: the template loads its ``match_history`` tag.
"""

from allauth.account.models import EmailAddress
from django.contrib import messages
from django.contrib.auth import get_user_model, logout
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts.forms import AccountDeleteForm, ProfileForm
from accounts.services import account_delete, profile_for, profile_update


@login_required
def profile_own(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "accounts/profile.html",
        {
            "player": request.user,
            "profile": profile_for(user=request.user),
            "is_own": True,
            "emails": EmailAddress.objects.filter(user=request.user).order_by("-primary", "email"),
        },
    )


def profile_public(request: HttpRequest, username: str) -> HttpResponse:
    # Deleted (inactive) accounts have no page: their name is gone by design.
    player = get_object_or_404(get_user_model(), username=username, is_active=True)
    return render(
        request,
        "accounts/profile.html",
        {
            "player": player,
            "profile": profile_for(user=player),
            "is_own": request.user == player,
        },
    )


@login_required
@require_http_methods(["GET", "POST"])
def profile_edit(request: HttpRequest) -> HttpResponse:
    profile = profile_for(user=request.user)
    form = ProfileForm(request.POST or None, instance=profile)
    if request.method == "POST" and form.is_valid():
        profile_update(
            profile=profile,
            display_name=form.cleaned_data["display_name"],
            language=form.cleaned_data["language"],
        )
        # The page after the redirect speaks the new language; this message must too.
        with translation.override(profile.language):
            messages.success(request, _("Dein Profil wurde gespeichert."))
        return redirect("accounts:profile")
    return render(request, "accounts/profile_edit.html", {"form": form, "profile": profile})


@login_required
@require_http_methods(["GET", "POST"])
def profile_delete(request: HttpRequest) -> HttpResponse:
    form = AccountDeleteForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        account_delete(user=request.user)
        logout(request)
        messages.success(request, _("Dein Konto wurde gelöscht. Schade, dass du gehst!"))
        return redirect("home")
    return render(request, "accounts/profile_delete.html", {"form": form})
