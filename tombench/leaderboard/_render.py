"""Rows -> ranked views: a rich table, Markdown, and a self-contained HTML page, all from `build_view`.

`build_view` is the one place that decides what a leaderboard shows (dedup, ranking, columns, number formats);
the three formatters only lay its cells out. Every pair of a board's rows is tested (paired on identical item sets,
unpaired from the two intervals otherwise), the p-values are Holm-adjusted over the board's pairs, and ranks
follow from those tests (`_stats.rank_groups`): a new rank starts only where every row above is significantly
better than every row below. The "vs next" column prints the test of each row against the next one, the
"Config" column the settings that differ between the board's rows.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from tombench.kit.intervals import Z95, t_quantile, wilson_interval

from ._from_log import guess_model_size_b, guess_open_weights
from ._row import Breakdown, ResultRow
from ._stats import CLUSTERED_METHOD, Paired, holm, paired_comparison, proportion_interval, rank_groups, unpaired_p

#: The level of every test and of the rank rule (two-sided, after Holm's correction over a board's pairs).
ALPHA = 0.05

#: Breakdown dimensions in the order the paper discusses them; others follow alphabetically.
DIMENSION_ORDER = ["action_set", "interesting", "order", "asymmetric", "people", "moves"]

Kind = Literal["text", "num"]


@dataclass(frozen=True)
class Cell:
    text: str
    sort: float | str | None = None  # the value a column sorts by (None sorts last)
    title: str = ""  # extra detail (HTML tooltip)


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    kind: Kind = "text"
    breakdown: bool = False


@dataclass(frozen=True)
class Entry:
    row: ResultRow
    rank: int | None  # None: the row has no interval, so no test can place it
    shared: bool
    cells: dict[str, Cell]
    vs_next: Paired | None = None  # paired test against the next entry of the board, when they share items


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


@dataclass(frozen=True)
class Board:
    """One ranked table: one task (at one task version) of one benchmark."""

    benchmark: str
    task: str
    task_version: str
    columns: list[Column]
    entries: list[Entry]
    hidden: int = 0  # older submissions of a configuration shown here (kept in the history, not ranked)
    pairs: dict[tuple[int, int], Cell] = field(default_factory=dict)  # "vs" cell of entry i against entry j
    tests: int = 0  # pairs tested (the Holm family)


@dataclass(frozen=True)
class View:
    boards: list[Board] = field(default_factory=list)


# --- selection and ranking ------------------------------------------------------------------------------------------
def latest_rows(rows: Iterable[ResultRow]) -> tuple[list[ResultRow], list[ResultRow]]:
    """Split rows into (newest per configuration, older ones). Identical submissions count once."""
    by_id = {r.submission_id: r for r in rows}
    newest: dict[tuple, ResultRow] = {}
    for r in sorted(by_id.values(), key=lambda r: (r.created_at, r.submission_id)):
        newest[r.dedup_key] = r
    kept = set(id(r) for r in newest.values())
    return list(newest.values()), [r for r in by_id.values() if id(r) not in kept]


@dataclass(frozen=True)
class Shown:
    """The interval a view shows for a row, the quantile it used, and how it was made."""

    low: float
    high: float
    quantile: float
    method: str
    design_effect: float | None = None


def _from_items(row: ResultRow) -> Shown | None:
    """The row's headline interval recomputed from its per-item scores with today's rule (rows published before
    issue #30 stored the older one); None when the items cannot reproduce the headline."""
    it = row.items
    if row.schema_version < 2 or not it.key or row.ci_low is None or any(not 0 <= v <= 1 for v in it.score):
        return None
    ci = proportion_interval(it.score, it.story)
    if abs(ci.value - row.accuracy) > 1e-9:
        return None
    # one story: nothing to estimate a t from, so the interval used z (as `clustered_interval` does)
    q = t_quantile(0.95, ci.stories - 1) if ci.method == CLUSTERED_METHOD and ci.stories > 1 else Z95
    return Shown(ci.low, ci.high, q, ci.method, ci.design_effect)


_SHOWN: dict[int, tuple[ResultRow, Shown | None]] = {}


def shown_interval(row: ResultRow) -> Shown | None:
    """`_shown_interval`, remembered per row object (a view asks for each row's interval many times)."""
    hit = _SHOWN.get(id(row))
    if hit is not None and hit[0] is row:
        return hit[1]
    if len(_SHOWN) > 4096:
        _SHOWN.clear()
    shown = _shown_interval(row)
    _SHOWN[id(row)] = (row, shown)
    return shown


def _shown_interval(row: ResultRow) -> Shown | None:
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


def interval(row: ResultRow) -> tuple[float | None, float | None, str]:
    """(low, high, method) of the interval a view shows for a row (None, None, why: no interval)."""
    shown = shown_interval(row)
    if shown is None:
        return None, None, "no interval: the headline is not a mean of per-sample scores in [0, 1]"
    return shown.low, shown.high, shown.method


def _bounds(row: ResultRow) -> tuple[float, float]:
    """A row's interval; one without an interval spans everything (it can be told apart from nothing)."""
    low, high, _ = interval(row)
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


def pair_tests(rows: Sequence[ResultRow]) -> dict[tuple[int, int], PairTest]:
    """Every pair (i, j), i != j, of rows that have an interval: A = rows[i] against B = rows[j], p Holm-adjusted
    over the distinct pairs."""
    shown = [shown_interval(r) for r in rows]
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


def ranks_from_tests(rows: Sequence[ResultRow], tests: dict[tuple[int, int], PairTest]) -> list[int | None]:
    """Ranks of rows sorted best first (`_stats.rank_groups` over the rows with an interval); None: no interval."""
    ranked = [i for i, r in enumerate(rows) if shown_interval(r) is not None]

    def separated(x: int, y: int) -> bool:
        t = tests[(ranked[x], ranked[y])]
        return t.significant and t.diff > 0

    out: list[int | None] = [None] * len(rows)
    for i, k in zip(ranked, rank_groups(len(ranked), separated), strict=True):
        out[i] = k
    return out


def shared_ranks(rows: Sequence[ResultRow]) -> list[int | None]:
    """Ranks of rows given best first: shared unless the Holm-adjusted tests separate every row above from every
    row below (None for a row without an interval)."""
    return ranks_from_tests(rows, pair_tests(rows))


# --- what differs between rows: the config column -------------------------------------------------------------
#: Settings that are the board (task) or the model column already: never repeated in the config column.
_NOT_CONFIG = {"task", "task_version", "model", "scorers", "solver"}
_PREFIX = {"task_args": "T.", "generate_config": "", "model_params": "M.", "model_roles": "role."}


def _settings(row: ResultRow) -> dict[str, Any]:
    """A row's run-shaping settings, flattened to short names (`seed`, `T.seed`, `limit`, `M.device`)."""
    try:
        raw = json.loads(row.run_config or "{}")
    except ValueError:
        raw = {}
    if not raw:  # a row of schema 1: what it has
        raw = {"generate_config": {"temperature": row.temperature, "max_tokens": row.max_tokens, "seed": row.seed},
               "epochs": row.epochs, "task_args": json.loads(row.task_args or "{}")}
    flat: dict[str, Any] = {}
    for key, value in raw.items():
        if key in _NOT_CONFIG:
            continue
        if isinstance(value, dict) and key in _PREFIX:
            for k, v in value.items():
                flat[f"{_PREFIX[key]}{k}"] = v
        else:
            flat[key] = value
    return flat


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"), default=str)
    return text if len(text) <= 24 else text[:21] + "..."


def differing_settings(rows: Sequence[ResultRow]) -> list[str]:
    """The setting names whose values are not the same for every row (a missing setting counts as a value)."""
    flats = [_settings(r) for r in rows]
    keys = sorted({k for f in flats for k in f})
    missing = object()
    return [k for k in keys if len({json.dumps(f.get(k, missing), default=str, sort_keys=True) for f in flats}) > 1]


def _dim_key(dimension: str) -> tuple[int, str]:
    return (DIMENSION_ORDER.index(dimension) if dimension in DIMENSION_ORDER else len(DIMENSION_ORDER), dimension)


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


#: Providers whose "models" are rule-based baselines shipped with tombench: open code, no parameters at all.
_BASELINE_PROVIDERS = {"tombench"}


def _model_facts(row: ResultRow) -> tuple[Cell, Cell]:
    """Open weights and size: what the row records, else what its provider and model name tell (the rows' own
    guesses, also for rows pushed before they existed); blank when unknown."""
    if row.provider in _BASELINE_PROVIDERS:
        why = "a rule-based baseline shipped with tombench: open code, no parameters"
        return Cell("yes", 1, why), Cell("0", 0.0, why)
    open_weights = row.open_weights if row.open_weights is not None else guess_open_weights(row.provider, None)
    size = row.model_size_b if row.model_size_b is not None else guess_model_size_b(row.model)
    open_cell = Cell({True: "yes", False: "no", None: ""}[open_weights], {True: 1, False: 0, None: None}[open_weights],
                     "" if open_weights is not None else "not known: push with --open-weights/--closed-weights")
    size_cell = Cell("" if size is None else f"{size:g}B", size,
                     "" if size is not None else "not known: push with --model-size")
    return open_cell, size_cell


def _ci_text(low: float | None, high: float | None) -> str:
    return "no CI" if low is None or high is None else f"{_pct(low)}–{_pct(high)}"


def _filled_cell(row: ResultRow) -> Cell:
    """Settings filled with a Wilson interval over the settings searched (rows before `settings_total`: no CI)."""
    calls = f"; model calls: {row.model_calls}" if row.model_calls is not None else ""
    if row.settings_filled is None:
        return Cell("–", None, calls.removeprefix("; "))
    if not row.settings_total:
        return Cell(_pct(row.settings_filled), row.settings_filled, f"no CI (number of settings not recorded){calls}")
    n = row.settings_total
    low, high = wilson_interval(row.settings_filled * n, n)
    return Cell(f"{_pct(row.settings_filled)} [{_ci_text(low, high)}] of {n}", row.settings_filled,
                f"{round(row.settings_filled * n)} of {n} settings filled (all requested stories found); "
                f"95% Wilson CI {_ci_text(low, high)}{calls}")


def _vs_cell(t: PairTest | None, other: ResultRow | None, tests: int) -> Cell:
    """The test of a row against another one of its board: difference in points, Holm-adjusted p, `*` where it
    separates them, `(u)` where they answered different items (unpaired test from the two intervals)."""
    if other is None:
        return Cell("", None)
    if t is None:
        return Cell("–", None, f"no test against {other.model}: one of the two rows has no interval")
    mark = " *" if t.significant else ""
    holm_note = f"Holm-adjusted over the board's {tests} pair(s): p={t.p_adjusted:.3g} (unadjusted {t.p_value:.3g})"
    p = t.paired
    if p is None:
        return Cell(f"{100 * t.diff:+.1f} p={t.p_adjusted:.2g}{mark} (u)", t.p_adjusted,
                    f"against {other.model}: not paired, the rows answered different items ({t.n_a} vs {t.n_b}: "
                    "other arguments, limit, dataset or samples); unpaired normal test, each row's standard error "
                    f"from its printed interval; {holm_note}")
    detail = (f"against {other.model} ({p.method}): the same {p.n} items in {p.stories} stories; this row alone "
              f"right on {p.a_only:g}, the other alone on {p.b_only:g}; {holm_note}")
    if p.low is not None and p.high is not None:
        detail += f"; 95% CI of the difference {100 * p.low:+.1f} to {100 * p.high:+.1f} points"
    return Cell(f"{100 * t.diff:+.1f} p={t.p_adjusted:.2g}{mark}", t.p_adjusted, detail)


def _samples_text(row: ResultRow) -> str:
    """Completed of total samples, the errored ones, and the stories when questions share them (fewer stories than
    items: the interval is wider than the sample count suggests)."""
    text = f"{row.samples_completed}/{row.samples_total}"
    if row.samples_errored:
        text += f" ({row.samples_errored} err)"
    if row.stories is not None and row.stories < len(row.items.key):
        text += f", {row.stories} stories"
    return text


def _headline_cells(row: ResultRow, rank: int | None, shared: bool) -> dict[str, Cell]:
    """The ranking columns: rank, model, headline with its interval, samples, weights and size."""
    shown = shown_interval(row)
    deff = f"; design effect {shown.design_effect:.2f}" if shown and shown.design_effect is not None else ""
    low, high, method = interval(row)
    open_cell, size_cell = _model_facts(row)
    rank_cell = (Cell("–", None, "not ranked: no interval") if rank is None
                 else Cell(f"={rank}" if shared else str(rank), rank))
    return {
        "rank": rank_cell,
        "model": Cell(row.model, row.model.lower(),
                      f"provider {row.provider}; revision {row.model_revision or 'unknown'}; params {row.model_params}"),
        "accuracy": Cell(_pct(row.accuracy), row.accuracy, f"metric {row.metric}; logged stderr {_pct(row.stderr)}"),
        "ci": Cell(_ci_text(low, high), low, f"{method}{deff}"),
        "n": Cell(_samples_text(row), row.samples_completed),
        "open_weights": open_cell,
        "size": size_cell,
    }


def _breakdown_cell(b: Breakdown | None) -> Cell:
    """One group's value with its interval and n (a dash where the row does not report the group)."""
    if b is None:
        return Cell("–", None)
    n = "" if b.n is None else f" n={b.n}"
    ci = "" if b.ci_low is None or b.ci_high is None else f" [{_ci_text(b.ci_low, b.ci_high)}]"
    stories = f"; {b.stories} stories" if b.stories is not None else ""
    return Cell(f"{_pct(b.value)}{ci}{n}", b.value,
                f"95% CI {_ci_text(b.ci_low, b.ci_high)}; logged stderr {_pct(b.stderr)}{n}{stories}")


def _config_cell(row: ResultRow, config_keys: Sequence[str]) -> Cell:
    """The settings that tell this row apart from the board's others (temperature and epochs when none differ);
    the tooltip lists every setting."""
    settings = _settings(row)
    if config_keys:
        text = " ".join(f"{k}={_short(settings[k]) if k in settings else '–'}" for k in config_keys)
    else:
        text = f"T={row.temperature if row.temperature is not None else '?'} ep={row.epochs}"
    return Cell(text, text, f"config {row.config_hash}; " + "; ".join(
        f"{k}={_short(v)}" for k, v in sorted(settings.items())))


def _provenance_cells(row: ResultRow) -> dict[str, Cell]:
    """Where the number comes from: package and harness versions, dataset, eval, and who submitted it when."""
    return {
        "versions": Cell(
            f"{row.benchmark} {row.package_version or '?'} / {row.harness} {row.harness_version or '?'}",
            row.harness_version or "",
            f"dataset {row.dataset_id} @ {row.dataset_revision or 'unpinned'}; eval {row.eval_id}; run {row.run_id}"),
        "submitted": Cell(row.created_at[:10], row.created_at,
                          f"{row.submission_id} by {row.submitter or 'unknown'}"
                          + (f"; {row.notes}" if row.notes else "")),
    }


def _cells(row: ResultRow, rank: int | None, shared: bool, breakdown_cols: list[Column],
           config_keys: Sequence[str] = ()) -> dict[str, Cell]:
    cells = _headline_cells(row, rank, shared)
    groups = {f"{b.dimension}={b.group}": b for b in row.breakdowns}
    for col in breakdown_cols:
        cells[col.key] = _breakdown_cell(groups.get(col.key))
    cells["filled"] = _filled_cell(row)
    cells["tokens"] = Cell(f"{row.total_tokens:,}", row.total_tokens,
                           f"input {row.input_tokens:,}; output {row.output_tokens:,}")
    cells["config"] = _config_cell(row, config_keys)
    cells.update(_provenance_cells(row))
    return cells


def _breakdown_columns(rows: Sequence[ResultRow], dimensions: Sequence[str] | None) -> list[Column]:
    """One column per (dimension, group) any row reports, dimensions in the paper's order (or only those asked)."""
    keys = sorted({(b.dimension, b.group) for r in rows for b in r.breakdowns
                   if dimensions is None or b.dimension in dimensions},
                  key=lambda k: (_dim_key(k[0]), k[1]))
    return [Column(f"{d}={g}", f"{d}: {g}", "num", breakdown=True) for d, g in keys]


def _columns(rows: Sequence[ResultRow], breakdown_cols: list[Column]) -> list[Column]:
    """The board's columns: ranking first, then the breakdowns, the search's columns only where a row has them,
    then cost and provenance."""
    columns = [Column("rank", "Rank", "num"), Column("model", "Model"), Column("accuracy", "Accuracy %", "num"),
               Column("ci", "95% CI", "num"), Column("vs_next", "vs next", "num"), Column("n", "Samples", "num"),
               Column("config", "Config"), Column("open_weights", "Open", "text"), Column("size", "Size", "num"),
               *breakdown_cols]
    if any(r.settings_filled is not None or r.model_calls is not None for r in rows):
        columns.append(Column("filled", "Settings filled %", "num"))
    return columns + [Column("tokens", "Tokens", "num"), Column("versions", "Versions"),
                      Column("submitted", "Submitted")]


def _entries(rows: Sequence[ResultRow], breakdown_cols: list[Column],
             tests: dict[tuple[int, int], PairTest]) -> list[Entry]:
    """The ranked rows (sorted best first) with their cells, each tested against the next row."""
    ranks = ranks_from_tests(rows, tests)
    config_keys = differing_settings(rows)
    family = len(tests) // 2
    entries = []
    for i, (r, k) in enumerate(zip(rows, ranks, strict=True)):
        nxt = rows[i + 1] if i + 1 < len(rows) else None
        shared = k is not None and ranks.count(k) > 1
        cells = _cells(r, k, shared, breakdown_cols, config_keys)
        cells["vs_next"] = _vs_cell(tests.get((i, i + 1)), nxt, family)
        t = tests.get((i, i + 1))
        entries.append(Entry(r, k, shared, cells, t.paired if t is not None else None))
    return entries


def _pair_cells(rows: Sequence[ResultRow], tests: dict[tuple[int, int], PairTest]) -> dict[tuple[int, int], Cell]:
    """The "vs" cell of every row against every other one (the HTML page re-pairs rows after re-sorting)."""
    family = len(tests) // 2
    return {(i, j): _vs_cell(tests.get((i, j)), rows[j], family)
            for i in range(len(rows)) for j in range(len(rows)) if i != j}


def build_view(rows: Iterable[ResultRow], *, history: bool = False,
               dimensions: Sequence[str] | None = None) -> View:
    """Group rows into one ranked board per (benchmark, task, task version), newest per configuration.

    `history=True` ranks every submission, not only the newest per configuration. `dimensions` restricts the
    breakdown columns (default: every dimension any row reports).
    """
    rows = list(rows)
    shown, older = (list({r.submission_id: r for r in rows}.values()), []) if history else latest_rows(rows)
    tasks: dict[tuple[str, str, str], list[ResultRow]] = {}
    for r in shown:
        tasks.setdefault((r.benchmark, r.task, r.task_version), []).append(r)
    boards = []
    for (bench, task, version), task_rows in sorted(tasks.items()):
        task_rows.sort(key=lambda r: (-r.accuracy, -_bounds(r)[0], r.model, r.submission_id))
        bcols = _breakdown_columns(task_rows, dimensions)
        hidden = sum(1 for o in older if (o.benchmark, o.task, o.task_version) == (bench, task, version))
        tests = pair_tests(task_rows)
        boards.append(Board(bench, task, version, _columns(task_rows, bcols), _entries(task_rows, bcols, tests),
                            hidden, _pair_cells(task_rows, tests), len(tests) // 2))
    return View(boards)


# --- formatters -------------------------------------------------------------------------------------------------
def render(rows: Iterable[ResultRow], fmt: Literal["terminal", "markdown", "html"], *, history: bool = False,
           dimensions: Sequence[str] | None = None, title: str = "tombench leaderboard", breakdowns: bool = True):
    """The one renderer: a rich renderable (`terminal`), or the text of a Markdown or HTML page.

    `breakdowns=False` leaves the breakdown columns out of the terminal table (`leaderboard show` does unless asked:
    they do not fit 120 columns); Markdown and HTML always have them."""
    view = build_view(rows, history=history, dimensions=dimensions)
    if fmt == "terminal":
        return _terminal(view, title, breakdowns)
    if fmt == "markdown":
        return _markdown(view, title)
    if fmt == "html":
        return _html(view, title)
    raise ValueError(f"unknown format {fmt!r}: use terminal, markdown or html")


def board_legend(b: Board) -> list[str]:
    """What the board's columns mean and the rules behind them, one sentence a line (every format shows it)."""
    older = f"; {b.hidden} older submission(s) in history" if b.hidden else ""
    return [
        f"{b.benchmark} / {b.task} (v{b.task_version}): {len(b.entries)} model(s){older}.",
        "Rank: a new rank starts only where every row above is significantly better than every row below "
        f"(two-sided p < {ALPHA:g} after Holm's correction over the board's {b.tests} pair(s)); =k: shared, the "
        "tests do not separate these rows; –: no interval, not ranked.",
        "95% CI: Wilson on n / design effect (questions of one story are correlated; the effect is raised towards "
        "1 + 0.1 (m - 1) where few errors cannot show it), Student t on stories - 1 degrees of freedom.",
        "vs next: difference in points against the next row and its Holm-adjusted p; * p < 0.05. Paired where both "
        "rows answered the same items (exact McNemar; a sign-flip test over stories when questions share stories); "
        "(u): different items, unpaired test from the two intervals.",
        "Open / Size (Markdown and HTML): open weights and billions of parameters (blank: not known). Config: the "
        "settings that differ between rows.",
    ]


def _board_caption(b: Board) -> str:
    return " ".join(board_legend(b))


#: The terminal's columns (a 120-column terminal holds them); the rest is in the Markdown and HTML views.
_TERMINAL_KEYS = ("rank", "model", "accuracy", "ci", "vs_next", "n", "filled", "config")
#: Columns that may be cut short to fit the terminal (narrowest, widest; longer text ends in an ellipsis), in the
#: order they get the room left; the others always show their whole text. Every row stays one line tall.
_TERMINAL_FLEX = {"model": (16, 34), "n": (7, 19), "filled": (8, 24), "config": (8, 40)}
#: The width the terminal table is laid out for (`leaderboard show` prints to at least this many columns).
TERMINAL_WIDTH = 120
_TERMINAL_TITLES = {"accuracy": "Acc %", "n": "Samples", "filled": "Filled %"}


def _terminal(view: View, title: str, breakdowns: bool):
    from rich.console import Group
    from rich.text import Text

    if not view.boards:
        return Text("no results yet")
    return Group(*(_terminal_table(b, title, breakdowns) for b in view.boards))


def _terminal_table(b: Board, title: str, breakdowns: bool):
    """One board as a rich table that fits a 120-column terminal, one line per row: the ranking columns, the config
    column only where settings differ; then (with `breakdowns`) a second table, one column per breakdown dimension,
    one group a line. The legend follows."""
    from rich import box
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    t = Table(title=f"{title}: {b.task} v{b.task_version}", box=box.SIMPLE_HEAD, title_justify="left", pad_edge=False)
    cols = [c for c in b.columns if c.key in _TERMINAL_KEYS and (c.key != "config" or _config_differs(b))]
    for c, width in zip(cols, _terminal_widths(b, cols), strict=True):
        t.add_column(_TERMINAL_TITLES.get(c.key, c.title), justify="right" if c.kind == "num" else "left",
                     no_wrap=True, overflow="ellipsis", width=width)
    for e in b.entries:
        t.add_row(*(e.cells[c.key].text for c in cols))
    parts: list[Any] = [t]
    if breakdowns and any(c.breakdown for c in b.columns):
        parts.append(_terminal_breakdowns(b))
    parts += [Text("\n".join(board_legend(b)), style="dim"), Text("")]
    return Group(*parts)


def _terminal_widths(b: Board, cols: Sequence[Column], total: int = TERMINAL_WIDTH) -> list[int]:
    """Column widths that fit `total` characters: fixed columns get their widest text, then the flexible ones
    (`_TERMINAL_FLEX`, in order) share what is left, each at least its narrowest."""
    widest = {c.key: max([len(_TERMINAL_TITLES.get(c.key, c.title))] + [len(e.cells[c.key].text) for e in b.entries])
              for c in cols}
    room = total - 3 * len(cols) - 1 - sum(w for k, w in widest.items() if k not in _TERMINAL_FLEX)  # padding, rules
    flex = [k for k in _TERMINAL_FLEX if k in widest]
    room -= sum(min(_TERMINAL_FLEX[k][0], widest[k]) for k in flex)
    widths = dict(widest)
    for k in flex:
        low, high = _TERMINAL_FLEX[k]
        base = min(low, widest[k])
        widths[k] = base + max(0, min(min(high, widest[k]) - base, room))
        room -= widths[k] - base
    return [widths[c.key] for c in cols]


def _terminal_breakdowns(b: Board):
    """The breakdowns of a board: one column per dimension, each group of it on its own line."""
    from rich import box
    from rich.table import Table

    dims: dict[str, list[Column]] = {}
    for c in b.columns:
        if c.breakdown:
            dims.setdefault(c.key.split("=", 1)[0], []).append(c)
    t = Table(title="breakdowns: value [95% CI] n", box=box.SIMPLE_HEAD, show_lines=True, title_justify="left",
              pad_edge=False)
    t.add_column("Rank", justify="right", no_wrap=True)
    t.add_column("Model", no_wrap=True, overflow="ellipsis", max_width=_TERMINAL_FLEX["model"][1])
    for dim in dims:
        t.add_column(dim, justify="right", style="cyan", overflow="fold")
    for e in b.entries:
        t.add_row(e.cells["rank"].text, e.cells["model"].text,
                  *("\n".join(f"{c.key.split('=', 1)[1]}: {e.cells[c.key].text}" for c in cols) for cols in dims.values()))
    return t


def _config_differs(b: Board) -> bool:
    """Whether the board's rows differ in a setting (otherwise the config column says the same on every row)."""
    return len({e.cells["config"].text for e in b.entries}) > 1


_MD_SPECIAL = str.maketrans({c: f"\\{c}" for c in "\\|*_`<>[]#"})


def _md(text: str) -> str:
    return " ".join(text.split()).translate(_MD_SPECIAL)


def _markdown(view: View, title: str) -> str:
    out = [f"# {_md(title)}", ""]
    if not view.boards:
        out.append("No results yet.")
    for b in view.boards:
        out += [f"## {_md(b.task)} (v{_md(b.task_version)})", "", _md(_board_caption(b)), ""]
        out.append("| " + " | ".join(_md(c.title) for c in b.columns) + " |")
        out.append("|" + "|".join("---:" if c.kind == "num" else "---" for c in b.columns) + "|")
        for e in b.entries:
            out.append("| " + " | ".join(_md(e.cells[c.key].text) for c in b.columns) + " |")
        out.append("")
    return "\n".join(out)


_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5rem;color:#222}
table{border-collapse:collapse;font-size:.85rem;margin-bottom:.5rem}
th,td{border:1px solid #ddd;padding:.25rem .45rem;white-space:nowrap}
th{background:#f4f4f4;cursor:pointer;user-select:none;position:sticky;top:0}
th.breakdown{background:#eef5ff}
th[aria-sort=ascending]::after{content:" \\25B2"}th[aria-sort=descending]::after{content:" \\25BC"}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.filters{margin:.5rem 0 1rem}.filters label{margin-right:1rem}
.scroll{max-width:100%;max-height:85vh;overflow:auto;margin-bottom:.5rem}
td:nth-child(2){position:sticky;left:0;background:#fff;z-index:1}th:nth-child(2){left:0;z-index:2}
.legend{max-width:100%;color:#555;font-size:.85rem;margin:.3rem 0 1.5rem;padding-left:1.2rem}
.legend li{white-space:normal;overflow-wrap:anywhere}
"""

# Sorting and filtering, no dependencies. Rows carry data-open / data-size; cells carry data-sort.
_JS = """
// Missing values sort last in both directions; two missing values are equal (the sort is stable, so they keep
// their order instead of being reshuffled).
function compareCells(x, y, num, asc){
  var xm = (x === undefined || x === ''), ym = (y === undefined || y === '');
  if (xm && ym) return 0;
  if (xm) return 1;
  if (ym) return -1;
  var c = num ? parseFloat(x) - parseFloat(y) : x.localeCompare(y);
  return asc ? c : -c;
}
// "vs next" pairs each row with the row shown below it: after a re-sort or a filter it is looked up again in the
// board's table of every pair's test (data-pairs: {"i": {"j": [text, tooltip, sort value]}}).
function refreshVsNext(table){
  var pairs = JSON.parse(table.dataset.pairs || '{}');
  var head = table.querySelector('th[data-key="vs_next"]');
  if (!head) return;
  var col = Array.prototype.indexOf.call(head.parentNode.children, head);
  var rows = Array.prototype.filter.call(table.tBodies[0].rows, function(r){ return !r.hidden; });
  rows.forEach(function(r, k){
    var cell = r.cells[col], next = rows[k + 1];
    var v = next ? (pairs[r.dataset.idx] || {})[next.dataset.idx] : null;
    cell.textContent = v ? v[0] : '';
    cell.title = v ? v[1] : '';
    cell.dataset.sort = (v && v[2] !== null) ? v[2] : '';
  });
}
document.querySelectorAll('table.board').forEach(function(table){
  table.querySelectorAll('th').forEach(function(th, col){
    th.addEventListener('click', function(){
      var asc = th.getAttribute('aria-sort') !== 'ascending';
      table.querySelectorAll('th').forEach(function(h){h.removeAttribute('aria-sort');});
      th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
      var num = th.dataset.kind === 'num';
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function(a, b){
        return compareCells(a.cells[col].dataset.sort, b.cells[col].dataset.sort, num, asc);
      });
      rows.forEach(function(r){body.appendChild(r);});
      refreshVsNext(table);
    });
  });
});
function applyFilters(){
  var open = document.getElementById('f-open').checked;
  var maxSize = parseFloat(document.getElementById('f-size').value);
  var text = document.getElementById('f-text').value.toLowerCase();
  document.querySelectorAll('table.board tbody tr').forEach(function(tr){
    var ok = true;
    if (open && tr.dataset.open !== 'yes') ok = false;
    if (!isNaN(maxSize)) { var s = parseFloat(tr.dataset.size); if (isNaN(s) || s > maxSize) ok = false; }
    if (text && tr.dataset.model.indexOf(text) < 0) ok = false;
    tr.hidden = !ok;
  });
  document.querySelectorAll('table.board').forEach(refreshVsNext);
}
['f-open','f-size','f-text'].forEach(function(id){
  var el = document.getElementById(id); el.addEventListener('input', applyFilters);
  el.addEventListener('change', applyFilters);
});
"""


def _attr(x: object) -> str:
    return html.escape("" if x is None else str(x), quote=True)


def _pairs_json(b: Board) -> str:
    """Every pair's "vs" cell, for the page's script: {"i": {"j": [text, tooltip, sort value]}}."""
    out: dict[str, dict[str, list]] = {}
    for (i, j), cell in b.pairs.items():
        out.setdefault(str(i), {})[str(j)] = [cell.text, cell.title, cell.sort]
    return json.dumps(out, ensure_ascii=False, separators=(",", ":"))


def _html_board(i: int, b: Board) -> list[str]:
    """One board: heading, the table in its own scrolling box (wide boards scroll there, the page does not), and
    the legend below it as wrapping text."""
    parts = [f'<section><h2>{_attr(b.task)} <small>v{_attr(b.task_version)}</small></h2>',
             f'<div class="scroll"><table class="board" id="board-{i}" data-pairs="{_attr(_pairs_json(b))}">'
             "<thead><tr>"]
    for c in b.columns:
        cls = ' class="breakdown"' if c.breakdown else ""
        parts.append(f'<th data-key="{_attr(c.key)}" data-kind="{c.kind}"{cls}>{_attr(c.title)}</th>')
    parts.append("</tr></thead><tbody>")
    for idx, e in enumerate(b.entries):
        r = e.row
        size = e.cells["size"].sort
        parts.append(f'<tr data-idx="{idx}" data-model="{_attr(r.model.lower())}" '
                     f'data-open="{_attr(e.cells["open_weights"].text)}" data-size="{_attr(size)}">')
        for c in b.columns:
            cell = e.cells[c.key]
            cls = ' class="num"' if c.kind == "num" else ""
            tip = f' title="{_attr(cell.title)}"' if cell.title else ""
            parts.append(f'<td{cls} data-sort="{_attr(cell.sort)}"{tip}>{_attr(cell.text)}</td>')
        parts.append("</tr>")
    parts.append('</tbody></table></div><ul class="legend">')
    parts += [f"<li>{_attr(line)}</li>" for line in board_legend(b)]
    parts.append("</ul></section>")
    return parts


def _html(view: View, title: str) -> str:
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_attr(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_attr(title)}</h1>",
        '<div class="filters">'
        '<label><input type="checkbox" id="f-open"> open weights only</label>'
        '<label>max size (B params) <input type="number" id="f-size" min="0" step="any" style="width:6em"></label>'
        '<label>model <input type="search" id="f-text" placeholder="filter"></label></div>',
    ]
    if not view.boards:
        parts.append("<p>No results yet.</p>")
    for i, b in enumerate(view.boards):
        parts += _html_board(i, b)
    parts.append(f"<script>{_JS}</script></body></html>")
    return "\n".join(parts)
