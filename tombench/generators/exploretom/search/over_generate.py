"""Over-generation, the paper's baseline for the A* search (ExploreToM §2.3; semantics §7.5): the same budget, no
search.

Draw desired random stories (rollouts from the empty story with stop = S, retried until isDesired), evaluate each
once, keep the one the model does worst on, even if it answers everything right: the paper's "over-generate and
filter" comparison. Only stories the model got wrong count as found: they are the result's `goals` (hardest first),
which is what the runner writes and what fill counts. Budget is spent exactly as the search spends it (one unit per
evaluated story, nothing for a repeated text or an empty question set) through the search's own `Evaluator`, so the
rows compare directly.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, ClassVar

from tombench.dsl import Conditions, Context, Setting, Story, random_story
from tombench.generators.exploretom.search.evaluator import Answerer, EvalConfig, Evaluator, NodeEval, ranked_goals
from tombench.generators.exploretom.search.method import BaseMethod, Scope, SearchResult

__all__ = ["OverGenerate", "over_generate", "pick_hardest"]


@dataclass(frozen=True)
class OverGenerate(BaseMethod):
    """Over-generation as a method (`method.SearchMethod`): the shared evaluation knobs only.

    Story scope is the paper's (one draw set per story slot); setting scope pools one setting's budget and keeps its
    N hardest distinct stories, the fair comparison for improved A*."""

    name: ClassVar[str] = "over-generate"
    variants: ClassVar[Mapping[str, Mapping[str, Any]]] = MappingProxyType({"over-generate": MappingProxyType({})})

    def scopes(self) -> tuple[Scope, ...]:
        return ("story", "setting")

    async def search(self, setting: Setting, contexts: Sequence[Context], answer: Answerer, budget: int,
                     rng: random.Random) -> SearchResult:
        return await over_generate(setting, contexts, answer, budget, rng, replace(self, budget=budget))


def pick_hardest(nodes: list[NodeEval]) -> NodeEval | None:
    """Lowest g (the sentinel g = 2 sorts last), then more interesting questions, then the earliest drawn."""
    if not nodes:
        return None
    return min(nodes, key=lambda x: (x.g, -x.num_interesting, x.index))


async def over_generate(
    setting: Setting,
    context: Context | Sequence[Context],
    answer: Answerer,
    budget: int,
    rng: random.Random,
    config: EvalConfig | None = None,
    *,
    max_draws: int | None = None,
) -> SearchResult:
    """Draw desired random stories until `budget` units are planned; evaluate them all at once; keep the hardest.

    The cost of a story (its question count, or one node) is known before the model is asked, so the draws are
    planned first, exactly as a one-at-a-time loop would make them (stop once the planned spend reaches `budget`;
    the last story may overshoot by its own cost, as a node of the search does), and then evaluated concurrently:
    a slow model gets every prompt of the batch at once instead of one story's prompts at a time. `max_draws`
    (default 10 x budget) bounds the draws when repeats and empty question sets spend nothing. `config` supplies
    the g variant, the check mode and the lookahead used for the recorded h; its `budget` is ignored. Several
    contexts: the draws take them in turn, so a pooled run can keep stories of distinct contexts.
    """
    config = config or OverGenerate()
    cond = Conditions.of(setting)
    ev = Evaluator(cond, answer, config)
    contexts = [context] if isinstance(context, Context) else list(context)
    if not contexts:
        raise ValueError("no context to build stories from")
    max_draws = 10 * max(budget, 1) if max_draws is None else max_draws
    draws = 0
    planned = ev.used
    batch: list[Story] = []
    seen: set[str] = set()
    while planned < budget and draws < max_draws:
        s = random_story(contexts[draws % len(contexts)], setting, rng)
        draws += 1
        if s is None:
            break
        if s.text in seen:
            continue
        seen.add(s.text)
        batch.append(s)
        planned += ev.cost(s)
    await ev.evaluate_many(batch, rng)
    best = pick_hardest(ev.trace)
    return SearchResult(
        method="over-generate",
        setting=setting.id,
        story=None if best is None else ev.desired[best.index],
        node=best,
        nodes_evaluated=ev.spent,
        model_calls=ev.model_calls,
        trace=ev.trace,
        goals=[(ev.desired[x.index], x) for x in ranked_goals(ev.trace)],
    )


