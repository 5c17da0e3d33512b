"""Pure computations of the paper's tables from sample records; rendering lives in the command.

What each table counts (ExploreToM, Sclar et al. 2024):

* Table 1: accuracy on *first-order* questions per action set, plain and +asymmetric ("results shown include all
  first-order questions"), with an overall row of the same questions.
* Table 6: the same first-order questions per action set x asymmetry, split into interesting and uninteresting,
  with the share that is interesting ("accuracy breakdown of the experiment shown in Table 1"), and a total row.
* Figure 3 (as tables): first-order accuracy by people and moves.
* Table 2 (transfer): accuracy on *belief* questions (orders 1 and 2: "accuracies shown include all belief
  questions") of stories found against the row's model with the row's search method, answered by the column.

Only ExploreToM questions (those with an action set) enter these tables: a ToMi item never lands in an ExploreToM
row. A column is one *run*: one model on one task with one set of settings (`_load.Run`). Logs of different tasks
of one model (adversarial, random, static, transfer) hold different stories, logs with different settings are
different experiments, and repeats of one configuration are shown apart (run 1, run 2): none is ever pooled. Every
cell shows its 95% interval and its n: the kit's clustered interval (Wilson on n / design effect, t on stories - 1
degrees of freedom, the leaderboard's rule, docs/explanation/statistics.md) over the cell's questions grouped by their story,
so that 22 questions of one story do not count as 22 independent observations and a cell at 0% or 100% stays
honest; questions without a story id are each their own cluster (plain Wilson).

Columns are headed by short keys (A, B, ...) with a legend beneath the table naming each key's model, task and what
sets its run apart, so several runs fit a 120-column terminal instead of headers cut to "tombench/… (exploret…".
A key means the same run in every table of one report.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tombench.kit.intervals import clustered_interval
from tombench.reports._load import Run, SampleRecord

__all__ = ["Cell", "Grid", "ReportTable", "action_set_grid", "by_order_table", "by_people_and_moves",
           "exploretom_records", "interesting_grid", "interesting_table", "order_grid", "people_moves_grids",
           "per_action_set_table", "run_keys", "transfer_grid", "transfer_matrix"]


@dataclass(frozen=True)
class Cell:
    mean: float
    n: int
    low: float
    high: float

    @property
    def interval(self) -> tuple[float, float]:
        return self.low, self.high

    def text(self) -> str:
        lo, hi = self.interval
        return f"{self.mean:.2f} [{lo:.2f}, {hi:.2f}] n={self.n}"


@dataclass(frozen=True)
class ReportTable:
    title: str
    columns: list[str]
    rows: list[list[str]]
    #: lines printed beneath the table: what each column key stands for
    legend: list[str] = field(default_factory=list)

    def rich(self) -> Any:
        """The table as a `rich.table.Table` (first column left-aligned, numbers right-aligned), legend beneath."""
        from rich.markup import escape
        from rich.table import Table

        table = Table(title=escape(self.title), title_justify="left",
                      caption=escape("\n".join(self.legend)) or None, caption_justify="left")
        for i, c in enumerate(self.columns):  # the row labels never wrap: the cells do, at their spaces
            table.add_column(escape(c), justify="left" if i == 0 else "right", no_wrap=i == 0)
        for r in self.rows:
            table.add_row(*r)
        return table

    def markdown(self) -> str:
        head = "| " + " | ".join(self.columns) + " |"
        sep = "|" + "|".join("---" for _ in self.columns) + "|"
        body = ["| " + " | ".join(r) + " |" for r in self.rows]
        legend = ["", *(f"- {line}" for line in self.legend)] if self.legend else []
        return "\n".join([f"**{self.title}**", "", head, sep, *body, *legend])


def _cell(recs: Sequence[SampleRecord]) -> Cell | None:
    """The cell's mean and its clustered interval: per-story (score total, questions), a story-less record alone."""
    if not recs:
        return None
    totals: dict[Hashable, list[float]] = {}
    for i, r in enumerate(recs):
        total = totals.setdefault(("story", r.story) if r.story is not None else ("item", i), [0.0, 0.0])
        total[0] += r.correct
        total[1] += 1
    ci = clustered_interval([(s, m) for s, m in totals.values()])
    return Cell(sum(r.correct for r in recs) / len(recs), len(recs), ci.low, ci.high)


