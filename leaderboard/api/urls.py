from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from leaderboard.api import finals, moderation, registrations, submitting, truth, views

app_name = "api"
urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api:schema"), name="docs"),
    path("tasks", views.tasks, name="tasks"),
    path("tasks/<slug:slug>", views.task_detail, name="task"),
    path("tasks/<slug:slug>/leaderboard", views.task_leaderboard, name="task-leaderboard"),
    path("tasks/<slug:slug>/submissions", submitting.task_submit, name="task-submit"),
    path("tasks/<slug:slug>/submissions/preflight", submitting.task_preflight, name="task-preflight"),
    path("challenges", views.challenges, name="challenges"),
    path("challenges/<slug:slug>", views.challenge_detail, name="challenge"),
    path("challenges/<slug:challenge>/registration", registrations.registration, name="challenge-registration"),
    path("challenges/<slug:challenge>/phases/<slug:phase>", views.phase_detail, name="phase"),
    path(
        "challenges/<slug:challenge>/phases/<slug:phase>/leaderboard", views.phase_leaderboard, name="phase-leaderboard"
    ),
    path("challenges/<slug:challenge>/phases/<slug:phase>/submissions", submitting.phase_submit, name="phase-submit"),
    path(
        "challenges/<slug:challenge>/phases/<slug:phase>/submissions/preflight",
        submitting.phase_preflight,
        name="phase-preflight",
    ),
    path("challenges/<slug:challenge>/phases/<slug:phase>/truth", truth.phase_truth, name="phase-truth"),
    path("submissions", views.my_submissions, name="submissions"),
    path("submissions/<uuid:submission_id>", views.submission_detail, name="submission"),
    path("submissions/<uuid:submission_id>/file", views.submission_file, name="submission-file"),
    path("problems/<slug:kind>", views.problem_type, name="problem-type"),
    # Organizer endpoints for moderation (scope organize).
    path("challenges/<slug:challenge>/rerun", moderation.rerun, name="challenge-rerun"),
    path("challenges/<slug:challenge>/export.csv", moderation.export_csv, name="challenge-export"),
    path("challenges/<slug:challenge>/submissions.zip", moderation.download_submissions, name="challenge-download"),
    path("challenges/<slug:challenge>/teams/<slug:team>/<slug:decision>", moderation.decide, name="team-decision"),
    path("submissions/<uuid:submission_id>/moderation", moderation.moderate, name="submission-moderation"),
    # Final selection (scope submit) and the reveal (scope organize).
    path("submissions/<uuid:submission_id>/final", finals.final, name="submission-final"),
    path("challenges/<slug:challenge>/phases/<slug:phase>/reveal", finals.reveal, name="phase-reveal"),
    re_path(r"^[\s\S]*$", views.not_found),  # any character, newlines too
]
