"""Property tests over random action programs (valid and invalid actions mixed)."""

from __future__ import annotations

import os
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from tombench.dsl import (
    Context,
    EnterRoom,
    Fact,
    LeaveRoom,
    MoveObjectContainer,
    MoveObjectRoom,
    Story,
    TellPrivate,
    TellPublic,
    UpdateObjectState,
)
from tombench.dsl.values import CONTAINER, ROOM

from .worked import PEEL, POISON

PEOPLE = ("Anne", "Beth", "Charles", "Diane")
ROOMS = ("kitchen", "bedroom")
CONTAINERS = ("box", "basket", "crate")
CTX = Context(PEOPLE, ROOMS, ("apple",), CONTAINERS, ("summer vacation",), (PEEL, POISON))

person = st.sampled_from(PEOPLE)
mods = st.tuples(st.lists(person, max_size=1).map(tuple), st.lists(person, max_size=1).map(tuple))
fact = st.one_of(
    st.builds(Fact, st.sampled_from(("apple",)), st.just(CONTAINER), st.sampled_from(CONTAINERS)),
    st.builds(Fact, st.sampled_from(("apple", "box", "basket", *PEOPLE)), st.just(ROOM), st.sampled_from(ROOMS)),
)
topic = st.one_of(st.just("summer vacation"), fact)

action = st.one_of(
    st.builds(EnterRoom, person, st.sampled_from(ROOMS)),
    st.builds(LeaveRoom, person, st.sampled_from(ROOMS)),
    st.builds(lambda p, c, m: MoveObjectContainer(p, "apple", c, *m), person, st.sampled_from(CONTAINERS), mods),
    st.builds(lambda p, sc, m: UpdateObjectState(p, "apple", sc, *m), person, st.sampled_from((PEEL, POISON)), mods),
    st.builds(lambda p, r: MoveObjectRoom(p, "apple", r), person, st.sampled_from(ROOMS)),
    st.builds(lambda p, q, t, m: TellPrivate(p, q, t, *m), person, person, topic, mods),
    st.builds(lambda p, t, m: TellPublic(p, t, *m), person, topic, mods),
)
programs = st.lists(action, min_size=1, max_size=40)


def _stores_of(story: Story, x: str) -> dict:
    s = story.state
    out = {("FO", x): dict(s.fo.get(x, {}))}
    for (p, q), store in s.so.items():
        if p == x and q != x:
            out[("SO", q)] = dict(store)
    return out


def _informed(story: Story, a) -> set[str]:
    """People whose stores an accepted action may change: witnesses, listeners, peekers (never the distracted)."""
    s = story.state
    w = s.world
    K, D = set(a.peekers), set(a.distracted)
    if isinstance(a, EnterRoom):
        r0 = w.get((a.actor, ROOM))
        out = {a.actor, *s.people_in(a.room)}
        if isinstance(r0, str):
            out |= set(s.people_in(r0))
        return out
    if isinstance(a, LeaveRoom):
        return set(s.people_in(a.room))
    if isinstance(a, MoveObjectRoom):
        return {a.actor, *s.people_in(w[(a.actor, ROOM)]), *s.people_in(a.room)}
    if isinstance(a, TellPrivate):
        return ({a.actor, a.listener} - D) | K
    r = w[(a.actor, ROOM)]
    return (set(s.people_in(r)) - D) | K


@settings(max_examples=300, deadline=None)
@given(programs)
def test_rejected_actions_change_nothing_and_replay_reproduces(program):
    story = Story(CTX)
    for a in program:
        before = story.state.snapshot()
        n = len(story.steps)
        if story.try_apply(a) is None:
            assert story.state.snapshot() == before
            assert len(story.steps) == n
    replay = Story.from_dict(story.to_dict())
    assert replay.state.snapshot() == story.state.snapshot()
    assert [q.to_dict() for q in replay.questions()] == [q.to_dict() for q in story.questions()]


@settings(max_examples=300, deadline=None)
@given(programs)
def test_nobody_learns_from_an_action_they_did_not_witness_or_hear(program):
    story = Story(CTX)
    for a in program:
        if story.check(a) is not None:
            continue
        informed = _informed(story, a)
        others = [x for x in story.state.people if x not in informed]
        before = {x: _stores_of(story, x) for x in others}
        story.apply(a)
        for x in others:
            assert _stores_of(story, x) == before[x], (x, a)


@settings(max_examples=300, deadline=None)
@given(programs)
def test_real_witnesses_believe_the_world_for_what_they_saw(program):
    story = Story(CTX)
    for a in program:
        if story.check(a) is not None:
            continue
        s = story.state
        if isinstance(a, (MoveObjectContainer, UpdateObjectState)):
            r = s.world[(a.actor, ROOM)]
            witnesses = (set(s.people_in(r)) - set(a.distracted)) | set(a.peekers)
        else:
            witnesses = set()
        story.apply(a)
        w = story.state.world
        for x in witnesses:
            fo = story.state.fo[x]
            assert fo[("apple", ROOM)] == w[("apple", ROOM)]
            if isinstance(a, MoveObjectContainer):
                assert fo[("apple", CONTAINER)] == a.container == w[("apple", CONTAINER)]
                assert fo[(a.container, ROOM)] == w[(a.container, ROOM)]
            else:
                assert fo[("apple", a.change.property)] == a.change.value


@settings(max_examples=100, deadline=None)
@given(programs)
def test_questions_are_unique_and_answerable(program):
    story = Story(CTX)
    for a in program:
        story.try_apply(a)
    qs = story.questions(first_order_room_questions=True)
    texts = [q.text for q in qs]
    assert len(texts) == len(set(texts))
    for q in qs:
        assert isinstance(q.answer, str) and q.answer
        if q.kind[0] in "CM" and q.property == CONTAINER:
            assert q.answer in CONTAINERS
        if q.kind[0] in "RM" and q.property == ROOM:
            assert q.answer in ROOMS
        assert (q.order == 0) == (q.interesting is None) == (q.false_belief is None)


_SNIPPET = """
import random, hashlib
from tombench.dsl import Context, StateChange, Setting, random_story, STORY_TYPES
ctx = Context(("Anne", "Beth", "Charles", "Diane"), ("kitchen", "bedroom"), ("apple",), ("box", "basket", "crate", "chest"),
              ("weather", "news"), (StateChange("peel", "is peeled", "{person} peeled the {object}.", True),
                                    StateChange("paint", "is painted red", "{person} painted the {object} red.", True),
                                    StateChange("poison", "is poisoned", "{person} poisoned the {object}.", False)))
h = hashlib.sha256()
for t in STORY_TYPES:
    s = random_story(ctx, Setting.make(t, 3, 3), random.Random(7))
    h.update(s.text.encode())
    for q in s.questions():
        h.update(repr(q.to_dict()).encode())
print(h.hexdigest())
"""


def test_output_does_not_depend_on_pythonhashseed():
    outs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        r = subprocess.run([sys.executable, "-c", _SNIPPET], capture_output=True, text=True, env=env, check=True)
        outs.add(r.stdout.strip())
    assert len(outs) == 1
