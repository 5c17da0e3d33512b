"""Random story sampling and the setting predicates (semantics §7.1–7.2).

`sample_action` picks an allowed action type uniformly, enumerates its argument tuples in context order and takes a
uniformly random one that the tracker accepts (a lazy Fisher–Yates draw: the same distribution as "shuffle, apply
the first accepted", with fewer precondition checks). All randomness comes from the `random.Random` passed in.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import groupby, product
from operator import itemgetter
from typing import NamedTuple

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
)
from tombench.dsl.context import DEFAULT_CONTEXT, Context
from tombench.dsl.deferred import belief_free
from tombench.dsl.state import EMPTY_STORE, State
from tombench.dsl.story import Story
from tombench.dsl.tracker import Step, told_changes
from tombench.dsl.values import CONTAINER, ROOM, TOPIC, Key, Value

__all__ = [
    "Conditions",
    "setting_context",
    "candidate_actions",
    "sample_action",
    "candidate_tuples",
    "fast_valid",
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
    # remembered by the context (`Context.memo`): `random_story` restricts its context on every try, and
    # `Context.restrict` validates every name again, a quarter of the CPU of a random story
    memo = context.memo.restricted
    key = (setting.people, setting.rooms, setting.moves)
    out = memo.get(key)
    if out is None:
        out = memo[key] = context.restrict(people=setting.people, rooms=setting.rooms, containers=setting.moves)
    return out


@dataclass(frozen=True)
class Conditions:
    """The structural predicates of a setting (§7.1), evaluated on a story."""

    setting: Setting
    aset: ActionSet

    @classmethod
    def of(cls, setting: Setting) -> Conditions:
        return cls(setting, action_set(setting.story_type))

    # What follows is computed once per Conditions (a frozen value, so it cannot go stale): a search or a
    # `random_story` call draws many rollouts with one Conditions.

    @cached_property
    def kinds(self) -> tuple[Kind, ...]:
        """The sampler's handling of each allowed type, in `aset.allowed` order."""
        return tuple(kind_of(name) for name in self.aset.allowed)

    @cached_property
    def doomed_sets(self) -> tuple[frozenset[str], ...]:
        """`doomed_types` of the allowed types."""
        return doomed_types(self.aset.allowed)

    @cached_property
    def defer(self) -> bool:
        """Rollouts of this action set defer their beliefs (`tombench.dsl.deferred.belief_free`)."""
        return belief_free(self.aset.allowed)

    def __getstate__(self) -> dict[str, object]:
        """The fields only: the cached values hold the sampler's functions, rebuilt on first use."""
        return {"setting": self.setting, "aset": self.aset}

    def counts(self, s: Story) -> tuple[int, int, int, int]:
        """(important, differentiating, modified, sentences)."""
        return s.num_important, self.count_differentiating(s.steps), s.num_modified, len(s)

    def count_differentiating(self, steps: Sequence[Step]) -> int:
        """How many of `steps` are of a differentiating type (the search counts every neighbour's added steps)."""
        diff_names = self.aset.differentiating
        diff = 0
        for x in steps:
            if x.action.name in diff_names:
                diff += 1
        return diff

    def structural(self, s: Story) -> bool:
        """S(s): imp = m, diff >= 1, enough people and rooms, at most one modifier (at least one if asymmetric)."""
        st = self.setting
        mods = s._mods  # the counters read directly (num_important, num_modified): this runs after most actions
        if s._imp != st.moves or mods > 1 or (mods < 1 and self.aset.asymmetric):
            return False
        state = s.state
        if len(state.people) < st.people or len(state.rooms_involved) < st.rooms:
            return False
        diff_names = self.aset.differentiating
        for x in s.steps:  # a loop, not any(generator): this runs after most actions once imp = m
            if x.action.name in diff_names:
                return True
        return False

    def is_desired(self, s: Story) -> bool:
        return len(s) <= self.setting.max_sentences and self.structural(s)

    def never_desired(self, s: Story) -> bool:
        """N(s): no extension of s can become desired."""
        n = len(s)
        mx = self.setting.max_sentences
        if s.num_important > self.setting.moves or s.num_modified > 1 or n > mx:
            return True
        return n == mx and not self.structural(s)

    def finished(self, s: Story) -> bool:
        """S(s) or N(s), the default end of a rollout, tested after every added action.

        S or N = S or imp > m or mods > 1 or n > mx or (n == mx and not S) = S or imp > m or mods > 1 or n >= mx;
        and S needs imp == m, so the cheap counters decide nearly every call without `structural`.
        """
        # the story's counters read directly (len(s), s.num_important, s.num_modified): this runs after every
        # sampled action
        imp = s._imp
        moves = self.setting.moves
        if s._length >= self.setting.max_sentences or imp > moves or s._mods > 1:
            return True
        return imp == moves and self.structural(s)


