from django.contrib import admin
from django.urls import include, path

from leaderboard import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("accounts/tokens/", include("leaderboard.api.token_urls")),
    path("accounts/", include("leaderboard.accounts.urls")),
    path("api/v1/", include("leaderboard.api.urls")),
    path("teams/", include("leaderboard.accounts.team_urls")),
    path("", include("leaderboard.submissions.urls")),
    path("", include("leaderboard.boards.urls")),
]
