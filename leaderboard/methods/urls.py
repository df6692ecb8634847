from django.urls import path

from leaderboard.methods import views

app_name = "methods"
urlpatterns = [
    path("methods/<slug:team_slug>/<slug:slug>/", views.method_detail, name="detail"),
    path("methods/<slug:team_slug>/<slug:slug>/edit/", views.method_edit, name="edit"),
    path("suites/", views.suite_index, name="suites"),
    path("suites/<slug:slug>/", views.suite_detail, name="suite"),
]
