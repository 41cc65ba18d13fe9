"""Activates a signed-in player's preferred language (their profile wins over the browser's)."""

from django.utils import translation


class UserLanguageMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        language = getattr(getattr(user, "profile", None), "language", "") if user and user.is_authenticated else ""
        if language:
            translation.activate(language)
            request.LANGUAGE_CODE = language
        return self.get_response(request)
