"""Causal-ToM audit of a persuasion dialogue dataset (paper Table 1): direct prompting vs CToM eval success rates.

Direct prompting asks a judge, reading as the persuadee, whether it feels persuaded; the CToM eval asks it to infer
the persuadee's beliefs and desires from the dialogue and say which the persuader addressed, then applies the causal
rule (generate: belief AND desire; prevent: belief OR desire). The paper finds LLM-generated dialogues pass the first
far more often than the second (DailyPersuasion 90.75 vs 54.80), while human dialogues do not (88.87 vs 79.87).
Judgements are appended to a JSONL file as they finish, so a long audit resumes after an interruption.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from inspect_ai.model import CachePolicy

from tombench.generators.persuasion.judge import ctom_evaluation, direct_prompting
from tombench.generators.persuasion.llm import AgentModel
from tombench.generators.persuasion.records import PersuasionRecord

__all__ = ["DialogueJudgement", "EvaluationSummary", "judge_record", "evaluate_dataset", "summarise"]


@dataclass(frozen=True)
class DialogueJudgement:
    id: str
    domain: str
    direct: bool | None
    ctom: bool | None
    direct_raw: str = ""
    ctom_raw: str = ""


async def judge_record(
    record: PersuasionRecord, judge: AgentModel, cache: bool | CachePolicy = False
) -> DialogueJudgement:
    direct, ctom = await asyncio.gather(
        direct_prompting(judge, record.scenario, record.dialog, cache),
        ctom_evaluation(judge, record.scenario, record.dialog, cache),
    )
    return DialogueJudgement(
        record.id, record.scenario.primary_domain, direct.value, ctom.value, direct.raw, ctom.raw
    )


def _read_done(path: Path) -> dict[str, DialogueJudgement]:
    done: dict[str, DialogueJudgement] = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
                done[row["id"]] = DialogueJudgement(**row)
            except (json.JSONDecodeError, KeyError, TypeError):
                continue
    return done


async def evaluate_dataset(
    records: Sequence[PersuasionRecord],
    judge: AgentModel,
    out: Path | None = None,
    *,
    max_concurrent: int = 4,
    cache: bool | CachePolicy = False,
    on_progress: Callable[[], None] | None = None,
) -> list[DialogueJudgement]:
    """Judge every record (skipping ids already in `out`), in input order."""
    done = _read_done(out) if out is not None else {}
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
    semaphore = asyncio.Semaphore(max_concurrent)

    async def one(record: PersuasionRecord) -> DialogueJudgement:
        if record.id in done:
            return done[record.id]
        async with semaphore:
            judgement = await judge_record(record, judge, cache)
        if out is not None:
            with out.open("a", encoding="utf-8") as f:
                f.write(json.dumps(asdict(judgement), ensure_ascii=False) + "\n")
        if on_progress is not None:
            on_progress()
        return judgement

    return list(await asyncio.gather(*(one(r) for r in records)))


@dataclass(frozen=True)
class EvaluationSummary:
    """Success rates in percent over the dialogues whose verdict could be read (n_* counts them)."""

    dialogues: int
    direct_rate: float | None
    ctom_rate: float | None
    n_direct: int
    n_ctom: int

    @property
    def gap(self) -> float | None:
        if self.direct_rate is None or self.ctom_rate is None:
            return None
        return self.direct_rate - self.ctom_rate


def _rate(values: list[bool | None]) -> tuple[float | None, int]:
    known = [v for v in values if v is not None]
    return (100.0 * sum(known) / len(known) if known else None), len(known)


def summarise(judgements: Sequence[DialogueJudgement]) -> EvaluationSummary:
    direct, n_direct = _rate([j.direct for j in judgements])
    ctom, n_ctom = _rate([j.ctom for j in judgements])
    return EvaluationSummary(len(judgements), direct, ctom, n_direct, n_ctom)
