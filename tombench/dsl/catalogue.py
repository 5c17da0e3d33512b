"""The sampler's catalogue of action types: for each, how to list its candidates, test them fast and build a record.

A `Kind` joins one action type's pieces: its candidates (`tombench.dsl.candidates`), its fast validity test
(`tombench.dsl.validity`), its hopeless test (`tombench.dsl.hopeless`) and its record builder. `KINDS` holds every type
the sampler draws: the base types, and `<base>_peeking_distracted` for those that take a modifier (the modifier
options depend on who is in the room, so those are never static).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import NamedTuple

from tombench.dsl.action_sets import PEEKING
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
from tombench.dsl.candidates import ENUMERATORS, Enumerator, modified_enumerator
from tombench.dsl.context import Context
from tombench.dsl.hopeless import HOPELESS
from tombench.dsl.state import State
from tombench.dsl.story import Story
from tombench.dsl.validity import VALID, VALIDATORS
from tombench.dsl.values import Key

__all__ = [
    "Kind",
    "KINDS",
    "kind_of",
    "IMPORTANT_TYPES",
    "NO_TYPES",
    "doomed_types",
    "record",
    "candidate_actions",
    "candidate_tuples",
    "fast_valid",
]


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


def _base_kind(name: str, build: Callable[..., Action], static: bool, modifiable: bool) -> Kind:
    return Kind(build, ENUMERATORS[name], VALID[name], static, modifiable, VALIDATORS.get(name), HOPELESS.get(name))


#: each base type: its record builder, whether its tuples depend only on the context, whether it takes a modifier
_BASE_KINDS: Mapping[str, Kind] = MappingProxyType({
    name: _base_kind(name, build, static, modifiable)
    for name, build, static, modifiable in (
        ("enter_room", EnterRoom, True, False),
        ("leave_room", LeaveRoom, False, False),
        ("move_object_container", MoveObjectContainer, True, True),
        ("update_object_state", UpdateObjectState, True, True),
        ("move_object_room", MoveObjectRoom, True, False),
        ("privately_tell_about_abstract_topic", TellPrivate, True, True),
        ("publicly_tell_about_abstract_topic", TellPublic, True, True),
        ("privately_tell_about_object_container_location", _private_fact, False, True),
        ("publicly_tell_about_object_container_location", _public_fact, False, True),
        ("privately_tell_about_object_room_location", _private_fact, False, True),
        ("publicly_tell_about_object_room_location", _public_fact, False, True),
    )
})
#: every sampler action type (see the module docstring)
KINDS: Mapping[str, Kind] = MappingProxyType({
    **_BASE_KINDS,
    **{
        name + PEEKING: k._replace(
            enumerate=modified_enumerator(name + PEEKING), static=False, hopeless=HOPELESS.get(name + PEEKING)
        )
        for name, k in _BASE_KINDS.items()
        if k.modifiable
    },
})


def kind_of(name: str) -> Kind:
    """The kind of action type `name`; ValueError if the sampler has no such type."""
    kind = KINDS.get(name)
    if kind is None:
        raise ValueError(f"unknown action type {name!r}")
    return kind


#: the sampler types whose every action is important (`story._is_important`: moves, state changes, abstract-topic
#: tells; a location tell never is)
IMPORTANT_TYPES = frozenset(
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
    important = frozenset(name for name in allowed if name in IMPORTANT_TYPES)
    modified = frozenset(name for name in allowed if name.endswith(PEEKING))
    return NO_TYPES, modified, important, important | modified


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
