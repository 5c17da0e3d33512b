"""Rows -> the view model every format lays out: one ranked `Board` per task, its columns, and each row's cells.

`build_view` is the one place that decides what a leaderboard shows (dedup, ranking, columns, number formats); the
formatters (`_terminal`, `_markdown`, `_html`) only lay its cells out. Which rows rank where comes from
`_ranking` (every pair tested on its own; ranks from the "significantly better" order); the "vs next" column prints the test of each row against the next
one, the "Config" column the settings that differ between the board's rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ._cells import Cell, Column, differing_settings, row_cells, vs_cell
from ._ranking import ALPHA, PairTest, Shown, bounds, latest_rows, pair_tests, ranks_from_tests, shown_intervals
from ._row import ResultRow
from ._stats import Paired
from ._text import inert

#: Breakdown dimensions in the order the paper discusses them; others follow alphabetically.
DIMENSION_ORDER = ["action_set", "interesting", "order", "asymmetric", "people", "moves"]


@dataclass(frozen=True)
class Entry:
    row: ResultRow
    rank: int | None  # None: the row has no interval, so no test can place it
    shared: bool
    cells: dict[str, Cell]
    vs_next: Paired | None = None  # paired test against the next entry of the board, when they share items
    shown: Shown | None = None  # the headline interval the "95% CI" cell prints (and the charts draw)


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
    tests: int = 0  # pairs tested


@dataclass(frozen=True)
class View:
    boards: list[Board] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # one line per damaged row file left out (made inert)


def _dim_key(dimension: str) -> tuple[int, str]:
    return (DIMENSION_ORDER.index(dimension) if dimension in DIMENSION_ORDER else len(DIMENSION_ORDER), dimension)


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


def _entries(rows: Sequence[ResultRow], shown: Sequence[Shown | None], ranks: Sequence[int | None],
             breakdown_cols: list[Column], tests: dict[tuple[int, int], PairTest]) -> list[Entry]:
    """The ranked rows (sorted best first) with their cells, each tested against the next row."""
    config_keys = differing_settings(rows)
    entries = []
    for i, (r, k) in enumerate(zip(rows, ranks, strict=True)):
        nxt = rows[i + 1] if i + 1 < len(rows) else None
        shared = k is not None and ranks.count(k) > 1
        cells = row_cells(r, shown[i], k, shared, breakdown_cols, config_keys)
        cells["vs_next"] = vs_cell(tests.get((i, i + 1)), nxt)
        t = tests.get((i, i + 1))
        entries.append(Entry(r, k, shared, cells, t.paired if t is not None else None, shown[i]))
    return entries


def _pair_cells(rows: Sequence[ResultRow], tests: dict[tuple[int, int], PairTest]) -> dict[tuple[int, int], Cell]:
    """The "vs" cell of every row against every other one (the HTML page re-pairs rows after re-sorting)."""
    return {(i, j): vs_cell(tests.get((i, j)), rows[j]) for i in range(len(rows)) for j in range(len(rows)) if i != j}


def _ranked(rows: list[ResultRow]) -> tuple[list[ResultRow], list[Shown | None], list[int | None],
                                             dict[tuple[int, int], PairTest]]:
    """A board's rows in board order (by rank, then headline; rows without an interval last), with their shown
    intervals, ranks and every pair's test (indexed in that order). The tests are made once, in headline order."""
    by_value = sorted(zip(rows, shown_intervals(rows), strict=True),
                      key=lambda rs: (-rs[0].accuracy, -bounds(rs[1])[0], rs[0].model, rs[0].submission_id))
    rows, shown = [r for r, _ in by_value], [s for _, s in by_value]
    tests = pair_tests(rows, shown)
    ranks = ranks_from_tests(shown, tests)
    order = sorted(range(len(rows)), key=lambda i: (ranks[i] is None, ranks[i] or 0, i))
    at = {old: new for new, old in enumerate(order)}
    return ([rows[i] for i in order], [shown[i] for i in order], [ranks[i] for i in order],
            {(at[i], at[j]): t for (i, j), t in tests.items()})


def build_view(rows: Iterable[ResultRow], *, history: bool = False,
               dimensions: Sequence[str] | None = None, skipped: Sequence[str] = ()) -> View:
    """Group rows into one ranked board per (benchmark, task, task version), newest per configuration.

    `history=True` ranks every submission, not only the newest per configuration. `dimensions` restricts the
    breakdown columns (default: every dimension any row reports). `skipped`: the damaged row files left out, shown
    by every page.
    """
    rows = list(rows)
    kept, older = (list({r.submission_id: r for r in rows}.values()), []) if history else latest_rows(rows)
    tasks: dict[tuple[str, str, str], list[ResultRow]] = {}
    for r in kept:
        tasks.setdefault((r.benchmark, r.task, r.task_version), []).append(r)
    boards = []
    for (bench, task, version), unsorted in sorted(tasks.items()):
        task_rows, shown_of, ranks, tests = _ranked(unsorted)
        bcols = _breakdown_columns(task_rows, dimensions)
        hidden = sum(1 for o in older if (o.benchmark, o.task, o.task_version) == (bench, task, version))
        boards.append(Board(inert(bench), inert(task), inert(version), _columns(task_rows, bcols),
                            _entries(task_rows, shown_of, ranks, bcols, tests), hidden, _pair_cells(task_rows, tests),
                            len(tests) // 2))
    return View(boards, [inert(line) for line in skipped])


def board_legend(b: Board) -> list[str]:
    """What the board's columns mean and the rules behind them, one sentence a line (every format shows it)."""
    older = f"; {b.hidden} older submission(s) in history" if b.hidden else ""
    return [
        f"{b.benchmark} / {b.task} (v{b.task_version}): {len(b.entries)} model(s){older}.",
        "Rank: 1 + the number of rows significantly better than this one, directly or through a chain of "
        f"significant tests (each pair's own two-sided test, p < {ALPHA:g}; no correction over the board's "
        f"{b.tests} pair(s), so rows added later never undo a separation); =k: shared; –: no interval, not ranked. "
        "Rows are listed by rank, then accuracy.",
        "95% CI: Wilson on n / design effect (questions of one story are correlated; the effect is raised towards "
        "1 + 0.1 (m - 1) where few errors cannot show it), Student t on stories - 1 degrees of freedom.",
        "vs next: difference in points against the next row and the p of their own test; * p < 0.05. Paired where both "
        "rows answered the same items (exact McNemar; a sign-flip test over stories when questions share stories); "
        "(u): different items, unpaired test from the two intervals.",
        "Open / Size (Markdown and HTML): open weights and billions of parameters (blank: not known, or a baseline "
        "without weights). Config: the settings that differ between rows.",
    ]