def modifier_options(context: Context, actor: str, W: tuple[str, ...]) -> tuple[Modifiers, ...]:
    """Every single-peeker / single-distracted modifier of an action by `actor` witnessed by `W` (§4.7).

    Each option passes `_check_modifiers` against the same `W` by construction: the peeker is a context person who is
    neither the actor nor a witness, the distracted person is a witness other than the actor.

    Remembered by the context (`Context.memo`): the options are a pure function of the names, and a rollout asks for
    the same few (actor, witnesses) over and over (every actor/listener of every modified type drawn, in every state).
    """
    memo = context.memo.modifier_options
    key = (actor, W)
    opts = memo.get(key)
    if opts is None:
        opts = memo[key] = _modifier_options(actor, W, context.people)
    return opts


def _modifier_options(actor: str, W: tuple[str, ...], people: tuple[str, ...]) -> tuple[Modifiers, ...]:
    """`modifier_options`, computed."""
    opts: list[Modifiers] = []
    ks = []
    for k in people:
        if k != actor and k not in W:
            ks.append(k)
            opts.append(((k,), ()))
    ds = []
    for d in W:
        if d != actor:
            ds.append(d)
            opts.append(((), (d,)))
    for k in ks:
        for d in ds:
            opts.append(((k,), (d,)))
    return tuple(opts)


# ---------------------------------------------------------------------------------------------------- candidates
# Candidates are plain argument tuples, in exactly the order (and number) of the action records the tracker would be
# offered, so a draw consumes the same random numbers as drawing from the records. The record is built only for the
# tuple that is drawn and accepted: building a frozen dataclass for every rejected tuple dominated the profile.
# A told location fact travels as its store slot, `(entity, prop), value`, and becomes a `Fact` only when built.

Modifiers = tuple[tuple[str, ...], tuple[str, ...]]
Enumerator = Callable[[Story], list[tuple]]
# The static enumerators use itertools.product: the tuples, in the order, of the nested loops over the context lists.


def _enter_room(story: Story) -> list[tuple]:
    ctx = story.context
    return list(product(ctx.people, ctx.rooms))


def _leave_room(story: Story) -> list[tuple]:
    w = story.state.world
    out = []
    for p in story.state.people:  # a loop, not a comprehension: a few people, enumerated in nearly every state
        r = w.get((p, ROOM))
        if type(r) is str:  # is_concrete, inlined
            out.append((p, r))
    return out


def _move_object_container(story: Story) -> list[tuple]:
    ctx = story.context
    return list(product(ctx.people, ctx.objects, ctx.containers))


def _update_object_state(story: Story) -> list[tuple]:
    ctx = story.context
    return list(product(ctx.people, ctx.objects, ctx.state_changes))


def _move_object_room(story: Story) -> list[tuple]:
    ctx = story.context
    return list(product(ctx.people, ctx.objects, ctx.rooms))


def _tell_private_topic(story: Story) -> list[tuple]:
    ctx = story.context
    return [(p, q, t) for p in ctx.people for q in ctx.people if p != q for t in ctx.topics]


def _tell_public_topic(story: Story) -> list[tuple]:
    ctx = story.context
    return list(product(ctx.people, ctx.topics))


