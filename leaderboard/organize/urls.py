from django.urls import path

from leaderboard.organize import views

app_name = "organize"
# Included before challenges.urls: "new" and "import" are not challenge slugs (the forms refuse them).
urlpatterns = [
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
        "challenges/<slug:slug>/manage/phases/<slug:phase_slug>/truth/download",
        views.download_truth,
        name="download-truth",
    ),
]
