from django.urls import path

from leaderboard.organize import moderation_views, participants_views

app_name = "organize"
urlpatterns: list = []

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
]
