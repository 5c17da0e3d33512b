"""The belief tracker: preconditions and effects of every action (semantics §3–4).

Each action is handled in two phases: `check` validates every precondition against the current state without
touching it, and only then `apply` writes. A rejected action therefore leaves the state exactly unchanged (no new
person, room, topic or sentence), which is the transactional guarantee of §2.3.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

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
from tombench.dsl.context import StateChange
from tombench.dsl.render import fact_clause, modifier_sentence
from tombench.dsl.state import State, Store
from tombench.dsl.values import CONTAINER, NO_CONTAINER, ROOM, TOPIC, UNKNOWN, Key, NotIn, Value, is_concrete

__all__ = [
    "Step", "ActionRejected", "check", "apply", "try_apply", "APPLY", "modifier", "not_in", "told_changes",
    "track_object",
]


class ActionRejected(ValueError):
    """An action whose preconditions do not hold in the current state."""


@dataclass(frozen=True, slots=True)
class Step:
    """One applied action with its sentence and optional modifier sentence."""

    action: Action
    sentence: str
    modifier: str | None = None

    @property
    def sentences(self) -> tuple[str, ...]:
        return (self.sentence,) if self.modifier is None else (self.sentence, self.modifier)

    @property
    def length(self) -> int:
        """Sentences this step contributes: a modified action counts 2 (semantics §6)."""
        return 1 if self.modifier is None else 2


# ---------------------------------------------------------------------------------------------------- broadcasting
def _broadcast(st: State, facts: dict[Key, Value], W: Sequence[str], K: Sequence[str] = (), D: Sequence[str] = ()) -> None:
    """BROADCAST(F, W, K, D): real witnesses learn F and believe every normal witness learned it."""
    fo, so = st.fo, st.so
    for w in W:
        if w in D:
            continue
        fo[w].update(facts)
        for b in W:
            if b != w:
                # st.so_store(w, b), inlined: this is the innermost loop of every action
                store = so.get((w, b))
                if store is None:
                    store = so[(w, b)] = {}
                store.update(facts)
    for k in K:
        fo[k].update(facts)
        for b in W:
            st.so_store(k, b).update(facts)


# A told location fact is always a single slot (`Fact`), so the told-fact functions take it as (entity, prop, value)
# rather than as a dict of facts: they run for every store a tell reaches, and for every public tell the sampler tests.
# `type(x) is str` is `is_concrete(x)`, inlined for the same reason.
def _told_write(store: Store, e: str, prop: str, v: Value) -> None:
    """Write one told fact with the told-fact closure (semantics §4.6)."""
    if prop == CONTAINER:
        r = store.get((v, ROOM))  # type: ignore[arg-type]
        if type(r) is str:
            store[(e, ROOM)] = r
    elif prop == ROOM:
        c = store.get((e, CONTAINER))
        if type(c) is str:
            rc = store.get((c, ROOM))
            if type(rc) is str and rc != v:
                store[(e, CONTAINER)] = UNKNOWN
    store[(e, prop)] = v


def told_changes(store: Store, e: str, prop: str, v: Value) -> bool:
    """Would `_told_write(store, e, prop, v)` change any slot? (The informativeness test of a public tell.)"""
    if store.get((e, prop)) != v:
        return True
    if prop == CONTAINER:
        r = store.get((v, ROOM))  # type: ignore[arg-type]
        return type(r) is str and store.get((e, ROOM)) != r
    if prop == ROOM:
        c = store.get((e, CONTAINER))
        if type(c) is str:
            rc = store.get((c, ROOM))
            return type(rc) is str and rc != v
    return False


def _broadcast_told(st: State, fact: Fact, W: Sequence[str], K: Sequence[str], D: Sequence[str]) -> None:
    """BROADCAST of a told location fact: `_broadcast`'s stores, each written with the told-fact closure."""
    e, prop, v = fact.entity, fact.prop, fact.value
    fo, so = st.fo, st.so
    for w in W:
        if w in D:
            continue
        _told_write(fo[w], e, prop, v)
        for b in W:
            if b != w:
                store = so.get((w, b))  # st.so_store(w, b), inlined as in `_broadcast`
                if store is None:
                    store = so[(w, b)] = {}
                _told_write(store, e, prop, v)
    for k in K:
        _told_write(fo[k], e, prop, v)
        for b in W:
            _told_write(st.so_store(k, b), e, prop, v)


