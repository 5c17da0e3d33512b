"""The leaderboard's statistics: intervals, paired tests and the rank rule. Pure functions, no I/O.

The rules, each documented with a worked example and its simulation in docs/explanation/statistics.md:

* **Interval of a proportion** (a headline accuracy, a breakdown group): the kit's one clustered interval
  (`tombench.kit.intervals.clustered_interval`): Wilson on the effective sample size n / deff, the story design
  effect shrunk towards a prior where few minority answers cannot show it (0%, 100% and near), Student t on
  stories - 1 degrees of freedom. Plain Wilson when every question is its own story.
* **Paired comparison** of two rows that answered the same items: the exact two-sided McNemar test when no two
  items share a story; otherwise the sign-flip (randomization) test over stories, exact up to 16 stories.
* **Unpaired comparison** (rows that answered different items): a normal test on the difference, each row's
  standard error read off its printed interval (half its width over the quantile it used).
* **Ranks** are made from these tests in `_ranking.ranks_from_tests` (each pair on its own, no correction over a
  board's pairs, so that rows added later cannot undo a separation).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tombench.kit.intervals import cluster_totals, clustered_interval, t_quantile
from tombench.kit.intervals import design_effect as kit_design_effect

#: Stories (with a non-zero difference) up to which the sign-flip test enumerates every sign pattern exactly.
EXACT_STORIES = 16
#: Random sign patterns above that, and their seed: fixed, so the same two rows always give the same p-value.
SIGN_FLIP_DRAWS = 20_000
#: Stories from which the sign-flip distribution is taken as its normal limit (mean 0, variance sum D_c^2): a sum of
#: this many independent +-D_c terms is normal to well within the random draws' own error, at no cost.
NORMAL_STORIES = 100
BOOTSTRAP_SEED = 20240518
#: The interval method of rows whose questions share stories (Wilson on n / deff, shrunk deff, Student t on
#: stories - 1 df). Rows before it say "wilson-story-deff" (deff 1 at the edges, z).
CLUSTERED_METHOD = "wilson-story-deff-t"


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
    """The design effect of the mean of `values` with items clustered by `clusters` (`kit.intervals.design_effect`:
    cluster-robust over binomial variance, shrunk towards a prior at the edges, at least 1)."""
    return kit_design_effect(cluster_totals(values, clusters))


def proportion_interval(values: Sequence[float], clusters: Sequence[str | None] | None = None) -> Interval:
    """The 95% interval of the mean of `values` (each in [0, 1]), questions clustered by story
    (`kit.intervals.clustered_interval`). `clusters[i]` is item i's story (None or "": its own cluster)."""
    n = len(values)
    if any(v < 0 or v > 1 or math.isnan(v) for v in values):
        raise ValueError("proportion_interval needs scores in [0, 1]")
    keys = [c if c else f"\0{i}" for i, c in enumerate(clusters or [None] * n)]
    ci = clustered_interval(cluster_totals(values, keys)) if n else None
    if ci is None:
        return Interval(0.0, 0.0, 1.0, 0, 0, 1.0, "wilson")
    method = "wilson" if ci.clusters == n else CLUSTERED_METHOD
    return Interval(ci.value, ci.low, ci.high, n, ci.clusters, ci.design_effect, method)


