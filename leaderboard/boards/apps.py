from django.apps import AppConfig

from leaderboard.celery import register_periodic_task


class BoardsConfig(AppConfig):
    name = "leaderboard.boards"
    label = "boards"

    def ready(self) -> None:
        # These modules define or query models: they can be imported only once the app registry is ready.
        from leaderboard.boards import receivers
        from leaderboard.submissions.signals import board_changed, submission_scored

        submission_scored.connect(receivers.on_submission_scored, dispatch_uid="boards.on_submission_scored")
        board_changed.connect(receivers.on_board_changed, dispatch_uid="boards.on_board_changed")

        from leaderboard.boards import reveal  # noqa: F401 (registers the reveal task with the worker)

        # Reveals organized phases whose reveal time passed (idempotent: a late or double run changes nothing).
        register_periodic_task("boards.reveal_due_phases", "boards.reveal_due_phases", every_seconds=60)
