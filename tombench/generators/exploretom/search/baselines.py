"""Baselines for the A* story search (ExploreToM §2.3 and semantics §7.5): the same budget, no search.

* `over_generate`: draw desired random stories (rollouts from the empty story with stop = S, retried until
  isDesired), evaluate each once, keep the one the model does worst on, even if it answers everything right. This is
  the paper's "over-generate and filter" comparison. Only stories the model got wrong count as found: they are the
  result's `goals` (hardest first), which is what the runner writes and what fill counts.
* `random_baseline`: one desired random story, evaluated once: what a random story of the setting costs the model
  (a goal only if the model got something wrong).

Both spend budget exactly as the search does (one unit per evaluated story, nothing for a repeated text or an empty
question set) through the search's own `Evaluator`, and return a `SearchResult`, so their rows compare directly.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from tombench.dsl import Conditions, Context, Setting, Story, random_story
from tombench.generators.exploretom.search.astar import SearchConfig, SearchResult
from tombench.generators.exploretom.search.evaluator import Answerer, Evaluator, NodeEval, _ranked_goals

__all__ = ["over_generate", "random_baseline"]


def _pick_hardest(nodes: list[NodeEval]) -> NodeEval | None:
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
    config: SearchConfig | None = None,
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
    config = config or SearchConfig()
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
    best = _pick_hardest(ev.trace)
    return SearchResult(
        method="over-generate",
        setting=setting.id,
        story=None if best is None else ev.desired[best.index],
        node=best,
        nodes_evaluated=ev.spent,
        model_calls=ev.model_calls,
        trace=ev.trace,
        goals=[(ev.desired[x.index], x) for x in _ranked_goals(ev.trace)],
    )


async def random_baseline(
    setting: Setting,
    context: Context,
    answer: Answerer,
    rng: random.Random,
    config: SearchConfig | None = None,
) -> SearchResult:
    """One desired random story, evaluated once (at most one budget unit)."""
    config = config or SearchConfig()
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
