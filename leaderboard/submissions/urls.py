from django.urls import path

from leaderboard.submissions import views

app_name = "submissions"
urlpatterns = [
    path("tasks/<slug:slug>/submit/", views.submit, name="submit"),
    path("tasks/<slug:slug>/inputs.csv", views.inputs_csv, name="inputs"),
    path("tasks/<slug:slug>/example.csv", views.example_csv, name="example"),
    path("challenges/<slug:slug>/<slug:phase_slug>/submit/", views.phase_submit, name="phase-submit"),
    path("challenges/<slug:slug>/<slug:phase_slug>/example.csv", views.phase_example_csv, name="phase-example"),
    path("submissions/<uuid:submission_id>/", views.detail, name="detail"),
    path("submissions/<uuid:submission_id>/status.json", views.status_json, name="status"),
    path("submissions/<uuid:submission_id>/report", views.report, name="report"),
    path("submissions/<uuid:submission_id>/file", views.download_file, name="file"),
    path("submissions/<uuid:submission_id>/rerun", views.rerun, name="rerun"),
    path("submissions/<uuid:submission_id>/visibility", views.visibility, name="visibility"),
    path("submissions/<uuid:submission_id>/final", views.final, name="final"),
    path("challenges/<slug:slug>/<slug:phase_slug>/my/", views.my_submissions, name="my"),
]
