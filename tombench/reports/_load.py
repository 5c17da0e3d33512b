"""Inspect logs -> one flat record per scored question with a ToM order (the only I/O of the reports).

ToMi and other suites' questions load too (they have an order but no action set); the ExploreToM tables filter on
the action set (`_tables.exploretom_records`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SampleRecord", "load_records", "log_paths"]


@dataclass(frozen=True)
class SampleRecord:
    """One scored question: who answered it, what it was about, and whether the answer was right."""

    model: str
    task: str
    correct: float
    action_set: str | None = None
    asymmetric: bool | None = None
    interesting: bool | None = None
    order: int | None = None
    people: int | None = None
    moves: int | None = None
    #: the model the story was found against (transfer and adversarial tasks)
    generator_model: str | None = None
    #: how that story was found ("astar-paper", "astar-improved", "over-generate", ...), when the log says
    search_method: str | None = None


def log_paths(paths: Iterable[str | Path]) -> list[Path]:
    """Expand directories into the Inspect logs they contain (.eval and .json)."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(x for x in p.rglob("*") if x.suffix in (".eval", ".json") and x.is_file())
        elif p.exists():
            out.append(p)
        else:
            raise FileNotFoundError(f"no such log file or folder: {p}")
    return out


def _value(scores: dict | None) -> float | None:
    """The first numeric score of a sample (the ToM answer scorer's), skipping unscored (NaN) ones.

    Inspect's own `value_to_float` reads "C"/"I", yes/no and numbers alike.
    """
    from inspect_ai.scorer import value_to_float

    to_float = value_to_float()
    for score in (scores or {}).values():
        if isinstance(score.value, (dict, list)):
            continue
        v = to_float(score.value)
        if not math.isnan(v):
            return v
    return None


def load_records(paths: Iterable[str | Path]) -> list[SampleRecord]:
    """Read every log's samples into records. Samples without a numeric score (search seeds, errors) are skipped."""
    from inspect_ai.log import read_eval_log

    records: list[SampleRecord] = []
    for path in log_paths(paths):
        log = read_eval_log(str(path))
        model = log.eval.model
        task = log.eval.task.split("/")[-1]
        for s in log.samples or []:
            v = _value(s.scores)
            md = s.metadata or {}
            if v is None or md.get("order") is None:
                continue
            records.append(
                SampleRecord(
                    model=model,
                    task=task,
                    correct=v,
                    action_set=md.get("action_set"),
                    asymmetric=md.get("asymmetric"),
                    interesting=md.get("interesting"),
                    order=md.get("order"),
                    people=md.get("people"),
                    moves=md.get("moves"),
                    generator_model=md.get("generator_model"),
                    search_method=md.get("search_method"),
                )
            )
    return records