def _fmt(c: Cell | None) -> str:
    return "–" if c is None else c.text()


def _group(recs: Sequence[SampleRecord], key: Callable[[SampleRecord], Hashable]) -> dict:
    out: dict = {}
    for r in recs:
        out.setdefault(key(r), []).append(r)
    return out


Column = Run  # one run: a model on one task with one set of settings, one repeat


def _columns(recs: Sequence[SampleRecord]) -> list[Column]:
    """One column per run: different tasks, settings and repeats are different data and never pooled."""
    return sorted({r.column for r in recs})


def _key(i: int) -> str:
    """A, B, ..., Z, then AA, AB, ...: short column keys."""
    return _key(i // 26 - 1) + chr(65 + i % 26) if i >= 26 else chr(65 + i)


def _keys(recs: Sequence[SampleRecord]) -> dict[Column, str]:
    """Each run's key, from every ExploreToM run in `recs`, so that a key names the same run in every table."""
    return {c: _key(i) for i, c in enumerate(_columns(exploretom_records(recs)))}


def _legend(keys: dict[Column, str], cols: Sequence[Column]) -> list[str]:
    return [f"{keys[c]} = {c.label}" for c in cols]


def exploretom_records(recs: Sequence[SampleRecord]) -> list[SampleRecord]:
    """The records of ExploreToM stories (they carry an action set); ToMi and other suites have none."""
    return [r for r in recs if r.action_set]


def _action_sets(recs: Sequence[SampleRecord]) -> list[str]:
    from tombench.dsl import ACTION_SETS

    present = {r.action_set for r in recs}
    return [s for s in ACTION_SETS if s in present] + sorted(s for s in present if s not in ACTION_SETS)


def _first_order(recs: Sequence[SampleRecord]) -> list[SampleRecord]:
    return [r for r in exploretom_records(recs) if r.order == 1]


@dataclass(frozen=True)
class Grid:
    """The numbers behind one table (and one figure of the HTML report): a cell per row, panel and run.

    `rows` are the row labels in table order (a tuple: Table 6 has two label columns), `panels` the sub-columns each
    run has ("plain", "asym." in Table 1; one unnamed panel elsewhere). A missing cell is a combination no
    question of the run has. The text tables and the HTML figures both read a `Grid`, so their numbers are equal by
    construction."""

    rows: list[tuple[str, ...]]
    panels: list[str]
    runs: list[Run]
    cells: dict[tuple[tuple[str, ...], str, Run], Cell]
    #: the row labels' column headers
    labels: list[str] = field(default_factory=list)

    def get(self, row: tuple[str, ...], panel: str, run: Run) -> Cell | None:
        return self.cells.get((row, panel, run))


def run_keys(recs: Sequence[SampleRecord]) -> dict[Run, str]:
    """Each ExploreToM run's short key (A, B, ...), as every table of one report heads its columns."""
    return _keys(recs)


def _grid(rows: list[tuple[str, ...]], panels: list[str], runs: list[Run],
          select: Callable[[tuple[str, ...], str, Run], Sequence[SampleRecord]], labels: list[str]) -> Grid:
    cells = {(row, p, c): cell for row in rows for p in panels for c in runs if (cell := _cell(select(row, p, c)))}
    return Grid(rows, panels, runs, cells, labels)


OVERALL = "overall"


def action_set_grid(recs: Sequence[SampleRecord]) -> Grid:
    """Table 1's numbers: first-order accuracy per action set (and overall) x plain / asymmetric x run."""
    fo = _first_order(recs)
    g = _group(fo, lambda r: (r.column, r.action_set, bool(r.asymmetric)))
    sets = _action_sets(fo)
    rows = [(s,) for s in sets] + ([(OVERALL,)] if sets else [])

    def select(row: tuple[str, ...], panel: str, c: Run) -> Sequence[SampleRecord]:
        a = panel == "asym."
        if row == (OVERALL,):
            return [r for r in fo if r.column == c and bool(r.asymmetric) == a]
        return g.get((c, row[0], a), [])

    return _grid(rows, ["plain", "asym."], _columns(fo), select, ["action set"])


def per_action_set_table(recs: Sequence[SampleRecord]) -> ReportTable:
    """Paper Table 1: first-order accuracy per action set, plain and +asymmetric, a column pair per run."""
    grid, keys = action_set_grid(recs), _keys(recs)
    header = ["action set"] + [f"{keys[c]} {v}" for c in grid.runs for v in grid.panels]
    rows = [[*row] + [_fmt(grid.get(row, p, c)) for c in grid.runs for p in grid.panels] for row in grid.rows]
    return ReportTable("Table 1: first-order accuracy per action set, plain and asymmetric (95% interval clustered by story, "
                       "n questions)", header, rows, _legend(keys, grid.runs))


INTERESTING, UNINTERESTING = "int.", "¬int."
TOTAL = ("total", "—")


def _interesting_rows(fo: Sequence[SampleRecord], cols: list[Column]) -> dict[tuple[str, ...], dict[Column, list]]:
    """Table 6's rows (action set x asymmetry, only where some run has questions of it; then the total), each with
    the first-order questions of every run."""
    g = _group(fo, lambda r: (r.column, r.action_set, bool(r.asymmetric)))
    rows: dict[tuple[str, ...], dict[Column, list]] = {}
    for s in _action_sets(fo):
        for a in (False, True):
            if any(g.get((c, s, a)) for c in cols):
                rows[(s, "✓" if a else "✗")] = {c: g.get((c, s, a), []) for c in cols}
    if rows:
        rows[TOTAL] = {c: [r for r in fo if r.column == c] for c in cols}
    return rows


def interesting_grid(recs: Sequence[SampleRecord]) -> tuple[Grid, dict[tuple[tuple[str, ...], Run], str]]:
    """Table 6's numbers: first-order accuracy on interesting and on uninteresting questions per action set x
    asymmetry (and in total) x run, with the share of each row's questions that is interesting."""
    fo = [r for r in _first_order(recs) if r.interesting is not None]
    cols = _columns(fo)
    rows = _interesting_rows(fo, cols)

    def select(row: tuple[str, ...], panel: str, c: Run) -> Sequence[SampleRecord]:
        return [r for r in rows[row][c] if bool(r.interesting) == (panel == INTERESTING)]

    shares = {(row, c): f"{sum(1 for r in sel if r.interesting) / len(sel):.0%}" if sel else "–"
              for row, by_col in rows.items() for c, sel in by_col.items()}
    return _grid(list(rows), [INTERESTING, UNINTERESTING], cols, select, ["action set", "asym."]), shares


def interesting_table(recs: Sequence[SampleRecord]) -> ReportTable:
    """Paper Table 6: per action set x asymmetry, first-order accuracy on interesting and uninteresting questions."""
    (grid, shares), keys = interesting_grid(recs), _keys(recs)
    header = ["action set", "asym."] + [f"{keys[c]} {v}" for c in grid.runs for v in (*grid.panels, "% int.")]
    rows = [[*row] + [x for c in grid.runs for x in (*(_fmt(grid.get(row, p, c)) for p in grid.panels),
                                                      shares[(row, c)])] for row in grid.rows]
    legend = ["int. = accuracy on interesting questions, ¬int. = on the others, % int. = share interesting",
              *_legend(keys, grid.runs)]
    return ReportTable("Table 6: first-order accuracy on interesting vs uninteresting questions", header, rows, legend)


def order_grid(recs: Sequence[SampleRecord]) -> Grid:
    """Accuracy per ToM order (0: where things are, 1: first-order beliefs, 2: second-order) x run, every
    ExploreToM question."""
    et = [r for r in exploretom_records(recs) if r.order is not None]
    g = _group(et, lambda r: (r.column, r.order))
    orders = sorted({r.order for r in et})  # type: ignore[type-var]
    return _grid([(str(o),) for o in orders], [""], _columns(et), lambda row, p, c: g.get((c, int(row[0])), []),
                 ["order"])


def by_order_table(recs: Sequence[SampleRecord]) -> ReportTable:
    """Accuracy per ToM order, one column per run (orders 0-2: state tracking, first- and second-order beliefs)."""
    grid, keys = order_grid(recs), _keys(recs)
    rows = [[*row] + [_fmt(grid.get(row, "", c)) for c in grid.runs] for row in grid.rows]
    return ReportTable("Accuracy by ToM order (0 = where things are, 1 = first-order belief, 2 = second-order), every "
                       "ExploreToM question", ["order"] + [keys[c] for c in grid.runs], rows, _legend(keys, grid.runs))


def people_moves_grids(recs: Sequence[SampleRecord]) -> list[Grid]:
    """Figure 3's numbers: first-order accuracy by people (rows) x moves (panels), one grid per run."""
    fo = [r for r in _first_order(recs) if r.people is not None and r.moves is not None]
    out = []
    for c in _columns(fo):
        mine = [r for r in fo if r.column == c]
        g = _group(mine, lambda r: (str(r.people), str(r.moves)))
        people = [(str(p),) for p in sorted({r.people for r in mine})]  # type: ignore[type-var]
        moves = [str(m) for m in sorted({r.moves for r in mine})]  # type: ignore[type-var]
        out.append(_grid(people, moves, [c], lambda row, mv, _c, g=g: g.get((row[0], mv), []), ["people"]))
    return out


def by_people_and_moves(recs: Sequence[SampleRecord]) -> list[ReportTable]:
    """Figure 3 as tables: first-order accuracy by people (rows) and moves (columns), one table per run."""
    keys = _keys(recs)
    out = []
    for grid in people_moves_grids(recs):
        (c,) = grid.runs
        rows = [[*row] + [_fmt(grid.get(row, mv, c)) for mv in grid.panels] for row in grid.rows]
        out.append(ReportTable(f"First-order accuracy by people and moves: {keys[c]}",
                               ["people \\ moves", *grid.panels], rows, _legend(keys, [c])))
    return out


def transfer_grid(recs: Sequence[SampleRecord]) -> Grid:
    """Table 2's numbers: belief-question accuracy per (model the stories were found against / search method) x
    the run that answered them."""
    with_gen = [r for r in exploretom_records(recs) if r.generator_model and r.order in (1, 2)]
    rows = [(f"{gen} / {method}",) for gen, method in
            sorted({(r.generator_model or "", r.search_method or "?") for r in with_gen})]
    g = _group(with_gen, lambda r: (f"{r.generator_model} / {r.search_method or '?'}", r.column))
    return _grid(rows, [""], _columns(with_gen), lambda row, p, c: g.get((row[0], c), []),
                 ["generator / method \\ evaluator"])


def transfer_matrix(recs: Sequence[SampleRecord]) -> ReportTable:
    """Paper Table 2: rows = the model stories were found against and the search method, columns = who answers."""
    grid, keys = transfer_grid(recs), _keys(recs)
    rows = [[*row] + [_fmt(grid.get(row, "", c)) for c in grid.runs] for row in grid.rows]
    return ReportTable("Transfer: belief-question (orders 1-2) accuracy on stories found against (rows: model / "
                       "search method), answered by (columns)", ["generator / method \\ evaluator"]
                       + [keys[c] for c in grid.runs], rows, _legend(keys, grid.runs))
