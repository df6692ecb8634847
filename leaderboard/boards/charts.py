"""Plotly figures built server-side (the leaderboard issue fills this in)."""


def submission_charts(submission) -> list[dict]:
    """Charts for one scored submission: [{"id", "title", "figure" (JSON str), "table"}]."""
    return []