# ---------------------------------------------------------------------------------------------------- perception
def _is_visible(st: State, o: str) -> bool:
    """An object is visible iff its world container is not a concrete container (fixes the original's bug B3)."""
    return not is_concrete(st.world.get((o, CONTAINER)))


def _visible_state(st: State, o: str) -> dict[Key, Value]:
    w = st.world
    out: dict[Key, Value] = {}
    for prop, visible in st.visibility.items():
        if visible:
            v = w.get((o, prop))
            if v is not None:
                out[(o, prop)] = v
    return out


def _vis(st: State, r: str, except_p: str) -> dict[Key, Value]:
    """Vis(r, except p): what anyone arriving in r can see (semantics §4.0)."""
    w = st.world
    out: dict[Key, Value] = {}
    for x in st.people:
        if x != except_p and w.get((x, ROOM)) == r:
            out[(x, ROOM)] = r
    for c in st.containers_seen:
        if w.get((c, ROOM)) == r:
            out[(c, ROOM)] = r
    open_containers = st.context.open_containers
    for o in st.objects_seen:
        if w.get((o, ROOM)) != r:
            continue
        c = w.get((o, CONTAINER))
        if type(c) is not str:  # _is_visible, inlined
            out[(o, ROOM)] = r
            out[(o, CONTAINER)] = NO_CONTAINER
            if st.visibility:  # no state property registered yet: no visible state
                out.update(_visible_state(st, o))
        elif open_containers:  # ToMi: an open container shows what is in it
            out[(o, ROOM)] = r
            out[(o, CONTAINER)] = c
    return out


def _expected_but_missing(st: State, p: str, r: str, vis: dict[Key, Value]) -> list[tuple[str, bool]]:
    """The people and uncontained objects p believes are in r but does not see there, each with whether it is an
    object: arriving proves p's belief wrong, and p (and the occupants, about p) must then stop believing it."""
    fo_p = st.fo[p]
    missing: list[tuple[str, bool]] = []
    for e in st.people:
        if e != p and fo_p.get((e, ROOM)) == r and (e, ROOM) not in vis:
            missing.append((e, False))
    for o in st.objects_seen:
        if fo_p.get((o, ROOM)) == r and fo_p.get((o, CONTAINER)) is NO_CONTAINER and (o, ROOM) not in vis:
            missing.append((o, True))
    return missing


def _forget_missing(st: State, p: str, O: Sequence[str], missing: list[tuple[str, bool]]) -> None:
    """PERCEIVE step 3: where a missing entity is, p no longer knows; p assumes the occupants O do not know either,
    and they see that p could not have known."""
    fo_p = st.fo[p]
    for e, is_object in missing:
        unknown: dict[Key, Value] = {(e, ROOM): UNKNOWN}
        if is_object:
            unknown[(e, CONTAINER)] = UNKNOWN
        fo_p.update(unknown)
        for b in O:
            st.so_store(p, b).update(unknown)
            st.so_store(b, p).update(unknown)


def _perceive(st: State, p: str, r: str, O: Sequence[str]) -> None:
    """PERCEIVE(p, r, O): newcomer p arrives in r where O already are."""
    vis = _vis(st, r, p)
    fo_p = st.fo[p]
    # 3 (computed before 1 writes, although 1 cannot affect it): entities p expected to see here but does not
    missing = _expected_but_missing(st, p, r, vis)
    # 1. the newcomer sees, and assumes the occupants see the same
    fo_p.update(vis)
    for b in O:
        st.so_store(p, b).update(vis)
    # 2. occupants attribute to the newcomer what they themselves believe is there
    for w in O:
        fo_w = st.fo[w]
        so_wp = st.so_store(w, p)
        for k, v in vis.items():
            if fo_w.get(k) == v:
                so_wp[k] = v
    # 3. expected but missing -> Unknown
    if missing:  # usually empty: most arrivals find whatever the newcomer expected there
        _forget_missing(st, p, O, missing)


