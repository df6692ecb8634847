"""Combining per-seed metric values into the public keys.

Shared by ImDrug (mean and population std over seeds 0-2) and ChemicalX (mean
and standard error = population std / sqrt(n) over splits 0-9).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np

from scoring.keys import seed_key, spread_key


def summarise_seeds(
    per_seed: Mapping[int, Mapping[str, float]],
    spread: str,
    *,
    headline: Iterable[str],
) -> dict[str, float]:
    """Flatten per-seed values into ``{m, m/<spread>, seed/k/m}``.

    A headline metric (the leaderboard columns) is reported only when every
    seed has it, so a mean is never silently taken over fewer splits. Other
    keys (per-class values) are averaged over the seeds that have them.
    ``spread`` is ``"std"`` (population std) or ``"stderr"`` (population std
    divided by the square root of the number of values averaged).
    """
    headline = set(headline)
    seeds = sorted(per_seed)
    keys: list[str] = []
    for seed in seeds:
        keys += [key for key in per_seed[seed] if key not in keys]
    out: dict[str, float] = {}
    for key in keys:
        values = [float(per_seed[seed][key]) for seed in seeds if key in per_seed[seed]]
        if key in headline and len(values) < len(seeds):
            continue
        arr = np.asarray(values)
        std = float(arr.std())  # ddof 0: the benchmarks report population std
        out[key] = float(arr.mean())
        out[spread_key(key, spread)] = std if spread == "std" else std / math.sqrt(arr.size)
    for seed in seeds:
        for key, value in per_seed[seed].items():
            out[seed_key(seed, key)] = float(value)
    return out
