"""Audit of a persuasion dialogue dataset, the five metrics of the paper's Table 1.

Context coherence, logical coherence and helpfulness are 1-5 ratings of the whole dialogue (after Sun et al. 2024);
direct prompting asks a judge, reading as the persuadee, whether it feels persuaded; the causal-ToM eval asks it to
infer the persuadee's beliefs and desires from the dialogue and say which the persuader addressed, then applies the
causal rule (generate: belief AND desire; prevent: belief OR desire). The paper finds LLM-generated dialogues pass
direct prompting far more often than the causal-ToM eval (DailyPersuasion 90.75 vs 54.80), while human dialogues do
not (88.87 vs 79.87). Judgements are appended to a JSONL file as they finish, so a long audit resumes: a kept
answer is reused only for the same judge, metric and exact prompt (`verdict_key`, a content digest), and an
unreadable one is asked again in a fresh cache scope.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai.model import CachePolicy, ChatMessage

from tombench.generators.persuasion import prompts
from tombench.generators.persuasion.judge import read_ctom, read_direct, read_quality
from tombench.generators.persuasion.prompts import DIALOGUE_QUALITY
from tombench.generators.persuasion.records import PersuasionRecord
from tombench.kit.calls import ModelLike, call_model, scoped_cache
from tombench.kit.intervals import Z95 as _Z95
from tombench.kit.intervals import wilson_interval

__all__ = [
    "METRICS",
    "DialogueJudgement",
    "EvaluationSummary",
    "Estimate",
    "judge_record",
    "judge_name",
    "metric_messages",
    "read_verdict",
    "verdict_key",
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
    """One judge's verdicts on one dialogue, for the metrics asked (a metric not asked stays None, as does an
    unreadable verdict; `raw` holds only the metrics asked).

    `judge` names the judge and `digests` the resume key of each metric (`verdict_key`): what a resumed audit
    matches a kept answer by."""

    id: str
    domains: list[str]
    direct: bool | None = None
    ctom: bool | None = None
    context_coherence: float | None = None
    logical_coherence: float | None = None
    helpfulness: float | None = None
    raw: dict[str, str] = field(default_factory=dict)  # the judge's answer per metric, for audit
    judge: str = ""
    digests: dict[str, str] = field(default_factory=dict)


def metric_messages(name: str, record: PersuasionRecord) -> list[ChatMessage]:
    """What the judge of Table 1 metric `name` is shown for `record` (no annotation: only scenario and dialogue)."""
    if name == "direct":
        return prompts.direct_messages(record.scenario, record.dialog)
    if name == "ctom":
        return prompts.ctom_messages(record.scenario, record.dialog)
    return prompts.dialogue_quality_messages(name, record.scenario, record.dialog)


def read_verdict(name: str, text: str) -> bool | float | None:
    """Metric `name`'s verdict in a judge's answer, None when unreadable."""
    if name == "direct":
        return read_direct(text)
    if name == "ctom":
        return read_ctom(text)
    return read_quality(text)


def judge_name(judge: ModelLike) -> str:
    """A judge's name for the resume key: the model name ("openai/gpt-4o-mini"), or a plain callable's name."""
    if isinstance(judge, str):
        return judge
    if hasattr(judge, "generate"):
        return str(judge)
    return str(getattr(judge, "__qualname__", type(judge).__qualname__))


def verdict_key(judge: str, name: str, record: PersuasionRecord) -> str:
    """The resume key of one verdict: 16 hex digits of SHA-256 over the judge's name, the metric and the exact
    messages it is shown. Content, never position or id: another judge, another prompt version or an edited
    dialogue gives another key, so a kept answer is reused only for the very question that produced it."""
    shown = [[m.role, m.text] for m in metric_messages(name, record)]
    payload = json.dumps([judge, name, shown], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


async def judge_record(
    record: PersuasionRecord,
    judge: ModelLike,
    cache: bool | CachePolicy = False,
    metrics: Sequence[str] = METRICS,
    *,
    name: str | None = None,
    kept: Mapping[str, Sequence[str]] | None = None,
) -> DialogueJudgement:
    """The verdicts of `judge` (named `name`, default `judge_name`) on `record` for `metrics`.

    `kept` maps a verdict key to the answers this judge already gave to that very question (a resumed audit): the
    last readable one is reused without a call; when every kept answer is unreadable the question is asked again,
    in its own cache scope (`tombench_retry_unreadable` = how many were kept), so the cache cannot hand back the
    answer that could not be read."""
    who = name or judge_name(judge)
    keys = {m: verdict_key(who, m, record) for m in metrics}
    answers: dict[str, str] = {}
    to_ask: dict[str, Any] = {}
    for m in metrics:
        previous = list((kept or {}).get(keys[m], ()))
        if (reused := _reusable(m, previous)) is not None:
            answers[m] = reused
            continue
        retry = {"tombench_retry_unreadable": str(len(previous))} if previous else {}
        to_ask[m] = call_model(judge, metric_messages(m, record), cache=scoped_cache(cache, retry))
    for m, reply in zip(to_ask, await asyncio.gather(*to_ask.values()), strict=True):
        answers[m] = reply.text
    return DialogueJudgement(
        id=record.id,
        domains=record.scenario.domains,
        **{m: read_verdict(m, answers[m]) for m in metrics},
        raw={m: answers[m] for m in metrics},
        judge=who,
        digests=keys,
    )


def _reusable(metric: str, answers: Sequence[str]) -> str | None:
    """The last readable answer among those kept for one verdict key, None when there is none to reuse."""
    return next((a for a in reversed(answers) if read_verdict(metric, a) is not None), None)


def _read_kept(path: Path) -> dict[str, list[str]]:
    """Every answer an audit file keeps, by verdict key (file order). Rows without keys (written before keys
    existed: their judge and prompt are unknown) are not reused."""
    kept: dict[str, list[str]] = {}
    if not path.is_file():
        return kept
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            row = json.loads(line)
            raw, digests = row.get("raw") or {}, row.get("digests") or {}
        except (json.JSONDecodeError, AttributeError):
            continue
        if isinstance(raw, dict) and isinstance(digests, dict):
            for metric, key in digests.items():
                if isinstance(raw.get(metric), str):
                    kept.setdefault(str(key), []).append(raw[metric])
    return kept


async def evaluate_dataset(
    records: Sequence[PersuasionRecord],
    judge: ModelLike,
    out: Path | None = None,
    *,
    metrics: Sequence[str] = METRICS,
    max_concurrent: int = 4,
    cache: bool | CachePolicy = False,
    on_progress: Callable[[], None] | None = None,
    name: str | None = None,
) -> list[DialogueJudgement]:
    """Judge every record for `metrics`, in input order; with `out`, resume from the answers it keeps.

    A verdict is reused only when `out` keeps a readable answer of this judge (`name`, default `judge_name`) to the
    very same question (`verdict_key`); unreadable ones are asked again. A record that needed a call gets a row
    appended (all its asked metrics), so an interrupted audit loses at most the records in flight."""
    kept = _read_kept(out) if out is not None else {}
    who = name or judge_name(judge)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
    semaphore = asyncio.Semaphore(max_concurrent)

    async def one(record: PersuasionRecord) -> DialogueJudgement:
        async with semaphore:
            judgement = await judge_record(record, judge, cache, metrics, name=who, kept=kept)
        fresh = any(_reusable(m, kept.get(judgement.digests[m], ())) is None for m in metrics)  # a call was made
        if out is not None and fresh:
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
