"""Deferred beliefs (`tombench.dsl.deferred`): a rollout of a belief-free action set tracks the world only and
replays the beliefs when they are first read. Whatever is read, and whenever, it must be exactly the state a story
built action by action with the full tracker has; and the story a deferred rollout started from must keep its own.
"""

from __future__ import annotations

import pickle
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tombench.dsl import DEFAULT_CONTEXT, STORY_TYPES, Conditions, EnterRoom, Setting, Story, random_story, rollout
from tombench.dsl.deferred import DeferredState, belief_free
from tombench.dsl.sampler import setting_context
from tombench.dsl.state import State

from .test_properties import CTX

BELIEF_FREE = [t for t in STORY_TYPES if belief_free(Conditions.of(Setting.make(t, 3, 3)).aset.allowed)]


def _replayed(story: Story) -> Story:
    """The same actions applied one by one with the full tracker (each checked)."""
    return Story(story.context, story.actions)


def _start(story_type: str, people: int, moves: int, seed: int, cut: int) -> tuple[Story, Conditions] | None:
    setting = Setting.make(story_type, people, moves)
    ctx = setting_context(CTX if seed % 2 else DEFAULT_CONTEXT, setting, random.Random(seed))
    full = random_story(ctx, setting, random.Random(seed), max_tries=20)
    if full is None:
        return None
    return Story(full.context, full.actions[: min(cut, len(full.steps))]), Conditions.of(setting)


def test_belief_free_sets_are_those_without_tells() -> None:
    assert set(BELIEF_FREE) == {t for t in STORY_TYPES if t.split("+asymmetric")[0] in
                                ("tomi", "tomi-object-state", "tomi+object-state", "tomi+room-changes")}


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(BELIEF_FREE), st.integers(2, 4), st.integers(2, 4), st.integers(0, 2**32), st.integers(0, 8))
def test_deferred_rollout_has_the_full_trackers_state(story_type: str, people: int, moves: int, seed: int,
                                                      cut: int) -> None:
    start = _start(story_type, people, moves, seed, cut)
    if start is None:
        return
    story, cond = start
    before = story.state.snapshot()
    rng = random.Random(seed + 1)
    for kw in ({}, {"stop": cond.structural}, {"stop": cond.structural, "max_actions": 3}, {"skip_doomed": True}):
        s = rollout(story, cond, rng, **kw)
        assert type(s.state) is DeferredState
        ref = _replayed(s)
        assert s.to_dict() == ref.to_dict()
        # the world side is current without replaying: the structural predicates read it
        assert (s.state.people, s.state.rooms_involved, s.state.world) == (ref.state.people,
                                                                           ref.state.rooms_involved, ref.state.world)
        assert type(s.state) is DeferredState
        assert [q.to_dict() for q in s.questions()] == [q.to_dict() for q in ref.questions()]
        assert type(s.state) is State  # the beliefs were read: replayed once, a plain state from here on
        assert s.state.snapshot() == ref.state.snapshot()
        assert s.state == ref.state
    assert story.state.snapshot() == before  # the start was shared, never written


@pytest.mark.parametrize("story_type", BELIEF_FREE)
def test_the_start_of_a_deferred_rollout_copies_its_state_before_its_next_write(story_type: str) -> None:
    """Copy on write: the parent writes to a copy, so children replay from the state they started from, and a
    child's own later actions (deferred, then full) leave every other story alone."""
    cond = Conditions.of(Setting.make(story_type, 3, 3))
    for seed in range(20):
        start = _start(story_type, 3, 3, seed, 3)
        if start is None:
            continue
        parent = start[0]
        child = rollout(parent, cond, random.Random(seed), stop=cond.structural, max_actions=2)
        sibling = child.copy()  # a copy of a deferred story is deferred too
        assert type(sibling.state) is DeferredState
        ctx = parent.context
        for p in ctx.people:  # the parent moves on
            if parent.try_apply(EnterRoom(p, ctx.rooms[-1])) is not None:
                break
        for p in ctx.people:  # so does the sibling, deferred, with an action of its own
            if sibling.try_apply(EnterRoom(p, ctx.rooms[0])) is not None:
                break
        for s in (parent, child, sibling):
            assert s.state.snapshot() == _replayed(s).state.snapshot()


def test_a_deferred_story_pickles_and_compares_as_its_state() -> None:
    setting = Setting.make("tomi+asymmetric", 3, 3)
    cond = Conditions.of(setting)
    s = rollout(Story(setting_context(CTX, setting, random.Random(0))), cond, random.Random(0))
    back = pickle.loads(pickle.dumps(s))
    assert type(back.state) is DeferredState
    ref = _replayed(s)
    assert back.state == ref.state and ref.state == s.state  # either side may be the deferred one
    assert back.to_dict() == ref.to_dict()


def test_a_tell_applied_to_a_deferred_story_replays_the_beliefs_first() -> None:
    """A deferred story applied an action with no world-only effect (a tell) gets its beliefs first."""
    setting = Setting.make("tomi", 2, 2)
    cond = Conditions.of(setting)
    from tombench.dsl import TellPrivate

    for seed in range(30):
        s = rollout(Story(setting_context(CTX, setting, random.Random(seed))), cond, random.Random(seed))
        people = s.state.people
        if len(people) < 2:
            continue
        tell = TellPrivate(people[0], people[1], "summer vacation")
        if s.try_apply(tell) is not None:
            assert type(s.state) is State
            assert s.state.snapshot() == _replayed(s).state.snapshot()
            return
    pytest.fail("no story took the tell")