def _location_tells(prop: str, private: bool, modified: bool = False) -> Enumerator:
    """Tells of every concrete `prop` ("container" or "room") belief of each speaker, in the speaker's store order:
    `(p, q, slot, value)` for a private tell to q, `(p, slot, value)` for a public one; with `modified`, each followed
    by each of its modifiers `(K, D)`.

    The modified variant gives the tuples, in the order, of `_with_modifiers` over the unmodified one, built in one
    pass: these are the largest candidate lists the sampler enumerates (a rollout does so in nearly every state).
    """

    def enumerate_tells(story: Story) -> list[tuple]:
        ctx = story.context
        people = ctx.people
        st = story.state
        fos = st.fo
        w = st.world
        out: list[tuple] = []
        for p in people:
            fo = fos.get(p)
            if not fo:
                continue
            # a loop, not a comprehension: a store holds a few slots, and a comprehension's own call would cost more
            facts = []
            for item in fo.items():  # (slot, value)
                if item[0][1] == prop and type(item[1]) is str:
                    facts.append(item)
            if not facts:
                continue
            # loops again: each (speaker, listener) has a few facts
            if private:
                for q in people:
                    if q == p:
                        continue
                    if modified:
                        opts = modifier_options(ctx, p, (p, q))
                        for k, v in facts:
                            for K, D in opts:
                                out.append((p, q, k, v, K, D))
                    else:
                        for k, v in facts:
                            out.append((p, q, k, v))
            elif modified:
                r = w.get((p, ROOM))
                if type(r) is not str:  # not in a room: every tuple of this speaker would be rejected, none is offered
                    continue
                opts = modifier_options(ctx, p, tuple(st.people_in(r)))
                for k, v in facts:
                    for K, D in opts:
                        out.append((p, k, v, K, D))
            else:
                for k, v in facts:
                    out.append((p, k, v))
        return out

    return enumerate_tells


# ---------------------------------------------------------------------------------------------------- hopeless types
# Most draws of a public tell, and of a room move, happen in states where no candidate of the type can be valid: nobody
# shares a room with anyone (a public tell needs a listener), or nobody is in the room of an object (or in any room, at
# the start of a rollout; a topic tell has no candidate at all in a context without topics). The draw then rejects
# every candidate, one random number each. A `hopeless` test says so exactly and cheaply, and returns how many
# candidates the enumerator would list (None when some candidate may be valid), so the sampler draws those random
# numbers without building and testing the candidates. tests/dsl/test_equivalence.py pins the draws to the reference
# sampler's.


def _nobody_together(st: State) -> bool:
    """No two people are in the same room."""
    w = st.world
    rooms: set[str] = set()
    for p in st.people:
        r = w.get((p, ROOM))
        if type(r) is str:
            if r in rooms:
                return False
            rooms.add(r)
    return True


def _hopeless_without_container_facts(story: Story) -> int | None:
    """A container-location tell has no candidate at all before the first container move (nobody believes an
    object to be in a container: only a move puts it there, and a tell only repeats such a belief). The move
    registers its container in `containers_seen`, so an empty list says so exactly. Else None."""
    return None if story.state.containers_seen else 0


def _hopeless_public_tells(prop: str, modified: bool) -> Callable[[Story], int | None]:
    """For the public tells of `prop` facts: when no speaker with an audience has a fact that some witness would
    learn, the number of tuples of `_location_tells(prop, private=False, modified)`, counted the same way; else None.

    A public tell is valid only if someone present would learn its fact (`_learners`), whatever its modifier, and
    that almost never holds: about 97% of these draws reject every candidate (issue #28). Testing each speaker's
    facts once is cheaper than listing every fact with every modifier and testing them one by one.
    """

    def hopeless(story: Story) -> int | None:
        st = story.state
        if prop == CONTAINER and not st.containers_seen:  # `_hopeless_without_container_facts`
            return 0
        ctx = story.context
        people = ctx.people
        fos = st.fo
        w = st.world
        n = 0
        for p in people:
            fo = fos.get(p)
            if not fo:
                continue
            facts = []
            for item in fo.items():  # listed as `_location_tells` lists them
                if item[0][1] == prop and type(item[1]) is str:
                    facts.append(item)
            if not facts:
                continue
            r = w.get((p, ROOM))
            if type(r) is not str:  # rejected (unmodified) or not offered (modified: see `_location_tells`)
                n += 0 if modified else len(facts)
                continue
            W = st.people_in(r)
            if len(W) >= 2 and _anyone_would_learn(st, W, facts):
                return None
            n += len(facts) * (len(modifier_options(ctx, p, tuple(W))) if modified else 1)
        return n

    return hopeless


