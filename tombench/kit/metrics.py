"""The Inspect metrics every tombench scorer shares: the breakdown by metadata dimension (and its parser), and the
Wilson interval of a 0/1 score in the two key layouts the logs carry.

The breakdown:
Inspect expands a metric that returns a dict into one logged metric per key, so a single `breakdown(...)` metric
puts the paper's grouped tables (accuracy per action set, interesting vs uninteresting, ToM order, ...) straight into
the log and `inspect view`. Keys are `"{dimension}={value}"` (accuracy) and `"{dimension}={value}:n"` (count), plus
`"{dimension}={value}:stderr"` for a group of scores that are not all 0 or 1 (`group_metrics`). The leaderboard and
the reports read them back with `parse_breakdown`; this module is the single place that knows the key format.

Why no stderr for a group of 0/1 scores: Inspect's end-of-run summary prints every logged metric on its own line
(no way to hide or group them), so each key costs every user a terminal line; that stderr is sqrt(p(1-p)/(n-1)),
a function of the two keys logged, and `parse_breakdown` recomputes it. The count cannot be dropped too: a log
written without samples has no other record of it, and the leaderboard's Wilson interval per group needs it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from inspect_ai.scorer import Metric, SampleScore, metric

from tombench.kit.intervals import wilson_interval

__all__ = [
    "BreakdownEntry", "accuracy_interval", "binary_stderr", "breakdown", "breakdown_key", "chance_level",
    "group_metrics", "parse_breakdown", "wilson95",
]


def breakdown_key(dimension: str, value: object) -> str:
    return f"{dimension}={value}"


def _group_stats(values: Sequence[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(var / n)


def binary_stderr(value: float, n: int) -> float:
    """The standard error of the mean of `n` scores that are each 0 or 1 with mean `value` (sample variance, as
    Inspect's `stderr()`): sqrt(p(1-p)/(n-1)); 0 for a single score."""
    return math.sqrt(max(0.0, value * (1 - value)) / (n - 1)) if n > 1 else 0.0


def group_metrics(dimensions: Mapping[str, Mapping[str, Sequence[float]]]) -> dict[str, float]:
    """The logged keys of breakdown groups ({dimension: {group: scores}}, each in the order given): every group's
    mean (`dim=group`) first, then every count (`dim=group:n`), then the standard errors (`dim=group:stderr`) of
    the groups of two or more scores that are not all 0 or 1 (otherwise it is `binary_stderr` of the two, 0 for
    one score, which `parse_breakdown` recomputes). Inspect's summary lists the keys in this order, so the means
    read as one block. Every grouped metric of the package logs through here, so the key layout stays one."""
    means: dict[str, float] = {}
    counts: dict[str, float] = {}
    errors: dict[str, float] = {}
    for dimension, groups in dimensions.items():
        for group, values in groups.items():
            key = breakdown_key(dimension, group)
            means[key], se = _group_stats(values)
            counts[f"{key}:n"] = float(len(values))
            if len(values) > 1 and any(v not in (0.0, 1.0) for v in values):
                errors[f"{key}:stderr"] = se
    return means | counts | errors


@metric
def breakdown(dimensions: Sequence[str]) -> Metric:
    """Accuracy and count (and the standard error of a score that is not 0/1) for each value of each metadata
    `dimension` (keys: `group_metrics`).

    Samples lacking a dimension in their metadata are left out of that dimension's groups (not an error: e.g.
    memory questions have no `interesting` flag). A list value puts the sample in the group of each listed value
    (a persuasion record listed under three domains counts once in each, as in the ToMMA paper's Table 3).
    """
    dims = list(dimensions)

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        by_dimension: dict[str, dict[str, list[float]]] = {}
        for dim in dims:
            groups: dict[str, list[float]] = {}
            for s in scores:
                value = (s.sample_metadata or {}).get(dim)
                if value is None:
                    continue
                for group in dict.fromkeys(value) if isinstance(value, (list, tuple)) else (value,):
                    groups.setdefault(str(group), []).append(s.score.as_float())
            by_dimension[dim] = {group: groups[group] for group in sorted(groups)}
        return group_metrics(by_dimension)

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


def _derived_stderr(value: float, n: int | None) -> float | None:
    """The stderr of a group logged without one (`group_metrics` leaves it out only for one score or for 0/1
    scores): 0 for one score; `binary_stderr` when the group can be one of 0/1 scores (its mean times its count
    is a whole number); else unknown."""
    if n == 1:
        return 0.0
    if n is None or n < 1 or not math.isfinite(value) or abs(value * n - round(value * n)) > 1e-6:
        return None
    return binary_stderr(value, n)


def parse_breakdown(metrics: Mapping[str, float]) -> list[BreakdownEntry]:
    """Read back the entries of a `breakdown` metric from a flat {key: value} mapping (metric names as logged).

    Accepts both bare keys (`action_set=tomi`) and Inspect's prefixed names (`breakdown_action_set=tomi`). A
    group's stderr is the logged one (older logs have it for every group), else recomputed.
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
        n = int(stats["n"]) if "n" in stats else None
        se = stats["stderr"] if "stderr" in stats else _derived_stderr(stats["value"], n)
        entries.append(BreakdownEntry(dim, group, stats["value"], se, n))
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
