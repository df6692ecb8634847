from django.apps import AppConfig


class BoardsConfig(AppConfig):
    name = "leaderboard.boards"
    label = "boards"

    def ready(self) -> None:
        from leaderboard.boards import receivers
        from leaderboard.submissions.signals import board_changed, submission_scored

        submission_scored.connect(receivers.on_submission_scored, dispatch_uid="boards.on_submission_scored")
        board_changed.connect(receivers.on_board_changed, dispatch_uid="boards.on_board_changed")