# --- paired comparisons ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Paired:
    """A paired comparison of row A against row B on the items both answered (difference = A - B)."""

    n: int  # shared items
    stories: int  # shared clusters
    diff: float  # mean of A - B over shared items
    p_value: float
    method: str  # "mcnemar-exact", "story-sign-flip-exact", "story-sign-flip" (random patterns) or "-normal"
    a_only: float  # items (or summed credit) A got right and B wrong
    b_only: float
    low: float | None = None  # 95% interval of the difference (stories only)
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
                      *, draws: int = SIGN_FLIP_DRAWS, seed: int = BOOTSTRAP_SEED) -> Paired | None:
    """Compare two rows on their shared items: {item key: (story or None, score in [0, 1])} each.

    None when they share no item. Exact McNemar when the shared items are independent (no story holds two of them)
    and every score is 0 or 1; the sign-flip test over shared stories otherwise.
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
    totals, sizes = _story_sums(diffs, clusters)
    p, method = _sign_flip(totals, draws, seed)
    low, high = _difference_interval(totals, sizes)
    return Paired(n, stories, diff, p, method, a_only, b_only, low, high)


def _story_sums(diffs: Sequence[float], clusters: Sequence[str]) -> tuple[list[float], list[float]]:
    sums: dict[str, list[float]] = {}
    for d, c in zip(diffs, clusters, strict=True):
        s = sums.setdefault(c, [0.0, 0.0])
        s[0] += d
        s[1] += 1
    return [s for s, _ in sums.values()], [m for _, m in sums.values()]


def sign_flip_test(diffs: Sequence[float], clusters: Sequence[str], *, draws: int = SIGN_FLIP_DRAWS,
                   seed: int = BOOTSTRAP_SEED) -> tuple[float, str]:
    """Two-sided p-value of "no difference" by flipping the sign of whole stories' summed differences.

    Under the null the two models' answers to a story are exchangeable, so each story's difference total D_c is as
    likely to be -D_c: the p-value is the share of the 2^k sign patterns whose |sum| reaches the observed one,
    enumerated exactly up to EXACT_STORIES stories with a non-zero total (exact: its type-I error is at most the
    level). Above that it is the same share over `draws` seeded random patterns, "+1"-corrected, and from
    NORMAL_STORIES on the normal limit of that distribution. (The shifted story bootstrap it replaces rejected
    6-7% of true nulls at 5% with 18 stories; benchmarks/interval_coverage.py.) Returns (p, method).
    """
    return _sign_flip(_story_sums(diffs, clusters)[0], draws, seed)


def _sign_flip(totals: Sequence[float], draws: int, seed: int) -> tuple[float, str]:
    import numpy as np

    d = np.array([t for t in totals if abs(t) > 1e-12])
    observed = abs(d.sum()) - 1e-9
    if d.size == 0:
        return 1.0, "story-sign-flip-exact"
    if d.size <= EXACT_STORIES:
        bits = np.arange(2 ** d.size)[:, None] >> np.arange(d.size)
        stats = np.abs((1 - 2 * (bits & 1)) @ d)
        return float(np.count_nonzero(stats >= observed) / stats.size), "story-sign-flip-exact"
    if d.size >= NORMAL_STORIES:
        # with whole-number totals (0/1 scores) the sum moves in steps of 2: a continuity correction of 1
        step = 1.0 if np.all(np.abs(d - np.round(d)) < 1e-9) else 0.0
        z = max(0.0, abs(float(d.sum())) - step) / math.sqrt(float(d @ d))
        return min(1.0, math.erfc(z / math.sqrt(2))), "story-sign-flip-normal"
    rng = np.random.default_rng(seed)
    extreme = 0
    step = max(1, 2_000_000 // d.size)  # bound memory: at most ~2M signs at once
    for start in range(0, draws, step):
        signs = rng.integers(0, 2, size=(min(step, draws - start), d.size)) * 2 - 1
        extreme += int(np.count_nonzero(np.abs(signs @ d) >= observed))
    return min(1.0, (1 + extreme) / (draws + 1)), "story-sign-flip"


def _difference_interval(totals: Sequence[float], sizes: Sequence[float]) -> tuple[float, float]:
    """95% interval of the mean paired difference from its story totals and sizes: cluster-robust standard error,
    Student t on stories - 1 df (the kit's quantile, as for the rows' own intervals)."""
    n, k = sum(sizes), len(totals)
    diff = sum(totals) / n
    if k < 2:
        return diff, diff
    se = math.sqrt(k / (k - 1) * sum((t - m * diff) ** 2 for t, m in zip(totals, sizes, strict=True))) / n
    q = t_quantile(0.95, k - 1)
    return diff - q * se, diff + q * se


# --- rows on different items, multiplicity, rank groups ---------------------------------------------------------
def unpaired_p(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    """Two-sided p of "same accuracy" for rows that answered different items: a normal test on the difference.

    Each row is (value, low, high, quantile) as printed; its standard error is the interval's half width over the
    quantile the interval used, so the test uses exactly what the board shows (story design effect included)."""
    se2 = sum(((high - low) / (2 * q)) ** 2 for _, low, high, q in (a, b))
    if se2 <= 0:
        return 1.0 if a[0] == b[0] else 0.0
    z = abs(a[0] - b[0]) / math.sqrt(se2)
    return min(1.0, math.erfc(z / math.sqrt(2)))
