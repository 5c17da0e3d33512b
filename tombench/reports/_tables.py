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
degrees of freedom, the leaderboard's rule, docs/leaderboard.md) over the cell's questions grouped by their story,
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

__all__ = ["Cell", "ReportTable", "exploretom_records", "per_action_set_table", "interesting_table",
           "by_people_and_moves", "transfer_matrix"]


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


def per_action_set_table(recs: Sequence[SampleRecord]) -> ReportTable:
    """Paper Table 1: first-order accuracy per action set, plain and +asymmetric, a column pair per run."""
    fo = _first_order(recs)
    cols, keys = _columns(fo), _keys(recs)
    g = _group(fo, lambda r: (r.column, r.action_set, bool(r.asymmetric)))
    header = ["action set"] + [f"{keys[c]} {v}" for c in cols for v in ("plain", "asym.")]
    rows = [[s] + [_fmt(_cell(g.get((c, s, a), []))) for c in cols for a in (False, True)]
            for s in _action_sets(fo)]
    if rows:
        rows.append(["overall"] + [_fmt(_cell([r for r in fo if r.column == c and bool(r.asymmetric) == a]))
                                   for c in cols for a in (False, True)])
    return ReportTable("Table 1: first-order accuracy per action set, plain and asymmetric (95% interval clustered by story, "
                       "n questions)", header, rows, _legend(keys, cols))


def _interesting_cells(sel: Sequence[SampleRecord]) -> list[str]:
    """Accuracy on the interesting questions, on the others, and the share that is interesting."""
    inter = [r for r in sel if r.interesting]
    share = f"{len(inter) / len(sel):.0%}" if sel else "–"
    return [_fmt(_cell(inter)), _fmt(_cell([r for r in sel if not r.interesting])), share]


def _interesting_row(label: list[str], selections: Sequence[Sequence[SampleRecord]]) -> list[str]:
    """A Table 6 row: its label, then the interesting-question cells of each column's selection."""
    return label + [x for sel in selections for x in _interesting_cells(sel)]


def _interesting_by_action_set(fo: Sequence[SampleRecord], cols: list[Column]) -> list[list[str]]:
    """Table 6's body: a row per action set x asymmetry, only where some column has questions of it."""
    g = _group(fo, lambda r: (r.column, r.action_set, bool(r.asymmetric)))
    rows = []
    for s in _action_sets(fo):
        for a in (False, True):
            if any(g.get((c, s, a)) for c in cols):
                rows.append(_interesting_row([s, "✓" if a else "✗"], [g.get((c, s, a), []) for c in cols]))
    return rows


def interesting_table(recs: Sequence[SampleRecord]) -> ReportTable:
    """Paper Table 6: per action set x asymmetry, first-order accuracy on interesting and uninteresting questions."""
    fo = [r for r in _first_order(recs) if r.interesting is not None]
    cols, keys = _columns(fo), _keys(recs)
    header = ["action set", "asym."] + [f"{keys[c]} {v}" for c in cols for v in ("int.", "¬int.", "% int.")]
    rows = _interesting_by_action_set(fo, cols)
    if rows:
        rows.append(_interesting_row(["total", "—"], [[r for r in fo if r.column == c] for c in cols]))
    legend = ["int. = accuracy on interesting questions, ¬int. = on the others, % int. = share interesting",
              *_legend(keys, cols)]
    return ReportTable("Table 6: first-order accuracy on interesting vs uninteresting questions", header, rows, legend)


def by_people_and_moves(recs: Sequence[SampleRecord]) -> list[ReportTable]:
    """Figure 3 as tables: first-order accuracy by people (rows) and moves (columns), one table per run."""
    fo = [r for r in _first_order(recs) if r.people is not None and r.moves is not None]
    keys = _keys(recs)
    out = []
    for c in _columns(fo):
        mine = [r for r in fo if r.column == c]
        people = sorted({r.people for r in mine})  # type: ignore[type-var]
        moves = sorted({r.moves for r in mine})  # type: ignore[type-var]
        g = _group(mine, lambda r: (r.people, r.moves))
        rows = [[str(p)] + [_fmt(_cell(g.get((p, mv), []))) for mv in moves] for p in people]
        out.append(ReportTable(f"First-order accuracy by people and moves: {keys[c]}",
                               ["people \\ moves"] + [str(x) for x in moves], rows, _legend(keys, [c])))
    return out


def transfer_matrix(recs: Sequence[SampleRecord]) -> ReportTable:
    """Paper Table 2: rows = the model stories were found against and the search method, columns = who answers."""
    with_gen = [r for r in exploretom_records(recs) if r.generator_model and r.order in (1, 2)]
    rows_k = sorted({(r.generator_model or "", r.search_method or "?") for r in with_gen})
    cols, keys = _columns(with_gen), _keys(recs)
    g = _group(with_gen, lambda r: (r.generator_model, r.search_method or "?", r.column))
    rows = [[f"{gen} / {method}"] + [_fmt(_cell(g.get((gen, method, c), []))) for c in cols]
            for gen, method in rows_k]
    return ReportTable("Transfer: belief-question (orders 1-2) accuracy on stories found against (rows: model / "
                       "search method), answered by (columns)", ["generator / method \\ evaluator"]
                       + [keys[c] for c in cols], rows, _legend(keys, cols))
