from django.apps import AppConfig


class BoardsConfig(AppConfig):
    name = "leaderboard.boards"
    label = "boards"
