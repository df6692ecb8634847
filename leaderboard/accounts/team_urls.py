"""/teams/...: team pages (members only) and team actions."""

from django.urls import path

from leaderboard.accounts import team_views

app_name = "teams"
urlpatterns = [
    path("new/", team_views.team_create, name="create"),
    path("<slug:slug>/", team_views.team_detail, name="detail"),
    path("<slug:slug>/invite/", team_views.team_invite, name="invite"),
    path(
        "<slug:slug>/invitations/<int:invitation_id>/revoke/",
        team_views.team_revoke_invitation,
        name="revoke_invitation",
    ),
    path("<slug:slug>/leave/", team_views.team_leave, name="leave"),
    path("<slug:slug>/leave/confirm/", team_views.team_leave_confirm, name="leave_confirm"),
    path("<slug:slug>/members/<int:member_id>/remove/", team_views.team_remove_member, name="remove_member"),
    path("<slug:slug>/members/<int:member_id>/hand-over/", team_views.team_hand_over, name="hand_over"),
]
