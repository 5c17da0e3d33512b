"""Action sets, the settings grid, the setting predicates and the seeded sampler."""

from __future__ import annotations

import random

import pytest

from tombench.dsl import (
    DEFAULT_CONTEXT,
    STORY_TYPES,
    Conditions,
    Setting,
    Story,
    action_name,
    action_set,
    derive_seed,
    random_story,
    settings_grid,
)

from .worked import Builder, context


def test_grid_has_162_settings_with_the_right_rooms():
    grid = settings_grid()
    assert len(grid) == 162 and len(STORY_TYPES) == 18
    two_rooms = {s.story_type for s in grid if s.rooms == 2}
    assert two_rooms == {t for t in STORY_TYPES if t.split("+asymmetric")[0] in ("tomi+room-changes", "allbutfantom", "all")}


def test_asymmetric_sets():
    a = action_set("tomi+asymmetric")
    assert a.allowed == ("enter_room", "leave_room", "move_object_container", "move_object_container_peeking_distracted")
    assert a.differentiating == ("move_object_container_peeking_distracted",)
    rc = action_set("tomi+room-changes+asymmetric")
    assert rc.differentiating == ("move_object_room",)
    assert "move_object_container_peeking_distracted" in rc.allowed
    assert action_set("all").differentiating == (
        "privately_tell_about_object_container_location",
        "publicly_tell_about_object_container_location",
        "privately_tell_about_object_room_location",
        "publicly_tell_about_object_room_location",
    )
    with pytest.raises(ValueError, match="unknown story type 'tomy'"):
        action_set("tomy")


@pytest.mark.parametrize("story_type", STORY_TYPES)
def test_random_stories_are_desired(story_type):
    ctx = context()
    for p, m in ((2, 2), (3, 4), (4, 3)):
        setting = Setting.make(story_type, p, m)
        cond = Conditions.of(setting)
        rng = random.Random(derive_seed(0, story_type, p, m))
        s = random_story(ctx, setting, rng)
        assert s is not None and cond.is_desired(s)
        imp, diff, mods, n = cond.counts(s)
        assert imp == m and diff >= 1 and n <= 15
        assert len(s.people) >= p and len(s.state.rooms_involved) >= setting.rooms
        assert mods == (1 if setting.asymmetric else 0) or (not setting.asymmetric and mods <= 1)
        for step in s.steps:
            assert action_name(step.action) in cond.aset.allowed


def test_same_seed_same_story_and_different_seeds_differ():
    setting = Setting.make("tomi", 3, 3)
    a = random_story(DEFAULT_CONTEXT, setting, random.Random(5))
    b = random_story(DEFAULT_CONTEXT, setting, random.Random(5))
    texts = {random_story(DEFAULT_CONTEXT, setting, random.Random(i)).text for i in range(20)}
    assert a.text == b.text
    assert len(texts) > 10


def test_never_desired_and_structural_predicates():
    b = Builder()
    cond = Conditions.of(Setting.make("tomi", 2, 2))
    s = Story(context(), [b.E("Anne"), b.E("Beth"), b.MC("Anne", "box")])
    assert not cond.structural(s) and not cond.never_desired(s)
    s.apply(b.MC("Beth", "basket"))
    assert cond.structural(s) and cond.is_desired(s)
    s.apply(b.MC("Beth", "crate"))
    assert cond.never_desired(s)  # imp > m
    asym = Conditions.of(Setting.make("tomi+asymmetric", 2, 2))
    s2 = Story(context(), [b.E("Anne"), b.E("Beth"), b.MC("Anne", "box"), b.MC("Anne", "basket")])
    assert not asym.structural(s2)  # needs a modified action
    s3 = Story(context(), [b.E("Anne"), b.E("Beth"), b.MC("Anne", "box"), b.MC("Anne", "basket", D=("Beth",))])
    assert asym.structural(s3) and len(s3) == 5


def test_derive_seed_is_stable():
    assert derive_seed(0, "tomi", 3, 3, 0) == derive_seed(0, "tomi", 3, 3, 0)
    assert derive_seed(0, "tomi", 3, 3, 0) != derive_seed(0, "tomi", 3, 3, 1)
    assert 0 <= derive_seed(1, "x") < 2**64
