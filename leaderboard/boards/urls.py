from django.urls import path

from leaderboard.boards import views

app_name = "boards"
urlpatterns = [
    path("benchmarks/", views.benchmarks, name="benchmarks"),
    path("tasks/<slug:slug>/", views.task_board, name="task"),
    path("tasks/<slug:slug>/leaderboard.csv", views.leaderboard_csv, name="csv"),
    path("tasks/<slug:slug>/leaderboard.json", views.leaderboard_json, name="json"),
    path("datasets/<slug:family>/<slug:dataset>/", views.dataset, name="dataset"),
    path("compare/", views.compare, name="compare"),
]
