"""Many pairwise comparisons at once: Holm's correction and the paired test over seeds.

A board's significance matrix compares its top 10 entries pairwise: 45 tests.
At alpha = 0.05 about two of 45 true-null pairs would come out "significant" by
chance alone, so the p-values are adjusted with Holm's step-down method, which
controls the family-wise error rate (the chance of even one false "significant")
at alpha under any dependence between the tests, and is never less powerful than
Bonferroni.

Multi-seed tasks (ImDrug's 3 seeds, ChemicalX's 10 splits) report one value per
seed. Two submissions are compared by a paired t-test on their per-seed
differences: each seed is one test split, both submissions were evaluated on
the same split, so the differences are paired. With 3 seeds an exact sign-flip
test cannot go below p = 0.25 (2 of 8 sign patterns), so it could never call a
difference; the t-test can, at the price of assuming the per-seed differences
are roughly normal. That assumption is stated wherever the result is shown.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


def holm_adjust(p_values: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values, in the order given.

    Sort the m p-values ascending, p(1) <= ... <= p(m). The adjusted value of
    p(i) is max over j <= i of min(1, (m - j + 1) * p(j)): the smallest p is
    multiplied by m, the next by m - 1, and so on, and the running maximum keeps
    the adjusted values in the same order as the raw ones. A hypothesis is
    rejected at level alpha exactly when its adjusted p-value is below alpha,
    which is Holm's procedure (stop at the first p(i) >= alpha / (m - i + 1)).

    Example: ``holm_adjust([0.01, 0.04, 0.03, 0.005]) == [0.03, 0.06, 0.06, 0.02]``.
    """
    m = len(p_values)
    for p in p_values:
        if not 0.0 <= p <= 1.0 or math.isnan(p):
            raise ValueError(f"a p-value must lie in [0, 1], got {p!r}")
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def _student_t_two_sided(t: float, df: int) -> float:
    """P(|T| >= |t|) for Student's t with ``df`` (a positive integer) degrees of freedom.

    The closed forms for integer degrees of freedom (Abramowitz and Stegun
    26.7.3 and 26.7.4) with theta = atan(|t| / sqrt(df)): no special-function
    library needed, exact to rounding.
    """
    if df < 1:
        raise ValueError("degrees of freedom must be at least 1")
    if math.isinf(t):
        return 0.0
    theta = math.atan(abs(t) / math.sqrt(df))
    sin, cos2 = math.sin(theta), math.cos(theta) ** 2
    if df % 2 == 1:
        series, term = 0.0, 1.0
        if df > 1:
            series = term
            for k in range(1, (df - 3) // 2 + 1):
                term *= cos2 * (2 * k) / (2 * k + 1)
                series += term
            series *= sin * math.cos(theta)
        inside = 2.0 / math.pi * (theta + series)
    else:
        series, term = 1.0, 1.0
        for k in range(1, (df - 2) // 2 + 1):
            term *= cos2 * (2 * k - 1) / (2 * k)
            series += term
        inside = sin * series
    return min(1.0, max(0.0, 1.0 - inside))


@dataclass(frozen=True)
class SeedTest:
    """Outcome of a paired t-test over seeds (A minus B)."""

    delta: float  # mean over seeds of value_a - value_b
    p_value: float
    n_seeds: int


def paired_seed_test(values_a: Sequence[float], values_b: Sequence[float]) -> SeedTest:
    """Two-sided paired t-test of the per-seed values of A against those of B (same seeds, same order).

    Identical values on every seed give p = 1; a difference that is the same
    non-zero number on every seed gives p = 0 (no spread to doubt it). Raises
    ``ValueError`` with fewer than two seeds or unequal lengths.
    """
    if len(values_a) != len(values_b):
        raise ValueError("both submissions need a value for the same seeds")
    n = len(values_a)
    if n < 2:
        raise ValueError("a paired test over seeds needs at least two seeds")
    diffs = [float(a) - float(b) for a, b in zip(values_a, values_b, strict=True)]
    if any(math.isnan(d) or math.isinf(d) for d in diffs):
        raise ValueError("a per-seed value is missing or not finite")
    mean = sum(diffs) / n
    variance = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    # Differences equal to rounding error count as no spread and no difference.
    scale = max(1.0, max(abs(float(v)) for v in [*values_a, *values_b]))
    if variance <= (1e-12 * scale) ** 2:
        return SeedTest(delta=mean, p_value=1.0 if abs(mean) <= 1e-12 * scale else 0.0, n_seeds=n)
    t = mean / math.sqrt(variance / n)
    return SeedTest(delta=mean, p_value=_student_t_two_sided(t, n - 1), n_seeds=n)
