"""The cross-suite table (ExploreToM Table 3 / ToM-Synth Table 1): one row per model, one column per suite headline.

Reads only the log headers (task metadata and aggregate metrics), so it is fast on large runs. A suite task says
what its headline is in its metadata (`suite`, `headline`, `headline_groups`; see `tombench.tasks.shared`). The
chance row reads the logged `chance` metric, the mean 1/k over the samples the run scored (so a `--limit` or
`--sample-id` run gets its own level); a log from before that metric falls back on the task's `chance` metadata.
Intervals: the logged `{headline}_ci_low/_ci_high` when present (bootstrap or Wilson, computed by the scorer), else,
for a proportion, the Wilson 95% interval from the value and the number of scored items; so a 0% or 100% cell still
has a width.

Runs are never pooled or silently dropped: when a model has several logs of one suite, each is
its own row, labelled by what sets it apart (the task arguments that differ, or `run 2 of 2` for a repeat of the
same settings; `_load.Run`), and the command prints a note. Unreadable files and unfinished runs are skipped with
one line each.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tombench.kit.intervals import wilson_interval
from tombench.kit.metrics import parse_breakdown
from tombench.kit.suites import suite_label, suites
from tombench.reports._load import OnSkip, Progress, Run, load_runs, no_progress
from tombench.reports._tables import ReportTable

__all__ = ["GroupCell", "SuiteResult", "chance_levels", "group_text", "headline_text", "load_suite_results",
           "suite_columns", "suite_groups_tables", "suites_table"]

_METRIC_LABELS = {"accuracy": "acc", "macro_f1": "macro-F1", "all_star": "All*", "all": "All", "avg": "AVG"}


@dataclass(frozen=True)
class GroupCell:
    dimension: str
    group: str
    value: float
    n: int
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class SuiteResult:
    """The headline of one suite log for one model, with its interval, the task's chance level and its groups."""

    model: str
    suite: str
    headline: str
    value: float
    ci_low: float
    ci_high: float
    n: int
    chance: float | None
    created: str
    log: str
    groups: list[GroupCell] = field(default_factory=list)
    #: the run: what sets this log apart from the model's other logs of the suite
    run: Run | None = None
    #: the headline's parts that the paper reports apart (ToMBench: `avg_zh`, `avg_en`), by metric name
    parts: dict[str, float] = field(default_factory=dict)

    @property
    def row(self) -> str:
        """The row label: the model, and what sets this run apart when the model has several of this suite."""
        tag = self.run.short_tag if self.run is not None else ""
        return f"{self.model} [{self.suite}: {tag}]" if tag else self.model


def _headline_interval(metrics: dict[str, float], headline: str, n: int) -> tuple[float, float]:
    """The scorer's own interval of the headline when it logged one (bootstrap or Wilson), else Wilson on the value
    and the number of scored items, so a 0% or 100% cell still has a width."""
    if f"{headline}_ci_low" in metrics and f"{headline}_ci_high" in metrics:
        return metrics[f"{headline}_ci_low"], metrics[f"{headline}_ci_high"]
    return wilson_interval(metrics[headline] * n, n)


def _group_cells(metrics: dict[str, float], wanted: set[str]) -> list[GroupCell]:
    """The breakdown groups of the suite's headline dimensions (those with items), each with its Wilson interval."""
    groups = []
    for e in parse_breakdown(metrics):
        if e.dimension in wanted and e.n:
            g_lo, g_hi = wilson_interval(e.value * e.n, e.n)
            groups.append(GroupCell(e.dimension, e.group, e.value, e.n, g_lo, g_hi))
    return groups


def _is_suite(log: Any) -> bool:
    return (log.eval.metadata or {}).get("suite") is not None


def _result(run: Run, log: Any) -> SuiteResult | None:
    """The suite result of one finished suite log; None when it does not report its headline."""
    meta = dict(log.eval.metadata or {})
    if log.results is None or not log.results.scores:
        return None
    headline = str(meta.get("headline") or "accuracy")
    metrics = {name: float(m.value) for s in log.results.scores for name, m in s.metrics.items()}
    if headline not in metrics:
        return None
    n = int(log.results.completed_samples or log.results.total_samples or 0)
    lo, hi = _headline_interval(metrics, headline, n)
    return SuiteResult(
        model=log.eval.model, suite=str(meta["suite"]), headline=headline, value=metrics[headline], ci_low=lo,
        ci_high=hi, n=n, chance=_headline_chance(meta, metrics, headline), created=log.eval.created,
        log=run.log, groups=_group_cells(metrics, set(meta.get("headline_groups") or ())), run=run,
        parts=_parts(meta, metrics),
    )


def _parts(meta: dict, metrics: dict[str, float]) -> dict[str, float]:
    return {p: metrics[p] for p in meta.get("headline_parts") or () if p in metrics}


def _headline_chance(meta: dict, metrics: dict[str, float], headline: str) -> float | None:
    """The chance level of the headline: for an accuracy the logged `chance` (the mean 1/k over the samples the run
    scored; a log from before that metric: the task's `chance`, over all its items), the scorer's
    `{headline}_chance` for another headline that has one (ToMBench's AVG), else None (a chance macro-F1 or All*
    is not recorded)."""
    if headline == "accuracy":
        chance = metrics.get("chance", meta.get("chance"))
        return float(chance) if chance is not None else None
    return metrics.get(f"{headline}_chance")


