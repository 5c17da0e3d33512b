"""Belief values (semantics §2.1): concrete strings plus three typed non-concrete values.

A slot in a store is either absent (no key), or holds a concrete value (a room, container or state string),
`NotIn(x)` (known not to be in x), `UNKNOWN` (the believer knows they do not know) or `NO_CONTAINER` (the object lies
in the open). Real types, never string encodings, so no substring test can ever confuse "not(kitchen)" with
"kitchen".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = ["NotIn", "UNKNOWN", "NO_CONTAINER", "Value", "Key", "is_concrete", "ROOM", "CONTAINER", "TOPIC"]

#: property names used by the tracker; object-state properties use the context's own names
ROOM: Final = "room"
CONTAINER: Final = "container"
TOPIC: Final = "topic"


@dataclass(frozen=True, slots=True)
class NotIn:
    """Known not to be in `where` (left the room, or taken out of the container); whereabouts otherwise unknown."""

    where: str

    def __repr__(self) -> str:
        return f"NotIn({self.where!r})"


class _Sentinel:
    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name

    def __reduce__(self) -> str:  # keep singletons singletons under copy/pickle
        return self._name


#: the believer expected to see something and did not, or was told a contradicting fact
UNKNOWN: Final = _Sentinel("UNKNOWN")
#: the object is not inside any container
NO_CONTAINER: Final = _Sentinel("NO_CONTAINER")

#: what a slot holds: a concrete string, NotIn, UNKNOWN, NO_CONTAINER, or True for a known topic
Value = str | NotIn | _Sentinel | bool
#: a slot: (entity, property)
Key = tuple[str, str]


def is_concrete(value: object) -> bool:
    """Only concrete values (plain strings) are ever asked about or given as answers."""
    return type(value) is str
