"""Audit of a persuasion dialogue dataset, the five metrics of the paper's Table 1.

Context coherence, logical coherence and helpfulness are 1-5 ratings of the whole dialogue (after Sun et al. 2024);
direct prompting asks a judge, reading as the persuadee, whether it feels persuaded; the causal-ToM eval asks it to
infer the persuadee's beliefs and desires from the dialogue and say which the persuader addressed, then applies the
causal rule (generate: belief AND desire; prevent: belief OR desire). The paper finds LLM-generated dialogues pass
direct prompting far more often than the causal-ToM eval (DailyPersuasion 90.75 vs 54.80), while human dialogues do
not (88.87 vs 79.87). Judgements are appended to a JSONL file as they finish, so a long audit resumes.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from inspect_ai.model import CachePolicy

from tombench.generators.persuasion.judge import ctom_evaluation, dialogue_quality, direct_prompting
from tombench.generators.persuasion.prompts import DIALOGUE_QUALITY
from tombench.generators.persuasion.records import PersuasionRecord
from tombench.kit.calls import ModelLike
from tombench.kit.intervals import Z95 as _Z95
from tombench.kit.intervals import wilson_interval

__all__ = [
    "METRICS",
    "DialogueJudgement",
    "EvaluationSummary",
    "Estimate",
    "judge_record",
    "evaluate_dataset",
    "summarise",
    "METRIC_LABELS",
    "choose_metrics",
    "with_dialogues",
    "table_one_rows",
]

#: Table 1's rows, in the paper's order: three 1-5 ratings, then two success rates.
METRICS: tuple[str, ...] = (*DIALOGUE_QUALITY, "direct", "ctom")

@dataclass(frozen=True)
class DialogueJudgement:
    id: str
    domains: list[str]
    direct: bool | None
    ctom: bool | None
    context_coherence: float | None = None
    logical_coherence: float | None = None
    helpfulness: float | None = None
    raw: dict[str, str] = field(default_factory=dict)  # the judge's answer per metric, for audit


async def judge_record(
    record: PersuasionRecord,
    judge: ModelLike,
    cache: bool | CachePolicy = False,
    metrics: Sequence[str] = METRICS,
) -> DialogueJudgement:
    calls = {}
    for name in metrics:
        if name == "direct":
            calls[name] = direct_prompting(judge, record.scenario, record.dialog, cache)
        elif name == "ctom":
            calls[name] = ctom_evaluation(judge, record.scenario, record.dialog, cache)
        else:
            calls[name] = dialogue_quality(judge, name, record.scenario, record.dialog, cache)
    verdicts = dict(zip(calls, await asyncio.gather(*calls.values()), strict=True))
    return DialogueJudgement(
        id=record.id,
        domains=record.scenario.domains,
        **{name: v.value for name, v in verdicts.items()},
        raw={name: v.raw for name, v in verdicts.items()},
    )


def _read_done(path: Path) -> dict[str, DialogueJudgement]:
    known = {f.name for f in fields(DialogueJudgement)}
    done: dict[str, DialogueJudgement] = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
                done[row["id"]] = DialogueJudgement(**{k: v for k, v in row.items() if k in known})
            except (json.JSONDecodeError, KeyError, TypeError):
                continue
    return done


async def evaluate_dataset(
    records: Sequence[PersuasionRecord],
    judge: ModelLike,
    out: Path | None = None,
    *,
    metrics: Sequence[str] = METRICS,
    max_concurrent: int = 4,
    cache: bool | CachePolicy = False,
    on_progress: Callable[[], None] | None = None,
) -> list[DialogueJudgement]:
    """Judge every record (skipping ids already in `out` with every asked metric), in input order."""
    done = _read_done(out) if out is not None else {}
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
    semaphore = asyncio.Semaphore(max_concurrent)

    async def one(record: PersuasionRecord) -> DialogueJudgement:
        previous = done.get(record.id)
        if previous is not None and all(m in previous.raw for m in metrics):
            return previous
        async with semaphore:
            judgement = await judge_record(record, judge, cache, metrics)
        if out is not None:
            with out.open("a", encoding="utf-8") as f:
                f.write(json.dumps(asdict(judgement), ensure_ascii=False) + "\n")
        if on_progress is not None:
            on_progress()
        return judgement

    return list(await asyncio.gather(*(one(r) for r in records)))


@dataclass(frozen=True)
class Estimate:
    """A value over the `n` dialogues whose verdict could be read, with a 95% interval (None when n is 0).

    Rates are in percent with a Wilson interval; 1-5 ratings are means with a normal interval on the standard
    error (a t interval would differ only for n below ~30)."""

    value: float | None
    low: float | None
    high: float | None
    n: int


def _rate(values: list[bool]) -> Estimate:
    if not values:
        return Estimate(None, None, None, 0)
    low, high = wilson_interval(sum(values), len(values))
    return Estimate(100.0 * sum(values) / len(values), 100.0 * low, 100.0 * high, len(values))


def _mean(values: list[float]) -> Estimate:
    n = len(values)
    if n == 0:
        return Estimate(None, None, None, 0)
    mean = sum(values) / n
    se = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n) if n > 1 else float("inf")
    return Estimate(mean, max(1.0, mean - _Z95 * se), min(5.0, mean + _Z95 * se), n)


@dataclass(frozen=True)
class EvaluationSummary:
    """Table 1 for one dataset: each metric over the dialogues whose verdict could be read."""

    dialogues: int
    metrics: dict[str, Estimate]

    @property
    def gap(self) -> float | None:
        direct, ctom = self.metrics.get("direct"), self.metrics.get("ctom")
        if direct is None or ctom is None or direct.value is None or ctom.value is None:
            return None
        return direct.value - ctom.value


def summarise(judgements: Sequence[DialogueJudgement], metrics: Sequence[str] = METRICS) -> EvaluationSummary:
    out: dict[str, Estimate] = {}
    for name in metrics:
        values = [getattr(j, name) for j in judgements if getattr(j, name) is not None]
        out[name] = _rate(values) if name in ("direct", "ctom") else _mean(values)
    return EvaluationSummary(len(judgements), out)


# --- the audit as the command runs it: which metrics, which records, Table 1's rows --------------------------------
#: Table 1's row labels.
METRIC_LABELS: dict[str, str] = {
    "context_coherence": "Context-Coherence (1-5)",
    "logical_coherence": "Logical-Coherence (1-5)",
    "helpfulness": "Helpfulness (1-5)",
    "direct": "Direct Prompting %",
    "ctom": "Causal ToM Eval %",
}


def choose_metrics(spec: str) -> list[str]:
    """The metrics a comma-separated list names (`all`: every Table 1 metric, in the paper's order).

    Raises ValueError naming the unknown ones, so a typo fails before any judge call is paid for."""
    chosen = list(METRICS) if spec.strip() == "all" else [m.strip() for m in spec.split(",") if m.strip()]
    unknown = [m for m in chosen if m not in METRICS]
    if unknown or not chosen:
        raise ValueError(f"unknown {unknown or spec!r}; choose from {', '.join(METRICS)}")
    return chosen


def with_dialogues(records: Sequence[PersuasionRecord]) -> list[PersuasionRecord]:
    """The records that hold a dialogue: only they can be judged (a scenario-only record has nothing to rate)."""
    return [r for r in records if r.dialog]


def table_one_rows(summary: EvaluationSummary, metrics: Sequence[str]) -> list[tuple[str, str, str, str]]:
    """(label, value, 95% interval, judged of dialogues) per metric, as Table 1 prints them ("-" where no verdict
    could be read)."""
    rows = []
    for name in metrics:
        e = summary.metrics[name]
        value = "-" if e.value is None else f"{e.value:.2f}"
        interval = "-" if e.low is None or e.high is None else f"{e.low:.2f} - {e.high:.2f}"
        rows.append((METRIC_LABELS[name], value, interval, f"{e.n}/{summary.dialogues}"))
    return rows
