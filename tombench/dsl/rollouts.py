"""Many rollouts from one story, cheaper: the A* search's lookahead and neighbour batches.

Paper A* draws 50 lookahead rollouts from each evaluated story and 50n neighbour rollouts from each expanded one,
about 45 rollouts per model call. Every rollout of such a batch starts in the same state, so everything its draws
read until its first applied action is the same for the whole batch: each type's candidate tuples, which of them
are valid there (or that none can be: the hopeless test), and the child story that the drawn action gives. `Rollouts`
computes each of these once per batch, on first use, and each rollout then draws its first action with the same
random numbers as `rollout` but without testing a candidate, and starts from a copy of the cached child instead of a
copy of the root with the action applied to it. From there the rollout is `rollout`'s loop (`sampler.extend`).

With `skip_doomed`, a drawn action that would make the story never-desired (N) is not applied and ends the rollout
(see `sampler.extend`), with the same random numbers consumed: `draw` then returns the length in sentences the
never-desired story would have had instead of a story. The lookahead reads only "desired?" and that length, the
neighbours drop never-desired children, so neither changes; 30-40% of the search's rollouts end that way.

tests/dsl/test_rollouts.py pins every draw to `rollout`'s: the same stories (or lengths) and random-generator states.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from tombench.dsl.action_sets import PEEKING
from tombench.dsl.catalogue import NO_TYPES, record
from tombench.dsl.conditions import Conditions, doomed_now
from tombench.dsl.sampler import MAX_FAILED_STEPS, extend
from tombench.dsl.story import Story

__all__ = ["Rollouts"]

#: a type's first draw at the root: (the number of candidates, the candidates with None in place of each invalid one,
#: which of _NONE, _ALL or _SOME of them are valid, whether its action would be doomed); with _ALL the list is the
#: candidates themselves (read only)
_First = tuple[int, list, int, bool]
_NONE, _ALL, _SOME = 0, 1, 2


def doomed_length(story: Story, name: str) -> int:
    """The length of `story` with one more action of type `name` applied (a modified one adds two sentences)."""
    return len(story) + (2 if name.endswith(PEEKING) else 1)


class Rollouts:
    """Rollouts from `story` stopping at S or N (`Conditions.finished`), each of at most `max_actions` actions.

    `draw(rng)` is `rollout(story, conditions, rng, max_actions=max_actions)`: the same random numbers consumed, the
    same story returned; with `skip_doomed`, an int (the never-desired story's length) where that story would be
    never-desired because of its last action. `story` must not change while the batch is drawn.
    """

    __slots__ = ("story", "cond", "allowed", "kinds", "limit", "skip_doomed", "defer", "done", "doomed", "_first",
                 "_children", "_cache")

    def __init__(self, story: Story, conditions: Conditions, *, max_actions: int | None = None,
                 skip_doomed: bool = False) -> None:
        self.story = story
        self.cond = conditions
        self.allowed = conditions.aset.allowed
        self.kinds = conditions.kinds
        self.limit = math.inf if max_actions is None else max_actions
        self.skip_doomed = skip_doomed
        self.defer = conditions.defer
        #: the root is finished already (or no action may be added): every rollout is a plain copy, nothing drawn
        self.done = conditions.finished(story) or self.limit <= 0
        self.doomed = doomed_now(story, conditions) if skip_doomed else NO_TYPES
        #: by type index, built on the type's first draw
        self._first: list[_First | None] = [None] * len(self.allowed)
        #: (type index, argument tuple) -> (the root with that action applied, whether that child is finished)
        self._children: dict[tuple[int, tuple], tuple[Story, bool]] = {}
        self._cache = story.context.memo.static

    def draw(self, rng: random.Random) -> Story | int:
        """One rollout: a new story, or with `skip_doomed` the length of a never-desired one (see the class)."""
        if self.done:
            return self.story.copy(defer_beliefs=self.defer)
        rand = rng.random
        first = self._first_action(rand)
        if first is None:  # MAX_FAILED_STEPS failed draws in the root's state
            return self.story.copy(defer_beliefs=self.defer)
        if type(first) is int:
            return doomed_length(self.story, self.allowed[first])
        child, finished = first
        s = child.copy()
        if finished or self.limit <= 1:
            return s
        doomed = extend(s, self.cond, rand, self.cond.finished, self.limit - 1, self.skip_doomed)
        return s if doomed is None else doomed_length(s, doomed)

    def _first_action(self, rand: Callable[[], float]) -> tuple[Story, bool] | int | None:
        """`extend`'s draws up to the first valid action, in the root's state: its cached child (and whether that
        is finished), the type's index if the action is doomed, or None after MAX_FAILED_STEPS failed draws.

        A type with a valid candidate at the root is never exhausted there; one without is, after its first draw
        (one random number per candidate, as the Fisher–Yates draw rejects each), so only those are remembered."""
        firsts = self._first
        n_allowed = len(firsts)
        exhausted: list[int] = []
        for _ in range(MAX_FAILED_STEPS):
            i = int(rand() * n_allowed)
            first = firsts[i]
            if first is None:
                first = self._first_of(i)
            n, marked, which, doomed = first
            if which == _ALL:  # the first drawn is accepted
                args = marked[int(rand() * n)]
            elif which == _SOME:
                args = _pick_some(n, marked, rand)
            else:
                if i not in exhausted:
                    for _ in range(n):
                        rand()
                    exhausted.append(i)
                continue
            if doomed:
                return i
            hit = self._children.get((i, args))
            return hit if hit is not None else self._child(i, args)
        return None

    def _first_of(self, i: int) -> _First:
        """A type's candidates at the root and which are valid, as `sampler._sample_of_type` would find them."""
        build, enumerate_cands, valid, static, _, validator, hopeless = self.kinds[i]
        name = self.allowed[i]
        story = self.story
        if hopeless is not None and (n := hopeless(story)) is not None:
            out: _First = (n, [], _NONE, False)
        else:
            if static:
                cands = self._cache.get(name)
                if cands is None:
                    cands = self._cache[name] = enumerate_cands(story)
            else:
                cands = enumerate_cands(story)
            st = story.state
            if validator is not None:
                valid = validator(st)
            marked = [args if valid(st, args) else None for args in cands]
            n_invalid = marked.count(None)
            n = len(cands)
            doomed = name in self.doomed
            # (no candidate at all: none valid, no random number drawn)
            if n and not n_invalid:
                out = (n, cands, _ALL, doomed)
            else:
                out = (n, marked, _NONE if n_invalid == n else _SOME, doomed)
        self._first[i] = out
        return out

    def _child(self, i: int, args: tuple) -> tuple[Story, bool]:
        """The root with action (type i, args) applied, and whether it is finished (built once per batch)."""
        child = self.story.copy(defer_beliefs=self.defer)
        child._commit(record(self.story.context, self.allowed[i], self.kinds[i].build, args))
        hit = self._children[(i, args)] = (child, self.cond.finished(child))
        return hit


def _pick_some(n: int, marked: list, rand: Callable[[], float]) -> tuple:
    """The argument tuple a lazy Fisher–Yates draw accepts (`sampler._sample_of_type`) among `marked`, some of which
    are valid: the same random numbers, one per candidate drawn, with the validity known beforehand."""
    marked = list(marked)
    while True:
        j = int(rand() * n)
        args = marked[j]
        if args is not None:
            return args
        n -= 1
        marked[j] = marked[n]
