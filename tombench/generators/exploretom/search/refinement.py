"""Improved mode's refinement: spend the rest of a search's budget on fresh stories and edits of the hardest
goals found so far, aimed at the set of stories the caller will keep (docs/search.md, "Improved mode").

Why: only desired stories can be returned, yet A* pays for the questions of every partial story on the way, and a
prefix's accuracy predicts its completions' only loosely. Here every call goes to a complete desired story, and what
made a goal hard (who missed which move, which container was mentioned first or last) lives in its actions.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from tombench.dsl import Conditions, Story, rollout
from tombench.generators.exploretom.search.diversity import select_distinct, shape_similarity, story_shape
from tombench.generators.exploretom.search.evaluator import (
    Evaluator,
    NodeEval,
    Rates,
    _expected_calls_of,
    _p_harder,
    _ranked_goals,
    _rates_of,
)

if TYPE_CHECKING:
    from tombench.generators.exploretom.search.astar import SearchConfig

__all__ = ["refine", "REFINE_PARENTS", "REFINE_FRESH", "REFINE_SCREEN", "DRAWS_PER_YIELD", "REFINE_PATIENCE",
           "REFINE_GIVE_UP", "REFINE_DIVERSITY"]

#: refinement: parents are drawn uniformly from this many hardest goals (few: the budget goes where it pays most)
REFINE_PARENTS = 3

#: refinement: share of children that are fresh random stories rather than edits of the hardest goals. Edits alone
#: get stuck around the first goals found (a local optimum: the hardest goals' neighbours are all as easy), fresh
#: stories alone are over-generation; half and half was best of 0, 0.25, 0.5 and 0.75 over 3 targets and 4 setting
#: samples (docs/search.md, "Improved mode")
REFINE_FRESH = 0.5

#: refinement: draws per child asked. Drawing a story costs no model call, so each round draws this many times the
#: children it asks and asks the most promising: the likeliest to beat the kept story they would replace, judged by
#: how often this target got each kind of question right so far (`_p_harder`). Against 8 (with the likeness
#: discount): kept stories at 0.191 against 0.201 on 7 settings against recency (4 run seeds), 0.126 against 0.134
#: on the random target's 4 open settings (12); 32 was better still (0.185, 0.112) but takes the CPU of a round
#: past a slow model's latency (docs/search.md)
REFINE_SCREEN = 16

#: refinement: draws between two hand-backs of the event loop (other settings' searches read their answers and send
#: their next questions meanwhile). 8 draws hold the loop for about a millisecond. The finer the searches
#: interleave, the more CPU they take: a 12-setting bench run took 110 s with no hand-back, 125 s with one every 8
#: draws and 133 s with one after every draw, at the same wall time against a 0.2 s model (1.23x vs 1.19-1.24x)
DRAWS_PER_YIELD = 8

#: refinement: consecutive draws that gave no fresh paying story (a repeat, not desired, or free) before it stops
REFINE_PATIENCE = 200

#: refinement: a child's questions stop early once going on is worth less than this times what the next child in
#: line would give per call (its chance of beating its bar over its expected calls; `_worth_going_on`). Against a
#: target that guesses, children of 9-12 yes/no questions that need at most 1-2 right answers to beat their bar
#: beat it 1.28-1.47x as often per call with this rule as when asked until they cannot (at 1.0 the rule is the
#: optimal stopping rule when every child is alike); 0 asks every child until it cannot beat its bar
REFINE_GIVE_UP = 1.0

def _drop_one(parent: Story, cond: Conditions, rng: random.Random) -> Story:
    """`parent` without one random action, replayed: later actions that became invalid are skipped (a rollout then
    completes it). Unlike a cut, this keeps the story's ending, where a recency-minded reader looks."""
    skip = rng.randrange(len(parent.steps))
    s = Story(parent.context)
    for i, a in enumerate(parent.actions):
        if i != skip:
            s.try_apply(a)
            if cond.never_desired(s):
                break
    return s


#: added to a pruning threshold to keep a child that *ties* the kept story it would replace (g = bar exactly):
#: worth asking when it is less alike the other kept stories (the selection takes the most different of equals)
_TIE = 1e-6

