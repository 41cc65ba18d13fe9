"""Forms of the profile pages: editing the profile and deleting the account."""

import re

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _

from accounts.models import Profile
from accounts.names import name_refusal

# Letters of any alphabet, digits, spaces, dot, hyphen and underscore, starting with a letter or digit.
DISPLAY_NAME_PATTERN = re.compile(r"^[^\W_][\w .\-]*$")


class ProfileForm(forms.ModelForm):
    class Meta:
        model = Profile
        fields = ["display_name", "language"]

    def clean_display_name(self) -> str:
        name = " ".join(self.cleaned_data["display_name"].split())
        if not name:
            return ""
        if len(name) < 3:
            raise forms.ValidationError(_("Der Anzeigename muss mindestens 3 Zeichen lang sein."))
        if not DISPLAY_NAME_PATTERN.match(name):
            raise forms.ValidationError(
                _(
                    "Erlaubt sind Buchstaben, Ziffern, Leerzeichen, Punkt, Binde- und Unterstrich; am Anfang ein Buchstabe oder eine Ziffer."
                )
            )
        # Nobody may appear at a table under another player's name, whether user name or display name.
        user = self.instance.user
        taken_by_user = get_user_model().objects.filter(username__iexact=name).exclude(pk=user.pk).exists()
        taken_by_profile = Profile.objects.filter(display_name__iexact=name).exclude(user_id=user.pk).exists()
        if taken_by_user or taken_by_profile:
            raise forms.ValidationError(_("Diesen Namen verwendet schon ein anderer Spieler."))
        refusal = name_refusal(name, user_id=user.pk)  # looks like another's name, or a label of the site
        if refusal:
            raise forms.ValidationError(refusal)
        return name


class AccountDeleteForm(forms.Form):
    password = forms.CharField(
        label=_("Passwort"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )
    confirm = forms.BooleanField(
        label=_("Ich verstehe, dass mein Konto endgültig gelöscht wird."),
        required=True,
    )

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError(_("Das Passwort ist nicht richtig."))
        return password
