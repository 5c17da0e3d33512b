"""Action sets, story types and the 162-setting grid (semantics §6).

A story type is one of 9 action sets, optionally `+asymmetric`. Its allowed actions always include entering and
leaving; its *differentiating* actions are the ones a story needs at least one of (the paper's boxed actions).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import product
from types import MappingProxyType

__all__ = [
    "ACTION_SETS",
    "STORY_TYPES",
    "ActionSet",
    "Setting",
    "action_set",
    "settings_grid",
    "derive_seed",
    "PEEKING",
]

PEEKING = "_peeking_distracted"

_MC = "move_object_container"
_U = "update_object_state"
_MR = "move_object_room"
_PRIV_TOPIC = "privately_tell_about_abstract_topic"
_PUB_TOPIC = "publicly_tell_about_abstract_topic"
_PRIV_CONT = "privately_tell_about_object_container_location"
_PUB_CONT = "publicly_tell_about_object_container_location"
_PRIV_ROOM = "privately_tell_about_object_room_location"
_PUB_ROOM = "publicly_tell_about_object_room_location"

# name -> (paper symbol, extra allowed actions, differentiating actions, rooms)
_BASE: Mapping[str, tuple[str, tuple[str, ...], tuple[str, ...], int]] = MappingProxyType({
    "tomi": ("A1", (_MC,), (_MC,), 1),
    "tomi-object-state": ("A2", (_U,), (_U,), 1),
    "tomi+object-state": ("A3", (_MC, _U), (_MC, _U), 1),
    "tomi+room-changes": ("A4", (_MC, _MR), (_MR,), 2),
    "tomi+info-exchange": ("A5", (_MC, _PRIV_CONT, _PUB_CONT), (_PRIV_CONT, _PUB_CONT), 1),
    "allbutfantom": (
        "A6",
        (_MC, _MR, _PRIV_CONT, _PUB_CONT, _PRIV_ROOM, _PUB_ROOM),
        (_PRIV_CONT, _PUB_CONT, _PRIV_ROOM, _PUB_ROOM),
        2,
    ),
    "all": (
        "A7",
        (_MC, _MR, _PRIV_CONT, _PUB_CONT, _PRIV_ROOM, _PUB_ROOM, _PRIV_TOPIC, _PUB_TOPIC),
        (_PRIV_CONT, _PUB_CONT, _PRIV_ROOM, _PUB_ROOM),
        2,
    ),
    "fantom-private": ("A8", (_PRIV_TOPIC,), (_PRIV_TOPIC,), 1),
    "fantom-public": ("A9", (_PUB_TOPIC,), (_PUB_TOPIC,), 1),
})

#: the 9 action sets, in the paper's order
ACTION_SETS: tuple[str, ...] = tuple(_BASE)
#: the 18 story types: each action set, plain then +asymmetric
STORY_TYPES: tuple[str, ...] = tuple(t for name in ACTION_SETS for t in (name, name + "+asymmetric"))


@dataclass(frozen=True)
class ActionSet:
    """Allowed and differentiating actions of one story type (CLI action names)."""

    story_type: str
    base: str
    paper: str
    asymmetric: bool
    allowed: tuple[str, ...]
    differentiating: tuple[str, ...]
    rooms: int
    #: M in the search's neighbour weight (§7.4): 5 for the room-change families
    diff_weight: int


def action_set(story_type: str) -> ActionSet:
    """The action set of a story type such as "tomi+info-exchange+asymmetric". Raises ValueError if unknown."""
    aset = _ACTION_SET.get(story_type)
    if aset is None:
        raise ValueError(f"unknown story type {story_type!r}; choose from: {', '.join(STORY_TYPES)}")
    return aset


def _build_action_set(story_type: str) -> ActionSet:
    asym = story_type.endswith("+asymmetric")
    base = story_type.removesuffix("+asymmetric")
    paper, extra, diff, rooms = _BASE[base]
    allowed = ("enter_room", "leave_room", *extra)
    if asym:
        if base == "tomi+room-changes":
            allowed = (*allowed, _MC + PEEKING)
        else:
            diff = tuple(d + PEEKING for d in diff)
            allowed = (*allowed, *diff)
    return ActionSet(
        story_type=story_type,
        base=base,
        paper=paper,
        asymmetric=asym,
        allowed=allowed,
        differentiating=diff,
        rooms=rooms,
        diff_weight=5 if rooms == 2 else 1,
    )


#: the action set of each of the 18 story types, built once: an ActionSet is immutable, so all share one instance
_ACTION_SET: Mapping[str, ActionSet] = MappingProxyType({t: _build_action_set(t) for t in STORY_TYPES})


@dataclass(frozen=True)
class Setting:
    """One cell of the grid: a story type, the number of people p and of important actions m (moves)."""

    story_type: str
    people: int
    moves: int
    rooms: int
    max_sentences: int = 15

    @property
    def id(self) -> str:
        return f"{self.story_type}|p{self.people}|m{self.moves}|r{self.rooms}"

    @property
    def action_set(self) -> ActionSet:
        return action_set(self.story_type)

    @property
    def asymmetric(self) -> bool:
        return self.story_type.endswith("+asymmetric")

    @classmethod
    def make(cls, story_type: str, people: int, moves: int, rooms: int | None = None, max_sentences: int = 15) -> Setting:
        aset = action_set(story_type)
        return cls(story_type, people, moves, aset.rooms if rooms is None else rooms, max_sentences)


def settings_grid(
    story_types: Sequence[str] = STORY_TYPES,
    people: Sequence[int] = (2, 3, 4),
    moves: Sequence[int] = (2, 3, 4),
    rooms: int | None = None,
) -> list[Setting]:
    """Every setting of a grid, story type first, then people, then moves (the order runs search them); the
    defaults are the paper's grid: 18 story types x people 2-4 x important actions 2-4 = 162 settings. `rooms`
    overrides every action set's number of rooms."""
    return [Setting.make(t, p, m, rooms) for t, p, m in product(story_types, people, moves)]


def derive_seed(seed: int, *parts: object) -> int:
    """A stable per-setting/per-story seed: sha256 of "seed|part|part|..." (independent of PYTHONHASHSEED)."""
    key = "|".join(str(x) for x in (seed, *parts))
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")