def _anyone_would_learn(st: State, W: list[str], facts: list[tuple[Key, Value]]) -> bool:
    """Would some witness in W learn one of the (slot, value) facts told (`_public_fact_validator`'s test)?"""
    for slot, value in facts:
        if _in_context(st, slot, value) and _learners(st, W, slot, value):  # type: ignore[arg-type]
            return True
    return False


def _nobody_in_a_room(story: Story) -> bool:
    """No person of the context is in a room (the start of every rollout)."""
    w = story.state.world
    for p in story.context.people:
        if type(w.get((p, ROOM))) is str:
            return False
    return True


def _hopeless_move_object_container(story: Story) -> int | None:
    """When nobody is in a room (a move needs its actor in one), the number of tuples of `_move_object_container`."""
    ctx = story.context
    return len(ctx.people) * len(ctx.objects) * len(ctx.containers) if _nobody_in_a_room(story) else None


def _hopeless_update_object_state(story: Story) -> int | None:
    """When nobody is in a room (a change needs its actor in one), the number of tuples of `_update_object_state`."""
    ctx = story.context
    return len(ctx.people) * len(ctx.objects) * len(ctx.state_changes) if _nobody_in_a_room(story) else None


def _hopeless_without_topics(story: Story) -> int | None:
    """A topic tell in a context without topics has no candidate at all (the default context has none)."""
    return None if story.context.topics else 0


def _hopeless_public_topics(modified: bool) -> Callable[[Story], int | None]:
    """For the public topic tells: when nobody is together (a public tell needs a listener), the number of tuples
    of `_tell_public_topic` (`modified`: of its `_with_modifiers` variant, which offers each speaker in a room, alone
    there, one peeker among the others per topic); else None. Most public topic tells are drawn in such states, and
    testing each candidate's audience was the largest item of an all-actions rollout (issue #28)."""

    def hopeless(story: Story) -> int | None:
        ctx = story.context
        topics = len(ctx.topics)
        if not topics:
            return 0
        st = story.state
        if not _nobody_together(st):
            return None
        people = ctx.people
        if not modified:
            return len(people) * topics
        w = st.world
        in_a_room = sum(1 for p in people if type(w.get((p, ROOM))) is str)
        return in_a_room * topics * (len(people) - 1)

    return hopeless


def _hopeless_move_object_room(story: Story) -> int | None:
    """When nobody is in the room of an object that has another room to go to, the number of tuples of
    `_move_object_room`; else None."""
    ctx = story.context
    w = story.state.world
    for o in ctx.objects:
        ro = w.get((o, ROOM))
        if type(ro) is not str:
            continue
        for r2 in ctx.rooms:
            if r2 != ro:  # a room to move it to: hopeless only if nobody is with it
                for p in ctx.people:
                    if w.get((p, ROOM)) == ro:
                        return None
                break
    return len(ctx.people) * len(ctx.objects) * len(ctx.rooms)