#: refinement: how much a child's similarity to the other kept stories discounts its promise (`refine`): between
#: two children predicted equally hard, ask the more different one first. A discount (promise x (1 - weight x
#: similarity)), not an added penalty: the chance per call is a few thousandths late in a search against a target
#: that guesses, and an added 0.25 x similarity ranked the children by likeness alone there
REFINE_DIVERSITY = 0.25


def _promise(per_call: float, close: float, cap: float) -> float:
    """A child's rank key in refinement (lower is asked first): its chance per call of beating its bar, discounted
    by its likeness to the other contexts' kept stories (`REFINE_DIVERSITY`); children above the similarity cap
    `cap` go after every other, since the selection could keep them only by dropping a kept story."""
    return -per_call * (1.0 - REFINE_DIVERSITY * close) + (2.0 if close > cap else 0.0)


class _Kept:
    """The goals the caller will keep so far (`select_distinct` over the ranked goals), and what follows from them.

    Refinement aims at the kept set, not at the hardest goals: with distinct contexts and a similarity cap, the
    hardest goals are often variants of one story of which only one can be kept.
    """

    def __init__(self, ev: Evaluator, config: SearchConfig, contexts: Sequence[str],
                 shapes: dict[int, frozenset[str]]) -> None:
        def shape_of(x: NodeEval) -> frozenset[str]:
            if x.index not in shapes:
                shapes[x.index] = story_shape(ev.desired[x.index])
            return shapes[x.index]

        self.ranked = _ranked_goals(ev.trace)
        self.ctx_of = {x.index: ev.desired[x.index].context.id for x in self.ranked}
        # no swaps: they change which equally hard stories are kept, not the accuracies the search aims at, and
        # measured, they moved the search's path more than they helped (families grid against recency: 0.016 ->
        # 0.028); the caller's final selection swaps
        self.goals = select_distinct(self.ranked, config.keep, context_of=lambda x: self.ctx_of[x.index],
                                     shape_of=shape_of, max_similarity=config.max_similarity, g_of=lambda x: x.g,
                                     swap=False)
        self.full = len(self.goals) >= config.keep
        kept_ctx = [self.ctx_of[x.index] for x in self.goals]
        #: each kept story has a context of its own (so a child can only replace the one of its own context)
        self.distinct = len(set(kept_ctx)) == len(kept_ctx)
        self.by_ctx = dict(zip(kept_ctx, self.goals, strict=True)) if self.distinct else {}
        self.worst = max((x.g for x in self.goals), default=None)
        # contexts whose slot can still get harder: no kept story yet, or one the target did not get all wrong
        self.open = [c for c in contexts if not self.distinct or c not in self.by_ctx or self.by_ctx[c].g > 0]
        self._shapes = [(self.ctx_of[x.index], shape_of(x)) for x in self.goals]
        # how alike each kept story is to the others: a tie that is less alike may replace it
        self._close = [self._closeness(c, sh, skip=i) for i, (c, sh) in enumerate(self._shapes)]

    def _closeness(self, ctx: str, sh: frozenset[str], skip: int = -1) -> float:
        return max((shape_similarity(sh, k) for i, (other, k) in enumerate(self._shapes)
                    if i != skip and (other != ctx or not self.distinct)), default=0.0)

    def closeness(self, story: Story) -> float:
        """The largest shape similarity of `story` to a kept story it would not replace (another context's, or any
        when contexts repeat). Above the cap, it could only be kept by pushing that one out."""
        return self._closeness(story.context.id, story_shape(story))

    def done(self) -> bool:
        """Every kept story is at accuracy 0: no child can make the kept set harder."""
        return self.full and self.worst is not None and self.worst <= 0.0

    def threshold(self, ctx: str, close: float = 1.0) -> float | None:
        """A child of context `ctx` (`close`: its `closeness`) is only worth its calls below this g (None: any goal
        is kept): below the g of the kept story it would replace, or equal to it when the child is less alike the
        other kept stories than that one (a tie that makes the set more diverse), and at 0 whenever that kept story
        is at 0 (the selection then picks the most different stories at 0 jointly).
        """
        if not self.full:
            return None
        if self.distinct and ctx in self.by_ctx:
            slot = next(i for i, (c, _) in enumerate(self._shapes) if c == ctx)
        else:  # the child can only push out the easiest kept story
            slot = max(range(len(self.goals)), key=lambda i: (self.goals[i].g, i))
        bar = self.goals[slot].g
        if bar <= 0.0:
            # the kept set cannot get harder here; another story at 0 may still make it more diverse (the
            # selection takes the most different of equally hard stories)
            return _TIE
        return bar + _TIE if close < self._close[slot] - 1e-9 else bar

    def parents(self, ev: Evaluator, rng: random.Random) -> list[Story]:
        """The parents for one edit: the hardest goals of the context of a kept story that can still improve."""
        if not self.goals:
            return []
        improvable = [x for x in self.goals if x.g > 0] or self.goals
        ctx = self.ctx_of[rng.choice(improvable).index]
        same = [x for x in self.ranked if self.ctx_of[x.index] == ctx] if self.distinct else self.ranked
        return [ev.desired[x.index] for x in same[:REFINE_PARENTS]]


