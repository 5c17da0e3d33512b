"""Story contexts: the named entities a story may use (semantics §1).

A context is what an LLM samples in the paper (names, rooms, an object, opaque containers, chit-chat topics and
object-state changes sorted into visible and invisible classes). The DSL only needs it as plain, validated data:
this module normalises names (lower case, no leading article) and rejects contexts the tracker could not label
reliably (a property used with both visibilities, duplicate names, a state value that does not read as a predicate).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from tombench.dsl.memo import ContextMemo

__all__ = ["Context", "ContextError", "StateChange", "DEFAULT_CONTEXT", "normalise_noun"]

_ARTICLE = re.compile(r"^(the|a|an)\s+", re.IGNORECASE)


class ContextError(ValueError):
    """A context that cannot be used to build labelled stories."""


_ACRONYM = re.compile(r"^[A-Z][A-Z0-9]+$")
_PIECES = re.compile(r"([_\-])")


def _lower_piece(piece: str) -> str:
    return piece if _ACRONYM.match(piece) else piece.lower()


def normalise_noun(text: str) -> str:
    """Lower-case a room/object/container/topic phrase and drop a leading article ("The Hotel Lobby" -> "hotel lobby").

    Acronyms keep their capitals ("TV room", ToMi's "TV_room"): a word, or a part of it between underscores or
    hyphens, written in two or more capitals is a name, and lower-casing it would change the benchmark's text.
    """
    text = " ".join(str(text).strip().split())
    text = _ARTICLE.sub("", text)
    return " ".join("".join(_lower_piece(p) for p in _PIECES.split(word)) for word in text.split(" "))


@dataclass(frozen=True)
class StateChange:
    """One object-state change the context allows, e.g. painting the object red.

    `value` reads as a predicate after "the {object} " ("is painted red"); `text` is the sentence template with
    `{person}` and `{object}` slots; `visible` says whether someone who saw the object before would notice the change
    at a glance (painted, peeled) or not (poisoned, disinfected).
    """

    property: str
    value: str
    text: str
    visible: bool

    def sentence(self, person: str, obj: str) -> str:
        return self.text.replace("{person}", person).replace("{object}", obj)

    def to_dict(self) -> dict[str, Any]:
        return {"property": self.property, "value": self.value, "text": self.text, "visible": self.visible}


def _validate_state_changes(changes: Sequence[StateChange]) -> None:
    """The state changes the tracker can label: a property keeps one visibility (the tracker registers it once), a
    text names both the person and the object, a value reads as a predicate, and no property shadows a location or
    topic slot."""
    vis: dict[str, bool] = {}
    for sc in changes:
        if vis.setdefault(sc.property, sc.visible) != sc.visible:
            raise ContextError(f"state property {sc.property!r} is used both as visible and invisible")
        if "{person}" not in sc.text or "{object}" not in sc.text:
            raise ContextError(f"state-change text must contain {{person}} and {{object}}: {sc.text!r}")
        if not sc.value or sc.value != sc.value.strip():
            raise ContextError(f"bad state value {sc.value!r}")
        if sc.property in ("room", "container", "topic"):
            raise ContextError(f"{sc.property!r} is reserved and cannot name a state property")
    if len({(sc.property, sc.value) for sc in changes}) != len(changes):
        raise ContextError("duplicate state change (property, value)")


@dataclass(frozen=True)
class Context:
    """Ordered entity lists for one story. Order matters: it is the enumeration order of the sampler."""

    people: tuple[str, ...]
    rooms: tuple[str, ...]
    objects: tuple[str, ...]
    containers: tuple[str, ...]
    topics: tuple[str, ...] = ()
    state_changes: tuple[StateChange, ...] = ()
    setting: str = ""
    id: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)
    #: ToMi's world (Le et al. 2019): containers are open, so whoever enters a room sees what is in them (the
    #: semantics' object permanence, §4.0 rule 4, then does not hold for that room's containers). Off by default.
    open_containers: bool = False

    def __post_init__(self) -> None:
        self.validate()

    @cached_property
    def memo(self) -> ContextMemo:
        """What the sampler and the tracker remember about this context's stories (`tombench.dsl.memo`): one per
        context object, so it lives as long as the context and holds only values built from its names."""
        return ContextMemo()

    # ------------------------------------------------------------------ validation
    def validate(self) -> None:
        if not self.people:
            raise ContextError("a context needs at least one person")
        # rooms and objects may be empty: a context inferred from a chit-chat-only story has none
        for label, names in (
            ("people", self.people),
            ("rooms", self.rooms),
            ("objects", self.objects),
            ("containers", self.containers),
            ("topics", self.topics),
        ):
            self._validate_names(label, names)
        for p in self.people:
            if not (p[:1].isupper() and re.fullmatch(r"[^\W\d_][\w'\-]*", p)):
                raise ContextError(f"person names must be single capitalised words, got {p!r}")
        nouns = set(self.rooms) | set(self.objects) | set(self.containers)
        if len(nouns) != len(self.rooms) + len(self.objects) + len(self.containers):
            raise ContextError("rooms, objects and containers must not share names")
        _validate_state_changes(self.state_changes)

    def _validate_names(self, label: str, names: tuple[str, ...]) -> None:
        """One list of names: distinct, and each already in the normal form a story renders (the templates print
        names verbatim, and the parser must read back exactly what was rendered)."""
        if len(set(names)) != len(names):
            raise ContextError(f"duplicate {label} in context {self.id or self.setting!r}: {list(names)}")
        for n in names:
            if not n or n != n.strip() or "  " in n:
                raise ContextError(f"bad {label} name {n!r}")
            if label != "people" and normalise_noun(n) != n:
                raise ContextError(f"{label} must be lower-case (acronyms aside) without a leading article: {n!r}")

    def visibility(self, prop: str) -> bool | None:
        for sc in self.state_changes:
            if sc.property == prop:
                return sc.visible
        return None

    def _replace_unchecked(self, **changes: Any) -> Context:
        """A copy with some lists replaced by sub-lists of this (already validated) context, without re-validating.

        Only for subsets of the field lists (the names in `changes` must be field names): a subset of a valid context
        is valid. Used on the sampler's hot path (once per rollout).
        """
        new = object.__new__(Context)
        # the fields live in the instance dict (a frozen dataclass without slots): copy it, then replace some
        fields = new.__dict__
        fields.update(self.__dict__)
        fields.update(changes)
        fields.pop("memo", None)  # the copy's names differ: it gets a memo of its own
        return new

    def restrict(
        self,
        *,
        people: int | None = None,
        rooms: int | None = None,
        containers: int | None = None,
    ) -> Context:
        """The first n people/rooms/containers (semantics §6: "the first p people, the first m containers...")."""
        return replace(
            self,
            people=self.people[:people] if people is not None else self.people,
            rooms=self.rooms[:rooms] if rooms is not None else self.rooms,
            containers=self.containers[:containers] if containers is not None else self.containers,
        )

    # ------------------------------------------------------------------ (de)serialisation
    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "id": self.id,
            "setting": self.setting,
            "people": list(self.people),
            "rooms": list(self.rooms),
            "objects": list(self.objects),
            "containers": list(self.containers),
            "topics": list(self.topics),
            "state_changes": [sc.to_dict() for sc in self.state_changes],
        }
        if self.metadata:
            d["metadata"] = dict(self.metadata)
        if self.open_containers:
            d["open_containers"] = True
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Context:
        """Build a context from JSON-like data, normalising names. Raises ContextError on bad input."""
        if not isinstance(d, Mapping):
            raise ContextError(f"a context must be a JSON object, got {type(d).__name__}")

        def names(key: str, noun: bool = True) -> tuple[str, ...]:
            raw = d.get(key, [])
            if isinstance(raw, str) or not isinstance(raw, Sequence):
                raise ContextError(f"context field {key!r} must be a list of strings")
            out = []
            for x in raw:
                if not isinstance(x, str):
                    raise ContextError(f"context field {key!r} must be a list of strings")
                out.append(normalise_noun(x) if noun else " ".join(x.split()))
            return tuple(out)

        changes = []
        for sc in d.get("state_changes", []) or []:
            if not isinstance(sc, Mapping):
                raise ContextError("each state change must be an object with property, value, text, visible")
            try:
                changes.append(
                    StateChange(
                        property=normalise_noun(sc["property"]),
                        value=" ".join(str(sc["value"]).split()),
                        text=" ".join(str(sc["text"]).split()),
                        visible=bool(sc["visible"]),
                    )
                )
            except KeyError as e:
                raise ContextError(f"state change is missing field {e.args[0]!r}") from None
        return cls(
            people=names("people", noun=False),
            rooms=names("rooms"),
            objects=names("objects"),
            containers=names("containers"),
            topics=names("topics"),
            state_changes=tuple(changes),
            setting=str(d.get("setting", "")),
            id=str(d.get("id", "")),
            metadata=dict(d.get("metadata", {}) or {}),
            open_containers=bool(d.get("open_containers", False)),
        )


#: The built-in default context of semantics §1 (used by the statistics and the ToMi-style benchmark).
DEFAULT_CONTEXT = Context(
    people=("Anne", "Beth", "Charles", "Diane", "Esther", "Fanny", "George"),
    rooms=("kitchen", "bedroom"),
    objects=("apple",),
    containers=("box", "basket", "chest", "black bin", "crate", "drawer"),
    topics=(),
    state_changes=(),
    setting="default",
    id="default",
)