def _with_modifiers(base: Enumerator, private: bool) -> Enumerator:
    """The `_peeking_distracted` variant of `base`: each tuple followed by each of its modifiers (K, D).

    The options depend only on the actor (and, for a private tell, the listener), and every base enumerator emits its
    tuples grouped by actor (and listener), so each run of one group is expanded by a single comprehension.
    """
    group = itemgetter(0, 1) if private else itemgetter(0)

    def enumerate_modified(story: Story) -> list[tuple]:
        st = story.state
        w = st.world
        ctx = story.context
        out: list[tuple] = []
        for who, run in groupby(base(story), key=group):
            if private:
                actor, W = who[0], who
            else:
                actor = who
                r = w.get((actor, ROOM))
                if type(r) is not str:  # not in a room: every tuple of this actor would be rejected, none is offered
                    continue
                W = tuple(st.people_in(r))
            opts = modifier_options(ctx, actor, W)
            out += [(*args, K, D) for args in run for K, D in opts]
        return out

    return enumerate_modified


# ---------------------------------------------------------------------------------------------------- fast validity
# `check` answers "why not?" for any record; the sampler only needs "yes or no?" for tuples it enumerated itself.
# Each `_valid_*` below returns exactly `check(st, record) is None` for the record of such a tuple, and skips only the
# preconditions that hold by construction of the enumerators above:
#   - every name is a context name of the right kind (people, rooms, objects, containers, state changes, topics),
#     and a private tell has two different people;
#   - a modifier passes `_check_modifiers`, because `_modifier_options` built it from the same witnesses W (the state
#     does not change between enumerating and drawing);
#   - a told fact is a room or container slot of the speaker's own first-order store, so the speaker believes it.
# tests/dsl/test_equivalence.py asserts the equality over every candidate of every type in random reachable states.


def _valid_enter_room(st: State, args: tuple) -> bool:
    """EnterRoom(p, r): p is not already in r."""
    p, r = args
    r0 = st.world.get((p, ROOM))
    return type(r0) is not str or r0 != r  # a NotIn never equals a room name: skip its Python-level __eq__


def _valid_leave_room(st: State, args: tuple) -> bool:
    """LeaveRoom(p, r): always valid, since the candidates are built from p's current world room."""
    return True


def _valid_move_object_container(st: State, args: tuple) -> bool:
    """MoveObjectContainer(p, o, c[, K, D]): p is in a room r where o and c are (or have not yet been placed), and
    o is not already in c."""
    p, o, c = args[0], args[1], args[2]
    w = st.world
    r = w.get((p, ROOM))
    if type(r) is not str:  # is_concrete, inlined: this runs for every drawn candidate
        return False
    ro = w.get((o, ROOM))
    if ro is not None and ro != r:
        return False
    rc = w.get((c, ROOM))
    if rc is not None and rc != r:
        return False
    return w.get((o, CONTAINER)) != c


def _valid_update_object_state(st: State, args: tuple) -> bool:
    """UpdateObjectState(p, o, sc[, K, D]): p is in o's room, the change changes something, visibility agrees."""
    p, o, sc = args[0], args[1], args[2]
    w = st.world
    r = w.get((p, ROOM))
    if type(r) is not str:
        return False
    ro = w.get((o, ROOM))
    if ro is not None and ro != r:
        return False
    prop = sc.property
    if prop in (ROOM, CONTAINER, TOPIC) or w.get((o, prop)) == sc.value:
        return False
    return st.visibility.get(prop, sc.visible) == sc.visible


def _valid_move_object_room(st: State, args: tuple) -> bool:
    """MoveObjectRoom(p, o, r2): p and o are in the same room r1, and r2 is another room."""
    p, o, r2 = args
    w = st.world
    r1 = w.get((p, ROOM))
    if type(r1) is not str:
        return False
    return w.get((o, ROOM)) == r1 and r2 != r1


#: the value a tell about an abstract topic writes into the topic's slot (`tracker._topic_facts`)
_TOLD = True


def _in_context(st: State, slot: Key, value: Value) -> bool:
    """`_check_fact`'s context test: a told container (room) is a container (room) of the context."""
    return value in (st.context.containers if slot[1] == CONTAINER else st.context.rooms)


def _valid_tell_private_topic(st: State, args: tuple) -> bool:
    """TellPrivate(p, q, topic[, K, D]): p does not already think that q knows about the topic."""
    p, q, t = args[0], args[1], args[2]
    return st.so.get((p, q), EMPTY_STORE).get((t, TOPIC)) != _TOLD


