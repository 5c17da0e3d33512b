"""A* adversarial story search (ExploreToM, Sclar et al. 2024, arXiv:2412.12175, §2.3; semantics §7).

The search grows story structures action by action and asks a target model the stories' belief questions, looking
for a story that satisfies the setting (isDesired) and that the model gets wrong (g < 1). The cost g is the model's
accuracy, the heuristic h the share of random completions that end up desired, so the frontier is ordered by "hard
and close to a valid story".

    import asyncio, random
    from tombench.dsl import DEFAULT_CONTEXT, Setting
    from tombench.generators.exploretom.search.astar import AStar, astar_search

    async def answer(prompts):            # the target model: one response per prompt, asked concurrently
        ...
    result = asyncio.run(astar_search(Setting.make("tomi", 2, 2), DEFAULT_CONTEXT, answer, AStar(), random.Random(0)))
    result.to_dict()

Two modes:

* ``paper``: exactly the loop of semantics §7.4; returns the *first* goal popped, or None.
* ``improved``: spends the whole budget and returns the hardest desired story evaluated (lowest g, ties broken by
  more interesting questions, then by evaluation order), every distinct goal ranked in `SearchResult.goals`. The
  first ``1 - refine`` of the budget runs the paper's loop without stopping at goals (restarting from the empty story
  when the frontier runs dry); the rest *refines*: children of the hardest goals found so far, cut at a random
  point or with one action dropped, completed by a random rollout to a desired story (`refinement.refine`). The default,
  ``refine=1``, is all refinement, seeded by over-generation: measured, it beats both over-generation and the A*
  frontier at equal model calls (docs/explanation/search.md). With ``refine=0`` the draws are identical to paper mode's up to
  the point where paper mode returns, so that story's g is an upper bound for the improved one.

This module is pure asyncio: the target model is any `Answerer` (an async callable from prompts to responses), so
the search is testable offline and knows nothing of Inspect. Concurrency and response caching are the answerer's job;
the search asks all questions of one node in one call, and the nodes it evaluates after one expansion in parallel.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, ClassVar, Literal

from tombench.dsl import Conditions, Context, Rollouts, Setting, Story, setting_context
from tombench.generators.exploretom.search.evaluator import (
    SENTINEL_G,
    Answerer,
    Evaluator,
    NodeEval,
    check_choice,
    ranked_goals,
)
from tombench.generators.exploretom.search.method import BaseMethod, Scope, SearchResult
from tombench.generators.exploretom.search.refinement import REFINE_SCREEN, refine

__all__ = ["AStar", "SearchMode", "WeightScheme", "astar_search", "setting_contexts", "RESTART_PATIENCE"]

WeightScheme = Literal["weight-goal4", "weight-goal5", "random"]
SearchMode = Literal["paper", "improved"]

#: improved mode: consecutive fruitless restarts from the empty story before giving up (as §7.5's 10 searches)
RESTART_PATIENCE = 10


@dataclass(frozen=True)
class AStar(BaseMethod):
    """The A* search as a method (`method.SearchMethod`): its knobs; the defaults are the paper's (semantics
    §7.3-7.5)."""

    name: ClassVar[str] = "astar"
    variants: ClassVar[Mapping[str, Mapping[str, Any]]] = MappingProxyType({
        "paper": MappingProxyType({"mode": "paper"}), "improved": MappingProxyType({"mode": "improved"})})

    #: actions added by one neighbour rollout
    k: int = 3
    #: neighbour ordering weights
    weights: WeightScheme = "weight-goal4"
    #: hard cap on heap pops, so a search always ends
    max_pops: int = 5000
    mode: SearchMode = "paper"
    #: improved mode only: nodes expanded per round, their children evaluated together. 1 is the paper's loop; more
    #: keeps a slow model's connections busy (a round asks up to width x 2n nodes' questions at once) at the price
    #: of a less greedy frontier order; deterministic either way
    expand_width: int = 1
    #: improved mode only: share of the budget spent refining instead of expanding the A* frontier: cut one of the
    #: hardest goals found so far at a random point and complete the prefix with a random rollout to a desired story
    #: (see `refinement.refine`). 0 gives the pure A* improved loop
    refine: float = 1.0
    #: improved mode only: how many of the hardest goals the caller keeps (a setting-scoped run keeps one per story
    #: slot); refinement prunes against the `keep`-th hardest
    keep: int = 1
    #: improved mode, "calls" budget only: refinement asks a child's questions in small steps, likeliest-correct
    #: first, and stops as soon as the child can no longer beat the `keep`-th hardest goal (`Evaluator.evaluate_pruned`)
    prune: bool = True
    #: improved mode only: refinement chooses the children it asks among up to this many screened draws per child
    #: asked (its pool; each round adds min(screen, REFINE_TOPUP) new ones per child asked) and asks the likeliest
    #: to beat the kept stories (`p_harder`); 1 asks every draw (no screening)
    screen: int = REFINE_SCREEN

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("k", "expand_width", "keep", "screen"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if not 0.0 <= self.refine <= 1.0:
            raise ValueError(f"refine must be between 0 and 1, got {self.refine}")
        check_choice("weights", self.weights, ("weight-goal4", "weight-goal5", "random"))
        check_choice("mode", self.mode, ("paper", "improved"))

    def scopes(self) -> tuple[Scope, ...]:
        """Improved mode keeps its N hardest of one long search (setting); the paper's search finds one story."""
        return ("setting", "story") if self.mode == "improved" else ("story",)

    def budget_blind(self) -> bool:
        """Paper mode looks at its budget only to stop planning; improved mode refines until it."""
        return self.mode == "paper"

    def for_setting(self, keep: int, expand_width: int) -> AStar:
        return replace(self, keep=keep, **({"expand_width": expand_width} if self.mode == "improved" else {}))

    def record(self, setting_scoped: bool) -> dict[str, Any]:
        d = super().record(setting_scoped)
        if self.mode != "improved":
            del d["refine"], d["prune"], d["screen"]  # improved-mode knobs: meaningless here
        elif self.budget_unit != "calls":
            del d["prune"]  # saves calls only: meaningless with a node budget
        del d["keep"]  # set per search from stories_per_setting (setting scope), never by the user
        if self.expand_width == 1:
            del d["expand_width"]  # the default
        return d

    async def search(self, setting: Setting, contexts: Sequence[Context], answer: Answerer, budget: int,
                     rng: random.Random) -> SearchResult:
        return await astar_search(setting, contexts, answer, replace(self, budget=budget), rng)