# ---------------------------------------------------------------------------------------------------- bookkeeping
def modifier(st: State, a: Any) -> str | None:
    """The modifier sentence of record `a` (None when it has no modifier), one shared string per (peekers,
    distracted) of the context (`Context.memo`): the sampler renders the same few pairs again and again."""
    K, D = a.peekers, a.distracted
    if not K and not D:
        return None
    if type(K) is not tuple or type(D) is not tuple:  # unhashable: not a record the sampler, parser or JSON built
        return modifier_sentence(K, D)
    memo = st.context.memo.modifier_sentences
    key = (K, D)
    sentence = memo.get(key)
    if sentence is None:
        sentence = memo[key] = modifier_sentence(K, D)
    return sentence


def _add(lst: list[str], x: str) -> None:
    if x not in lst:
        lst.append(x)


def track_object(st: State, o: str, index: int) -> None:
    """Record the world container/room of `o` after action `index` for memory questions (semantics §5.4)."""
    for prop in (CONTAINER, ROOM):
        v = st.world.get((o, prop))
        if v is None:
            continue
        traj = st.trajectories.setdefault((o, prop), [])
        if not traj or traj[-1][0] != v:
            traj.append((v, index))


def _check_modifier_names(people: Sequence[str], K: Sequence[str], D: Sequence[str]) -> str | None:
    """Are the peekers and the distracted distinct people of the context? (A malformed modifier, whatever the
    state: checked before the roles, which depend on who is in the room.)"""
    if len(set(K)) != len(K) or len(set(D)) != len(D):
        return "repeated name in a modifier"
    for x in (*K, *D):
        if x not in people:
            return f"{x} is not a person of the context"
    return None


def _check_modifier_roles(actor: str, W: Sequence[str], K: Sequence[str], D: Sequence[str]) -> str | None:
    """Can each name play its part? A peeker must be someone who would not otherwise witness the action, a
    distracted person someone who would: otherwise the modifier changes nobody's beliefs and its sentence lies."""
    if actor in K or actor in D:
        return "the actor cannot peek at or be distracted from their own action"
    for k in K:
        if k in W:
            return f"{k} already witnesses the action and cannot peek"
        if k in D:
            return f"{k} cannot both peek and be distracted"
    for d in D:
        if d not in W or d == actor:
            return f"{d} is not a witness of the action and cannot be distracted"
    return None


def _check_modifiers(st: State, actor: str, W: Sequence[str], K: Sequence[str], D: Sequence[str]) -> str | None:
    """Why peekers K and distracted D cannot modify an action of `actor` witnessed by W, or None."""
    if not K and not D:
        return None
    return _check_modifier_names(st.context.people, K, D) or _check_modifier_roles(actor, W, K, D)


def _person_room(st: State, p: str) -> str | None:
    r = st.world.get((p, ROOM))
    return r if is_concrete(r) else None  # type: ignore[return-value]


# ---------------------------------------------------------------------------------------------------- checks
# One precondition function per action record type, each returning the first failed precondition's reason (or None).
# The order of the tests inside each is part of the contract: a story that breaks several preconditions at once is
# reported by the first, and the parser's and the CLI's error messages show it.
def _check_enter_room(st: State, a: EnterRoom) -> str | None:
    if a.room not in st.context.rooms:
        return f"{a.room} is not a room of the context"
    if st.world.get((a.actor, ROOM)) == a.room:
        return f"{a.actor} is already in the {a.room}"
    return None


def _check_leave_room(st: State, a: LeaveRoom) -> str | None:
    if st.world.get((a.actor, ROOM)) != a.room:
        return f"{a.actor} is not in the {a.room}"
    return None


def _check_elsewhere(st: State, thing: str, r: str) -> str | None:
    """Is `thing` known to be in a room other than r? One the story has not placed yet may be anywhere (it appears
    where it is first handled)."""
    room = st.world.get((thing, ROOM))
    if room is not None and room != r:
        return f"the {thing} is not in the {r}"
    return None


