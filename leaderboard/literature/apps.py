from django.apps import AppConfig


class LiteratureConfig(AppConfig):
    name = "leaderboard.literature"
    label = "literature"
    verbose_name = "Published results"
