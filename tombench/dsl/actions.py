"""Declarative action records (semantics §2.3, §4).

A story is a list of these frozen records; the tracker interprets them. They serialise to plain JSON dicts
(`to_dict` / `action_from_dict`), so stories are stored as data, never as pickled closures, and replaying the records
on a fresh state reproduces every belief.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tombench.dsl.context import StateChange

__all__ = [
    "Action",
    "EnterRoom",
    "LeaveRoom",
    "MoveObjectContainer",
    "UpdateObjectState",
    "MoveObjectRoom",
    "TellPrivate",
    "TellPublic",
    "Fact",
    "action_from_dict",
    "action_name",
]


@dataclass(frozen=True, slots=True)
class Fact:
    """A location fact that can be told: `entity`'s `prop` ("room" or "container") is `value` (concrete)."""

    entity: str
    prop: str
    value: str

    def to_dict(self) -> dict[str, str]:
        return {"entity": self.entity, "property": self.prop, "value": self.value}


Topic = str | Fact  # an abstract chit-chat topic, or a location fact


class _Record:
    """What every action record shares: its CLI `name` (`action_name`), computed on first read and kept.

    The structural predicates read the name of every step of a story after nearly every sampled action, and
    computing it costs several attribute reads and a string join. The name is kept in a slot, not a dataclass field:
    it is not part of the record's value (equality, hashing, `dataclasses.fields`, pickling), and a record that
    comes back from a pickle computes it again."""

    __slots__ = ("_name",)

    @property
    def name(self) -> str:
        try:
            return self._name
        except AttributeError:
            name = _name_of(self)  # type: ignore[arg-type]
            object.__setattr__(self, "_name", name)  # a frozen record: its name never changes
            return name


class _Unmodified(_Record):
    """Actions that take no modifier (semantics §3): no peekers, nobody distracted."""

    __slots__ = ()

    @property
    def peekers(self) -> tuple[str, ...]:
        return ()

    @property
    def distracted(self) -> tuple[str, ...]:
        return ()


@dataclass(frozen=True, slots=True)
class EnterRoom(_Unmodified):
    actor: str
    room: str
    type = "enter_room"


@dataclass(frozen=True, slots=True)
class LeaveRoom(_Unmodified):
    actor: str
    room: str
    type = "leave_room"


@dataclass(frozen=True, slots=True)
class MoveObjectContainer(_Record):
    actor: str
    object: str
    container: str
    peekers: tuple[str, ...] = ()
    distracted: tuple[str, ...] = ()
    type = "move_object_container"


@dataclass(frozen=True, slots=True)
class UpdateObjectState(_Record):
    actor: str
    object: str
    change: StateChange
    peekers: tuple[str, ...] = ()
    distracted: tuple[str, ...] = ()
    type = "update_object_state"


@dataclass(frozen=True, slots=True)
class MoveObjectRoom(_Unmodified):
    actor: str
    object: str
    room: str
    type = "move_object_room"


@dataclass(frozen=True, slots=True)
class TellPrivate(_Record):
    actor: str
    listener: str
    topic: Topic
    peekers: tuple[str, ...] = ()
    distracted: tuple[str, ...] = ()
    type = "tell_private"


@dataclass(frozen=True, slots=True)
class TellPublic(_Record):
    actor: str
    topic: Topic
    peekers: tuple[str, ...] = ()
    distracted: tuple[str, ...] = ()
    type = "tell_public"


Action = EnterRoom | LeaveRoom | MoveObjectContainer | UpdateObjectState | MoveObjectRoom | TellPrivate | TellPublic


def _tell_name(a: TellPrivate | TellPublic) -> str:
    how = "privately" if isinstance(a, TellPrivate) else "publicly"
    t = a.topic
    if isinstance(t, str):
        return f"{how}_tell_about_abstract_topic"
    if t.prop == "container":
        return f"{how}_tell_about_object_container_location"
    return f"{how}_tell_about_object_room_location"


def action_name(a: Action) -> str:
    """The CLI action name of a record (semantics §6), with `_peeking_distracted` when it carries a modifier."""
    return a.name


def _name_of(a: Action) -> str:
    """`action_name`, computed (`_Record` keeps it as the record's `name`)."""
    if isinstance(a, (TellPrivate, TellPublic)):
        base = _tell_name(a)
    else:
        base = a.type
    if a.peekers or a.distracted:
        return base + "_peeking_distracted"
    return base


def _mods(a: Any, d: dict[str, Any]) -> dict[str, Any]:
    d["peekers"] = list(a.peekers)
    d["distracted"] = list(a.distracted)
    return d


def action_to_dict(a: Action) -> dict[str, Any]:
    """JSON form of a record, e.g. {"type": "move_object_container", "actor": "Anne", "object": "apple", ...}."""
    if isinstance(a, (EnterRoom, LeaveRoom)):
        return {"type": a.type, "actor": a.actor, "room": a.room}
    if isinstance(a, MoveObjectContainer):
        return _mods(a, {"type": a.type, "actor": a.actor, "object": a.object, "container": a.container})
    if isinstance(a, UpdateObjectState):
        return _mods(a, {"type": a.type, "actor": a.actor, "object": a.object, "change": a.change.to_dict()})
    if isinstance(a, MoveObjectRoom):
        return {"type": a.type, "actor": a.actor, "object": a.object, "room": a.room}
    topic: Any = a.topic if isinstance(a.topic, str) else a.topic.to_dict()
    if isinstance(a, TellPrivate):
        return _mods(a, {"type": a.type, "actor": a.actor, "listener": a.listener, "topic": topic})
    return _mods(a, {"type": a.type, "actor": a.actor, "topic": topic})


def _topic(raw: Any) -> Topic:
    if isinstance(raw, str):
        return raw
    if isinstance(raw, Mapping):
        return Fact(str(raw["entity"]), str(raw["property"]), str(raw["value"]))
    raise ValueError(f"bad topic {raw!r}")


def action_from_dict(d: Mapping[str, Any]) -> Action:
    """Inverse of `action_to_dict`. Raises ValueError (with the offending record) on malformed input."""
    try:
        t = d["type"]
        k = tuple(d.get("peekers", ()))
        dd = tuple(d.get("distracted", ()))
        if t == "enter_room":
            return EnterRoom(d["actor"], d["room"])
        if t == "leave_room":
            return LeaveRoom(d["actor"], d["room"])
        if t == "move_object_container":
            return MoveObjectContainer(d["actor"], d["object"], d["container"], k, dd)
        if t == "update_object_state":
            c = d["change"]
            sc = StateChange(c["property"], c["value"], c["text"], bool(c["visible"]))
            return UpdateObjectState(d["actor"], d["object"], sc, k, dd)
        if t == "move_object_room":
            return MoveObjectRoom(d["actor"], d["object"], d["room"])
        if t == "tell_private":
            return TellPrivate(d["actor"], d["listener"], _topic(d["topic"]), k, dd)
        if t == "tell_public":
            return TellPublic(d["actor"], _topic(d["topic"]), k, dd)
    except (KeyError, TypeError) as e:
        raise ValueError(f"malformed action record {dict(d)!r}: {e}") from None
    raise ValueError(f"unknown action type {d.get('type')!r}")
