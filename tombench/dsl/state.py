"""The tracked state of a story (semantics §2.2–2.3): world, first- and second-order belief stores, bookkeeping.

Stores are plain dicts keyed by (entity, property). SO[p][p] is the *same dict object* as FO[p], so a write to one
is a write to the other, as the semantics requires. Every list is kept in first-appearance order, never a set, so
iteration (and therefore every generated story and question) is independent of PYTHONHASHSEED.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from tombench.dsl.context import Context
from tombench.dsl.values import Key, Value

__all__ = ["State", "Store", "EMPTY_STORE"]

Store = dict[Key, Value]
#: the store of someone who believes nothing yet: read-only, shared by every state
EMPTY_STORE: Mapping[Key, Value] = MappingProxyType({})


@dataclass
class State:
    """Everything the tracker knows after some actions. Mutated only by `tombench.dsl.tracker`."""

    context: Context
    world: Store = field(default_factory=dict)
    fo: dict[str, Store] = field(default_factory=dict)
    so: dict[tuple[str, str], Store] = field(default_factory=dict)
    people: list[str] = field(default_factory=list)
    rooms_involved: list[str] = field(default_factory=list)
    objects_seen: list[str] = field(default_factory=list)
    containers_seen: list[str] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)
    #: (object, property) -> world values of that state property, in order of first appearance
    state_values: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    #: state property -> visibility class, as registered by the first update using it
    visibility: dict[str, bool] = field(default_factory=dict)
    #: (object, "container"|"room") -> [(world value, action index)], appended when the world value changes
    trajectories: dict[tuple[str, str], list[tuple[Value, int]]] = field(default_factory=dict)
    #: (not a field) True once a deferred rollout replays its beliefs from this state (`tombench.dsl.deferred`): its
    #: story copies it before writing again, so that the replay always starts from the state as it was
    _shared = False

    # ------------------------------------------------------------------ stores
    def appear(self, person: str) -> None:
        """Make `person` a thinking entity (semantics §2.2): a first-order store and the SO[p][p] alias."""
        if person not in self.fo:
            store: Store = {}
            self.fo[person] = store
            self.so[(person, person)] = store
            self.people.append(person)

    def so_store(self, p: str, q: str) -> Store:
        """SO[p][q] for writing (created on first write; SO[p][p] is FO[p])."""
        s = self.so.get((p, q))
        if s is None:
            s = self.so[(p, q)] = {}
        return s

    def so_read(self, p: str, q: str) -> Store:
        """SO[p][q] for reading: a missing store has every slot absent."""
        return self.so.get((p, q), EMPTY_STORE)

    def fo_read(self, p: str) -> Store:
        return self.fo.get(p, EMPTY_STORE)

    # ------------------------------------------------------------------ world helpers
    def room_of(self, entity: str) -> Value | None:
        return self.world.get((entity, "room"))

    def people_in(self, room: str) -> list[str]:
        """People whose world room is `room`, in `people` order."""
        w = self.world
        out = []
        for p in self.people:  # a loop, not a comprehension: a few people, and this runs for most actions
            r = w.get((p, "room"))
            # the type test first: comparing a NotIn calls its Python-level __eq__ (and it never equals a room name)
            if type(r) is str and r == room:
                out.append(p)
        return out

    # ------------------------------------------------------------------ copying
    def copy(self) -> State:
        """A deep-enough copy for branching (stores are copied, the SO[p][p] aliasing is preserved).

        Built field by field into a bare instance, not through the dataclass constructor, and empty maps are not
        walked: every rollout of an action set with tells starts with one."""
        fo = {p: s.copy() for p, s in self.fo.items()}
        so: dict[tuple[str, str], Store] = {}
        for k, s in self.so.items():
            so[k] = fo[k[0]] if k[0] == k[1] else s.copy()
        new = State.__new__(State)
        d = self.copy_world_into(new)
        d["fo"] = fo
        d["so"] = so
        return new

    def copy_world_into(self, new: State) -> dict:
        """Copy every field but the belief stores (`fo`, `so`) into the bare instance `new`; its `__dict__`.

        One list of the world-side fields for `copy` and for a deferred rollout's copy (`deferred.deferred_copy`),
        which replays the beliefs instead of copying them: a field added to State is copied by both."""
        d = new.__dict__
        d["context"] = self.context
        d["world"] = self.world.copy()
        d["people"] = self.people.copy()
        d["rooms_involved"] = self.rooms_involved.copy()
        d["objects_seen"] = self.objects_seen.copy()
        d["containers_seen"] = self.containers_seen.copy()
        d["topics"] = self.topics.copy()
        d["state_values"] = {k: v.copy() for k, v in self.state_values.items()} if self.state_values else {}
        d["visibility"] = self.visibility.copy()
        d["trajectories"] = {k: v.copy() for k, v in self.trajectories.items()} if self.trajectories else {}
        return d

    def snapshot(self) -> tuple:
        """A comparable, hashable-free snapshot of everything, for tests of transactionality and replay."""
        return (
            sorted(self.world.items(), key=repr),
            {p: sorted(s.items(), key=repr) for p, s in self.fo.items()},
            {k: sorted(s.items(), key=repr) for k, s in self.so.items() if s},
            list(self.people),
            list(self.rooms_involved),
            list(self.objects_seen),
            list(self.containers_seen),
            list(self.topics),
            {k: list(v) for k, v in self.state_values.items()},
            dict(self.visibility),
            {k: list(v) for k, v in self.trajectories.items()},
        )
