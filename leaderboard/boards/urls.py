from django.urls import path

from leaderboard.boards import views
from leaderboard.boards.paper_tables import FORMATS

app_name = "boards"
urlpatterns = [
    path("benchmarks/", views.benchmarks, name="benchmarks"),
    path("tasks/<slug:slug>/", views.task_board, name="task"),
    path("tasks/<slug:slug>/leaderboard.csv", views.leaderboard_csv, name="csv"),
    path("tasks/<slug:slug>/leaderboard.json", views.leaderboard_json, name="json"),
    # Paper-ready tables of a view (LaTeX, Markdown, CSV): leaderboard.boards.paper_tables.
    *(path(f"tasks/<slug:slug>/table.{fmt}", views.paper_table, {"fmt": fmt}, name=f"table_{fmt}") for fmt in FORMATS),
    *(
        path(
            f"challenges/<slug:slug>/<slug:phase_slug>/board/table.{fmt}",
            views.phase_paper_table,
            {"fmt": fmt},
            name=f"phase_table_{fmt}",
        )
        for fmt in FORMATS
    ),  # fmt: skip
    path("tasks/<slug:slug>/feed.atom", views.board_feed, name="feed"),
    path("badges/<uuid:submission_id>.svg", views.entry_badge, name="badge"),
    path("datasets/<slug:family>/<slug:dataset>/", views.dataset, name="dataset"),
    path("compare/", views.compare, name="compare"),
    # Organized phases (standing ones live at /tasks/<slug>/): the same pages and exports for one phase.
    path("challenges/<slug:slug>/<slug:phase_slug>/board/", views.phase_board, name="phase"),
    path("challenges/<slug:slug>/<slug:phase_slug>/board/leaderboard.csv", views.phase_csv, name="phase_csv"),
    path("challenges/<slug:slug>/<slug:phase_slug>/board/leaderboard.json", views.phase_json, name="phase_json"),
    path("challenges/<slug:slug>/<slug:phase_slug>/board/private/", views.phase_private_board, name="phase_private"),
    path(
        "challenges/<slug:slug>/<slug:phase_slug>/board/private/leaderboard.csv",
        views.phase_private_csv,
        name="phase_private_csv",
    ),
    path(
        "challenges/<slug:slug>/<slug:phase_slug>/board/private/leaderboard.json",
        views.phase_private_json,
        name="phase_private_json",
    ),
]
