"""Shorthand for the worked examples of semantics §9: E(p), L(p), MC(p, c), MR(p, r), U(p, kind), PT, BT."""

from __future__ import annotations

from tombench.dsl import Context, StateChange
from tombench.dsl.actions import (
    EnterRoom,
    Fact,
    LeaveRoom,
    MoveObjectContainer,
    MoveObjectRoom,
    TellPrivate,
    TellPublic,
    UpdateObjectState,
)

PEEL = StateChange("peel", "is peeled", "{person} peeled the {object}.", True)
PAINT = StateChange("paint", "is painted red", "{person} painted the {object} red.", True)
POISON = StateChange("poison", "is poisoned", "{person} poisoned the {object}.", False)
CHANGES = {"peel": PEEL, "paint": PAINT, "poison": POISON}
#: a fourth change, so object-state settings with 4 important actions are possible
DISINFECT = StateChange("clean", "is disinfected", "{person} disinfected the {object}.", False)


def context(obj: str = "apple") -> Context:
    return Context(
        people=("Sally", "Anne", "Beth", "Charles", "Diane"),
        rooms=("kitchen", "bedroom"),
        objects=(obj,),
        containers=("basket", "box", "crate", "chest"),
        topics=("summer vacation", "new recipe"),
        state_changes=(PEEL, PAINT, POISON, DISINFECT),
    )


class Builder:
    """Builds actions for one object, so examples read like the spec's notation."""

    def __init__(self, obj: str = "apple") -> None:
        self.obj = obj

    def E(self, p: str, room: str = "kitchen") -> EnterRoom:
        return EnterRoom(p, room)

    def L(self, p: str, room: str = "kitchen") -> LeaveRoom:
        return LeaveRoom(p, room)

    def MC(self, p: str, c: str, K: tuple[str, ...] = (), D: tuple[str, ...] = ()) -> MoveObjectContainer:
        return MoveObjectContainer(p, self.obj, c, K, D)

    def MR(self, p: str, r: str) -> MoveObjectRoom:
        return MoveObjectRoom(p, self.obj, r)

    def U(self, p: str, kind: str, K: tuple[str, ...] = (), D: tuple[str, ...] = ()) -> UpdateObjectState:
        return UpdateObjectState(p, self.obj, CHANGES[kind], K, D)

    def _topic(self, x: str) -> str | Fact:
        if x.startswith("the ") and " is in the " in x:
            e, v = x[len("the "):].split(" is in the ")
            prop = "room" if v in ("kitchen", "bedroom") else "container"
            return Fact(e, prop, v)
        return x

    def PT(self, p1: str, p2: str, x: str, K: tuple[str, ...] = (), D: tuple[str, ...] = ()) -> TellPrivate:
        return TellPrivate(p1, p2, self._topic(x), K, D)

    def BT(self, p: str, x: str, K: tuple[str, ...] = (), D: tuple[str, ...] = ()) -> TellPublic:
        return TellPublic(p, self._topic(x), K, D)


# question texts ---------------------------------------------------------------------------------------------------
def C1(p: str, o: str = "apple") -> str:
    return f"In which container will {p} search for the {o}?"


def R1(p: str, o: str = "apple") -> str:
    return f"In which room will {p} search for the {o}?"


def C2(p: str, q: str, o: str = "apple") -> str:
    return f"In which container does {p} think that {q} will search for the {o}?"


def R2(p: str, q: str, x: str) -> str:
    return f"In which room does {p} think that {q} will search for the {x}?"


def K1(p: str, t: str) -> str:
    return f"Does {p} know about {t}? Answer yes or no."


def K2(p: str, q: str, t: str) -> str:
    return f"What does {p} think about {q}'s belief on {t}? (knows about it / does not know about it)"


def S1(p: str, v: str, o: str = "apple") -> str:
    return f"Does {p} believe that the {o} {v}? Answer yes or no."


def S2(p: str, q: str, v: str, o: str = "apple") -> str:
    return f"Does {p} think that {q} believes that the {o} {v}? Answer yes or no."


def M_begin(noun: str, o: str = "apple") -> str:
    return f"In which {noun} was the {o} at the beginning?"


def M_now(noun: str, o: str = "apple") -> str:
    return f"In which {noun} is the {o} now?"


def M_before(noun: str, event: str, o: str = "apple") -> str:
    return f"In which {noun} was the {o} before {event}?"
