"""Pure computations of the paper's tables from sample records; rendering lives in the command."""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from tombench.reports._load import SampleRecord

__all__ = ["Cell", "ReportTable", "per_action_set_table", "interesting_table", "by_people_and_moves",
           "transfer_matrix"]


@dataclass(frozen=True)
class Cell:
    mean: float
    n: int

    @property
    def stderr(self) -> float:
        if self.n < 2:
            return 0.0
        return math.sqrt(self.mean * (1 - self.mean) / (self.n - 1))

    def text(self) -> str:
        return f"{self.mean:.2f} (n={self.n})"


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


def _models(recs: Sequence[SampleRecord]) -> list[str]:
    return sorted({r.model for r in recs})


def per_action_set_table(recs: Sequence[SampleRecord]) -> ReportTable:
    """Paper Table 1: accuracy per action set, plain and +asymmetric, one column pair per model."""
    from tombench.dsl import ACTION_SETS

    models = _models(recs)
    g = _group([r for r in recs if r.action_set], lambda r: (r.model, r.action_set, bool(r.asymmetric)))
    sets = [s for s in ACTION_SETS if any(k[1] == s for k in g)] + sorted(
        {k[1] for k in g if k[1] not in ACTION_SETS})
    cols = ["action set"] + [f"{m} {v}" for m in models for v in ("plain", "asymmetric")]
    rows = [[s] + [_fmt(_cell(g.get((m, s, a), []))) for m in models for a in (False, True)] for s in sets]
    rows.append(["overall"] + [_fmt(_cell([r for r in recs if r.model == m and bool(r.asymmetric) == a]))
                           for m in models for a in (False, True)])
    return ReportTable("Table 1: accuracy per action set", cols, rows)


def interesting_table(recs: Sequence[SampleRecord]) -> ReportTable:
    """Paper Table 6: accuracy on interesting vs uninteresting questions, and the share that is interesting."""
    rows = []
    for m in _models(recs):
        mine = [r for r in recs if r.model == m and r.interesting is not None]
        inter = [r for r in mine if r.interesting]
        unint = [r for r in mine if not r.interesting]
        share = f"{len(inter) / len(mine):.0%}" if mine else "–"
        rows.append([m, _fmt(_cell(inter)), _fmt(_cell(unint)), share])
    return ReportTable("Table 6: interesting vs uninteresting questions",
                       ["model", "interesting", "uninteresting", "% interesting"], rows)


def by_people_and_moves(recs: Sequence[SampleRecord]) -> list[ReportTable]:
    """Figure 3 as tables: accuracy by number of people (rows) and moves (columns), one table per model."""
    out = []
    for m in _models(recs):
        mine = [r for r in recs if r.model == m and r.people is not None and r.moves is not None]
        people = sorted({r.people for r in mine})
        moves = sorted({r.moves for r in mine})
        g = _group(mine, lambda r: (r.people, r.moves))
        rows = [[str(p)] + [_fmt(_cell(g.get((p, mv), []))) for mv in moves] for p in people]
        out.append(ReportTable(f"Accuracy by people and moves: {m}", ["people \\ moves"] + [str(x) for x in moves],
                               rows))
    return out


def transfer_matrix(recs: Sequence[SampleRecord]) -> ReportTable:
    """Paper Table 2: rows = the model stories were found against, columns = the model answering them."""
    with_gen = [r for r in recs if r.generator_model]
    gens = sorted({r.generator_model for r in with_gen})  # type: ignore[type-var]
    evals = _models(with_gen)
    g = _group(with_gen, lambda r: (r.generator_model, r.model))
    rows = [[gen] + [_fmt(_cell(g.get((gen, ev), []))) for ev in evals] for gen in gens]
    return ReportTable("Transfer: stories found against (rows) answered by (columns)", ["generator \\ evaluator"] + evals,
                       rows)
