from django.urls import path

from leaderboard.challenges import registration_views, views

app_name = "challenges"
urlpatterns = [
    path("challenges/", views.challenge_list, name="list"),
    path("challenges/<slug:slug>/", views.challenge_detail, name="detail"),
    path("challenges/<slug:slug>/register/", registration_views.register, name="register"),
    path("challenges/<slug:slug>/register/withdraw", registration_views.withdraw, name="withdraw"),
    path("challenges/<slug:slug>/<slug:phase_slug>/inputs.csv", views.phase_inputs, name="inputs"),
]
