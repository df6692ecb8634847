"""How the pages write a metric value: four decimals, an em dash when it is missing.

The board table, the compare page, the chart tables, the benchmarks list and
the submission page all use ``metric_text`` (templates through the
``metric_value`` filter of ``submission_tags``).
"""

from __future__ import annotations

import math

MISSING = "—"


def interval_text(low: float | None, high: float | None, digits: int = 4) -> str:
    """A 95% interval as "[low, high]", or "" when it is unknown."""
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return ""
    return f"[{low:.{digits}f}, {high:.{digits}f}]"


def metric_text(value: float | None, digits: int = 4) -> str:
    """``value`` with ``digits`` decimals, or an em dash for None and NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    return f"{value:.{digits}f}"
