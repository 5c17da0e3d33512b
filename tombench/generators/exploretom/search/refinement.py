"""Improved mode's refinement: spend the rest of a search's budget on fresh stories and edits of the hardest
goals found so far, aimed at the set of stories the caller will keep (docs/explanation/search.md, "Improved mode").

Why: only desired stories can be returned, yet A* pays for the questions of every partial story on the way, and a
prefix's accuracy predicts its completions' only loosely. Here every call goes to a complete desired story, and what
made a goal hard (who missed which move, which container was mentioned first or last) lives in its actions.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from typing import Literal, NamedTuple, Protocol

from tombench.dsl import Conditions, Question, Story, rollout
from tombench.dsl.deferred import belief_free
from tombench.generators.exploretom.search.diversity import select_distinct, shape_similarity, story_shape
from tombench.generators.exploretom.search.evaluator import (
    Evaluator,
    NodeEval,
    QKey,
    Rates,
    expected_calls_of,
    p_harder,
    qkey,
    ranked_goals,
)


class RefineKnobs(Protocol):
    """What refinement reads of its search's config (A*'s improved mode passes its own)."""

    @property
    def budget(self) -> int: ...
    @property
    def budget_unit(self) -> Literal["nodes", "calls"]: ...
    @property
    def keep(self) -> int: ...
    @property
    def prune(self) -> bool: ...
    @property
    def screen(self) -> int: ...
    @property
    def max_similarity(self) -> float: ...

__all__ = ["refine", "RefineKnobs", "REFINE_PARENTS", "REFINE_FRESH", "REFINE_SCREEN", "DRAWS_PER_YIELD", "REFINE_PATIENCE",
           "REFINE_GIVE_UP", "REFINE_DIVERSITY", "REFINE_TOPUP", "REFINE_POOL_AGE"]

#: refinement: parents are drawn uniformly from this many hardest goals (few: the budget goes where it pays most)
REFINE_PARENTS = 3

#: refinement: share of children that are fresh random stories rather than edits of the hardest goals. Edits alone
#: get stuck around the first goals found (a local optimum: the hardest goals' neighbours are all as easy), fresh
#: stories alone are over-generation; half and half was best of 0, 0.25, 0.5 and 0.75 over 3 targets and 4 setting
#: samples (docs/explanation/search.md, "Improved mode")
REFINE_FRESH = 0.5

#: refinement: screened draws per child asked that a round chooses from. Drawing a story costs no model call, so
#: each round asks the most promising of its pool (up to this many per child asked): the likeliest to beat the
#: kept story they would replace, judged by how often this target got each kind of question right so far
#: (`p_harder`). Measured when every round drew all of them anew, against 8 (with the likeness discount): kept
#: stories at 0.191 against 0.201 on 7 settings against recency (4 run seeds), 0.126 against 0.134 on the random
#: target's 4 open settings (12); 32 was better still (0.185, 0.112) but takes the CPU of a round past a slow
#: model's latency (docs/design-notes/search.md). Rounds now draw REFINE_TOPUP per child asked and carry the rest over
REFINE_SCREEN = 16

#: refinement: new screened draws per child asked that each round adds to the pool (at most `screen`). The pool
#: keeps the unasked draws of earlier rounds (up to `screen` per child asked, REFINE_POOL_AGE rounds at most),
#: re-ranked every round against the kept set and rates of that round, so a round draws this many per child asked
#: instead of `screen`: the CPU of the draws (rollouts are most of improved mode's CPU) falls with it
#: (docs/design-notes/search.md, "The pool"; docs/design-notes/scale.md). On average: a round draws
#: int(top-up x children asked).
#: Why 3.5: the smallest top-up whose kept stories stay as hard as a full top-up's on held-out seeds (fewer
#: draws save CPU but lose hardness); the measurements are in docs/design-notes/search.md, "The top-up"
REFINE_TOPUP = 3.5

#: refinement: rounds a draw stays in the pool unasked before it is dropped (the kept set and the rates it was
#: ranked by have moved on; an edit's parent may no longer be kept)
REFINE_POOL_AGE = 8

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
    return _dropped(parent, cond, rng.randrange(len(parent.steps)))


def _dropped(parent: Story, cond: Conditions, skip: int) -> Story:
    """`parent` replayed without its action `skip` (`_drop_one`; `_Edits` keeps it to copy from)."""
    s = Story(parent.context)
    for i, a in enumerate(parent.actions):
        if i != skip:
            s.try_apply(a)
            if cond.never_desired(s):
                break
    return s


class _Edits:
    """The edits of the hardest goals replayed once each, copied for every child drawn from them.

    Why: an edit (a cut at k, or action `skip` dropped) depends on its parent and that number alone, and the few
    parents (REFINE_PARENTS per open context) give the same edits again and again; replaying one through the
    tracker cost more than copying it, and in a belief-free action set (`belief_free`: no tells) the copy defers
    its beliefs to the replay of the rollout's own actions (`Story.copy(defer_beliefs=True)`, `tombench.dsl.deferred`)
    and copies no belief store at all. The copies are the stories the replay gave: same steps, same state.
    """

    #: edits kept at most (the parents change as the search goes; a cleared cache only replays again)
    LIMIT = 1024

    def __init__(self, cond: Conditions) -> None:
        self.cond = cond
        self.defer = belief_free(cond.aset.allowed)
        self._made: dict[tuple[int, str, int], tuple[Story, Story]] = {}

    def cut(self, parent: Story, k: int) -> Story:
        """A copy of `parent`'s first `k` actions."""
        return self._copy(parent, "cut", k)

    def drop(self, parent: Story, skip: int) -> Story:
        """A copy of `parent` without its action `skip` (`_dropped`)."""
        return self._copy(parent, "drop", skip)

    def _copy(self, parent: Story, how: str, n: int) -> Story:
        key = (id(parent), how, n)
        hit = self._made.get(key)
        if hit is None or hit[0] is not parent:
            if len(self._made) >= self.LIMIT:
                self._made.clear()
            made = Story(parent.context, parent.actions[:n]) if how == "cut" else _dropped(parent, self.cond, n)
            hit = self._made[key] = (parent, made)
        return hit[1].copy(defer_beliefs=self.defer)


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

    def __init__(self, ev: Evaluator, config: RefineKnobs, contexts: Sequence[str],
                 shapes: dict[int, frozenset[str]]) -> None:
        def shape_of(x: NodeEval) -> frozenset[str]:
            if x.index not in shapes:
                shapes[x.index] = story_shape(ev.desired[x.index])
            return shapes[x.index]

        self.ranked = ranked_goals(ev.trace)
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
        #: what a draw's closeness depends on: equal keys, equal closeness (the pool re-ranks carried draws by it)
        self.key = (self.distinct, tuple(x.index for x in self.goals))
        # how alike each kept story is to the others: a tie that is less alike may replace it
        self._close = [self._closeness(c, sh, skip=i) for i, (c, sh) in enumerate(self._shapes)]

    def _closeness(self, ctx: str, sh: frozenset[str], skip: int = -1) -> float:
        return max((shape_similarity(sh, k) for i, (other, k) in enumerate(self._shapes)
                    if i != skip and (other != ctx or not self.distinct)), default=0.0)

    def closeness(self, ctx: str, shape: frozenset[str]) -> float:
        """The largest shape similarity of a story of context `ctx` and shape `shape` to a kept story it would not
        replace (another context's, or any when contexts repeat). Above the cap, it could only be kept by pushing
        that one out."""
        return self._closeness(ctx, shape)

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


