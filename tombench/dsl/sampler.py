"""Random story sampling and the setting predicates (semantics §7.1–7.2).

`sample_action` picks an allowed action type uniformly, enumerates its argument tuples in context order and takes a
uniformly random one that the tracker accepts (a lazy Fisher–Yates draw: the same distribution as "shuffle, apply
the first accepted", with fewer precondition checks). All randomness comes from the `random.Random` passed in.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from tombench.dsl.action_sets import PEEKING, ActionSet, Setting, action_set
from tombench.dsl.actions import (
    Action,
    EnterRoom,
    Fact,
    LeaveRoom,
    MoveObjectContainer,
    MoveObjectRoom,
    TellPrivate,
    TellPublic,
    UpdateObjectState,
    action_name,
)
from tombench.dsl.context import DEFAULT_CONTEXT, Context
from tombench.dsl.story import Story
from tombench.dsl.tracker import Step
from tombench.dsl.values import CONTAINER, ROOM, is_concrete

__all__ = [
    "Conditions",
    "setting_context",
    "candidate_actions",
    "sample_action",
    "rollout",
    "random_story",
    "MAX_FAILED_STEPS",
]

#: a rollout gives up after this many consecutive steps in which no sampled action type had a valid tuple
MAX_FAILED_STEPS = 50


def setting_context(context: Context, setting: Setting, rng: random.Random) -> Context:
    """The names a setting's story may use: the first p people, m containers, r rooms (§6).

    With the built-in default context, people, containers and rooms are sampled with `rng` instead.
    """
    if context is DEFAULT_CONTEXT or context.id == "default":
        people = tuple(rng.sample(context.people, min(setting.people, len(context.people))))
        containers = tuple(rng.sample(context.containers, min(setting.moves, len(context.containers))))
        rooms = tuple(rng.sample(context.rooms, min(setting.rooms, len(context.rooms))))
        return context._replace_unchecked(people=people, rooms=rooms, containers=containers)
    return context.restrict(people=setting.people, rooms=setting.rooms, containers=setting.moves)


@dataclass(frozen=True)
class Conditions:
    """The structural predicates of a setting (§7.1), evaluated on a story."""

    setting: Setting
    aset: ActionSet

    @classmethod
    def of(cls, setting: Setting) -> Conditions:
        return cls(setting, action_set(setting.story_type))

    def counts(self, s: Story) -> tuple[int, int, int, int]:
        """(important, differentiating, modified, sentences)."""
        diff_names = self.aset.differentiating
        diff = sum(1 for st in s.steps if action_name(st.action) in diff_names)
        return s.num_important, diff, s.num_modified, len(s)

    def structural(self, s: Story) -> bool:
        """S(s): imp = m, diff >= 1, enough people and rooms, at most one modifier (at least one if asymmetric)."""
        st = self.setting
        if s.num_important != st.moves or s.num_modified > 1:
            return False
        if self.aset.asymmetric and s.num_modified < 1:
            return False
        if len(s.state.people) < st.people or len(s.state.rooms_involved) < st.rooms:
            return False
        diff_names = self.aset.differentiating
        return any(action_name(x.action) in diff_names for x in s.steps)

    def is_desired(self, s: Story) -> bool:
        return len(s) <= self.setting.max_sentences and self.structural(s)

    def never_desired(self, s: Story) -> bool:
        """N(s): no extension of s can become desired."""
        n = len(s)
        mx = self.setting.max_sentences
        if s.num_important > self.setting.moves or s.num_modified > 1 or n > mx:
            return True
        return n == mx and not self.structural(s)


def _modifier_options(st: Story, actor: str, W: list[str], people: tuple[str, ...]) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    ks = [k for k in people if k not in W and k != actor]
    ds = [d for d in W if d != actor]
    opts: list[tuple[tuple[str, ...], tuple[str, ...]]] = [((k,), ()) for k in ks]
    opts += [((), (d,)) for d in ds]
    opts += [((k,), (d,)) for k in ks for d in ds]
    return opts


def candidate_actions(story: Story, name: str) -> list[Action]:
    """Every argument tuple of action type `name` in context order (validity is checked by the caller)."""
    ctx = story.context
    people = ctx.people
    st = story.state
    peeking = name.endswith(PEEKING)
    base = name.removesuffix(PEEKING)
    out: list[Action] = []
    if base == "enter_room":
        out = [EnterRoom(p, r) for p in people for r in ctx.rooms]
    elif base == "leave_room":
        w = st.world
        out = [LeaveRoom(p, w[(p, ROOM)]) for p in st.people if is_concrete(w.get((p, ROOM)))]  # type: ignore[arg-type]
    elif base == "move_object_container":
        out = [MoveObjectContainer(p, o, c) for p in people for o in ctx.objects for c in ctx.containers]
    elif base == "update_object_state":
        out = [UpdateObjectState(p, o, sc) for p in people for o in ctx.objects for sc in ctx.state_changes]
    elif base == "move_object_room":
        out = [MoveObjectRoom(p, o, r) for p in people for o in ctx.objects for r in ctx.rooms]
    elif base == "privately_tell_about_abstract_topic":
        out = [TellPrivate(p, q, t) for p in people for q in people if p != q for t in ctx.topics]
    elif base == "publicly_tell_about_abstract_topic":
        out = [TellPublic(p, t) for p in people for t in ctx.topics]
    elif base.endswith("_location"):
        prop = CONTAINER if "container" in base else ROOM
        private = base.startswith("privately")
        for p in people:
            fo = st.fo.get(p)
            if not fo:
                continue
            facts = [Fact(e, pr, v) for (e, pr), v in fo.items() if pr == prop and is_concrete(v)]  # type: ignore[arg-type]
            if private:
                out.extend(TellPrivate(p, q, f) for q in people if q != p for f in facts)
            else:
                out.extend(TellPublic(p, f) for f in facts)
    else:
        raise ValueError(f"unknown action type {name!r}")
    if not peeking:
        return out
    modified: list[Action] = []
    w = st.world
    for a in out:
        if isinstance(a, TellPrivate):
            W = [a.actor, a.listener]
        else:
            r = w.get((a.actor, ROOM))
            if not is_concrete(r):
                continue
            W = st.people_in(r)  # type: ignore[arg-type]
        for K, D in _modifier_options(story, a.actor, W, people):
            modified.append(type(a)(*_fields(a), K, D))  # type: ignore[call-arg]
    return modified


def _fields(a: Action) -> tuple:
    if isinstance(a, MoveObjectContainer):
        return (a.actor, a.object, a.container)
    if isinstance(a, UpdateObjectState):
        return (a.actor, a.object, a.change)
    if isinstance(a, TellPrivate):
        return (a.actor, a.listener, a.topic)
    if isinstance(a, TellPublic):
        return (a.actor, a.topic)
    raise ValueError(f"{type(a).__name__} takes no modifiers")


#: action types whose argument tuples depend only on the context, not on the state
_STATIC_TYPES = frozenset(
    {
        "enter_room",
        "move_object_container",
        "update_object_state",
        "move_object_room",
        "privately_tell_about_abstract_topic",
        "publicly_tell_about_abstract_topic",
    }
)


def sample_action(
    story: Story,
    allowed: tuple[str, ...] | list[str],
    rng: random.Random,
    exhausted: set[str] | None = None,
    cache: dict[str, list[Action]] | None = None,
) -> Step | None:
    """Apply one random valid action of a uniformly chosen allowed type; None (story unchanged) if that type has none.

    `exhausted` (optional) remembers the types found to have no valid tuple in the *current* state, so a rollout does
    not enumerate them again until the story changes; `cache` (optional) keeps the argument tuples of the types that
    do not depend on the state, for one context. Neither changes which actions are drawn.
    """
    rand = rng.random
    name = allowed[int(rand() * len(allowed))]
    if exhausted is not None and name in exhausted:
        return None
    if cache is not None and name in _STATIC_TYPES:
        cands = cache.get(name)
        if cands is None:
            cands = cache[name] = candidate_actions(story, name)
        cands = list(cands)
    else:
        cands = candidate_actions(story, name)
    n = len(cands)
    while n:
        j = int(rand() * n)
        step = story.try_apply(cands[j])
        if step is not None:
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
) -> Story:
    """Extend (a copy of) `story` with random actions until `stop` (default: S), N, `max_actions` added actions,
    or MAX_FAILED_STEPS consecutive failed steps."""
    s = story.copy() if copy else story
    stop = stop or conditions.structural
    allowed = conditions.aset.allowed
    failures = 0
    added = 0
    exhausted: set[str] = set()
    cache: dict[str, list[Action]] = {}
    never = conditions.never_desired
    done = stop(s) or never(s)
    while not done:
        if max_actions is not None and added >= max_actions:
            break
        if sample_action(s, allowed, rng, exhausted, cache) is None:
            failures += 1
            if failures >= MAX_FAILED_STEPS:
                break
        else:
            failures = 0
            added += 1
            done = stop(s) or never(s)  # predicates of the story: re-evaluated only when it changed
    return s


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
        s = rollout(Story(ctx), cond, rng, copy=False)
        if not desired or cond.is_desired(s):
            return s
    return None
