"""The intervals of tombench. The one Wilson score interval: every rate shown to a user (scorers, reports, the leaderboard, the
generators' acceptance rates) gets its 95% interval from here; rates over questions that share stories get the
clustered form (`clustered_interval`: Wilson on n / design effect, Student t on clusters - 1 df).

Why Wilson: `p +/- 1.96 * stderr` has zero width at 0% and 100% (0 of 5 "is" [0, 0]) and leaves [0, 1] near the
edges; the Wilson interval stays inside [0, 1] and keeps an honest width at the edges (0 of 5 is [0, 43.4%]).
`n` may be fractional: the leaderboard passes an effective sample size (items divided by a design effect) when
questions share a story. Pure standard library, no Inspect import, so every layer can use it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from statistics import NormalDist

__all__ = ["Z95", "PRIOR_ICC", "PRIOR_WEIGHT", "ClusterInterval", "bootstrap_interval", "cluster_totals",
           "clustered_interval", "design_effect", "t_quantile", "wilson_interval"]

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


# --- questions clustered in stories ---------------------------------------------------------------------------------
#: Prior intra-story correlation of right answers, used where the data cannot estimate it (near 0% and 100%).
#: Measured on the offline baselines' ExploreToM runs (design effects 2.6-3.4 on stories of 22 questions: 0.08-0.11)
#: and the range the coverage simulation covers (benchmarks/interval_coverage.py, docs/explanation/statistics.md).
PRIOR_ICC = 0.1
#: Weight of the prior design effect, in minority answers (misses near 100%, hits near 0%): with f minority answers
#: the estimate counts f / (f + PRIOR_WEIGHT). Few misses cannot show how they cluster; hundreds can.
PRIOR_WEIGHT = 10.0


@dataclass(frozen=True)
class ClusterInterval:
    """A 95% interval of a mean score from clustered items, and what it was computed from."""

    value: float
    low: float
    high: float
    n: int  # items
    clusters: int
    design_effect: float
    quantile: float  # the z (independent items) or Student t (clusters - 1 df) the Wilson formula used


def _t_two_sided(t: float, df: int) -> float:
    """P(|T| < t) for Student's t with integer df (Abramowitz & Stegun 26.7.3-4: a finite series in cos(theta))."""
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    if df % 2:  # odd
        total, term = 0.0, math.cos(theta)
        for j in range(1, (df - 1) // 2 + 1):
            total += term
            term *= c2 * (2 * j) / (2 * j + 1)
        return 2 / math.pi * (theta + math.sin(theta) * total) if df > 1 else 2 * theta / math.pi
    total, term = 0.0, 1.0
    for j in range(1, df // 2 + 1):
        total += term
        term *= c2 * (2 * j - 1) / (2 * j)
    return math.sin(theta) * total


@lru_cache(maxsize=512)
def t_quantile(level: float, df: int) -> float:
    """The two-sided `level` quantile of Student's t with `df` degrees of freedom (2.1098 for 95% and 17 df).

    Bisection on the exact distribution function; the normal quantile from 100,000 df on."""
    if df < 1:
        raise ValueError("t_quantile needs at least one degree of freedom")
    if df >= 100_000:
        return NormalDist().inv_cdf((1 + level) / 2)
    low, high = 0.0, 1.0
    while _t_two_sided(high, df) < level:
        high *= 2
    for _ in range(200):
        mid = (low + high) / 2
        if _t_two_sided(mid, df) < level:
            low = mid
        else:
            high = mid
        if high - low < 1e-12:
            break
    return (low + high) / 2


def design_effect(totals: Sequence[tuple[float, float]]) -> float:
    """The design effect of a mean score over clusters given as (score total, items) pairs, at least 1.

    The estimate is the cluster-robust variance of the mean, k/(k-1) * sum_c (S_c - m_c p)^2 / n^2, over the
    binomial one, p(1-p)/n. Where it is unreliable it is raised towards the prior 1 + (m_w - 1) * PRIOR_ICC
    (m_w = sum m_c^2 / n, the size-weighted cluster size): the two are averaged with weights f (the minority
    answers: misses near 100%, hits near 0%) and PRIOR_WEIGHT, and the larger of that and the estimate is used.
    At 0% and 100% nothing shows how answers cluster and a handful of misses understates it (the old estimate was
    1 there, and its 95% interval covered a true 97-99% only 74-87% of the time with 18 stories of 22 questions);
    with hundreds of minority answers the estimate stands. The prior only ever widens an interval. 1 when no item
    shares a cluster or there is only one cluster (nothing to estimate from).
    """
    n = sum(m for _, m in totals)
    k = len(totals)
    if n <= 0 or k < 2 or k >= n:
        return 1.0
    p = sum(s for s, _ in totals) / n
    m_w = sum(m * m for _, m in totals) / n
    prior = 1 + (m_w - 1) * PRIOR_ICC
    minority = n * min(p, 1 - p)
    if minority <= 0:
        return max(1.0, prior)
    v_cluster = k / (k - 1) * sum((s - m * p) ** 2 for s, m in totals) / (n * n)
    estimate = v_cluster / (p * (1 - p) / n)
    return max(1.0, estimate, (minority * estimate + PRIOR_WEIGHT * prior) / (minority + PRIOR_WEIGHT))


def cluster_totals(values: Sequence[float], clusters: Sequence[Hashable]) -> list[tuple[float, float]]:
    """(score total, items) per cluster, in first-seen order."""
    totals: dict[Hashable, list[float]] = {}
    for v, c in zip(values, clusters, strict=True):
        t = totals.setdefault(c, [0.0, 0.0])
        t[0] += v
        t[1] += 1
    return [(s, m) for s, m in totals.values()]


def clustered_interval(totals: Sequence[tuple[float, float]], level: float = 0.95) -> ClusterInterval:
    """The interval of a mean score in [0, 1] whose items come in clusters (questions of one story).

    Wilson on the effective sample size n / deff (`design_effect`), with Student's t quantile on clusters - 1
    degrees of freedom in place of z: the variance is estimated from k clusters, not n items, and with 18 stories
    z = 1.96 is too small. Items that are each their own cluster get plain Wilson (deff 1, z).
    """
    n = int(round(sum(m for _, m in totals)))
    k = len(totals)
    p = sum(s for s, _ in totals) / n if n else 0.0
    deff = design_effect(totals)
    clustered = 1 < k < n
    q = t_quantile(level, k - 1) if clustered else NormalDist().inv_cdf((1 + level) / 2)
    low, high = wilson_interval(p * n / deff, n / deff, z=q)
    return ClusterInterval(p, low, high, n, k, deff, q)