def _valid_tell_private_fact(st: State, args: tuple) -> bool:
    """TellPrivate(p, q, Fact[, K, D]): q is not told where q is, and p does not already think that q believes it."""
    p, q, slot, value = args[0], args[1], args[2], args[3]
    if slot[0] == q:
        return False
    ctx = st.context  # _in_context, inlined: this runs for most drawn tells
    if value not in (ctx.containers if slot[1] == CONTAINER else ctx.rooms):
        return False
    return st.so.get((p, q), EMPTY_STORE).get(slot) != value


def _public_audience(st: State, p: str) -> list[str] | None:
    """The witnesses W of a public tell by p (p's room's occupants), or None when p is not in a room with someone."""
    r = st.world.get((p, ROOM))
    if type(r) is not str:
        return None
    W = st.people_in(r)
    return W if len(W) >= 2 else None


def _someone_learns(st: State, W: list[str], distracted: Sequence[str], slot: Key, value: Value) -> bool:
    """Would some non-distracted witness x change a belief of x's (own, or about another witness) on hearing about
    an abstract topic?"""
    fo, so = st.fo, st.so
    for x in W:
        if x in distracted:
            continue
        for b in W:
            store = fo.get(x, EMPTY_STORE) if b == x else so.get((x, b), EMPTY_STORE)
            if store.get(slot) != value:
                return True
    return False


def _valid_tell_public_topic(st: State, args: tuple) -> bool:
    """TellPublic(p, topic[, K, D]): p is with someone, and someone present would learn something."""
    W = _public_audience(st, args[0])
    distracted = args[3] if len(args) > 2 else ()
    return W is not None and _someone_learns(st, W, distracted, (args[1], TOPIC), _TOLD)


def _learners(st: State, W: list[str], slot: Key, value: str) -> tuple[str, ...]:
    """The witnesses x who would change a belief of x's (own, or about another witness) on hearing the told fact."""
    fo, so = st.fo, st.so
    e, prop = slot
    out = []
    for x in W:
        for b in W:
            store = fo.get(x, EMPTY_STORE) if b == x else so.get((x, b), EMPTY_STORE)
            if told_changes(store, e, prop, value):
                out.append(x)
                break
    return tuple(out)


def _public_fact_validator(st: State) -> Callable[[State, tuple], bool]:
    """`_valid_tell_public_fact` for the candidates of one draw, in state `st` only.

    It remembers each speaker's audience and, for each told fact, who would learn it: a speaker's candidates share
    the audience, and a `_peeking_distracted` candidate list offers each fact once per modifier, the modifier
    deciding only whether a learner is distracted. The memos hold while the state does not change, that is, for the
    candidates of one draw (the draw ends when an action is applied).
    """
    audiences: dict[str, list[str] | None] = {}
    learners: dict[tuple[str, Key, str], tuple[str, ...]] = {}

    def valid(st: State, args: tuple) -> bool:
        """TellPublic(p, Fact[, K, D]): p is with someone, and someone present and not distracted would learn
        something (told closure)."""
        p, slot, value = args[0], args[1], args[2]
        key = (p, slot, value)
        L = learners.get(key)
        if L is None:
            if p in audiences:
                W = audiences[p]
            else:
                W = audiences[p] = _public_audience(st, p)
            L = learners[key] = _learners(st, W, slot, value) if W and _in_context(st, slot, value) else ()
        if len(args) == 3 or not L:
            return bool(L)
        distracted = args[4]
        return any(x not in distracted for x in L)

    return valid


def _valid_tell_public_fact(st: State, args: tuple) -> bool:
    """TellPublic(p, Fact[, K, D]): p is with someone, and someone present would learn something (told closure)."""
    return _public_fact_validator(st)(st, args)


# ---------------------------------------------------------------------------------------------------- records
def _private_fact(p: str, q: str, slot: Key, value: str, *mods: tuple[str, ...]) -> TellPrivate:
    return TellPrivate(p, q, Fact(slot[0], slot[1], value), *mods)


