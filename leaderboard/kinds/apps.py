from django.apps import AppConfig


class KindsConfig(AppConfig):
    name = "leaderboard.kinds"
    label = "kinds"
    verbose_name = "Benchmark kinds"

    def ready(self) -> None:
        # Each module registers its SiteKind when imported; they build on the boards and submissions
        # apps, so they are imported once every app is loaded, never by the apps below them.
        from leaderboard.kinds import classification, mudi, pair, regression  # noqa: F401