async def refine(roots: Sequence[Story], cond: Conditions, ev: Evaluator, config: SearchConfig,
                 rng: random.Random, width: int) -> None:
    """Spend the rest of the budget on fresh stories and edits of the kept ones (improved mode).

    Why: only desired stories can be returned, yet A* pays for the questions of every partial story on the way, and
    a prefix's accuracy predicts its completions' only loosely. Here every call goes to a complete desired story, and
    what made a goal hard (who missed which move, which container was mentioned first or last) lives in its actions.
    An edit takes one of the REFINE_PARENTS hardest goals in the context of a kept story that can still get harder
    (`_Kept.parents`) and either keeps a random-length prefix and redraws the rest, or drops one action and keeps the
    rest (`_drop_one`); a random rollout completes it to a desired story. A share REFINE_FRESH of the children are
    fresh random stories instead (edits alone get stuck around the first goals), drawn in turn from the contexts
    (`roots`) whose slot can still improve; with no goal yet every child is one: the phase *is* over-generation
    then. Rounds of `4 * width` children are drawn before any is asked (deterministic for a seed whatever the order
    of responses) and asked together; with `prune` (calls budget), a child's questions stop once it cannot beat the
    kept story it would replace (`_Kept.threshold`), or once going on is worth less per call than the best draw
    left unasked (`REFINE_GIVE_UP`). Once every kept story is at accuracy 0 it draws fresh stories only and looks
    for other stories at 0 less alike the kept ones (`_Kept.threshold`), until the budget or its patience ends.
    """
    await _Refinement(roots, cond, ev, config, rng, width).run()


class _Draw(NamedTuple):
    """A child drawn and screened for a round, not asked yet."""

    child: Story
    #: what asking it would use of the budget
    cost: int
    #: its rank key, lower asked first (`_promise`)
    promise: float
    #: the g it must stay below to be kept (`_Kept.threshold`; None: any goal is kept)
    bar: float | None
    #: its chance of beating `bar` per expected call (`_p_harder`)
    per_call: float