def _check_action_modifiers(st: State, a: MoveObjectContainer | UpdateObjectState, r: str) -> str | None:
    """`_check_modifiers` for an action witnessed by everyone in room r (who are only looked up when the action has a
    modifier: most have none)."""
    if not a.peekers and not a.distracted:
        return None
    return _check_modifiers(st, a.actor, st.people_in(r), a.peekers, a.distracted)


def _actor_room_for(st: State, actor: str, obj: str) -> tuple[str | None, str | None]:
    """(the actor's room, None), or (None, why not): every action on an object needs its actor in a room and the
    object in the context, checked in that order so the first reason given stays the same for every such action."""
    r = _person_room(st, actor)
    if r is None:
        return None, f"{actor} is not in a room"
    if obj not in st.context.objects:
        return None, f"{obj} is not an object of the context"
    return r, None


def _check_move_object_container(st: State, a: MoveObjectContainer) -> str | None:
    r, reason = _actor_room_for(st, a.actor, a.object)
    if r is None:
        return reason
    if a.container not in st.context.containers:
        return f"{a.container} is not a container of the context"
    reason = _check_elsewhere(st, a.object, r) or _check_elsewhere(st, a.container, r)
    if reason:
        return reason
    if st.world.get((a.object, CONTAINER)) == a.container:
        return f"the {a.object} is already in the {a.container}"
    return _check_action_modifiers(st, a, r)


def _check_state_change(st: State, o: str, sc: StateChange) -> str | None:
    """Can `sc` happen to object o? It must name a state property (not a location or topic slot), change the
    object's value, and keep the property's visibility: the tracker registers it once, on first use."""
    if sc.property in (ROOM, CONTAINER, TOPIC):
        return f"{sc.property!r} cannot be used as a state property"
    if st.world.get((o, sc.property)) == sc.value:
        return f"the {o} {sc.value} already"
    if st.visibility.get(sc.property, sc.visible) != sc.visible:
        return f"state property {sc.property!r} is already registered with the other visibility"
    return None


def _check_update_object_state(st: State, a: UpdateObjectState) -> str | None:
    r, reason = _actor_room_for(st, a.actor, a.object)
    if r is None:
        return reason
    reason = _check_elsewhere(st, a.object, r) or _check_state_change(st, a.object, a.change)
    if reason:
        return reason
    return _check_action_modifiers(st, a, r)


def _check_move_object_room(st: State, a: MoveObjectRoom) -> str | None:
    r1, reason = _actor_room_for(st, a.actor, a.object)
    if r1 is None:
        return reason
    if st.world.get((a.object, ROOM)) != r1:
        return f"the {a.object} is not in the {r1}"
    if a.room == r1:
        return f"the {a.object} is already in the {a.room}"
    if a.room not in st.context.rooms:
        return f"{a.room} is not a room of the context"
    return None


def _check_tell_private(st: State, a: TellPrivate) -> str | None:
    if a.listener not in st.context.people:
        return f"{a.listener} is not a person of the context"
    if a.listener == a.actor:
        return "a private tell needs two different people"
    reason = _check_fact(st, a.actor, a.topic)
    if reason:
        return reason
    if isinstance(a.topic, Fact) and a.topic.entity == a.listener:
        return f"{a.actor} cannot tell {a.listener} where {a.listener} is"
    so = st.so_read(a.actor, a.listener)
    if all(so.get(k) == v for k, v in _topic_facts(a.topic).items()):
        return f"{a.actor} already thinks that {a.listener} knows this"
    return _check_modifiers(st, a.actor, (a.actor, a.listener), a.peekers, a.distracted)


def _anyone_learns(st: State, t: str | Fact, W: Sequence[str], D: Sequence[str]) -> bool:
    """Would a public tell of t change some store of a real witness (anyone in W but the distracted D), their own
    beliefs or what they think another witness believes? A tell that informs nobody is not a story event."""
    facts = _topic_facts(t)
    for x in W:
        if x in D:
            continue
        for b in W:
            store = st.fo_read(x) if b == x else st.so_read(x, b)
            if isinstance(t, Fact):
                if told_changes(store, t.entity, t.prop, t.value):
                    return True
            elif any(store.get(k) != v for k, v in facts.items()):
                return True
    return False


