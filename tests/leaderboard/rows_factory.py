"""Hand-made rows for the pure rendering tests (no logs needed)."""

from __future__ import annotations

import json
from dataclasses import replace

from tombench.leaderboard import Breakdown, Items, ResultRow, proportion_interval
from tombench.leaderboard._row import SCHEMA_VERSION

_BASE = ResultRow(
    schema_version=SCHEMA_VERSION, submission_id="s", created_at="2026-01-01T00:00:00+00:00", benchmark="tombench",
    package_version="0.1.0", task="tombench/exploretom_random", task_version="1", task_args="{}",
    dataset_id="org/data", dataset_revision="a" * 40, model="m", provider="hf", model_revision=None,
    model_params="{}", open_weights=True, model_size_b=7.0, temperature=0.0, max_tokens=64, seed=1, epochs=1,
    harness="inspect-ai", harness_version="0.3", config_hash="h", samples_total=100, samples_completed=100,
    samples_errored=0, metric="tom_answer/accuracy", accuracy=0.5, stderr=0.05, ci_low=0.4, ci_high=0.6,
    breakdowns=[Breakdown("action_set", "tomi", 0.5, 0.07, 50, 0.37, 0.63, 10), Breakdown("order", "1", 0.4, 0.1, 30)],
    ci_method="wilson",
)


def row(model: str, accuracy: float, half_width: float = 0.05, **changes) -> ResultRow:
    fields = dict(model=model, submission_id=f"id-{model}-{accuracy}", accuracy=accuracy,
                  ci_low=accuracy - half_width, ci_high=accuracy + half_width, stderr=half_width / 1.96)
    fields.update(changes)
    return replace(_BASE, **fields)


def items(scores: list[float], stories: list[str] | None = None) -> Items:
    """Items q0, q1, ... with the given scores (and stories)."""
    return Items(key=[f"q{i}" for i in range(len(scores))], story=stories or [""] * len(scores), score=scores)


def config(**settings) -> str:
    """A row's run_config: the settings given, as `row_from_log` writes them."""
    base = {"task": "tombench/exploretom_random", "model": "m", "generate_config": {"temperature": 0.0},
            "epochs": 1, "limit": None, "task_args": {}}
    for key, value in settings.items():
        if isinstance(value, dict):
            base[key] = {**base.get(key, {}), **value}
        else:
            base[key] = value
    return json.dumps(base, sort_keys=True)


def clustered(model: str, misses: dict[int, int], stories: int = 18, per_story: int = 22, **changes):
    """A row on `stories` stories of `per_story` questions with misses[s] wrong answers in story s (the first
    questions of the story), its interval computed the way `row_from_log` does."""
    scores = [0.0 if q < misses.get(s, 0) else 1.0 for s in range(stories) for q in range(per_story)]
    story = [f"st{s}" for s in range(stories) for _ in range(per_story)]
    ci = proportion_interval(scores, story)
    keys = [f"q{i}" for i in range(len(scores))]
    return row(model, ci.value, ci_low=ci.low, ci_high=ci.high, ci_method=ci.method, stories=ci.stories,
               design_effect=ci.design_effect, items=Items(key=keys, story=story, score=scores),
               samples_total=len(scores), samples_completed=len(scores), **changes)