def _branching(g: float) -> int:
    """n: how many children to evaluate, more below a hard parent (root g = 0 gives 5, the sentinel g = 2 gives 1)."""
    return 5 if g <= 0.5 else 3 if g <= 0.75 else 1


def _features(story: Story, cond: Conditions) -> tuple[int, int, int, int]:
    """(diff, imp, people, rooms) counts used by the neighbour weights."""
    imp, diff, _, _ = cond.counts(story)
    return diff, imp, len(story.state.people), len(story.state.rooms_involved)


def _child_features(parent: tuple[int, int, int, int], child: Story, base_steps: int,
                    cond: Conditions) -> tuple[int, int, int, int]:
    """`_features(child, cond)` for a child that extends the parent of features `parent` (its first `base_steps`
    steps): the differentiating steps counted on the added steps only."""
    diff = parent[0] + cond.count_differentiating(child.steps[base_steps:])
    return diff, child.num_important, len(child.state.people), len(child.state.rooms_involved)


def _weight(parent: tuple[int, int, int, int], child: tuple[int, int, int, int], cond: Conditions, scheme: WeightScheme) -> float:
    if scheme == "random":
        return 1.0
    st = cond.setting
    diff, imp, people, rooms = parent
    w = (
        cond.aset.diff_weight * (child[0] - diff) * (diff == 0)
        + (child[1] - imp) * (imp < st.moves)
        + (child[2] - people) * (people < st.people)
        + (child[3] - rooms) * (rooms < st.rooms)
    )
    return float(w * w if scheme == "weight-goal5" else w)


def _weighted_order(items: list[Story], weights: list[float], rng: random.Random, limit: int) -> list[Story]:
    """Up to `limit` items drawn by weighted sampling without replacement; weight-0 items are never drawn."""
    pool = [(x, w) for x, w in zip(items, weights, strict=True) if w > 0]
    out: list[Story] = []
    while pool and len(out) < limit:
        total = sum(w for _, w in pool)
        r = rng.random() * total
        acc = 0.0
        j = len(pool) - 1
        for i, (_, w) in enumerate(pool):
            acc += w
            if r < acc:
                j = i
                break
        out.append(pool.pop(j)[0])
    return out