class _Refinement:
    """One search's refinement (`refine`): what carries over from round to round.

    The fruitless draws in a row (`REFINE_PATIENCE` ends it), the fresh stories drawn (they take the open contexts
    in turn), the draws since the start (the event loop is handed back every DRAWS_PER_YIELD), and the goals' shapes
    (computed once)."""

    def __init__(self, roots: Sequence[Story], cond: Conditions, ev: Evaluator, config: SearchConfig,
                 rng: random.Random, width: int) -> None:
        self.roots = list(roots)
        self.root_of = {r.context.id: r for r in roots}
        self.cond, self.ev, self.config, self.rng = cond, ev, config, rng
        self.want = 4 * width
        self.prune = config.prune and config.budget_unit == "calls"
        self.misses = 0
        self.fresh_drawn = 0
        self.attempts = 0
        self.shapes: dict[int, frozenset[str]] = {}

    async def run(self) -> None:
        while self.ev.used < self.config.budget and self.misses < REFINE_PATIENCE:
            kept = _Kept(self.ev, self.config, list(self.root_of), self.shapes)
            rates = Rates(self.ev.trace)
            pool = await self._draw_round(kept, rates)
            batch, limits, give_up = self._pick(pool)
            if not batch:
                break
            before = self.ev.used
            await self.ev.evaluate_pruned(batch, self.rng, limits, give_up, rates)  # nothing was asked since `rates`
            if self.ev.used == before:
                self.misses += len(batch)  # every child pruned before its first question: count them as fruitless draws

    async def _draw_round(self, kept: _Kept, rates: Rates) -> list[_Draw]:
        """`screen` times the round's children, drawn before any is asked (deterministic for a seed whatever the
        order of responses), each screened (`_screen`)."""
        # once the kept stories are all at accuracy 0 no child makes them harder; the rest of the budget looks for
        # other stories at 0 that are less alike (the selection takes the most different of equally hard ones)
        done = kept.done()
        open_roots = [self.root_of[c] for c in kept.open] or self.roots
        pool: list[_Draw] = []
        texts: set[str] = set()
        while len(pool) < self.config.screen * self.want and self.misses < REFINE_PATIENCE:
            # a round's draws take a while: let the event loop hand other searches' answers back and send their
            # next questions every few draws (nothing of this search changes meanwhile: its questions are in)
            self.attempts += 1
            if self.attempts % DRAWS_PER_YIELD == 0:
                await asyncio.sleep(0)
            child = self._draw(kept, done, open_roots)
            # most draws are not desired: test that before joining the story's text
            if not self.cond.is_desired(child) or (text := child.text) in self.ev.cache or text in texts:
                self.misses += 1
                continue
            draw = self._screen(child, kept, rates)
            if draw is None:
                self.misses += 1  # it would replace a story at accuracy 0 without being more different: useless
                continue
            # free stories (no questions, shortcut) cannot end the phase
            self.misses = self.misses + 1 if draw.cost == 0 else 0
            pool.append(draw)
            texts.add(text)
        return pool

    def _draw(self, kept: _Kept, done: bool, open_roots: Sequence[Story]) -> Story:
        """One child, completed by a random rollout (only desired children are kept): a fresh story of the next open
        context, or an edit of one of the hardest goals (one action dropped, or cut at a random point)."""
        # once every kept story is at 0 only diversity can improve, and edits are near copies: fresh stories only
        parents = [] if done else kept.parents(self.ev, self.rng)
        if not parents or (REFINE_FRESH and self.rng.random() < REFINE_FRESH):
            child = Story(open_roots[self.fresh_drawn % len(open_roots)].context)
            self.fresh_drawn += 1
        elif self.rng.random() < 0.5:
            child = _drop_one(self.rng.choice(parents), self.cond, self.rng)
        else:
            parent = self.rng.choice(parents)
            child = Story(parent.context, parent.actions[: self.rng.randrange(len(parent.steps))])
        return rollout(child, self.cond, self.rng, copy=False, skip_doomed=True)

    def _screen(self, child: Story, kept: _Kept, rates: Rates) -> _Draw | None:
        """A fresh desired child's bar and promise, predicted from this target's answers so far; None when it could
        only replace a kept story at accuracy 0 without being more different."""
        close = kept.closeness(child)
        qs, bar = self.ev.plan(child)[0], kept.threshold(child.context.id, close)
        if bar is not None and bar <= 0.0:
            return None
        ps = _rates_of(child, qs, rates)  # each question's rate, once for both estimates
        per_call = _p_harder(ps, bar) / max(_expected_calls_of(ps, bar), 1.0)
        return _Draw(child, self.ev.cost(child), _promise(per_call, close, self.config.max_similarity), bar, per_call)

    def _pick(self, pool: list[_Draw]) -> tuple[list[Story], list[float | None], float]:
        """The round's children to ask, most promising first (draw order on ties) within the budget, their pruning
        bars, and what the best draw left unasked would give per call (`REFINE_GIVE_UP`)."""
        batch: list[Story] = []
        limits: list[float | None] = []
        planned = self.ev.used
        order = sorted(range(len(pool)), key=lambda i: (pool[i].promise, i))
        for i in order:
            if len(batch) >= self.want or planned >= self.config.budget:
                break
            batch.append(pool[i].child)
            limits.append(pool[i].bar if self.prune else None)
            planned += pool[i].cost
        # a child's questions stop early when going on pays less per call than the next child in line would
        # (the best one drawn and not asked): the budget goes where a kept story is likeliest to get harder
        give_up = REFINE_GIVE_UP * pool[order[len(batch)]].per_call if len(order) > len(batch) else 0.0
        return batch, limits, give_up
