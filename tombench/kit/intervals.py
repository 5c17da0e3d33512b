"""The intervals of tombench. The one Wilson score interval: every rate shown to a user (scorers, reports, the leaderboard, the
generators' acceptance rates) gets its 95% interval from here.

Why Wilson: `p +/- 1.96 * stderr` has zero width at 0% and 100% (0 of 5 "is" [0, 0]) and leaves [0, 1] near the
edges; the Wilson interval stays inside [0, 1] and keeps an honest width at the edges (0 of 5 is [0, 43.4%]).
`n` may be fractional: the leaderboard passes an effective sample size (items divided by a design effect) when
questions share a story. Pure standard library, no Inspect import, so every layer can use it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

__all__ = ["Z95", "bootstrap_interval", "wilson_interval"]

#: z of a two-sided 95% normal interval.
Z95 = 1.959963984540054


def wilson_interval(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of `successes` in `n` trials; (0, 1) when there is no trial at all.

    At exactly 0 or n successes the outer bound is exactly 0 or 1 (computed, it is off by a rounding error).
    """
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(max(0.0, p * (1 - p)) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    low = 0.0 if p <= 0 else max(0.0, centre - half)
    high = 1.0 if p >= 1 else min(1.0, centre + half)
    return low, high


def bootstrap_interval(
    values: Sequence[object],
    statistic: Callable[[Sequence[object]], float],
    *,
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile bootstrap interval of `statistic` over resamples of `values` (seeded: the same log, the same CI)."""
    n = len(values)
    if n == 0:
        return 0.0, 1.0
    rng = random.Random(seed)
    stats = sorted(statistic([values[rng.randrange(n)] for _ in range(n)]) for _ in range(resamples))
    lo = stats[int(math.floor((1 - level) / 2 * (resamples - 1)))]
    hi = stats[int(math.ceil((1 + level) / 2 * (resamples - 1)))]
    return lo, hi
