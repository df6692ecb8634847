from django.contrib import admin
from django.urls import include, path

from leaderboard import views

# The site's own error pages; under DEBUG, leaderboard.errors.SiteErrorPagesMiddleware uses them too.
handler400 = "leaderboard.errors.bad_request"
handler403 = "leaderboard.errors.permission_denied"
handler404 = "leaderboard.errors.page_not_found"
handler500 = "leaderboard.errors.server_error"

docs_urls = [
    path("", views.docs_index, name="index"),
    path("<slug:slug>/", views.docs_page, name="page"),
]

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("docs/", include((docs_urls, "docs"))),
    path("admin/", admin.site.urls),
    path("accounts/tokens/", include("leaderboard.api.token_urls")),
    path("accounts/", include("leaderboard.accounts.urls")),
    path("api/v1/", include("leaderboard.api.urls")),
    path("teams/", include("leaderboard.accounts.team_urls")),
    path("", include("leaderboard.submissions.urls")),
    path("", include("leaderboard.boards.urls")),
    path("", include("leaderboard.drugs.urls")),
    path("", include("leaderboard.methods.urls")),
    path("", include("leaderboard.organize.urls")),
    path("", include("leaderboard.challenges.urls")),
]
