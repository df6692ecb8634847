from django.apps import AppConfig


class OrganizeConfig(AppConfig):
    name = "leaderboard.organize"
    verbose_name = "Challenge organization"
