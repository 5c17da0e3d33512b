"""The leaderboard's statistics: intervals for proportions and paired tests. Pure functions, no I/O.

Two rules, both documented with a worked example in docs/leaderboard.md:

* **Interval of a proportion** (a headline accuracy, a breakdown group): the Wilson score interval on an
  *effective* sample size. Questions of one story are not independent (a model that misreads a story misses
  several of its questions), so the n of the Wilson formula is `n / deff`, where the design effect `deff` is the
  ratio of the cluster-robust variance of the mean (stories as clusters) to the binomial one, never below 1.
  Wilson is never zero-width: 40/40 gives [91.2%, 100%], 0/5 gives [0%, 43.4%]. At 0% and 100% the design effect
  cannot be estimated (every story scores the same) and is 1, which is also its limit when one answer flips.
* **Paired comparison** of two rows that answered the same items: the exact two-sided McNemar test (a binomial
  test on the discordant pairs) when no two shared items belong to one story; otherwise a paired bootstrap over
  the shared stories with a fixed seed, which keeps each story's questions together.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tombench.kit.intervals import wilson_interval

#: Paired bootstrap draws and seed: fixed, so the same two rows always give the same p-value.
BOOTSTRAP_DRAWS = 10_000
BOOTSTRAP_SEED = 20240518


@dataclass(frozen=True)
class Interval:
    """A 95% interval of a mean score in [0, 1], and what it was computed from."""

    value: float
    low: float
    high: float
    n: int  # scored items
    stories: int  # clusters (an item without a story is its own cluster)
    design_effect: float
    method: str


def design_effect(values: Sequence[float], clusters: Sequence[str]) -> float:
    """Cluster-robust variance of the mean over the binomial variance p(1-p)/n; at least 1.

    The cluster-robust variance is k/(k-1) * sum_c (S_c - m_c p)^2 / n^2 (S_c: the score total of cluster c, m_c
    its size, k clusters). 1 when there is nothing to adjust or it cannot be estimated: every item its own cluster,
    fewer than two clusters, or a mean of exactly 0 or 1 (no variance at all).
    """
    n = len(values)
    if n == 0:
        return 1.0
    p = sum(values) / n
    if p <= 0 or p >= 1:
        return 1.0
    totals: dict[str, list[float]] = {}
    for v, c in zip(values, clusters, strict=True):
        t = totals.setdefault(c, [0.0, 0.0])
        t[0] += v
        t[1] += 1
    k = len(totals)
    if k < 2 or k == n:  # one cluster, or no item shares a story: nothing to adjust
        return 1.0
    v_cluster = k / (k - 1) * sum((s - m * p) ** 2 for s, m in totals.values()) / (n * n)
    v_binomial = p * (1 - p) / n
    return max(1.0, v_cluster / v_binomial)


def proportion_interval(values: Sequence[float], clusters: Sequence[str | None] | None = None) -> Interval:
    """Wilson interval of the mean of `values` (each in [0, 1]) with the story design effect.

    `clusters[i]` is item i's story (None or "": the item is its own cluster).
    """
    n = len(values)
    if any(v < 0 or v > 1 or math.isnan(v) for v in values):
        raise ValueError("proportion_interval needs scores in [0, 1]")
    keys = [c if c else f"\0{i}" for i, c in enumerate(clusters or [None] * n)]
    p = sum(values) / n if n else 0.0
    deff = design_effect(values, keys)
    low, high = wilson_interval(p * (n / deff), n / deff)
    stories = len(set(keys))
    method = "wilson" if stories == n else "wilson-story-deff"
    return Interval(p, low, high, n, stories, deff, method)


# --- paired comparisons ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Paired:
    """A paired comparison of row A against row B on the items both answered (difference = A - B)."""

    n: int  # shared items
    stories: int  # shared clusters
    diff: float  # mean of A - B over shared items
    p_value: float
    method: str  # "mcnemar-exact" or "story-bootstrap"
    a_only: float  # items (or summed credit) A got right and B wrong
    b_only: float
    low: float | None = None  # 95% interval of the difference (bootstrap only)
    high: float | None = None

    def significant(self, alpha: float = 0.05) -> bool:
        return self.p_value < alpha


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value: a binomial(b + c, 1/2) test on the discordant pairs (exact integers)."""
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1))
    return min(1.0, 2 * tail / 2**n)


def paired_comparison(a: Mapping[str, tuple[str | None, float]], b: Mapping[str, tuple[str | None, float]],
                      *, draws: int = BOOTSTRAP_DRAWS, seed: int = BOOTSTRAP_SEED) -> Paired | None:
    """Compare two rows on their shared items: {item key: (story or None, score in [0, 1])} each.

    None when they share no item. Exact McNemar when the shared items are independent (no story holds two of them)
    and every score is 0 or 1; a paired bootstrap over shared stories otherwise.
    """
    shared = sorted(set(a) & set(b))
    if not shared:
        return None
    clusters = [a[k][0] or f"\0{k}" for k in shared]
    diffs = [a[k][1] - b[k][1] for k in shared]
    n = len(shared)
    diff = sum(diffs) / n
    a_only = sum(d for d in diffs if d > 0)
    b_only = -sum(d for d in diffs if d < 0)
    stories = len(set(clusters))
    binary = all(a[k][1] in (0.0, 1.0) and b[k][1] in (0.0, 1.0) for k in shared)
    if binary and stories == n:
        return Paired(n, stories, diff, mcnemar_exact(round(a_only), round(b_only)), "mcnemar-exact", a_only, b_only)
    p, low, high = _story_bootstrap(diffs, clusters, draws, seed)
    return Paired(n, stories, diff, p, "story-bootstrap", a_only, b_only, low, high)


def _story_bootstrap(diffs: Sequence[float], clusters: Sequence[str], draws: int,
                     seed: int) -> tuple[float, float, float]:
    """Resample whole stories: p-value of "no difference" (shifted bootstrap) and a percentile 95% interval."""
    import numpy as np

    sums: dict[str, list[float]] = {}
    for d, c in zip(diffs, clusters, strict=True):
        s = sums.setdefault(c, [0.0, 0.0])
        s[0] += d
        s[1] += 1
    totals = np.array([s for s, _ in sums.values()])
    sizes = np.array([m for _, m in sums.values()])
    observed = float(totals.sum() / sizes.sum())
    if not totals.any():
        return 1.0, 0.0, 0.0
    rng = np.random.default_rng(seed)
    k = len(totals)
    stats = np.empty(draws)
    step = max(1, 2_000_000 // max(k, 1))  # bound memory: at most ~2M indices at once
    for start in range(0, draws, step):
        stop = min(draws, start + step)
        idx = rng.integers(0, k, size=(stop - start, k))
        stats[start:stop] = totals[idx].sum(axis=1) / sizes[idx].sum(axis=1)
    extreme = np.count_nonzero(np.abs(stats - observed) >= abs(observed) - 1e-12)
    p = (1 + extreme) / (draws + 1)
    low, high = np.quantile(stats, [0.025, 0.975])
    return float(min(1.0, p)), float(low), float(high)