def _check_tell_public(st: State, a: TellPublic) -> str | None:
    r = _person_room(st, a.actor)
    if r is None:
        return f"{a.actor} is not in a room"
    W = st.people_in(r)
    if len(W) < 2:
        return f"{a.actor} is alone in the {r}"
    reason = _check_fact(st, a.actor, a.topic) or _check_modifiers(st, a.actor, W, a.peekers, a.distracted)
    if reason:
        return reason
    if _anyone_learns(st, a.topic, W, a.distracted):
        return None
    return "nobody in the room would learn anything new"


#: preconditions of each action record type (the same lookup as `APPLY`)
_CHECK: Mapping[type, Callable[[State, Any], str | None]] = MappingProxyType({
    EnterRoom: _check_enter_room,
    LeaveRoom: _check_leave_room,
    MoveObjectContainer: _check_move_object_container,
    UpdateObjectState: _check_update_object_state,
    MoveObjectRoom: _check_move_object_room,
    TellPrivate: _check_tell_private,
    TellPublic: _check_tell_public,
})


def check(st: State, a: Action) -> str | None:
    """Why `a` cannot be applied to `st`, or None if every precondition holds. Never mutates `st`."""
    if a.actor not in st.context.people:
        return f"{a.actor} is not a person of the context"
    precondition = _CHECK.get(type(a))
    if precondition is None:  # a subclass of a record type (the exact-type lookup is the fast path)
        precondition = next((f for cls, f in _CHECK.items() if isinstance(a, cls)), None)
        if precondition is None:
            return f"unknown action {a!r}"
    return precondition(st, a)


def _topic_facts(t: str | Fact) -> dict[Key, Value]:
    if isinstance(t, str):
        return {(t, TOPIC): True}
    return {(t.entity, t.prop): t.value}


def _check_fact(st: State, speaker: str, t: str | Fact) -> str | None:
    ctx = st.context
    if isinstance(t, str):
        if t not in ctx.topics:
            return f"{t} is not a topic of the context"
        return None
    if t.prop not in (ROOM, CONTAINER):
        return f"only room and container facts can be told, not {t.prop!r}"
    if t.prop == CONTAINER and t.value not in ctx.containers:
        return f"{t.value} is not a container of the context"
    if t.prop == ROOM and t.value not in ctx.rooms:
        return f"{t.value} is not a room of the context"
    if st.fo_read(speaker).get((t.entity, t.prop)) != t.value:
        return f"{speaker} does not believe that {t.entity} is in the {t.value}"
    return None


# ---------------------------------------------------------------------------------------------------- effects
def not_in(st: State, place: str) -> NotIn:
    """`NotIn(place)`, one shared instance per place of the context (`Context.memo`): an immutable value equals a
    separate copy, and creating a frozen dataclass costs more than looking it up (every departure writes one into
    the world and the witnesses' stores)."""
    memo = st.context.memo.not_in
    gone = memo.get(place)
    if gone is None:
        gone = memo[place] = NotIn(place)
    return gone


def _leave(st: State, p: str, r: str) -> None:
    W = st.people_in(r)
    gone = not_in(st, r)
    st.world[(p, ROOM)] = gone
    _broadcast(st, {(p, ROOM): gone}, W)


def _appear_all(st: State, names: Iterable[str]) -> None:
    fo = st.fo
    for n in names:
        if n not in fo:  # State.appear's own test, done here to skip the call for people already present
            st.appear(n)


# The sentences of the world actions, one place for both appliers: the tracker's below and the world-only one of
# deferred rollouts (`dsl/deferred.py`), whose steps must read word for word alike.
def enter_sentence(p: str, r: str) -> str:
    return f"{p} entered the {r}."


def leave_sentence(p: str, r: str) -> str:
    return f"{p} left the {r}."


