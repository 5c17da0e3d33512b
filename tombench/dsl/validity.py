"""Fast validity: does the tracker accept the record of a candidate tuple? (yes or no, not why)

`check` answers "why not?" for any record; the sampler only needs "yes or no?" for tuples it enumerated itself.
Each `_valid_*` below returns exactly `check(st, record) is None` for the record of such a tuple, and skips only the
preconditions that hold by construction of the enumerators (`tombench.dsl.candidates`):
  - every name is a context name of the right kind (people, rooms, objects, containers, state changes, topics),
    and a private tell has two different people;
  - a modifier passes `_check_modifiers`, because `modifier_options` built it from the same witnesses W (the state
    does not change between enumerating and drawing);
  - a told fact is a room or container slot of the speaker's own first-order store, so the speaker believes it.
tests/dsl/test_equivalence.py asserts the equality over every candidate of every type in random reachable states.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType

from tombench.dsl.state import EMPTY_STORE, State
from tombench.dsl.tracker import told_changes
from tombench.dsl.values import CONTAINER, ROOM, TOPIC, Key, Value

__all__ = ["Valid", "VALID", "VALIDATORS", "in_context", "learners", "public_fact_validator"]

#: a type's validity test of one candidate tuple in a state
Valid = Callable[[State, tuple], bool]


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


def in_context(st: State, slot: Key, value: Value) -> bool:
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
    ctx = st.context  # in_context, inlined: this runs for most drawn tells
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


def learners(st: State, W: list[str], slot: Key, value: str) -> tuple[str, ...]:
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


def public_fact_validator(st: State) -> Callable[[State, tuple], bool]:
    """`_valid_tell_public_fact` for the candidates of one draw, in state `st` only.

    It remembers each speaker's audience and, for each told fact, who would learn it: a speaker's candidates share
    the audience, and a `_peeking_distracted` candidate list offers each fact once per modifier, the modifier
    deciding only whether a learner is distracted. The memos hold while the state does not change, that is, for the
    candidates of one draw (the draw ends when an action is applied).
    """
    audiences: dict[str, list[str] | None] = {}
    learned: dict[tuple[str, Key, str], tuple[str, ...]] = {}

    def valid(st: State, args: tuple) -> bool:
        """TellPublic(p, Fact[, K, D]): p is with someone, and someone present and not distracted would learn
        something (told closure)."""
        p, slot, value = args[0], args[1], args[2]
        key = (p, slot, value)
        L = learned.get(key)
        if L is None:
            if p in audiences:
                W = audiences[p]
            else:
                W = audiences[p] = _public_audience(st, p)
            L = learned[key] = learners(st, W, slot, value) if W and in_context(st, slot, value) else ()
        if len(args) == 3 or not L:
            return bool(L)
        distracted = args[4]
        return any(x not in distracted for x in L)

    return valid


def _valid_tell_public_fact(st: State, args: tuple) -> bool:
    """TellPublic(p, Fact[, K, D]): p is with someone, and someone present would learn something (told closure)."""
    return public_fact_validator(st)(st, args)


#: the validity test of each base action type (a `_peeking_distracted` type's is its base's)
VALID: Mapping[str, Valid] = MappingProxyType({
    "enter_room": _valid_enter_room,
    "leave_room": _valid_leave_room,
    "move_object_container": _valid_move_object_container,
    "update_object_state": _valid_update_object_state,
    "move_object_room": _valid_move_object_room,
    "privately_tell_about_abstract_topic": _valid_tell_private_topic,
    "publicly_tell_about_abstract_topic": _valid_tell_public_topic,
    "privately_tell_about_object_container_location": _valid_tell_private_fact,
    "publicly_tell_about_object_container_location": _valid_tell_public_fact,
    "privately_tell_about_object_room_location": _valid_tell_private_fact,
    "publicly_tell_about_object_room_location": _valid_tell_public_fact,
})
#: the base types whose candidates of one draw share work (`public_fact_validator`)
VALIDATORS: Mapping[str, Callable[[State], Valid]] = MappingProxyType({
    "publicly_tell_about_object_container_location": public_fact_validator,
    "publicly_tell_about_object_room_location": public_fact_validator,
})