async def refine(roots: Sequence[Story], cond: Conditions, ev: Evaluator, config: RefineKnobs,
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
    then. Each round adds REFINE_TOPUP draws per child it asks to a pool of screened draws not asked yet (drawn
    before any is asked: deterministic for a seed whatever the order of responses), ranks the whole pool against
    the kept set and rates of the round, and asks its `4 * width` most promising together; the rest wait, up to
    REFINE_POOL_AGE rounds and `screen` per child asked (drawing is most of the CPU: the pool spends about a fifth of
    the draws that drawing `screen` anew every round did; docs/design-notes/scale.md). With `prune` (calls budget), a child's questions stop once it cannot beat the
    kept story it would replace (`_Kept.threshold`), or once going on is worth less per call than the best draw
    left unasked (`REFINE_GIVE_UP`). Once every kept story is at accuracy 0 it draws fresh stories only and looks
    for other stories at 0 less alike the kept ones (`_Kept.threshold`), until the budget or its patience ends.
    """
    await _Refinement(roots, cond, ev, config, rng, width).run()


class _Draw(NamedTuple):
    """A pooled draw screened for this round (`_Refinement._rank`)."""

    entry: _Entry
    #: its rank key, lower asked first (`_promise`)
    promise: float
    #: the g it must stay below to be kept (`_Kept.threshold`; None: any goal is kept)
    bar: float | None
    #: its chance of beating `bar` per expected call (`p_harder`)
    per_call: float


class _Entry:
    """A desired child drawn and not asked yet, with what screening it needs and what does not change while it
    waits in the pool: its text, cost, shape and question keys, and its closeness to the kept set it was last
    ranked against (recomputed only when the kept set changes)."""

    __slots__ = ("child", "ctx", "text", "cost", "shape", "keys", "seq", "born", "close_key", "close")

    def __init__(self, child: Story, text: str, ev: Evaluator, seq: int, born: int) -> None:
        self.child, self.ctx, self.text = child, child.context.id, text
        self.cost = ev.cost(child)
        self.shape = story_shape(child)
        self.keys = _keys(child, text, ev.plan(child)[0])
        #: draw order (ties in the ranking go to the earlier draw) and the round it was drawn in
        self.seq, self.born = seq, born
        self.close_key: object = None
        self.close = 0.0


def _keys(story: Story, text: str, qs: Sequence[Question]) -> tuple[QKey, ...]:
    """`qkey` of each of `story`'s questions `qs`, with the story's text (`text`) joined once, not once per question:
    refinement keys every question of every story it pools (a dozen per story). A tuple: `_rank` looks it up."""
    return tuple(qkey(q, story, text) for q in qs)


class _Refinement:
    """One search's refinement (`refine`): what carries over from round to round.

    The pool of screened draws not asked yet (each round tops it up with REFINE_TOPUP per child asked and asks the
    most promising of all of it), the fruitless draws in a row (`REFINE_PATIENCE` ends it), the fresh stories drawn
    (they take the open contexts in turn), the draws since the start (the event loop is handed back every
    DRAWS_PER_YIELD), and the goals' shapes (computed once)."""

    def __init__(self, roots: Sequence[Story], cond: Conditions, ev: Evaluator, config: RefineKnobs,
                 rng: random.Random, width: int) -> None:
        self.roots = list(roots)
        self.root_of = {r.context.id: r for r in roots}
        self.cond, self.ev, self.config, self.rng = cond, ev, config, rng
        self.want = 4 * width
        self.prune = config.prune and config.budget_unit == "calls"
        self.misses = 0
        self.fresh_drawn = 0
        self.attempts = 0
        self.rounds = 0
        self.drawn = 0
        self.pool: list[_Entry] = []
        self.texts: set[str] = set()
        self.shapes: dict[int, frozenset[str]] = {}
        self.edits = _Edits(cond)
        #: the trace nodes `_update` has read, and what it made of them
        self.seen = 0
        self.kept: _Kept | None = None
        self.rates: Rates | None = None

    async def run(self) -> None:
        while self.ev.used < self.config.budget and self.misses < REFINE_PATIENCE:
            kept, rates = self._update()
            self._expire()
            await self._top_up(kept)
            ranked = self._rank(kept, rates)
            batch, limits, give_up = self._pick(ranked)
            self.rounds += 1
            if not batch:
                break
            before = self.ev.used
            await self.ev.evaluate_pruned(batch, self.rng, limits, give_up, rates)  # nothing was asked since `rates`
            if self.ev.used == before:
                self.misses += len(batch)  # every child pruned before its first question: count them as fruitless draws

    def _update(self) -> tuple[_Kept, Rates]:
        """This round's kept set and rates, from the nodes the trace gained since the last round (every one of them
        answered: a round awaits its questions). Why: both were rebuilt from the whole trace every round, a few
        percent of improved mode's CPU; the kept set depends on the goals alone, and most rounds add none (their
        children are pruned), and the rates are counts, which add up."""
        new = self.ev.trace[self.seen:]
        self.seen += len(new)
        if self.kept is None or any(x.is_goal for x in new):
            self.kept = _Kept(self.ev, self.config, list(self.root_of), self.shapes)
        self.rates = Rates(new) if self.rates is None else self.rates.plus(new)
        return self.kept, self.rates

    def _expire(self) -> None:
        """Drop the pooled draws older than REFINE_POOL_AGE rounds (before the top-up: a new draw may repeat one)."""
        self.pool = [e for e in self.pool if self.rounds - e.born < REFINE_POOL_AGE]
        self.texts = {e.text for e in self.pool}

    async def _top_up(self, kept: _Kept) -> None:
        """Add REFINE_TOPUP (at most `screen`) new desired draws per child asked to the pool, drawn before any is
        asked (deterministic for a seed whatever the order of responses)."""
        # once the kept stories are all at accuracy 0 no child makes them harder; the rest of the budget looks for
        # other stories at 0 that are less alike (the selection takes the most different of equally hard ones)
        done = kept.done()
        open_roots = [self.root_of[c] for c in kept.open] or self.roots
        new = 0
        while new < int(min(self.config.screen, REFINE_TOPUP) * self.want) and self.misses < REFINE_PATIENCE:
            # a round's draws take a while: let the event loop hand other searches' answers back and send their
            # next questions every few draws (nothing of this search changes meanwhile: its questions are in)
            self.attempts += 1
            if self.attempts % DRAWS_PER_YIELD == 0:
                await asyncio.sleep(0)
            child = self._draw(kept, done, open_roots)
            # most draws are not desired: test that before joining the story's text
            if not self.cond.is_desired(child) or (text := child.text) in self.ev.cache or text in self.texts:
                self.misses += 1
                continue
            entry = _Entry(child, text, self.ev, self.drawn, self.rounds)
            self.drawn += 1
            # free stories (no questions, shortcut) cannot end the phase
            self.misses = self.misses + 1 if entry.cost == 0 else 0
            self.pool.append(entry)
            self.texts.add(text)
            new += 1

    def _draw(self, kept: _Kept, done: bool, open_roots: Sequence[Story]) -> Story:
        """One child, completed by a random rollout (only desired children are kept): a fresh story of the next open
        context, or an edit of one of the hardest goals (one action dropped, or cut at a random point)."""
        # once every kept story is at 0 only diversity can improve, and edits are near copies: fresh stories only
        parents = [] if done else kept.parents(self.ev, self.rng)
        if not parents or (REFINE_FRESH and self.rng.random() < REFINE_FRESH):
            child = Story(open_roots[self.fresh_drawn % len(open_roots)].context)
            self.fresh_drawn += 1
        elif self.rng.random() < 0.5:  # `_drop_one`, its replay copied (`_Edits`)
            parent = self.rng.choice(parents)
            child = self.edits.drop(parent, self.rng.randrange(len(parent.steps)))
        else:
            parent = self.rng.choice(parents)
            child = self.edits.cut(parent, self.rng.randrange(len(parent.steps)))
        return rollout(child, self.cond, self.rng, copy=False, skip_doomed=True)

    def _rank(self, kept: _Kept, rates: Rates) -> list[_Draw]:
        """Every pooled draw screened against this round's kept set and rates (`_screen`), most promising first
        (draw order on ties); those past `screen` per child asked leave the pool."""
        ranked: list[_Draw] = []
        # a draw's chance per call depends on its question keys and its bar alone, and within a round most pooled
        # draws share both with another: computed once per pair
        per_call: dict[tuple[tuple[QKey, ...], float | None], float] = {}
        for e in self.pool:
            ranked.append(self._screen(e, kept, rates, per_call))
        ranked.sort(key=lambda d: (d.promise, d.entry.seq))
        del ranked[self.config.screen * self.want:]
        self.pool = [d.entry for d in ranked]
        self.texts = {e.text for e in self.pool}
        return ranked

    def _screen(self, e: _Entry, kept: _Kept, rates: Rates,
                known: dict[tuple[tuple[QKey, ...], float | None], float] | None = None) -> _Draw:
        """A pooled child's bar and promise, predicted from this target's answers so far (`rates`). Every child can
        pay: where the kept story it would replace is at accuracy 0, its bar lets only another story at 0 through
        (`_Kept.threshold`), and the selection keeps the most different of those. `known`: the chances per call
        already worked out at these rates, by (keys, bar)."""
        if e.close_key != kept.key:
            e.close, e.close_key = kept.closeness(e.ctx, e.shape), kept.key
        bar = kept.threshold(e.ctx, e.close)
        per_call = None if known is None else known.get((e.keys, bar))
        if per_call is None:
            ps = [rates.get(k) for k in e.keys]  # each question's rate, once for both estimates
            per_call = p_harder(ps, bar) / max(expected_calls_of(ps, bar), 1.0)
            if known is not None:
                known[(e.keys, bar)] = per_call
        return _Draw(e, _promise(per_call, e.close, self.config.max_similarity), bar, per_call)

    def _pick(self, ranked: list[_Draw]) -> tuple[list[Story], list[float | None], float]:
        """The round's children to ask, most promising first within the budget (`ranked` is in that order), their
        pruning bars, and what the best draw left unasked would give per call (`REFINE_GIVE_UP`); the asked leave
        the pool."""
        batch: list[Story] = []
        limits: list[float | None] = []
        planned = self.ev.used
        asked = 0
        for d in ranked:
            if len(batch) >= self.want or planned >= self.config.budget:
                break
            batch.append(d.entry.child)
            limits.append(d.bar if self.prune else None)
            planned += d.entry.cost
            asked += 1
        # a child's questions stop early when going on pays less per call than the next child in line would
        # (the best one drawn and not asked): the budget goes where a kept story is likeliest to get harder
        give_up = REFINE_GIVE_UP * ranked[asked].per_call if len(ranked) > asked else 0.0
        for d in ranked[:asked]:
            self.texts.discard(d.entry.text)
        del self.pool[:asked]
        return batch, limits, give_up