def move_container_sentence(p: str, o: str, c: str, r: str) -> str:
    return f"{p} moved the {o} to the {c}, which is also located in the {r}."


def move_room_sentence(p: str, o: str, r2: str, left_in: str | None) -> str:
    """Moving `o` to room `r2`; `left_in`: the container it was in, which stays behind."""
    if left_in is not None:
        return f"{p} moved the {o} to the {r2}, leaving the {left_in} in its original location."
    return f"{p} moved the {o} to the {r2}."


def _apply_enter_room(st: State, a: EnterRoom, idx: int) -> Step:
    p, r = a.actor, a.room
    if p not in st.fo:
        st.appear(p)
    r0 = st.world.get((p, ROOM))
    if type(r0) is str:  # is_concrete, inlined
        _leave(st, p, r0)  # implicit departure: the occupants of r0 see p go
    O = st.people_in(r)
    st.world[(p, ROOM)] = r
    if r not in st.rooms_involved:  # _add, inlined
        st.rooms_involved.append(r)
    _broadcast(st, {(p, ROOM): r}, [*O, p])
    _perceive(st, p, r, O)
    return Step(a, enter_sentence(p, r))


def _apply_leave_room(st: State, a: LeaveRoom, idx: int) -> Step:
    _leave(st, a.actor, a.room)
    return Step(a, leave_sentence(a.actor, a.room))


# The world writes of the two object actions whose world effects come before any belief write, one place for both
# appliers: the tracker's below, and the world-only one of deferred rollouts (`dsl/deferred.py`), whose `appear`
# only lists the people (the tracker's also gives them belief stores). Each returns the actor's room.
def move_container_world(st: State, a: MoveObjectContainer, appear: Callable[[State, tuple[str, ...]], None]) -> str:
    p, o, c = a.actor, a.object, a.container
    w = st.world
    r = w[(p, ROOM)]  # a concrete room: `check` passed
    K, D = a.peekers, a.distracted
    appear(st, (p, *K, *D) if K or D else (p,))
    _add(st.objects_seen, o)
    _add(st.containers_seen, c)
    w[(o, ROOM)] = r
    w[(o, CONTAINER)] = c
    w[(c, ROOM)] = r
    return r  # type: ignore[return-value]


def update_state_world(st: State, a: UpdateObjectState, appear: Callable[[State, tuple[str, ...]], None]) -> str:
    p, o, sc = a.actor, a.object, a.change
    w = st.world
    r = w[(p, ROOM)]  # a concrete room: `check` passed
    appear(st, (p, *a.peekers, *a.distracted))
    _add(st.objects_seen, o)
    st.visibility.setdefault(sc.property, sc.visible)
    w[(o, ROOM)] = r
    w[(o, sc.property)] = sc.value
    values = st.state_values.setdefault((o, sc.property), [])
    if sc.value not in values:
        values.append(sc.value)
    return r  # type: ignore[return-value]


def _apply_move_object_container(st: State, a: MoveObjectContainer, idx: int) -> Step:
    p, o, c = a.actor, a.object, a.container
    K, D = a.peekers, a.distracted
    r = move_container_world(st, a, _appear_all)
    facts: dict[Key, Value] = {(o, ROOM): r, (o, CONTAINER): c, (c, ROOM): r}
    if st.visibility:  # no visible state property registered yet: nothing to add
        facts.update(_visible_state(st, o))
    _broadcast(st, facts, st.people_in(r), K, D)
    track_object(st, o, idx)
    return Step(a, move_container_sentence(p, o, c, r), modifier(st, a) if K or D else None)


def _apply_update_object_state(st: State, a: UpdateObjectState, idx: int) -> Step:
    o, sc = a.object, a.change
    r = update_state_world(st, a, _appear_all)
    facts: dict[Key, Value] = {(o, ROOM): r, (o, sc.property): sc.value}
    facts.update(_visible_state(st, o))
    if _is_visible(st, o):
        facts[(o, CONTAINER)] = NO_CONTAINER
    _broadcast(st, facts, st.people_in(r), a.peekers, a.distracted)
    track_object(st, o, idx)
    return Step(a, sc.sentence(a.actor, o), modifier(st, a))


