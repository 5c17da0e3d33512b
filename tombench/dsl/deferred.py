"""Deferred beliefs: rollouts of belief-free action sets track the world only, and replay the beliefs when read.

Why: in an action set without tells (ToMi and the room, state and peeking variants), no precondition reads a belief
store, so the random draws of a rollout depend on the world alone; yet updating every witness's first- and
second-order stores was about 30% of such a rollout, and most rollouts are thrown away unread (the search's lookahead
keeps only "desired?" and the length). A deferred rollout applies each action's world effects (`WORLD_APPLY`: the
world, the lists of people, rooms, objects and containers, state values, trajectories and the rendered step, exactly
as the tracker writes them) and records the action. Its state is a `DeferredState`: every field but `fo` and `so`
is current; reading `fo` or `so` (questions, answers, `snapshot`, `copy`) replays the recorded actions with the full
tracker on a copy of the state the rollout started from, which gives the very beliefs a full rollout would have
(the tracker is deterministic), and turns the object into a plain `State`.

The state a deferred rollout starts from is shared, not copied: it is marked `_shared`, and `Story._commit` copies a
shared state before its next write (copy on write), so the base a deferred state replays from never changes.
tests/dsl/test_deferred.py pins both: same draws, same steps, same `snapshot()` as full rollouts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from tombench.dsl.action_sets import PEEKING
from tombench.dsl.actions import Action, EnterRoom, LeaveRoom, MoveObjectContainer, MoveObjectRoom, UpdateObjectState
from tombench.dsl.state import State, Store
from tombench.dsl.tracker import (
    APPLY,
    Step,
    enter_sentence,
    leave_sentence,
    modifier,
    move_container_sentence,
    move_container_world,
    move_room_sentence,
    not_in,
    track_object,
    update_state_world,
)
from tombench.dsl.values import CONTAINER, NO_CONTAINER, ROOM

__all__ = ["DeferredState", "belief_free", "deferred_copy"]

#: the sampler types whose preconditions read only the world (no tell: a tell's validity reads belief stores)
_WORLD_TYPES = frozenset(
    name + suffix
    for name in ("enter_room", "leave_room", "move_object_container", "update_object_state", "move_object_room")
    for suffix in ("", PEEKING)
)


def belief_free(allowed: tuple[str, ...]) -> bool:
    """Can rollouts over these action types defer beliefs? (Every type's validity reads the world only.)

    `Conditions.defer` keeps the answer for its action set: a rollout asks once per story."""
    return all(name in _WORLD_TYPES for name in allowed)


class DeferredState(State):
    """A `State` whose world is current and whose belief stores `fo` and `so` are computed on first read.

    `_base` is a full `State` that nothing writes any more (see the module docstring), `_pending` the actions applied
    since, each with its step index. Not a dataclass of its own: it has `State`'s fields in its `__dict__` except
    `fo` and `so`, which the properties below supply; once computed, the object becomes a plain `State`.
    """

    _base: State
    _pending: list[tuple[Action, int]]

    @property  # type: ignore[override]
    def fo(self) -> dict[str, Store]:
        return self._materialise().fo

    @property  # type: ignore[override]
    def so(self) -> dict[tuple[str, str], Store]:
        return self._materialise().so

    def _materialise(self) -> State:
        """Replay the pending actions on a copy of the base, take its beliefs, and become a plain `State`."""
        full = self._base.copy()
        for action, index in self._pending:
            APPLY[type(action)](full, action, index)
        d = self.__dict__
        del d["_base"], d["_pending"]
        self.__class__ = State  # fo and so become plain attributes again
        d["fo"], d["so"] = full.fo, full.so
        return self

    def __eq__(self, other: object) -> bool:
        """`State`'s field-by-field equality, beliefs included (computed first)."""
        return self._materialise() == other

    __hash__ = None  # type: ignore[assignment]  (as `State`'s: mutable)


def deferred_copy(st: State) -> DeferredState:
    """A copy of `st` for a deferred rollout: its world-side fields copied, its beliefs replayed from `st` on
    demand (or from `st`'s own base when `st` is deferred too, so that deferral never nests)."""
    new = DeferredState.__new__(DeferredState)
    d = st.copy_world_into(new)
    if type(st) is DeferredState:
        d["_base"] = st._base
        d["_pending"] = list(st._pending)
    else:
        st._shared = True  # copy on write: the owner copies it before its next write
        d["_base"] = st
        d["_pending"] = []
    return new


# ---------------------------------------------------------------------------------------------------- world effects
# Each is the tracker's `_apply_*` of the same record type minus every write to `fo` and `so` (broadcasts,
# perception): `appear` becomes adding the person to `people`, in the same order. The two object actions share their
# world writes with the tracker (`tracker.move_container_world`, `update_state_world`); entering, leaving and moving
# to a room interleave the world writes with the broadcasts there, so their world writes are restated here
# (tests/dsl/test_deferred.py is the contract).


# A deferred rollout applies the sampler's records again and again (`Context.memo.records`), and a step is
# immutable: each applier below renders the step of a record once per context (`Context.memo.steps`, by the
# record's content and the world value its sentence reads), since building one cost a sixth of a ToMi rollout. The
# lookup is inlined (this runs for every applied action); a step of another record object equal to the record is
# rendered again, so that `step.action` is the record applied, as when the tracker renders it.


def _appear(st: State, names: tuple[str, ...]) -> None:
    people = st.people
    for n in names:
        if n not in people:
            people.append(n)


def _enter_room(st: State, a: EnterRoom, idx: int) -> Step:
    p, r = a.actor, a.room
    w = st.world
    if p not in st.people:
        st.people.append(p)
    r0 = w.get((p, ROOM))
    if type(r0) is str:
        w[(p, ROOM)] = not_in(st, r0)  # the implicit departure's world write (overwritten below, as in the tracker)
    w[(p, ROOM)] = r
    if r not in st.rooms_involved:
        st.rooms_involved.append(r)
    steps = st.context.memo.steps
    key = (EnterRoom, p, r)
    step = steps.get(key)
    if step is None or step.action is not a:
        step = steps[key] = Step(a, enter_sentence(p, r))
    return step


def _leave_room(st: State, a: LeaveRoom, idx: int) -> Step:
    st.world[(a.actor, ROOM)] = not_in(st, a.room)
    steps = st.context.memo.steps
    key = (LeaveRoom, a.actor, a.room)
    step = steps.get(key)
    if step is None or step.action is not a:
        step = steps[key] = Step(a, leave_sentence(a.actor, a.room))
    return step


def _move_object_container(st: State, a: MoveObjectContainer, idx: int) -> Step:
    r = move_container_world(st, a, _appear)
    track_object(st, a.object, idx)
    steps = st.context.memo.steps
    key = (a.actor, a.object, a.container, a.peekers, a.distracted, r)
    step = steps.get(key)
    if step is None or step.action is not a:
        sentence = move_container_sentence(a.actor, a.object, a.container, r)
        step = steps[key] = Step(a, sentence, modifier(st, a) if a.peekers or a.distracted else None)
    return step


def _update_object_state(st: State, a: UpdateObjectState, idx: int) -> Step:
    update_state_world(st, a, _appear)
    track_object(st, a.object, idx)
    return Step(a, a.change.sentence(a.actor, a.object), modifier(st, a))


def _move_object_room(st: State, a: MoveObjectRoom, idx: int) -> Step:
    p, o, r2 = a.actor, a.object, a.room
    w = st.world
    c = w.get((o, CONTAINER))
    if type(c) is str:
        w[(o, CONTAINER)] = NO_CONTAINER
    w[(o, ROOM)] = r2
    w[(p, ROOM)] = r2
    if r2 not in st.rooms_involved:
        st.rooms_involved.append(r2)
    track_object(st, o, idx)
    return Step(a, move_room_sentence(p, o, r2, c if type(c) is str else None))


#: the world effects of each belief-free record type (`Story._commit` uses them for a `DeferredState`)
WORLD_APPLY: Mapping[type, Callable[[State, Any, int], Step]] = MappingProxyType({
    EnterRoom: _enter_room,
    LeaveRoom: _leave_room,
    MoveObjectContainer: _move_object_container,
    UpdateObjectState: _update_object_state,
    MoveObjectRoom: _move_object_room,
})
