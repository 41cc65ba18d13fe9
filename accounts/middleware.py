"""Activates a signed-in player's preferred language (their profile wins over the browser's).

A signed-in player who uses the language switch (Django's ``set_language``) gets the choice saved to their
profile too; otherwise the profile would switch the page straight back on the next request.
"""

from django.conf import settings
from django.urls import reverse
from django.utils import translation

from accounts.services import profile_language_set


class UserLanguageMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        self.set_language_path = None

    def __call__(self, request):
        user = getattr(request, "user", None)
        profile = getattr(user, "profile", None) if user is not None and user.is_authenticated else None
        language = profile.language if profile is not None else ""
        if language:
            translation.activate(language)
            request.LANGUAGE_CODE = language
        response = self.get_response(request)
        if (profile is not None and user is not None and request.method == "POST"
                and request.path == self._set_language_path()):
            chosen = request.POST.get("language", "")
            # Only once the view has accepted the switch: a refused request (e.g. no CSRF token) changes nothing.
            if response.status_code < 400 and chosen in dict(settings.LANGUAGES):
                profile_language_set(user=user, language=chosen)
                language = chosen
        if language and request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) != language:
            # Keeps the language after signing out: the cookie is what LocaleMiddleware reads then.
            response.set_cookie(
                settings.LANGUAGE_COOKIE_NAME,
                language,
                max_age=settings.LANGUAGE_COOKIE_AGE,
                path=settings.LANGUAGE_COOKIE_PATH,
                domain=settings.LANGUAGE_COOKIE_DOMAIN,
                secure=settings.LANGUAGE_COOKIE_SECURE,
                httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
                samesite=settings.LANGUAGE_COOKIE_SAMESITE,
            )
        return response

    def _set_language_path(self) -> str:
        if self.set_language_path is None:
            self.set_language_path = reverse("set_language")
        return self.set_language_path
