"""Random story sampling: `sample_action`, `rollout`, `random_story` (semantics §7.2).

`sample_action` picks an allowed action type uniformly, enumerates its argument tuples in context order and takes a
uniformly random one that the tracker accepts (a lazy Fisher–Yates draw: the same distribution as "shuffle, apply
the first accepted", with fewer precondition checks). All randomness comes from the `random.Random` passed in.
The action types' pieces are in `tombench.dsl.catalogue`, the setting predicates in `tombench.dsl.conditions`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from tombench.dsl.action_sets import Setting
from tombench.dsl.catalogue import NO_TYPES, Kind, candidate_actions, candidate_tuples, fast_valid, kind_of, record
from tombench.dsl.conditions import Conditions, doomed_now, setting_context
from tombench.dsl.context import Context
from tombench.dsl.story import Story
from tombench.dsl.tracker import Step

__all__ = [
    "Conditions",
    "setting_context",
    "candidate_actions",
    "sample_action",
    "candidate_tuples",
    "fast_valid",
    "rollout",
    "extend",
    "random_story",
    "MAX_FAILED_STEPS",
    "DOOMED",
]

#: a rollout gives up after this many consecutive steps in which no sampled action type had a valid tuple
MAX_FAILED_STEPS = 50

#: what `_sample_of_type` returns when the drawn action would make the story never-desired (see `extend`)
DOOMED = object()


def sample_action(
    story: Story,
    allowed: tuple[str, ...] | list[str],
    rng: random.Random,
    exhausted: set[str] | None = None,
    cache: dict[str, list[tuple]] | None = None,
) -> Step | None:
    """Apply one random valid action of a uniformly chosen allowed type; None (story unchanged) if that type has none.

    `exhausted` (optional) remembers the types found to have no valid tuple in the *current* state, so a rollout does
    not enumerate them again until the story changes; `cache` (optional) keeps the argument tuples of the types that
    do not depend on the state, for one context. Neither changes which actions are drawn.

    Random numbers consumed: one for the type, then one per drawn tuple until one is valid (or none is left), exactly
    as when drawing among the action records and calling `check`: the fast tests only make each draw cheaper.
    """
    name = allowed[int(rng.random() * len(allowed))]
    if exhausted is not None and name in exhausted:
        return None
    return _sample_of_type(story, name, kind_of(name), rng.random, exhausted, cache)


def _sample_of_type(
    story: Story,
    name: str,
    kind: Kind,
    rand: Callable[[], float],
    exhausted: set[str] | None,
    cache: dict[str, list[tuple]] | None,
    doomed: frozenset[str] = NO_TYPES,
) -> Step | None | object:
    """The part of `sample_action` after the type is drawn (and found not exhausted); `rand` is `rng.random`.

    When the type is in `doomed` (see `extend`), a valid draw is not applied: `DOOMED` is returned instead, with
    the same random numbers consumed.
    """
    build, enumerate_cands, valid, static, _, validator, hopeless = kind  # one unpacking, not six attribute reads
    if hopeless is not None:
        n = hopeless(story)
        if n is not None:
            # no candidate can be valid: the draw below would reject all n, one random number each
            for _ in range(n):
                rand()
            if exhausted is not None:
                exhausted.add(name)
            return None
    if cache is not None and static:
        cands = cache.get(name)
        if cands is None:
            cands = cache[name] = enumerate_cands(story)
        cands = list(cands)
    else:
        cands = enumerate_cands(story)
    st = story.state
    if validator is not None:
        valid = validator(st)
    n = len(cands)
    while n:
        # lazy Fisher–Yates: draw among the n not yet rejected, move a rejected one out of the live prefix
        j = int(rand() * n)
        args = cands[j]
        if valid(st, args):
            if name in doomed:
                return DOOMED
            # valid == (check is None): checking again would be redundant
            step = story._commit(record(story.context, name, build, args))
            if exhausted:
                exhausted.clear()
            return step
        n -= 1
        cands[j] = cands[n]
    if exhausted is not None:
        exhausted.add(name)
    return None


def rollout(
    story: Story,
    conditions: Conditions,
    rng: random.Random,
    *,
    stop: Callable[[Story], bool] | None = None,
    max_actions: int | None = None,
    copy: bool = True,
    skip_doomed: bool = False,
) -> Story:
    """Extend (a copy of) `story` with random actions until `stop` (default: S), N, `max_actions` added actions,
    or MAX_FAILED_STEPS consecutive failed steps.

    `skip_doomed` (stop S only, the default): a drawn action that would make the story never-desired is not applied and
    ends the rollout (see `extend`), so such a story comes back one action short and still not desired; same
    random numbers, same desired stories. For callers that keep only desired rollouts.
    """
    # an action set without tells never reads a belief while drawing: defer them (see `tombench.dsl.deferred`)
    defer = conditions.defer
    if copy:
        s = story.copy(defer_beliefs=defer)
    else:
        s = story
        if defer:
            s.defer_beliefs()
    if stop is None or stop == conditions.structural:
        # S or N is `finished` whatever the stop S (its docstring): the counters decide without `structural`
        finished = conditions.finished
    elif skip_doomed:
        raise ValueError("skip_doomed needs the default stop (S or N)")
    else:
        user_stop, never = stop, conditions.never_desired

        def finished(x: Story) -> bool:
            return user_stop(x) or never(x)

    extend(s, conditions, rng.random, finished, math.inf if max_actions is None else max_actions, skip_doomed)
    return s


def extend(
    s: Story,
    conditions: Conditions,
    rand: Callable[[], float],
    finished: Callable[[Story], bool],
    limit: float,
    skip_doomed: bool = False,
) -> str | None:
    """The loop of `rollout`, extending `s` in place. Returns the type of the doomed draw it stopped at, else None.

    With `skip_doomed` (for callers whose `finished` is S or N and which keep only desired stories, or only count the
    others: `random_story`, refinement, the search's `Rollouts` batches), a drawn valid action that would make the
    story never-desired is not applied: the rollout ends there, with the random numbers it would have consumed (N
    ends it anyway), and `s` lacks that last action. About 84% of all+asymmetric rollouts from the empty story end
    that way (a second modified action), and applying the action costs more than drawing it.
    """
    allowed = conditions.aset.allowed
    kinds = conditions.kinds
    n_allowed = len(allowed)
    if skip_doomed:
        doomed_sets = conditions.doomed_sets
        moves = conditions.setting.moves
        near_limit = conditions.setting.max_sentences - 2  # a modified action (2 sentences) from here overflows
        doomed = doomed_now(s, conditions)
    else:
        doomed = NO_TYPES
    failures = 0
    added = 0
    exhausted: set[str] = set()
    cache = s.context.memo.static
    # `added` changes only with the story, so the limit is tested with the predicates
    done = finished(s) or added >= limit
    while not done:
        # `sample_action`, with the type drawn here so that an exhausted type costs no function call
        i = int(rand() * n_allowed)
        name = allowed[i]
        if name in exhausted or (step := _sample_of_type(s, name, kinds[i], rand, exhausted, cache, doomed)) is None:
            failures += 1
            if failures >= MAX_FAILED_STEPS:
                break
        elif step is DOOMED:
            return name
        else:
            failures = 0
            added += 1
            done = finished(s) or added >= limit  # predicates of the story: re-evaluated only when it changed
            if skip_doomed:  # `doomed_now`, inlined: this runs after every applied action
                doomed = doomed_sets[2 * (s._imp >= moves) + (s._mods >= 1 or s._length > near_limit)]
    return None


def random_story(
    context: Context,
    setting: Setting,
    rng: random.Random,
    *,
    max_tries: int = 1000,
    desired: bool = True,
) -> Story | None:
    """A random story for `setting` (rollout from empty with stop = S), retried until isDesired when `desired`."""
    cond = Conditions.of(setting)
    for _ in range(max_tries):
        ctx = setting_context(context, setting, rng)
        s = Story(ctx)
        # with `desired`, a rollout that a doomed draw ends (never-desired) is dropped unfinished: see `extend`
        if extend(s, cond, rng.random, cond.finished, math.inf, skip_doomed=desired):
            continue
        if not desired or cond.is_desired(s):
            return s
    return None
