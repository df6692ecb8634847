from django.urls import path

from leaderboard.organize import reveal_views

app_name = "organize"
urlpatterns: list = [
    path("challenges/<slug:slug>/manage/phases/<slug:phase_slug>/reveal", reveal_views.reveal, name="reveal"),
    path("challenges/<slug:slug>/manage/phases/<slug:phase_slug>/postpone", reveal_views.postpone, name="postpone"),
]
