"""The statistics behind a board: which rows it shows, the interval each row shows, every pair's test, the ranks.

Every pair of a board's rows is tested (paired on identical item sets, unpaired from the two intervals otherwise),
each pair on its own at `ALPHA`, and a row's rank is 1 + the number of rows significantly better than it, directly
or through a chain of significant tests (`ranks_from_tests`). No correction over the board's pairs: its size would
depend on how many rows the board has, so anyone could blur every separation by pushing copies or noise rows. With
this rule a pair's verdict depends on its two rows alone, and a row's rank changes only when a row that beats it
(or beats a row that beats it) is added.

A row's shown interval may be recomputed from its per-item scores, so a board computes it once per row
(`shown_intervals`) and hands the list to the tests and the cells rather than asking again.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tombench.kit.intervals import Z95, t_quantile, wilson_interval

from ._row import ResultRow
from ._stats import CLUSTERED_METHOD, Paired, paired_comparison, proportion_interval, unpaired_p

#: The level of every pair's test and of the rank rule (two-sided, each pair on its own).
ALPHA = 0.05


@dataclass(frozen=True)
class PairTest:
    """The test of a board's row A against row B (difference A - B): paired on identical items, else unpaired."""

    diff: float
    p_value: float  # this pair's own two-sided test (no correction over the board: see the module's note)
    paired: Paired | None  # None: unpaired test from the two intervals
    n_a: int
    n_b: int

    @property
    def significant(self) -> bool:
        return self.p_value < ALPHA

    @property
    def better(self) -> bool:
        """Whether A is significantly better than B."""
        return self.significant and self.diff > 0


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
    """Whether two rows answered exactly the same item set, by content alone (the sample ids and inputs behind
    `Items.key`), so that they can be paired. Settings play no part: rows that differ in a setting that changed no
    question (`-T cache=true`) pair, rows whose settings changed the questions do not."""
    if not a.items.key or not b.items.key:
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
    """Every pair (i, j), i != j, of rows that have an interval: A = rows[i] against B = rows[j], each pair's own
    test. `shown`: the rows' `shown_intervals`, when the caller has them already."""
    shown = shown_intervals(rows) if shown is None else shown
    ranked = [i for i, s in enumerate(shown) if s is not None]
    keyed = {i: rows[i].items.by_key() for i in ranked}  # built once per row, not once per pair
    tests: dict[tuple[int, int], PairTest] = {}
    for x, i in enumerate(ranked):
        for j in ranked[x + 1:]:
            p, paired = _raw_test(rows[i], rows[j], shown[i], shown[j], (keyed[i], keyed[j]))  # type: ignore[arg-type]
            diff = rows[i].accuracy - rows[j].accuracy if paired is None else paired.diff
            tests[(i, j)] = PairTest(diff, p, paired, _n(rows[i]), _n(rows[j]))
            tests[(j, i)] = PairTest(-diff, p, _flip(paired), _n(rows[j]), _n(rows[i]))
    return tests


def _flip(p: Paired | None) -> Paired | None:
    if p is None:
        return None
    low = None if p.high is None else -p.high
    high = None if p.low is None else -p.low
    return Paired(p.n, p.stories, -p.diff, p.p_value, p.method, p.b_only, p.a_only, low, high)


def ranks_from_tests(shown: Sequence[Shown | None], tests: dict[tuple[int, int], PairTest]) -> list[int | None]:
    """Each row's rank: 1 + the number of rows above it in the "significantly better" order, directly or through a
    chain (S beats T and T beats R: S is above R); None: no interval.

    Why this rule: if A beats B, every row above A is above B too, so B's rank is always below A's; a row that
    beats nobody (a noise row, a copy of a row no better than others) never moves any other row's rank; a copy of a
    row moves the rows that row beats down by one, and keeps every separation."""
    ranked = [i for i, s in enumerate(shown) if s is not None]
    beaten_by = {i: [j for j in ranked if j != i and tests[(j, i)].better] for i in ranked}
    out: list[int | None] = [None] * len(shown)
    for i in ranked:
        above: set[int] = set()
        todo = list(beaten_by[i])
        while todo:
            j = todo.pop()
            if j not in above and j != i:
                above.add(j)
                todo += beaten_by[j]
        out[i] = 1 + len(above)
    return out


def shared_ranks(rows: Sequence[ResultRow]) -> list[int | None]:
    """Ranks of rows (`ranks_from_tests`), in their order (None for a row without an interval)."""
    shown = shown_intervals(rows)
    return ranks_from_tests(shown, pair_tests(rows, shown))