def _neighbours(story: Story, cond: Conditions, config: AStar, n: int, rng: random.Random) -> list[Story]:
    """50n rollouts of at most k actions (stopping at S); keep new, not never-desired, distinct children, ordered.

    Children are told apart by the text of their added steps (they all begin with `story`'s, so equal added text is
    equal text) and weighed by features counted on the added steps only: the parent's part is the same for all
    (the same children, order and draws as rendering and counting each child whole)."""
    base_steps = len(story.steps)
    seen: set[str] = set()
    children: list[Story] = []
    # the rollouts share their first draws, and one that would end never-desired is cut short (an int: dropped
    # anyway); the same draws as `rollout` (`Rollouts`)
    batch = Rollouts(story, cond, max_actions=config.k, skip_doomed=True)
    for _ in range(50 * n):
        c = batch.draw(rng)
        if type(c) is int or len(c.steps) == base_steps or cond.never_desired(c):
            continue
        t = " ".join([x for step in c.steps[base_steps:] for x in step.sentences])
        if t in seen:
            continue
        seen.add(t)
        children.append(c)
    pf = _features(story, cond)
    weights = [_weight(pf, _child_features(pf, c, base_steps, cond), cond, config.weights) for c in children]
    return _weighted_order(children, weights, rng, 2 * n)


def setting_contexts(context: Context | Sequence[Context], setting: Setting, rng: random.Random) -> list[Context]:
    """One context or several, each restricted to the setting's names (`setting_context`), in order."""
    many = [context] if isinstance(context, Context) else list(context)
    if not many:
        raise ValueError("no context to build stories from")
    return [setting_context(c, setting, rng) for c in many]


