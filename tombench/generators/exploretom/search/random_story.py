"""One random story, the floor of the search methods (semantics §7.5): one desired random story of the setting,
evaluated once; what a random story of the setting costs the model (a goal only if the model got something wrong).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar

from tombench.dsl import Conditions, Context, Setting, random_story
from tombench.generators.exploretom.search.evaluator import Answerer, EvalConfig, Evaluator
from tombench.generators.exploretom.search.method import BaseMethod, Scope, SearchResult

__all__ = ["RandomStory", "random_baseline"]


@dataclass(frozen=True)
class RandomStory(BaseMethod):
    """One random story as a method (`method.SearchMethod`): the shared evaluation knobs only; one story per slot,
    in the slot's context."""

    name: ClassVar[str] = "random"
    variants: ClassVar[Mapping[str, Mapping[str, Any]]] = MappingProxyType({"random": MappingProxyType({})})

    def scopes(self) -> tuple[Scope, ...]:
        return ("story",)

    async def search(self, setting: Setting, contexts: Sequence[Context], answer: Answerer, budget: int,
                     rng: random.Random) -> SearchResult:
        return await random_baseline(setting, contexts[0], answer, rng, self)


async def random_baseline(
    setting: Setting,
    context: Context,
    answer: Answerer,
    rng: random.Random,
    config: EvalConfig | None = None,
) -> SearchResult:
    """One desired random story, evaluated once (at most one budget unit)."""
    config = config or RandomStory()
    cond = Conditions.of(setting)
    ev = Evaluator(cond, answer, config)
    s = random_story(context, setting, rng)
    node = None
    if s is not None:
        (node,) = await ev.evaluate_many([s], rng)
    return SearchResult(
        method="random",
        setting=setting.id,
        story=s,
        node=node,
        nodes_evaluated=ev.spent,
        model_calls=ev.model_calls,
        trace=ev.trace,
        goals=[(s, node)] if s is not None and node is not None and node.is_goal else [],
    )
