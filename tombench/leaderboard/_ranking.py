"""The statistics behind a board: which rows it shows, the interval each row shows, every pair's test, the ranks.

Every pair of a board's rows is tested (paired on identical item sets, unpaired from the two intervals otherwise),
the p-values are Holm-adjusted over the board's pairs, and ranks follow from those tests (`_stats.rank_groups`): a
new rank starts only where every row above is significantly better than every row below.

A row's shown interval may be recomputed from its per-item scores, so a board computes it once per row
(`shown_intervals`) and hands the list to the tests and the cells rather than asking again.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tombench.kit.intervals import Z95, t_quantile, wilson_interval

from ._row import ResultRow
from ._stats import CLUSTERED_METHOD, Paired, holm, paired_comparison, proportion_interval, rank_groups, unpaired_p

#: The level of every test and of the rank rule (two-sided, after Holm's correction over a board's pairs).
ALPHA = 0.05


@dataclass(frozen=True)
class PairTest:
    """The test of a board's row A against row B (difference A - B): paired on identical items, else unpaired."""

    diff: float
    p_value: float
    p_adjusted: float  # Holm over every pair of the board
    paired: Paired | None  # None: unpaired test from the two intervals
    n_a: int
    n_b: int

    @property
    def significant(self) -> bool:
        return self.p_adjusted < ALPHA


def latest_rows(rows: Iterable[ResultRow]) -> tuple[list[ResultRow], list[ResultRow]]:
    """Split rows into (newest per configuration, older ones). Identical submissions count once."""
    by_id = {r.submission_id: r for r in rows}
    newest: dict[tuple, ResultRow] = {}
    for r in sorted(by_id.values(), key=lambda r: (r.created_at, r.submission_id)):
        newest[r.dedup_key] = r
    kept = {r.submission_id for r in newest.values()}
    return list(newest.values()), [r for r in by_id.values() if r.submission_id not in kept]


@dataclass(frozen=True)
class Shown:
    """The interval a view shows for a row, the quantile it used, and how it was made."""

    low: float
    high: float
    quantile: float
    method: str
    design_effect: float | None = None


def _from_items(row: ResultRow) -> Shown | None:
    """The row's headline interval recomputed from its per-item scores with today's rule (older rows stored
    another one); None when the items cannot reproduce the headline."""
    it = row.items
    if row.schema_version < 2 or not it.key or row.ci_low is None or any(not 0 <= v <= 1 for v in it.score):
        return None
    ci = proportion_interval(it.score, it.story)
    if abs(ci.value - row.accuracy) > 1e-9:
        return None
    # one story: nothing to estimate a t from, so the interval used z (as `clustered_interval` does)
    q = t_quantile(0.95, ci.stories - 1) if ci.method == CLUSTERED_METHOD and ci.stories > 1 else Z95
    return Shown(ci.low, ci.high, q, ci.method, ci.design_effect)


def shown_interval(row: ResultRow) -> Shown | None:
    """The interval a view shows for a row; None when the headline is not a mean of per-sample scores in [0, 1].

    Rows with per-item scores are recomputed with today's rule. Rows of schema 1 carry a normal interval from the
    logged stderr (zero-width at 0% and 100%) and no per-item data: they are shown with the Wilson interval of their
    accuracy on their completed samples instead (no story adjustment is possible for them)."""
    if row.schema_version < 2 and row.samples_completed > 0:
        low, high = wilson_interval(row.accuracy * row.samples_completed, row.samples_completed)
        return Shown(low, high, Z95, "wilson (schema 1 row: no per-story data)")
    if (recomputed := _from_items(row)) is not None:
        return recomputed
    if row.ci_low is None or row.ci_high is None:
        return None
    clustered = row.ci_method == CLUSTERED_METHOD and row.stories and row.stories > 1
    q = t_quantile(0.95, row.stories - 1) if clustered else Z95  # type: ignore[operator]
    return Shown(row.ci_low, row.ci_high, q, row.ci_method or "?", row.design_effect)


def shown_intervals(rows: Iterable[ResultRow]) -> list[Shown | None]:
    """`shown_interval` of each row, in order."""
    return [shown_interval(r) for r in rows]


def interval(row: ResultRow) -> tuple[float | None, float | None, str]:
    """(low, high, method) of the interval a view shows for a row (None, None, why: no interval)."""
    return interval_of(shown_interval(row))


