from django.urls import path

from leaderboard.api import web

app_name = "tokens"
urlpatterns = [
    path("", web.create, name="create"),
    path("<int:token_id>/revoke/", web.revoke, name="revoke"),
]
