"""Admin for profiles, and the profile shown inside each user's admin page."""

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.utils.translation import gettext_lazy as _

from accounts.models import Profile


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ["user", "display_name", "language", "member_since", "deleted_at"]
    list_filter = ["language", ("deleted_at", admin.EmptyFieldListFilter)]
    search_fields = ["user__username", "user__email", "display_name"]
    list_select_related = ["user"]
    readonly_fields = ["user", "deleted_at"]

    @admin.display(description=_("Mitglied seit"), ordering="user__date_joined")
    def member_since(self, profile: Profile):
        return profile.user.date_joined

    def has_add_permission(self, request):
        # Profiles come with their users; an orphan profile cannot be made here.
        return False


class ProfileInline(admin.StackedInline):
    model = Profile
    can_delete = False
    fields = ["display_name", "language", "deleted_at"]
    readonly_fields = ["deleted_at"]


User = get_user_model()
if admin.site.is_registered(User):
    admin.site.unregister(User)


@admin.register(User)
class PlayerUserAdmin(UserAdmin):
    def get_inlines(self, request, obj):
        # On "add" the new user's profile is made by the post_save signal; an inline would make a second.
        return [ProfileInline] if obj is not None else []
