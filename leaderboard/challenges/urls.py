from django.urls import path

from leaderboard.challenges import views

app_name = "challenges"
urlpatterns = [
    path("challenges/", views.challenge_list, name="list"),
    path("challenges/<slug:slug>/", views.challenge_detail, name="detail"),
    path("challenges/<slug:slug>/<slug:phase_slug>/inputs.csv", views.phase_inputs, name="inputs"),
]