def _public_fact(p: str, slot: Key, value: str, *mods: tuple[str, ...]) -> TellPublic:
    return TellPublic(p, Fact(slot[0], slot[1], value), *mods)


class Kind(NamedTuple):
    """How the sampler handles one action type: enumerate tuples, test them fast, build the record of one."""

    build: Callable[..., Action]
    enumerate: Enumerator
    valid: Callable[[State, tuple], bool]
    #: the tuples depend only on the context (a rollout enumerates them once)
    static: bool
    #: the type takes a peeking/distracted modifier
    modifiable: bool = True
    #: makes a `valid` for the candidates of one draw (one state) that shares work between them; None: use `valid`
    validator: Callable[[State], Callable[[State, tuple], bool]] | None = None
    #: the number of candidates when none can be valid, else None (see "hopeless types"); None: no such test
    hopeless: Callable[[Story], int | None] | None = None


_BASE_KINDS: dict[str, Kind] = {
    "enter_room": Kind(EnterRoom, _enter_room, _valid_enter_room, True, False),
    "leave_room": Kind(LeaveRoom, _leave_room, _valid_leave_room, False, False),
    "move_object_container": Kind(
        MoveObjectContainer, _move_object_container, _valid_move_object_container, True,
        hopeless=_hopeless_move_object_container,
    ),
    "update_object_state": Kind(
        UpdateObjectState, _update_object_state, _valid_update_object_state, True,
        hopeless=_hopeless_update_object_state,
    ),
    "move_object_room": Kind(
        MoveObjectRoom, _move_object_room, _valid_move_object_room, True, False, hopeless=_hopeless_move_object_room
    ),
    "privately_tell_about_abstract_topic": Kind(
        TellPrivate, _tell_private_topic, _valid_tell_private_topic, True, hopeless=_hopeless_without_topics
    ),
    "publicly_tell_about_abstract_topic": Kind(
        TellPublic, _tell_public_topic, _valid_tell_public_topic, True, hopeless=_hopeless_public_topics(False)
    ),
    "privately_tell_about_object_container_location": Kind(
        _private_fact, _location_tells(CONTAINER, private=True), _valid_tell_private_fact, False,
        hopeless=_hopeless_without_container_facts,
    ),
    "publicly_tell_about_object_container_location": Kind(
        _public_fact, _location_tells(CONTAINER, private=False), _valid_tell_public_fact, False,
        validator=_public_fact_validator, hopeless=_hopeless_public_tells(CONTAINER, modified=False),
    ),
    "privately_tell_about_object_room_location": Kind(
        _private_fact, _location_tells(ROOM, private=True), _valid_tell_private_fact, False
    ),
    "publicly_tell_about_object_room_location": Kind(
        _public_fact, _location_tells(ROOM, private=False), _valid_tell_public_fact, False,
        validator=_public_fact_validator, hopeless=_hopeless_public_tells(ROOM, modified=False),
    ),
}
#: every sampler action type: the base types, and `<base>_peeking_distracted` for those that take a modifier
#: (the modifier options depend on who is in the room, so those are never static)
#: the modified location tells are built in one pass, not by `_with_modifiers` (the same tuples, faster)
_MODIFIED_TELLS: dict[str, Enumerator] = {
    f"{how}_tell_about_object_{prop}_location": _location_tells(prop, private=how == "privately", modified=True)
    for how in ("privately", "publicly")
    for prop in (CONTAINER, ROOM)
}
_MODIFIED_HOPELESS: dict[str, Callable[[Story], int | None]] = {
    **{
        f"publicly_tell_about_object_{prop}_location": _hopeless_public_tells(prop, modified=True)
        for prop in (CONTAINER, ROOM)
    },
    "privately_tell_about_object_container_location": _hopeless_without_container_facts,
    "privately_tell_about_abstract_topic": _hopeless_without_topics,
    "publicly_tell_about_abstract_topic": _hopeless_public_topics(True),
}
_KINDS: dict[str, Kind] = {
    **_BASE_KINDS,
    **{
        name + PEEKING: k._replace(
            enumerate=_MODIFIED_TELLS.get(name) or _with_modifiers(k.enumerate, name.startswith("privately")),
            static=False,
            hopeless=_MODIFIED_HOPELESS.get(name),
        )
        for name, k in _BASE_KINDS.items()
        if k.modifiable
    },
}


