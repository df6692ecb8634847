from django.apps import AppConfig


class DrugsConfig(AppConfig):
    name = "leaderboard.drugs"
    label = "drugs"
    verbose_name = "Drugs (MUDI)"
