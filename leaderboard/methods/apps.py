from django.apps import AppConfig


class MethodsConfig(AppConfig):
    name = "leaderboard.methods"
    label = "methods"
    verbose_name = "Methods and suites"
