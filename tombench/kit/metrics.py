"""The Inspect metrics every tombench scorer shares: the breakdown by metadata dimension (and its parser), and the
Wilson interval of a 0/1 score in the two key layouts the logs carry.

The breakdown: 
Inspect expands a metric that returns a dict into one logged metric per key, so a single `breakdown(...)` metric
puts the paper's grouped tables (accuracy per action set, interesting vs uninteresting, ToM order, ...) straight into
the log and `inspect view`. Keys are `"{dimension}={value}"` (accuracy), `"{dimension}={value}:stderr"` and
`"{dimension}={value}:n"`. The leaderboard reads them back with `parse_breakdown`; this module is the single place
that knows the key format.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from inspect_ai.scorer import Metric, SampleScore, metric

from tombench.kit.intervals import wilson_interval

__all__ = [
    "BreakdownEntry", "accuracy_interval", "breakdown", "breakdown_key", "chance_level", "parse_breakdown", "wilson95",
]


def breakdown_key(dimension: str, value: object) -> str:
    return f"{dimension}={value}"


def _group_stats(values: list[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(var / n)


@metric
def breakdown(dimensions: Sequence[str]) -> Metric:
    """Accuracy, standard error and count for each value of each metadata `dimension`.

    Samples lacking a dimension in their metadata are left out of that dimension's groups (not an error: e.g.
    memory questions have no `interesting` flag). A list value puts the sample in the group of each listed value
    (a persuasion record listed under three domains counts once in each, as in the ToMMA paper's Table 3).
    """
    dims = list(dimensions)

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        out: dict[str, float] = {}
        for dim in dims:
            groups: dict[str, list[float]] = {}
            for s in scores:
                md = s.sample_metadata or {}
                value = md.get(dim)
                if value is None:
                    continue
                for group in dict.fromkeys(value) if isinstance(value, (list, tuple)) else (value,):
                    groups.setdefault(str(group), []).append(s.score.as_float())
            for value in sorted(groups):
                mean, se = _group_stats(groups[value])
                key = breakdown_key(dim, value)
                out[key] = mean
                out[f"{key}:stderr"] = se
                out[f"{key}:n"] = float(len(groups[value]))
        return out

    return compute


@dataclass(frozen=True)
class BreakdownEntry:
    dimension: str
    group: str
    value: float
    stderr: float | None
    n: int | None


def _split_stat(key: str) -> tuple[str, str]:
    """("dim=group", "value" | "stderr" | "n"): only a known statistic is split off the end, so a group holding a
    colon ("ability=Belief: Second-order beliefs", ToMBench) keeps it."""
    for stat in ("stderr", "n"):
        if key.endswith(f":{stat}"):
            return key[: -len(stat) - 1], stat
    return key, "value"


def parse_breakdown(metrics: Mapping[str, float]) -> list[BreakdownEntry]:
    """Read back the entries of a `breakdown` metric from a flat {key: value} mapping (metric names as logged).

    Accepts both bare keys (`action_set=tomi`) and Inspect's prefixed names (`breakdown_action_set=tomi`).
    """
    acc: dict[tuple[str, str], dict[str, float]] = {}
    for raw, val in metrics.items():
        key = raw[len("breakdown_"):] if raw.startswith("breakdown_") else raw
        if "=" not in key:
            continue
        base, stat = _split_stat(key)
        dim, _, group = base.partition("=")
        if ":" in dim:
            continue  # a metric's own grouping (`macro_f1:genre=...`), not a breakdown entry
        acc.setdefault((dim, group), {})[stat] = float(val)
    entries = []
    for (dim, group), stats in acc.items():
        if "value" not in stats:
            continue
        n = stats.get("n")
        entries.append(
            BreakdownEntry(dim, group, stats["value"], stats.get("stderr"), int(n) if n is not None else None)
        )
    return sorted(entries, key=lambda e: (e.dimension, e.group))


# The Wilson interval of a 0/1 score, as a metric. `accuracy() +/- 1.96 stderr` collapses to zero width when every
# sample fails or passes; Wilson does not (tombench.kit.intervals). Two key layouts, both logged by released task
# versions and read by reports and the leaderboard, so both stay: ToM-Synth and persuasion log `wilson95` (low,
# high, n), the suites `accuracy_ci_low` / `accuracy_ci_high`.
@metric
def wilson95() -> Metric:
    """95% Wilson interval of a 0/1 score (`wilson95_low`, `wilson95_high`) and the number of scored samples
    (`wilson95_n`). Unscored (NaN) samples never reach a metric, so n counts only samples that got a verdict."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        values = [s.score.as_float() for s in scores]
        low, high = wilson_interval(int(round(sum(values))), len(values))
        return {"low": low, "high": high, "n": float(len(values))}

    return compute


@metric
def accuracy_interval() -> Metric:
    """Wilson 95% interval of the mean of 0/1 scores: `accuracy_ci_low`, `accuracy_ci_high`."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        values = [s.score.as_float() for s in scores]
        lo, hi = wilson_interval(sum(values), len(values))
        return {"accuracy_ci_low": lo, "accuracy_ci_high": hi}

    return compute


def _sample_chance(md: Mapping[str, object]) -> float | None:
    """The chance level of one sample from its metadata: `chance` (1/k) when the task records it, else 1/`k`;
    None for a free-form item (no `k`)."""
    if (value := md.get("chance")) is not None:
        return float(value)  # type: ignore[arg-type]
    k = md.get("k")
    return 1 / float(k) if k else None  # type: ignore[arg-type]


@metric
def chance_level() -> Metric:
    """`chance`: the expected accuracy of a uniform guess (the mean of 1/k) over the samples actually scored.

    Why a metric and not a number fixed when the task is built: `--limit`, `--sample-id` and failed samples change
    which items a run scores, and a constant over the whole dataset then describes a run that never happened (a
    ToMBench run of 4-option items only would claim 0.292). Logged only when every scored sample is multiple choice
    (each has a `chance` or `k` in its metadata): a run that mixes in free-form items has no chance level.
    """

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        levels = [_sample_chance(s.sample_metadata or {}) for s in scores]
        if not levels or any(c is None for c in levels):
            return {}
        return {"chance": sum(levels) / len(levels)}  # type: ignore[arg-type]

    return compute
