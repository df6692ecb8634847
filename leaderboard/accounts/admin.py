import functools

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin

from leaderboard.accounts.forms import AdminTeamForm, AdminUserChangeForm, AdminUserCreationForm
from leaderboard.accounts.models import Invitation, Membership, Team, User
from leaderboard.accounts.views import count_login, login_refused


def _throttled(admin_login):
    """The admin's log-in with the site's brakes on failed log-ins (per account and per client address)."""

    @functools.wraps(admin_login)
    def login(request, extra_context=None):
        if request.method != "POST":
            return admin_login(request, extra_context)
        if (refused := login_refused(request)) is not None:
            return refused
        response = admin_login(request, extra_context)
        # The admin answers a failed log-in with its form again (200) and a good one with a redirect.
        count_login(request, succeeded=response.status_code == 302 and request.user.is_authenticated)
        return response

    return login


admin.site.login = _throttled(admin.site.login)  # type: ignore[method-assign]


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    # Renames and new users follow the look-alike rule of sign-up (leaderboard.accounts.names).
    form = AdminUserChangeForm
    add_form = AdminUserCreationForm
    fieldsets = (*(BaseUserAdmin.fieldsets or ()), ("Notifications", {"fields": ("email_results",)}))
    list_display = ("username", "email", "is_staff", "is_active", "date_joined")


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    raw_id_fields = ("user",)


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    form = AdminTeamForm
    list_display = ("name", "slug", "personal", "created_at")
    list_filter = ("personal",)
    search_fields = ("name", "slug", "memberships__user__username")
    inlines = [MembershipInline]


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    list_display = ("team", "invited_user", "invited_by", "status", "created_at")
    list_filter = ("status",)
    raw_id_fields = ("team", "invited_user", "invited_by")
