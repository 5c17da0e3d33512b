"""A search run from its user-facing options (`tombench search`): the story types, the grid of settings, the
run's configuration.

Why here and not in the command: what the options mean (which story types "all-sets" and "both" stand for, which
search knobs a run fixes and which keep their defaults) belongs to the search; the command only parses and prints.
Bad values raise ValueError with the message the user sees.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from tombench.dsl import ACTION_SETS, Setting
from tombench.generators.exploretom.search.astar import SearchConfig
from tombench.generators.exploretom.search.runner import RunConfig
from tombench.kit.options import in_shard

__all__ = ["ASYMMETRY", "story_types", "setting_grid", "shard_grid", "run_config"]

#: --asymmetric: the story-type suffixes each choice searches
ASYMMETRY = {"plain": ("",), "asymmetric": ("+asymmetric",), "both": ("", "+asymmetric")}


def story_types(spec: str, asymmetric: Literal["plain", "asymmetric", "both"]) -> list[str]:
    """The story types of `spec` ("all-sets" or comma-separated action sets, a "+asymmetric" suffix ignored), each
    plain, asymmetric or both, in order and without repeats."""
    sets = list(ACTION_SETS) if spec == "all-sets" else [t.strip() for t in spec.split(",") if t.strip()]
    bad = [t for t in sets if t.removesuffix("+asymmetric") not in ACTION_SETS]
    if bad:
        raise ValueError(f"Invalid story type(s) {bad}. Must be one of: {list(ACTION_SETS)}")
    return list(dict.fromkeys(t.removesuffix("+asymmetric") + suffix for t in sets for suffix in ASYMMETRY[asymmetric]))


def setting_grid(types: Sequence[str], people: Sequence[int], moves: Sequence[int],
                 rooms: int | None = None) -> list[Setting]:
    """Every setting of the grid, story type first, then people, then moves (the order the run searches them)."""
    return [Setting.make(t, p, m, rooms) for t in types for p in people for m in moves]


def shard_grid(settings: Sequence[Setting], shard: tuple[int, int]) -> tuple[list[int], list[Setting]]:
    """Shard (K, N) of the grid: the places (in the whole grid) and settings of every N-th setting from the K-th
    (`kit.options.in_shard`). The places go to `run_searches(setting_indices=...)`: a setting's slot contexts follow
    its place in the whole grid, so a shard searches exactly what the unsharded run searches for its settings."""
    picked = [(j, s) for j, s in enumerate(settings) if in_shard(j, shard)]
    return [j for j, _ in picked], [s for _, s in picked]


def run_config(*, stories_per_setting: int, budget: int, budget_unit: str, budget_per_setting: int | None,
               method: str, mode: str, refine: float | None, prune: bool, scope: str, max_similarity: float | None,
               g: str, k: int, check: str, seed: int, model: str, contexts_id: str) -> RunConfig:
    """The run's configuration; `refine` and `max_similarity` None keep `SearchConfig`'s defaults (set in one place,
    with the search)."""
    search = SearchConfig(k=k, budget=budget, g=g, check=check, mode=mode,  # type: ignore[arg-type]
                          budget_unit=budget_unit, prune=prune,  # type: ignore[arg-type]
                          **({} if refine is None else {"refine": refine}),
                          **({} if max_similarity is None else {"max_similarity": max_similarity}))
    return RunConfig(stories_per_setting=stories_per_setting, budget_per_story=budget,
                     budget_per_setting=budget_per_setting, seed=seed, method=method,  # type: ignore[arg-type]
                     search=search, model=model, contexts_id=contexts_id, scope=scope)  # type: ignore[arg-type]
