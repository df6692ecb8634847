from ddi_leaderboard.cli import run

run()