def _apply_move_object_room(st: State, a: MoveObjectRoom, idx: int) -> Step:
    p, o, r2 = a.actor, a.object, a.room
    w = st.world
    r1 = _person_room(st, p)
    assert r1 is not None
    c = w.get((o, CONTAINER))
    W1 = st.people_in(r1)
    vstate = _visible_state(st, o)
    gone = not_in(st, r1)
    departure: dict[Key, Value] = {(o, ROOM): gone, (p, ROOM): gone}
    if is_concrete(c):
        departure[(o, CONTAINER)] = not_in(st, c)
        w[(o, CONTAINER)] = NO_CONTAINER
    departure.update(vstate)
    w[(o, ROOM)] = r2
    w[(p, ROOM)] = r2
    _add(st.rooms_involved, r2)
    _broadcast(st, departure, W1)
    O2 = [x for x in st.people_in(r2) if x != p]
    arrival: dict[Key, Value] = {(p, ROOM): r2, (o, ROOM): r2, (o, CONTAINER): NO_CONTAINER}
    arrival.update(vstate)
    _broadcast(st, arrival, [*O2, p])
    _perceive(st, p, r2, O2)
    track_object(st, o, idx)
    return Step(a, move_room_sentence(p, o, r2, c if is_concrete(c) else None))


def _apply_tell_private(st: State, a: TellPrivate, idx: int) -> Step:
    p1, p2, t = a.actor, a.listener, a.topic
    K, D = a.peekers, a.distracted
    _appear_all(st, (p1, p2, *K, *D) if K or D else (p1, p2))
    if isinstance(t, str):
        _add(st.topics, t)
        _broadcast(st, _topic_facts(t), (p1, p2), K, D)
        sentence = f"{p1} told privately to {p2} about the {t}."
    else:
        _broadcast_told(st, t, (p1, p2), K, D)
        sentence = f"{p1} told privately to {p2} that {fact_clause(t, t.entity in st.context.people)}."
    return Step(a, sentence, modifier(st, a) if K or D else None)


def _apply_tell_public(st: State, a: TellPublic, idx: int) -> Step:
    p, t = a.actor, a.topic
    r = _person_room(st, p)
    assert r is not None
    K, D = a.peekers, a.distracted
    _appear_all(st, (p, *K, *D) if K or D else (p,))
    if isinstance(t, str):
        _add(st.topics, t)
        _broadcast(st, _topic_facts(t), st.people_in(r), K, D)
        sentence = f"{p} told out loud about the {t}."
    else:
        _broadcast_told(st, t, st.people_in(r), K, D)
        sentence = f"{p} told out loud that {fact_clause(t, t.entity in st.context.people)}."
    return Step(a, sentence, modifier(st, a) if K or D else None)


#: effects of each action record type (a dict lookup instead of a chain of isinstance tests)
APPLY: Mapping[type, Callable[[State, Any, int], Step]] = MappingProxyType({
    EnterRoom: _apply_enter_room,
    LeaveRoom: _apply_leave_room,
    MoveObjectContainer: _apply_move_object_container,
    UpdateObjectState: _apply_update_object_state,
    MoveObjectRoom: _apply_move_object_room,
    TellPrivate: _apply_tell_private,
    TellPublic: _apply_tell_public,
})


def apply(st: State, a: Action, index: int | None = None) -> Step:
    """Apply `a` (whose preconditions must hold: call `check` first) and return its rendered step."""
    effect = APPLY.get(type(a))
    if effect is None:  # a subclass of a record type (the exact-type lookup is the fast path)
        effect = next((f for cls, f in APPLY.items() if isinstance(a, cls)), None)
        if effect is None:
            raise ActionRejected(f"unknown action {a!r}")
    return effect(st, a, index if index is not None else -1)


def try_apply(st: State, a: Action, index: int | None = None) -> Step | None:
    """Apply `a` if its preconditions hold; otherwise return None and leave `st` untouched."""
    if check(st, a) is not None:
        return None
    return apply(st, a, index)