def interval_of(shown: Shown | None) -> tuple[float | None, float | None, str]:
    """(low, high, method) of a shown interval (None, None, why: no interval)."""
    if shown is None:
        return None, None, "no interval: the headline is not a mean of per-sample scores in [0, 1]"
    return shown.low, shown.high, shown.method


def bounds(shown: Shown | None) -> tuple[float, float]:
    """A shown interval; a row without one spans everything (it can be told apart from nothing)."""
    low, high, _ = interval_of(shown)
    return (low if low is not None else -math.inf), (high if high is not None else math.inf)


def same_items(a: ResultRow, b: ResultRow) -> bool:
    """Whether two rows answered exactly the same item set (same task, arguments and dataset, and the same items
    by content: the sample ids and inputs behind `Items.key`), so that they can be paired."""
    if a.pairing_key != b.pairing_key or not a.items.key or not b.items.key:
        return False
    return len(a.items.key) == len(b.items.key) and set(a.items.key) == set(b.items.key)


def compare(a: ResultRow, b: ResultRow) -> Paired | None:
    """Paired test of row `a` against row `b` (difference a - b); None unless both answered exactly the same items
    (a pair on a shared sliver of two different item sets would test something neither row reports)."""
    if not same_items(a, b):
        return None
    return paired_comparison(a.items.by_key(), b.items.by_key())


def _n(row: ResultRow) -> int:
    return len(row.items.key) or row.samples_completed


def _raw_test(a: ResultRow, b: ResultRow, sa: Shown, sb: Shown,
              keyed: tuple[dict, dict]) -> tuple[float, Paired | None]:
    if same_items(a, b):
        paired = paired_comparison(*keyed)
        if paired is not None:
            return paired.p_value, paired
    return unpaired_p((a.accuracy, sa.low, sa.high, sa.quantile), (b.accuracy, sb.low, sb.high, sb.quantile)), None


def pair_tests(rows: Sequence[ResultRow], shown: Sequence[Shown | None] | None = None) -> dict[tuple[int, int], PairTest]:
    """Every pair (i, j), i != j, of rows that have an interval: A = rows[i] against B = rows[j], p Holm-adjusted
    over the distinct pairs. `shown`: the rows' `shown_intervals`, when the caller has them already."""
    shown = shown_intervals(rows) if shown is None else shown
    ranked = [i for i, s in enumerate(shown) if s is not None]
    keyed = {i: rows[i].items.by_key() for i in ranked}  # built once per row, not once per pair
    raw: dict[tuple[int, int], tuple[float, Paired | None]] = {}
    for x, i in enumerate(ranked):
        for j in ranked[x + 1:]:
            raw[(i, j)] = _raw_test(rows[i], rows[j], shown[i], shown[j], (keyed[i], keyed[j]))  # type: ignore[arg-type]
    adjusted = dict(zip(raw, holm([p for p, _ in raw.values()]), strict=True))
    tests: dict[tuple[int, int], PairTest] = {}
    for (i, j), (p, paired) in raw.items():
        diff = rows[i].accuracy - rows[j].accuracy if paired is None else paired.diff
        tests[(i, j)] = PairTest(diff, p, adjusted[(i, j)], paired, _n(rows[i]), _n(rows[j]))
        tests[(j, i)] = PairTest(-diff, p, adjusted[(i, j)], _flip(paired), _n(rows[j]), _n(rows[i]))
    return tests


def _flip(p: Paired | None) -> Paired | None:
    if p is None:
        return None
    low = None if p.high is None else -p.high
    high = None if p.low is None else -p.low
    return Paired(p.n, p.stories, -p.diff, p.p_value, p.method, p.b_only, p.a_only, low, high)


def ranks_from_tests(shown: Sequence[Shown | None], tests: dict[tuple[int, int], PairTest]) -> list[int | None]:
    """Ranks of rows sorted best first, given their shown intervals (`_stats.rank_groups` over the rows with an
    interval); None: no interval."""
    ranked = [i for i, s in enumerate(shown) if s is not None]

    def separated(x: int, y: int) -> bool:
        t = tests[(ranked[x], ranked[y])]
        return t.significant and t.diff > 0

    out: list[int | None] = [None] * len(shown)
    for i, k in zip(ranked, rank_groups(len(ranked), separated), strict=True):
        out[i] = k
    return out


def shared_ranks(rows: Sequence[ResultRow]) -> list[int | None]:
    """Ranks of rows given best first: shared unless the Holm-adjusted tests separate every row above from every
    row below (None for a row without an interval)."""
    shown = shown_intervals(rows)
    return ranks_from_tests(shown, pair_tests(rows, shown))