class _Frontier:
    """The A* open list: entries keyed (f, g, avglen, push order), the story of each kept aside (semantics §7.4).

    The push order breaks every tie, so the order of pops, and with it the search, is the same for a seed."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.heap: list[tuple[float, float, float, int, NodeEval | None]] = []
        self.stories: dict[int, Story] = {}
        self.counter = 0
        self.pops = 0
        self._fruitless_restarts = 0
        self._spent_at_restart = 0
        self.push_root()

    def push_root(self) -> None:
        """The empty story, not evaluated: f = 0 puts it first."""
        self._push(Story(self.ctx), (0.0, 0.0, 0.0), None)

    def push(self, story: Story, node: NodeEval) -> None:
        self._push(story, (node.f, node.g, node.avglen), node)

    def _push(self, story: Story, key: tuple[float, float, float], node: NodeEval | None) -> None:
        self.stories[self.counter] = story
        heapq.heappush(self.heap, (*key, self.counter, node))
        self.counter += 1

    def pop(self) -> tuple[float, Story, NodeEval | None]:
        """The entry of lowest f: its g (the parent's accuracy sets the branching), story and evaluation."""
        _, g, _, key, node = heapq.heappop(self.heap)
        self.pops += 1
        return g, self.stories.pop(key), node

    def restart(self, spent: int) -> bool:
        """Improved mode, when the frontier ran dry with budget left (rollouts stop at S, so small settings exhaust it
        after a few levels): start again from the empty story, as §7.5 starts a new search. False, pushing nothing,
        after RESTART_PATIENCE restarts in a row that spent nothing (`spent`: node evaluations so far)."""
        self._fruitless_restarts = 0 if spent > self._spent_at_restart else self._fruitless_restarts + 1
        if self._fruitless_restarts >= RESTART_PATIENCE:
            return False
        self._spent_at_restart = spent
        self.push_root()
        return True


class _Round:
    """The children of one round's parents, planned before any is evaluated, with the budget the round may still use.

    Which children are evaluated depends only on the draws and their question sets, never on responses, so the
    result is the same for a seed; the round then evaluates every fresh child at once."""

    def __init__(self, ev: Evaluator, budget: int) -> None:
        self.ev = ev
        self.budget = budget
        self.spend = ev.used
        self.texts: set[str] = set()
        #: per parent, (child, its cached evaluation or None)
        self.batches: list[list[tuple[Story, NodeEval | None]]] = []

    @property
    def full(self) -> bool:
        """The round already plans the rest of the budget."""
        return self.spend >= self.budget

    def add(self, children: Sequence[Story], n: int) -> None:
        """One parent's children, in order, until `n` of them are evaluations (`_branching`) or the budget is planned.

        A cache hit is pushed again with its cached g and h, spends nothing, and counts as one of the n evaluations
        (semantics §7.3: g/h are cached per story text); a text another parent of the round already plans is left out.
        """
        batch: list[tuple[Story, NodeEval | None]] = []
        real = 0
        for c in children:
            if c.text in self.texts:
                continue
            hit = self.ev.cache.get(c.text)
            batch.append((c, hit))
            if hit is not None:
                real += hit.g != SENTINEL_G
            else:
                self.texts.add(c.text)
                if self.ev.plan(c)[1]:
                    real += 1
                    self.spend += self.ev.cost(c)
            if real >= n or self.full:
                break
        self.batches.append(batch)

    async def evaluate(self, frontier: _Frontier, rng: random.Random) -> None:
        """Evaluate the round's fresh children together and push every child with its g and h."""
        fresh = iter(await self.ev.evaluate_many([c for b in self.batches for c, hit in b if hit is None], rng))
        for batch in self.batches:
            for c, hit in batch:
                frontier.push(c, hit if hit is not None else next(fresh))


def _pop_round(frontier: _Frontier, plan: _Round, cond: Conditions, config: AStar, rng: random.Random,
               width: int) -> NodeEval | None:
    """Pop until `width` expandable nodes (1 in paper mode: exactly §7.4) and plan their children into `plan`; in
    paper mode, the first goal popped, which ends the search."""
    while frontier.heap and len(plan.batches) < width and frontier.pops < config.max_pops:
        if plan.batches and plan.full:
            break
        g, s, node = frontier.pop()
        if node is not None and node.is_goal and config.mode == "paper":
            return node
        if cond.structural(s) or cond.never_desired(s) or plan.full:
            continue  # full: drain, a goal already pushed may still be returned
        n = _branching(g)
        plan.add(_neighbours(s, cond, config, n, rng), n)
    return None


async def _frontier_search(frontier: _Frontier, cond: Conditions, ev: Evaluator, config: AStar,
                           rng: random.Random) -> NodeEval | None:
    """The A* loop (semantics §7.4). Paper mode: the first goal popped, or None. Improved mode: the loop without
    stopping at goals (they are all in the trace), over its share `1 - refine` of the budget, `expand_width` nodes
    a round, restarting from the empty story when the frontier runs dry; None."""
    improved = config.mode == "improved"
    width = config.expand_width if improved else 1
    budget = config.budget - (round(config.budget * config.refine) if improved else 0)
    while frontier.pops < config.max_pops:
        if improved and ev.used >= budget:
            break  # nothing left to learn: every evaluated node is already in the trace
        if not frontier.heap and not (improved and frontier.restart(ev.spent)):
            break
        plan = _Round(ev, budget)
        goal = _pop_round(frontier, plan, cond, config, rng, width)
        if goal is not None:
            return goal
        await plan.evaluate(frontier, rng)
    return None


async def astar_search(
    setting: Setting,
    context: Context | Sequence[Context],
    answer: Answerer,
    config: AStar | None = None,
    rng: random.Random | None = None,
) -> SearchResult:
    """Search one story for `setting` that the target model `answer` gets wrong (semantics §7.4).

    Every random draw comes from `rng` (the setting's names too, when `context` is the built-in default), so the
    same seed and the same answers give the same result. `context` is restricted to the setting's names first.
    Several contexts: the A* frontier grows in the first; improved mode's refinement draws its fresh stories from
    all of them in turn (so the kept stories can each have a context of their own).
    """
    config = config or AStar()
    rng = rng if rng is not None else random.Random(0)
    cond = Conditions.of(setting)
    ctxs = setting_contexts(context, setting, rng)
    ev = Evaluator(cond, answer, config)
    frontier = _Frontier(ctxs[0])
    found = await _frontier_search(frontier, cond, ev, config, rng)
    goals = [found] if found is not None else []
    if config.mode == "improved":
        await refine([Story(c) for c in ctxs], cond, ev, config, rng, config.expand_width)
        goals = ranked_goals(ev.trace)
        found = goals[0] if goals else None
    return SearchResult(
        method=f"astar-{config.mode}",
        setting=setting.id,
        story=None if found is None else ev.desired[found.index],
        node=found,
        nodes_evaluated=ev.spent,
        model_calls=ev.model_calls,
        pops=frontier.pops,
        trace=ev.trace,
        goals=[(ev.desired[x.index], x) for x in goals],
    )
