from django.urls import path

from leaderboard.organize import hosts_views, moderation_views, participants_views, reveal_views, views

app_name = "organize"
# Included before challenges.urls: "new" and "import" are not challenge slugs (the forms refuse them).
urlpatterns = [
    path("staff/hosts/", hosts_views.host_list, name="hosts"),
    path("staff/hosts/<str:username>/revoke/", hosts_views.revoke, name="revoke-host"),
    path("challenges/new/", views.new_challenge, name="new"),
    path("challenges/import/", views.import_bundle, name="import"),
    path("challenges/<slug:slug>/manage/", views.manage, name="manage"),
    path("challenges/<slug:slug>/manage/organizers/", views.add_organizer, name="add-organizer"),
    path(
        "challenges/<slug:slug>/manage/organizers/<int:user_id>/remove/",
        views.remove_organizer,
        name="remove-organizer",
    ),
    path("challenges/<slug:slug>/manage/bundle.zip", views.export_bundle, name="export"),
    path("challenges/<slug:slug>/manage/phases/", views.phases, name="phases"),
    path("challenges/<slug:slug>/manage/phases/new/", views.new_phase, name="new-phase"),
    path("challenges/<slug:slug>/manage/phases/<slug:phase_slug>/", views.phase, name="phase"),
    path("challenges/<slug:slug>/manage/phases/<slug:phase_slug>/truth/", views.upload_truth, name="upload-truth"),
    path(
        "challenges/<slug:slug>/manage/phases/<slug:phase_slug>/truth/groups",
        views.truth_groups,
        name="truth-groups",
    ),
    path(
        "challenges/<slug:slug>/manage/phases/<slug:phase_slug>/truth/download",
        views.download_truth,
        name="download-truth",
    ),
]

# Moderation (the moderate lane): submissions, participants, announcements, the scores export.
urlpatterns += [
    path("challenges/<slug:slug>/manage/submissions/", moderation_views.submissions, name="moderation-submissions"),
    path("challenges/<slug:slug>/manage/submissions/rerun", moderation_views.rerun, name="moderation-rerun"),
    path(
        "challenges/<slug:slug>/manage/submissions/<uuid:submission_id>/",
        moderation_views.submission,
        name="moderation-submission",
    ),
    path(
        "challenges/<slug:slug>/manage/submissions/<uuid:submission_id>/act",
        moderation_views.act,
        name="moderation-act",
    ),
    path("challenges/<slug:slug>/manage/participants/", participants_views.participants, name="participants"),
    path(
        "challenges/<slug:slug>/manage/participants/<slug:team_slug>/decide",
        participants_views.decide,
        name="participant-decide",
    ),
    path("challenges/<slug:slug>/manage/announcements/", participants_views.announcements, name="announcements"),
    path("challenges/<slug:slug>/manage/export.csv", moderation_views.export_csv, name="export-scores"),
    path("challenges/<slug:slug>/manage/submissions.zip", moderation_views.download_all, name="download-all"),
    # The reveal (the engine lane): reveal a phase now, or postpone its reveal.
    path("challenges/<slug:slug>/manage/phases/<slug:phase_slug>/reveal", reveal_views.reveal, name="reveal"),
    path("challenges/<slug:slug>/manage/phases/<slug:phase_slug>/postpone", reveal_views.postpone, name="postpone"),
]
