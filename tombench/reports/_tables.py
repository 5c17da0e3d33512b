"""Pure computations of the paper's tables from sample records; rendering lives in the command.

What each table counts (ExploreToM, Sclar et al. 2024; issue #20 point 6):

* Table 1: accuracy on *first-order* questions per action set, plain and +asymmetric ("results shown include all
  first-order questions"), with an overall row of the same questions.
* Table 6: the same first-order questions per action set x asymmetry, split into interesting and uninteresting,
  with the share that is interesting ("accuracy breakdown of the experiment shown in Table 1"), and a total row.
* Figure 3 (as tables): first-order accuracy by people and moves.
* Table 2 (transfer): accuracy on *belief* questions (orders 1 and 2: "accuracies shown include all belief
  questions") of stories found against the row's model with the row's search method, answered by the column.

Only ExploreToM questions (those with an action set) enter these tables: a ToMi item never lands in an ExploreToM
row. A column is one model *on one task*: logs of different tasks of one model (adversarial, random, static,
transfer) hold different stories and are never pooled. Every cell shows its 95% Wilson interval and its n, which
stays honest at 0% and 100%.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from tombench.kit.intervals import wilson_interval
from tombench.reports._load import SampleRecord

__all__ = ["Cell", "ReportTable", "exploretom_records", "per_action_set_table", "interesting_table",
           "by_people_and_moves", "transfer_matrix"]


@dataclass(frozen=True)
class Cell:
    mean: float
    n: int

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.mean * self.n, self.n)

    def text(self) -> str:
        lo, hi = self.interval
        return f"{self.mean:.2f} [{lo:.2f}, {hi:.2f}] n={self.n}"


@dataclass(frozen=True)
class ReportTable:
    title: str
    columns: list[str]
    rows: list[list[str]]

    def rich(self) -> Any:
        """The table as a `rich.table.Table` (first column left-aligned, numbers right-aligned)."""
        from rich.table import Table

        table = Table(title=self.title, title_justify="left")
        for i, c in enumerate(self.columns):
            table.add_column(c, justify="left" if i == 0 else "right")
        for r in self.rows:
            table.add_row(*r)
        return table

    def markdown(self) -> str:
        head = "| " + " | ".join(self.columns) + " |"
        sep = "|" + "|".join("---" for _ in self.columns) + "|"
        body = ["| " + " | ".join(r) + " |" for r in self.rows]
        return "\n".join([f"**{self.title}**", "", head, sep, *body])


def _cell(recs: Sequence[SampleRecord]) -> Cell | None:
    if not recs:
        return None
    return Cell(sum(r.correct for r in recs) / len(recs), len(recs))


def _fmt(c: Cell | None) -> str:
    return "–" if c is None else c.text()


def _group(recs: Sequence[SampleRecord], key: Callable[[SampleRecord], Hashable]) -> dict:
    out: dict = {}
    for r in recs:
        out.setdefault(key(r), []).append(r)
    return out


Column = tuple[str, str]  # (model, task)


def _columns(recs: Sequence[SampleRecord]) -> list[Column]:
    """One column per (model, task): different tasks' stories are different data and never pooled."""
    return sorted({(r.model, r.task) for r in recs})


def _label(col: Column) -> str:
    return f"{col[0]} ({col[1]})"


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
    """Paper Table 1: first-order accuracy per action set, plain and +asymmetric, a column pair per model x task."""
    fo = _first_order(recs)
    cols = _columns(fo)
    g = _group(fo, lambda r: (r.model, r.task, r.action_set, bool(r.asymmetric)))
    header = ["action set"] + [f"{_label(c)} {v}" for c in cols for v in ("plain", "asymmetric")]
    rows = [[s] + [_fmt(_cell(g.get((*c, s, a), []))) for c in cols for a in (False, True)]
            for s in _action_sets(fo)]
    if rows:
        rows.append(["overall"] + [_fmt(_cell([r for r in fo if (r.model, r.task) == c and bool(r.asymmetric) == a]))
                                   for c in cols for a in (False, True)])
    return ReportTable("Table 1: first-order accuracy per action set (95% Wilson interval, n questions)", header, rows)


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
    g = _group(fo, lambda r: (r.model, r.task, r.action_set, bool(r.asymmetric)))
    rows = []
    for s in _action_sets(fo):
        for a in (False, True):
            if any(g.get((*c, s, a)) for c in cols):
                rows.append(_interesting_row([s, "✓" if a else "✗"], [g.get((*c, s, a), []) for c in cols]))
    return rows


def interesting_table(recs: Sequence[SampleRecord]) -> ReportTable:
    """Paper Table 6: per action set x asymmetry, first-order accuracy on interesting and uninteresting questions."""
    fo = [r for r in _first_order(recs) if r.interesting is not None]
    cols = _columns(fo)
    header = ["action set", "asymmetric"] + [f"{_label(c)} {v}" for c in cols
                                             for v in ("acc. int.", "acc. ¬int.", "% int.")]
    rows = _interesting_by_action_set(fo, cols)
    if rows:
        rows.append(_interesting_row(["total", "—"], [[r for r in fo if (r.model, r.task) == c] for c in cols]))
    return ReportTable("Table 6: first-order accuracy on interesting vs uninteresting questions", header, rows)


def by_people_and_moves(recs: Sequence[SampleRecord]) -> list[ReportTable]:
    """Figure 3 as tables: first-order accuracy by people (rows) and moves (columns), one table per model x task."""
    fo = [r for r in _first_order(recs) if r.people is not None and r.moves is not None]
    out = []
    for c in _columns(fo):
        mine = [r for r in fo if (r.model, r.task) == c]
        people = sorted({r.people for r in mine})  # type: ignore[type-var]
        moves = sorted({r.moves for r in mine})  # type: ignore[type-var]
        g = _group(mine, lambda r: (r.people, r.moves))
        rows = [[str(p)] + [_fmt(_cell(g.get((p, mv), []))) for mv in moves] for p in people]
        out.append(ReportTable(f"First-order accuracy by people and moves: {_label(c)}",
                               ["people \\ moves"] + [str(x) for x in moves], rows))
    return out


def transfer_matrix(recs: Sequence[SampleRecord]) -> ReportTable:
    """Paper Table 2: rows = the model stories were found against and the search method, columns = who answers."""
    with_gen = [r for r in exploretom_records(recs) if r.generator_model and r.order in (1, 2)]
    rows_k = sorted({(r.generator_model or "", r.search_method or "?") for r in with_gen})
    cols = _columns(with_gen)
    g = _group(with_gen, lambda r: (r.generator_model, r.search_method or "?", r.model, r.task))
    rows = [[f"{gen} / {method}"] + [_fmt(_cell(g.get((gen, method, *c), []))) for c in cols]
            for gen, method in rows_k]
    return ReportTable("Transfer: belief-question (orders 1-2) accuracy on stories found against (rows: model / "
                       "search method), answered by (columns)", ["generator / method \\ evaluator"]
                       + [_label(c) for c in cols], rows)
