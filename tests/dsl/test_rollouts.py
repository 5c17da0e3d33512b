"""Many rollouts from one story (`tombench.dsl.rollouts.Rollouts`): the A* search's lookahead and neighbour batches
share the root's first draws and cut never-desired rollouts short. Every draw must be `rollout`'s: the same story
(steps, state), the same random numbers consumed, and with `skip_doomed` the same length where `rollout` gives a
never-desired story.
"""

from __future__ import annotations

import random

import pytest

from tombench.dsl import DEFAULT_CONTEXT, STORY_TYPES, Conditions, Rollouts, Setting, Story, random_story, rollout
from tombench.dsl.sampler import setting_context

from .test_properties import CTX

#: the search grid's story types and some more (belief-free, with tells, asymmetric, with rooms and states)
TYPES = ["tomi", "tomi+asymmetric", "all", "all+asymmetric", "tomi+room-changes", "tomi+info-exchange",
         "allbutfantom+asymmetric", "tomi+object-state+asymmetric"]


def _starts(story_type: str, n: int, people: int = 3, moves: int = 3) -> tuple[list[Story], Conditions]:
    """n partial stories: desired random stories cut at every kind of point (the empty story and whole ones too)."""
    setting = Setting.make(story_type, people, moves)
    out = []
    for seed in range(n):
        ctx = setting_context(CTX if seed % 2 else DEFAULT_CONTEXT, setting, random.Random(seed))
        full = random_story(ctx, setting, random.Random(seed), max_tries=50)
        assert full is not None
        cut = random.Random(seed).randrange(len(full.steps) + 1)
        out.append(Story(full.context, full.actions[:cut]))
    return out, Conditions.of(setting)


def _same(a: Story, b: Story) -> None:
    assert b.to_dict() == a.to_dict()
    assert (len(b), b.num_important, b.num_modified) == (len(a), a.num_important, a.num_modified)
    assert b.state.snapshot() == a.state.snapshot()


def test_the_types_exist() -> None:
    assert set(TYPES) <= set(STORY_TYPES)


@pytest.mark.parametrize("story_type", TYPES)
@pytest.mark.parametrize("max_actions", [None, 3, 1, 0])
def test_draws_are_rollouts_draws(story_type: str, max_actions: int | None) -> None:
    stories, cond = _starts(story_type, 12)
    for i, story in enumerate(stories):
        before = story.state.snapshot()
        r1, r2 = random.Random(i), random.Random(i)
        batch = Rollouts(story, cond, max_actions=max_actions)
        for _ in range(30):
            a = rollout(story, cond, r1, stop=cond.structural, max_actions=max_actions)
            b = batch.draw(r2)
            assert isinstance(b, Story) and b is not story
            _same(a, b)
            assert r2.getstate() == r1.getstate()
        assert story.state.snapshot() == before  # the root is never written


@pytest.mark.parametrize("story_type", TYPES)
@pytest.mark.parametrize("max_actions", [None, 3])
def test_skip_doomed_gives_the_length_of_each_never_desired_rollout(story_type: str, max_actions: int | None) -> None:
    """Where a rollout's last action makes it never-desired, the draw is that story's length; else the same story."""
    stories, cond = _starts(story_type, 12)
    cut = 0
    for i, story in enumerate(stories):
        r1, r2 = random.Random(i), random.Random(i)
        batch = Rollouts(story, cond, max_actions=max_actions, skip_doomed=True)
        for _ in range(30):
            a = rollout(story, cond, r1, stop=cond.structural, max_actions=max_actions)
            b = batch.draw(r2)
            if isinstance(b, int):
                cut += 1
                assert cond.never_desired(a) and not cond.is_desired(a)
                assert b == len(a)
            else:
                _same(a, b)
            assert r2.getstate() == r1.getstate()
    assert cut > 0 or max_actions is not None  # (short rollouts of a few types are rarely cut)


def test_a_finished_root_gives_copies_and_draws_nothing() -> None:
    stories, cond = _starts("all+asymmetric", 2)
    full = random_story(DEFAULT_CONTEXT, cond.setting, random.Random(1))
    assert full is not None and cond.finished(full)
    rng = random.Random(0)
    state = rng.getstate()
    for s in (Rollouts(full, cond).draw(rng), Rollouts(stories[0], cond, max_actions=0).draw(rng)):
        assert isinstance(s, Story)
    assert rng.getstate() == state


def test_rollout_takes_skip_doomed_with_the_structural_stop() -> None:
    """S or N is `finished` whatever stop S is passed: skip_doomed works with either spelling."""
    stories, cond = _starts("all+asymmetric", 6)
    for i, story in enumerate(stories):
        r1, r2 = random.Random(i), random.Random(i)
        for _ in range(20):
            a = rollout(story, cond, r1, skip_doomed=True)
            b = rollout(story, cond, r2, stop=cond.structural, skip_doomed=True)
            assert a.to_dict() == b.to_dict()
    with pytest.raises(ValueError):
        rollout(stories[0], cond, random.Random(0), stop=lambda s: False, skip_doomed=True)
