"""A search run from its user-facing options (`tombench search`): the story types, the grid of settings, the
run's configuration (the grid itself is `dsl.settings_grid`).

Why here and not in the command: what the options mean (which story types "all-sets" and "both" stand for, which
search knobs a run fixes and which keep their defaults) belongs to the search; the command only parses and prints.
Bad values raise ValueError with the message the user sees.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from tombench.dsl import ACTION_SETS, Setting
from tombench.generators.exploretom.search.registry import build_method
from tombench.generators.exploretom.search.runner import RunConfig
from tombench.kit.options import in_shard

__all__ = ["ASYMMETRY", "story_types", "shard_grid", "run_config"]

#: --asymmetric: the story-type suffixes each choice searches
ASYMMETRY = {"plain": ("",), "asymmetric": ("+asymmetric",), "both": ("", "+asymmetric")}


def story_types(spec: str | Sequence[str], asymmetric: Literal["plain", "asymmetric", "both"],
                what: str = "story type(s)") -> list[str]:
    """The story types of `spec` ("all-sets", comma-separated action sets or a list of them, a "+asymmetric"
    suffix ignored), each plain, asymmetric or both, in order and without repeats; `what` names the option in the
    message for a bad value."""
    if asymmetric not in ASYMMETRY:
        raise ValueError(f"Invalid asymmetric value: {asymmetric!r}. Must be one of: {list(ASYMMETRY)}")
    given = [spec] if isinstance(spec, str) else list(spec)
    sets = [t.strip() for x in given for t in str(x).split(",") if t.strip()]
    sets = list(ACTION_SETS) if sets == ["all-sets"] else sets
    bad = [t for t in sets if t.removesuffix("+asymmetric") not in ACTION_SETS]
    if bad:
        raise ValueError(f"Invalid {what} {bad}. Must be one of: {list(ACTION_SETS)} or 'all-sets'")
    return list(dict.fromkeys(t.removesuffix("+asymmetric") + suffix for t in sets for suffix in ASYMMETRY[asymmetric]))


def shard_grid(settings: Sequence[Setting], shard: tuple[int, int]) -> tuple[list[int], list[Setting]]:
    """Shard (K, N) of the grid: the places (in the whole grid) and settings of every N-th setting from the K-th
    (`kit.options.in_shard`). The places go to `run_searches(setting_indices=...)`: a setting's slot contexts follow
    its place in the whole grid, so a shard searches exactly what the unsharded run searches for its settings."""
    picked = [(j, s) for j, s in enumerate(settings) if in_shard(j, shard)]
    return [j for j, _ in picked], [s for _, s in picked]


def run_config(*, method: str, stories_per_setting: int, budget: int, budget_per_setting: int | None = None,
               scope: str = "auto", seed: int = 0, model: str = "", contexts_id: str = "",
               **knobs: Any) -> RunConfig:
    """The run's configuration, the same for `tombench search` and the live task: method `method`
    (`registry.build_method`) with the search `knobs` it has (a knob given as None keeps the method's default, set
    in one place, with the method), `budget` per story."""
    search = build_method(method, budget=budget, **{k: v for k, v in knobs.items() if v is not None})
    return RunConfig(stories_per_setting=stories_per_setting, budget_per_story=budget,
                     budget_per_setting=budget_per_setting, seed=seed, search=search, model=model,
                     contexts_id=contexts_id, scope=scope)  # type: ignore[arg-type]
