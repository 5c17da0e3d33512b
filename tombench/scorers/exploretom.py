"""ExploreToM's own scorers: the live adversarial task's search outcome and its question scores.

The question samples of every ExploreToM task are scored by the shared story-question scorer
(`tombench.scorers.story_questions.tom_answer`, the Inspect face of the DSL's one matcher, which ToMi shares). What is
ExploreToM's alone is the live search: a task mixes *search* samples (one per setting or story slot, whose score is
the share of requested stories found) with the *question* samples the search enqueued, and each scorer leaves the
other kind unscored (NaN), so neither pollutes the other's metrics.
"""

from __future__ import annotations

import math

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, mean, metric, scorer
from inspect_ai.solver import TaskState

from tombench.scorers.story_questions import tom_answer, tom_metrics

__all__ = ["SEARCH_KIND", "adversarial_answer", "model_calls", "search_outcome", "settings_filled"]

#: `tombench_kind` of a search sample (question samples carry another kind).
SEARCH_KIND = "search"


@metric
def settings_filled() -> Metric:
    """Share of settings where the search found every requested story (N stories the model got wrong).

    The paper's fill, and the one `tombench search` prints: a setting with 2 of 5 stories is not filled. Paper mode
    has one search sample per story slot (filled: all of them found one); improved mode one per setting (filled: its
    score, the share of its N stories kept, is 1). Before task version 0.2.0 a setting counted as filled with one story.
    """

    def compute(scores: list[SampleScore]) -> float:
        full: dict[str, int] = {}  # search samples of the setting that found all they were asked for
        wanted: dict[str, int] = {}
        for s in scores:
            md = s.sample_metadata or {}
            sid = md.get("setting_id", "")
            full[sid] = full.get(sid, 0) + (s.score.as_float() >= 1)
            # a search sample that errored has no score: its setting is not filled (logs before 0.2.0: those seen)
            wanted[sid] = md.get("setting_searches", wanted.get(sid, 0) + 1)
        return sum(full[k] >= wanted[k] for k in full) / len(full) if full else float("nan")

    return compute


@metric
def model_calls() -> Metric:
    """Prompts the search put to the model under test (cache hits included)."""

    def compute(scores: list[SampleScore]) -> float:
        return float(sum((s.score.metadata or {}).get("model_calls", 0) for s in scores))

    return compute


@scorer(metrics=[settings_filled(), mean(), model_calls()])
def search_outcome() -> Scorer:
    """The share of a search sample's requested stories found: 1/0 in paper mode (one story per sample), kept/N in
    improved mode (one sample per setting). Its mean is the share of story slots filled in both modes; question
    samples are unscored here (NaN)."""

    async def score(state: TaskState, target: Target) -> Score:
        s = state.metadata.get("search")
        if state.metadata.get("tombench_kind") != SEARCH_KIND or s is None:
            return Score(value=math.nan)
        value = len(s["stories"]) / s["wanted"] if "wanted" in s else float(s["found"])
        return Score(value=value, answer=s.get("text"),
                     explanation=(f"{len(s['stories'])} of {s['wanted']} stories, " if "wanted" in s else "")
                     + f"g={s['g']}, {s['nodes_evaluated']} nodes, {s['model_calls']} model calls",
                     metadata={"model_calls": s["model_calls"], "nodes_evaluated": s["nodes_evaluated"]})

    return score


@scorer(metrics=tom_metrics())
def adversarial_answer(check: str = "strict") -> Scorer:
    """`tom_answer` on the question samples; the search samples are unscored here (NaN)."""
    inner = tom_answer(check=check)  # type: ignore[arg-type]

    async def score(state: TaskState, target: Target) -> Score:
        if state.metadata.get("tombench_kind") == SEARCH_KIND:
            return Score(value=math.nan)
        return await inner(state, target)

    return score