def kind_of(name: str) -> Kind:
    kind = _KINDS.get(name)
    if kind is None:
        raise ValueError(f"unknown action type {name!r}")
    return kind


#: the sampler types whose every action is important (`story._is_important`: moves, state changes, abstract-topic
#: tells; a location tell never is)
_IMPORTANT_TYPES = frozenset(
    name + suffix
    for name in ("move_object_container", "update_object_state", "move_object_room",
                 "privately_tell_about_abstract_topic", "publicly_tell_about_abstract_topic")
    for suffix in ("", PEEKING)
)
NO_TYPES: frozenset[str] = frozenset()


def doomed_types(allowed: tuple[str, ...]) -> tuple[frozenset[str], ...]:
    """The allowed types any of whose actions would make a story never-desired, for each of the four states of
    (imp >= m, a modifier would be a second one or overflow the sentences), indexed by 2 * the first + the second.

    N(s) holds after an important action once imp = m (imp > m), and after a modified action once the story has a
    modifier (mods > 1) or is within one sentence of the limit (a modified action adds two: n > mx).
    """
    important = frozenset(name for name in allowed if name in _IMPORTANT_TYPES)
    modified = frozenset(name for name in allowed if name.endswith(PEEKING))
    return NO_TYPES, modified, important, important | modified



def doomed_now(s: Story, conditions: Conditions) -> frozenset[str]:
    """The allowed types any of whose actions would make `s` never-desired now (`doomed_types`' four states)."""
    setting = conditions.setting
    sets = conditions.doomed_sets
    return sets[2 * (s._imp >= setting.moves) + (s._mods >= 1 or s._length > setting.max_sentences - 2)]

def record(context: Context, name: str, build: Callable[..., Action], args: tuple) -> Action:
    """`build(*args)`, the record of type `name`, one per argument tuple of the context (`Context.memo`).

    A record is immutable, so stories may share one, and a rollout applies the same few actions again and again
    (the lookahead's 50 rollouts from one story); building a frozen record (a told fact is two) costs several times
    the lookup."""
    records = context.memo.records
    memo = records.get(name)
    if memo is None:
        memo = records[name] = {}
    a = memo.get(args)
    if a is None:
        a = memo[args] = build(*args)
    return a


#: what `_sample_of_type` returns when the drawn action would make the story never-desired (see `_extend`)
_DOOMED = object()


def candidate_actions(story: Story, name: str) -> list[Action]:
    """Every argument tuple of action type `name` in context order (validity is checked by the caller)."""
    kind = kind_of(name)
    return [kind.build(*args) for args in kind.enumerate(story)]


def candidate_tuples(story: Story, name: str) -> list[tuple]:
    """The argument tuples behind `candidate_actions(story, name)`, same order (for tests of `fast_valid`)."""
    return kind_of(name).enumerate(story)


def fast_valid(story: Story, name: str, args: tuple) -> bool:
    """`check(story.state, record) is None` for a tuple that `candidate_tuples(story, name)` returned."""
    return kind_of(name).valid(story.state, args)


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

    When the type is in `doomed` (see `_extend`), a valid draw is not applied: `_DOOMED` is returned instead, with
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
                return _DOOMED
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
    ends the rollout (see `_extend`), so such a story comes back one action short and still not desired; same
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

    _extend(s, conditions, rng.random, finished, math.inf if max_actions is None else max_actions, skip_doomed)
    return s


def _extend(
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
        elif step is _DOOMED:
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
        # with `desired`, a rollout that a doomed draw ends (never-desired) is dropped unfinished: see `_extend`
        if _extend(s, cond, rng.random, cond.finished, math.inf, skip_doomed=desired):
            continue
        if not desired or cond.is_desired(s):
            return s
    return None