def load_suite_results(paths: Iterable[str | Path], *, on_skip: OnSkip = lambda line: None,
                       progress: Progress = no_progress) -> list[SuiteResult]:
    """Every finished suite log among `paths` (files or folders), one result per run, by model and suite order.

    Reads only the headers. Unreadable files and unfinished runs are told to `on_skip` (one line each)."""
    results = [r for run, log in load_runs(paths, on_skip=on_skip, progress=progress, keep=_is_suite)
               if (r := _result(run, log)) is not None]
    order = _suites(results)
    return sorted(results, key=lambda r: (r.model, order.index(r.suite), r.row))


def _fmt(value: float, lo: float, hi: float, headline: str) -> str:
    if headline == "macro_f1":
        return f"{value:.2f} [{lo:.2f}, {hi:.2f}]"
    return f"{100 * value:.1f} [{100 * lo:.1f}, {100 * hi:.1f}]"


def headline_text(r: SuiteResult) -> str:
    """The headline with its interval, and its parts as the paper reports them ("(zh 75.3, en 74.0)")."""
    text = _fmt(r.value, r.ci_low, r.ci_high, r.headline)
    if r.parts:
        text += " (" + ", ".join(f"{name.rsplit('_', 1)[-1]} {100 * v:.1f}" for name, v in r.parts.items()) + ")"
    return text


def _suites(results: list[SuiteResult]) -> list[str]:
    """The suites present: the registered ones in the registry's order (the papers' columns), then any other
    alphabetically (a log of a suite this version does not know still gets its column, titled by its name)."""
    present = {r.suite for r in results}
    known = [s.name for s in suites() if s.name in present]
    return known + sorted(present - set(known))


def _column_title(suite: str, headline: str) -> str:
    return f"{suite_label(suite)} ({_METRIC_LABELS.get(headline, headline)})"


def suite_columns(results: list[SuiteResult]) -> list[tuple[str, str]]:
    """The suites of the cross-suite table in its column order, each with its column's title ("ToMi (acc)")."""
    return [(s, _column_title(s, next(r.headline for r in results if r.suite == s))) for s in _suites(results)]


def chance_levels(results: list[SuiteResult]) -> dict[str, float]:
    """Each suite's chance level of its headline, where its results agree on one (`_headline_chance`: a chance
    macro-F1 or All* is not a level the task records)."""
    out = {}
    for s in _suites(results):
        levels = {r.chance for r in results if r.suite == s and r.chance is not None}
        if len(levels) == 1:
            out[s] = levels.pop()
    return out


def _chance_row(results: list[SuiteResult], names: list[str]) -> list[str] | None:
    """The table's chance row (`chance_levels`, in percent); None when no suite has one."""
    levels = chance_levels(results)
    row = ["chance"] + [f"{100 * levels[s]:.1f}" if s in levels else "–" for s in names]
    return row if any(c != "–" for c in row[1:]) else None


def suites_table(results: list[SuiteResult]) -> ReportTable:
    """Models x suites: each cell the suite's headline with its 95% interval (percent, macro-F1 as a fraction)."""
    cols = suite_columns(results)
    names = [s for s, _ in cols]
    columns = ["model"] + [title for _, title in cols]
    by = {(r.row, r.suite): r for r in results}
    rows = []
    for label in sorted({r.row for r in results}):
        cells = [by.get((label, s)) for s in names]
        rows.append([label] + ["–" if r is None else headline_text(r) for r in cells])
    if (chance := _chance_row(results, names)) is not None:
        rows.append(chance)
    return ReportTable("Established ToM suites: headline per suite, 95% intervals (ExploreToM Table 3 shape)",
                       columns, rows, _legend(results))


def _legend(results: list[SuiteResult]) -> list[str]:
    """Where each labelled row's cell comes from, for the rows that tell several runs apart."""
    return [f"{r.row}: {Path(r.log).name}" for r in results if r.row != r.model]


def group_text(cell: GroupCell | None) -> str:
    """A group's cell as the suite's own table prints it (percent, Wilson interval, n)."""
    return "–" if cell is None else f"{_fmt(cell.value, cell.ci_low, cell.ci_high, 'accuracy')} n={cell.n}"


def _groups_table(suite: str, results: list[SuiteResult]) -> ReportTable:
    """One suite's table: a row per model, a column per group any model reports."""
    keys = sorted({(g.dimension, g.group) for r in results for g in r.groups})
    rows = []
    for r in results:
        cells = {(g.dimension, g.group): g for g in r.groups}
        rows.append([r.row] + [group_text(cells.get(key)) for key in keys])
    return ReportTable(f"{suite_label(suite)}: accuracy per group (95% Wilson intervals)",
                       ["model"] + [f"{d}={g}" for d, g in keys], rows)


def suite_groups_tables(results: list[SuiteResult]) -> list[ReportTable]:
    """For each suite, its own table: accuracy per group of its headline dimensions, one row per model."""
    tables = []
    for suite in _suites(results):
        rs = [r for r in results if r.suite == suite and r.groups]
        if rs:
            tables.append(_groups_table(suite, rs))
    return tables
