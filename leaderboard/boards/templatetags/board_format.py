"""How board and compare pages write a bootstrap p-value."""

from __future__ import annotations

import math

from django import template

from scoring.replicates import N_RESAMPLES as BOOTSTRAP_RESAMPLES

register = template.Library()


def p_text(p: float | None, n_resamples: int = BOOTSTRAP_RESAMPLES, digits: int = 3, spaced: bool = False) -> str:
    """``p=0.042``, or ``p ≤ 0.001`` at the floor 1/(n+1) that a bootstrap of n resamples cannot go below.

    At the floor the test only says "at most this": no resample came out as extreme.
    """
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return ""
    floor = 1 / (n_resamples + 1)
    if p <= floor * (1 + 1e-9):
        return f"p ≤ {float(f'{floor:.1g}'):g}"
    return f"p = {p:.{digits}f}" if spaced else f"p={p:.{digits}f}"


@register.filter
def p_value(p: float | None, arg: str = "") -> str:
    """``{{ row.p_value|p_value }}`` (board) or ``{{ test.p_value|p_value:"4,1000" }}`` (digits, resamples; spaced)."""
    if not arg:
        return p_text(p)
    digits, _, resamples = str(arg).partition(",")
    return p_text(p, int(resamples or BOOTSTRAP_RESAMPLES), int(digits), spaced=True)
