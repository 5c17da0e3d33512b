"""Hopeless action types: states in which no candidate of a type can be valid, recognised without listing them.

Most draws of a public tell, and of a room move, happen in states where no candidate of the type can be valid: nobody
shares a room with anyone (a public tell needs a listener), or nobody is in the room of an object (or in any room, at
the start of a rollout; a topic tell has no candidate at all in a context without topics). The draw then rejects
every candidate, one random number each. A `hopeless` test says so exactly and cheaply, and returns how many
candidates the enumerator would list (None when some candidate may be valid), so the sampler draws those random
numbers without building and testing the candidates. tests/dsl/test_equivalence.py pins the draws to the reference
sampler's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from tombench.dsl.action_sets import PEEKING
from tombench.dsl.candidates import modifier_options
from tombench.dsl.state import State
from tombench.dsl.story import Story
from tombench.dsl.validity import in_context, learners
from tombench.dsl.values import CONTAINER, ROOM, Key, Value

__all__ = ["Hopeless", "HOPELESS"]

#: a type's hopeless test: the number of its candidates when none can be valid, else None
Hopeless = Callable[[Story], "int | None"]


def _nobody_together(st: State) -> bool:
    """No two people are in the same room."""
    w = st.world
    rooms: set[str] = set()
    for p in st.people:
        r = w.get((p, ROOM))
        if type(r) is str:
            if r in rooms:
                return False
            rooms.add(r)
    return True


def _hopeless_without_container_facts(story: Story) -> int | None:
    """A container-location tell has no candidate at all before the first container move (nobody believes an
    object to be in a container: only a move puts it there, and a tell only repeats such a belief). The move
    registers its container in `containers_seen`, so an empty list says so exactly. Else None."""
    return None if story.state.containers_seen else 0


def _hopeless_public_tells(prop: str, modified: bool) -> Callable[[Story], int | None]:
    """For the public tells of `prop` facts: when no speaker with an audience has a fact that some witness would
    learn, the number of tuples of `location_tells(prop, private=False, modified)`, counted the same way; else None.

    A public tell is valid only if someone present would learn its fact (`learners`), whatever its modifier, and
    that almost never holds: about 97% of these draws reject every candidate. Testing each speaker's
    facts once is cheaper than listing every fact with every modifier and testing them one by one.
    """

    def hopeless(story: Story) -> int | None:
        st = story.state
        if prop == CONTAINER and not st.containers_seen:  # `_hopeless_without_container_facts`
            return 0
        ctx = story.context
        people = ctx.people
        fos = st.fo
        w = st.world
        n = 0
        for p in people:
            fo = fos.get(p)
            if not fo:
                continue
            facts = []
            for item in fo.items():  # listed as `location_tells` lists them
                if item[0][1] == prop and type(item[1]) is str:
                    facts.append(item)
            if not facts:
                continue
            r = w.get((p, ROOM))
            if type(r) is not str:  # rejected (unmodified) or not offered (modified: see `location_tells`)
                n += 0 if modified else len(facts)
                continue
            W = st.people_in(r)
            if len(W) >= 2 and _anyone_would_learn(st, W, facts):
                return None
            n += len(facts) * (len(modifier_options(ctx, p, tuple(W))) if modified else 1)
        return n

    return hopeless


def _anyone_would_learn(st: State, W: list[str], facts: list[tuple[Key, Value]]) -> bool:
    """Would some witness in W learn one of the (slot, value) facts told (`validity.public_fact_validator`'s test)?"""
    for slot, value in facts:
        if in_context(st, slot, value) and learners(st, W, slot, value):  # type: ignore[arg-type]
            return True
    return False


def _nobody_in_a_room(story: Story) -> bool:
    """No person of the context is in a room (the start of every rollout)."""
    w = story.state.world
    for p in story.context.people:
        if type(w.get((p, ROOM))) is str:
            return False
    return True


def _hopeless_move_object_container(story: Story) -> int | None:
    """When nobody is in a room (a move needs its actor in one), the number of tuples of `_move_object_container`."""
    ctx = story.context
    return len(ctx.people) * len(ctx.objects) * len(ctx.containers) if _nobody_in_a_room(story) else None


def _hopeless_update_object_state(story: Story) -> int | None:
    """When nobody is in a room (a change needs its actor in one), the number of tuples of `_update_object_state`."""
    ctx = story.context
    return len(ctx.people) * len(ctx.objects) * len(ctx.state_changes) if _nobody_in_a_room(story) else None


def _hopeless_without_topics(story: Story) -> int | None:
    """A topic tell in a context without topics has no candidate at all (the default context has none)."""
    return None if story.context.topics else 0


def _hopeless_public_topics(modified: bool) -> Callable[[Story], int | None]:
    """For the public topic tells: when nobody is together (a public tell needs a listener), the number of tuples
    of `_tell_public_topic` (`modified`: of its `with_modifiers` variant, which offers each speaker in a room, alone
    there, one peeker among the others per topic); else None. Most public topic tells are drawn in such states, and
    testing each candidate's audience was the largest item of an all-actions rollout."""

    def hopeless(story: Story) -> int | None:
        ctx = story.context
        topics = len(ctx.topics)
        if not topics:
            return 0
        st = story.state
        if not _nobody_together(st):
            return None
        people = ctx.people
        if not modified:
            return len(people) * topics
        w = st.world
        in_a_room = sum(1 for p in people if type(w.get((p, ROOM))) is str)
        return in_a_room * topics * (len(people) - 1)

    return hopeless


def _hopeless_move_object_room(story: Story) -> int | None:
    """When nobody is in the room of an object that has another room to go to, the number of tuples of
    `_move_object_room`; else None."""
    ctx = story.context
    w = story.state.world
    for o in ctx.objects:
        ro = w.get((o, ROOM))
        if type(ro) is not str:
            continue
        for r2 in ctx.rooms:
            if r2 != ro:  # a room to move it to: hopeless only if nobody is with it
                for p in ctx.people:
                    if w.get((p, ROOM)) == ro:
                        return None
                break
    return len(ctx.people) * len(ctx.objects) * len(ctx.rooms)


#: the hopeless test of each action type that has one (base types and `_peeking_distracted` ones)
HOPELESS: Mapping[str, Hopeless] = MappingProxyType({
    "move_object_container": _hopeless_move_object_container,
    "update_object_state": _hopeless_update_object_state,
    "move_object_room": _hopeless_move_object_room,
    "privately_tell_about_abstract_topic": _hopeless_without_topics,
    "publicly_tell_about_abstract_topic": _hopeless_public_topics(False),
    "privately_tell_about_object_container_location": _hopeless_without_container_facts,
    "publicly_tell_about_object_container_location": _hopeless_public_tells(CONTAINER, modified=False),
    "publicly_tell_about_object_room_location": _hopeless_public_tells(ROOM, modified=False),
    "privately_tell_about_abstract_topic" + PEEKING: _hopeless_without_topics,
    "publicly_tell_about_abstract_topic" + PEEKING: _hopeless_public_topics(True),
    "privately_tell_about_object_container_location" + PEEKING: _hopeless_without_container_facts,
    "publicly_tell_about_object_container_location" + PEEKING: _hopeless_public_tells(CONTAINER, modified=True),
    "publicly_tell_about_object_room_location" + PEEKING: _hopeless_public_tells(ROOM, modified=True),
})
