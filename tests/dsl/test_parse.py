"""parse_structure: round trips on random stories of every story type, public-data formats, clear errors."""

from __future__ import annotations

import random

import pytest

from tombench.dsl import (
    STORY_TYPES,
    Context,
    EnterRoom,
    LeaveRoom,
    Setting,
    StateChange,
    Story,
    StoryParseError,
    UpdateObjectState,
    parse_structure,
    random_story,
)

from .worked import CHANGES, Builder, context

CTX = Context(
    people=("Sally", "Anne", "Beth", "Charles"),
    rooms=("hotel lobby", "kitchen"),
    objects=("silver key",),
    containers=("wooden desk drawer", "box", "black bin", "canvas bag"),
    topics=("summer vacation", "new recipe", "weather"),
    state_changes=(*CHANGES.values(), StateChange("clean", "is disinfected", "{person} disinfected the {object}.", False)),
)


@pytest.mark.parametrize("story_type", STORY_TYPES)
def test_round_trip_on_random_stories(story_type):
    rng = random.Random(STORY_TYPES.index(story_type))
    for p, m in ((2, 2), (3, 3), (4, 4)):
        for _ in range(60):
            s = random_story(CTX, Setting.make(story_type, p, m), rng)
            assert s is not None
            text = s.text
            parsed = parse_structure(text, CTX)
            assert parsed.text == text
            assert parsed.actions == s.actions
            assert [q.to_dict() for q in parsed.questions()] == [q.to_dict() for q in s.questions()]
            # without a context too, unless the story has free-text state changes
            if "state" not in story_type:
                bare = parse_structure(text)
                assert bare.text == text
                assert [q.to_dict() for q in bare.questions()] == [q.to_dict() for q in s.questions()]


def test_accepts_newlines_and_extra_whitespace():
    text = "Anne entered the kitchen.\nBeth entered the kitchen.  Anne moved the apple to the box, which is also located in the kitchen.\n"
    s = parse_structure(text)
    assert len(s.steps) == 3
    assert s.text == " ".join(text.split())


def test_multi_word_names_and_person_location_tell():
    text = (
        "Maya entered the greenhouse. Maya moved the silver key to the wooden desk drawer, which is also located in "
        "the greenhouse. Maya told privately to Lena that Maya is in the greenhouse. "
        "Maya told privately to Omar that the silver key is in the wooden desk drawer."
    )
    s = parse_structure(text)
    assert s.context.containers == ("wooden desk drawer",)
    assert s.context.rooms == ("greenhouse",)
    qs = {q.text: q.answer for q in s.questions(orders=(1,))}
    assert qs["In which container will Omar search for the silver key?"] == "wooden desk drawer"


def test_modifiers_round_trip():
    b = Builder()
    s = Story(context(), [b.E("Anne"), b.E("Beth"), b.E("Charles"), b.MC("Anne", "box"), b.L("Charles"),
                          b.MC("Anne", "basket", K=("Charles",), D=("Beth",))])
    parsed = parse_structure(s.text, context())
    assert parsed.actions == s.actions


def test_state_change_sentence_needs_its_context():
    b = Builder()
    s = Story(context(), [b.E("Anne"), b.U("Anne", "paint")])
    with pytest.raises(StoryParseError, match="sentence 2 'Anne painted the apple red.'.*context"):
        parse_structure(s.text)
    assert parse_structure(s.text, context()).text == s.text


@pytest.mark.parametrize(
    "text, match",
    [
        ("Anne entered the kitchen. Anne danced wildly.", "sentence 2 'Anne danced wildly.': not a template"),
        ("Anne entered the kitchen. Anne entered the kitchen.", "sentence 2.*impossible action.*already in the kitchen"),
        ("Anne left the kitchen.", "sentence 1.*impossible action.*not in the kitchen"),
        ("While this action was happening, Beth witnessed this action in secret (and only this action).",
         "must follow an action"),
        ("Anne entered the kitchen. Anne moved the apple to the box, which is also located in the bedroom.",
         "re-renders differently"),
        ("", "empty story"),
    ],
)
def test_clear_errors(text, match):
    with pytest.raises(StoryParseError, match=match):
        parse_structure(text)


def test_state_change_sentence_that_looks_like_leaving_a_room():
    # a bank context's template: "{person} left the {object} out until it was covered in rust."
    rust = StateChange("rust", "is covered in rust", "{person} left the {object} out until it was covered in rust.", True)
    ctx = Context(("Anne", "Beth"), ("shed", "garden"), ("trowel",), ("toolbox", "crate"), (), (rust,))
    s = Story(ctx, [EnterRoom("Anne", "shed"), UpdateObjectState("Anne", "trowel", rust), LeaveRoom("Anne", "shed")])
    parsed = parse_structure(s.text, ctx)
    assert parsed.actions == s.actions


def test_state_change_template_naming_the_object_first():
    dusty = StateChange("dust", "is dusty", "The {object} gathered dust while {person} watched.", True)
    ctx = Context(("Anne",), ("attic",), ("lamp",), ("trunk",), (), (dusty,))
    s = Story(ctx, [EnterRoom("Anne", "attic"), UpdateObjectState("Anne", "lamp", dusty)])
    assert parse_structure(s.text, ctx).actions == s.actions


def test_every_bank_context_round_trips():
    from tombench.generators.exploretom.contexts import load_context_bank

    for i, ctx in enumerate(load_context_bank()):
        rng = random.Random(i)
        for story_type in ("tomi+object-state+asymmetric", "all+asymmetric"):
            s = random_story(ctx, Setting.make(story_type, 3, 3), rng)
            assert parse_structure(s.text, ctx).text == s.text, ctx.id


def test_accented_names():
    text = ("Élise entered the kitchen. Zoë entered the kitchen. Élise moved the apple to the box, which is also "
            "located in the kitchen. Zoë left the kitchen. Élise moved the apple to the basket, which is also located "
            "in the kitchen.")
    s = parse_structure(text)
    assert s.people == ["Élise", "Zoë"]
    answers = {q.text: q.answer for q in s.questions(orders=(1,))}
    assert answers["In which container will Zoë search for the apple?"] == "box"


def test_every_template_group_has_a_role():
    """The name tables say which entity list each regex group of a template names: one role per group, for every
    template of both dialects (a template edited without its table would shift every later name)."""
    from tombench.dsl.parse import _PATTERNS, _ROLES, _TOMI_PATTERNS, _TOMI_ROLES

    for patterns, roles in ((_PATTERNS, _ROLES), (_TOMI_PATTERNS, _TOMI_ROLES)):
        assert {kind for kind, _ in patterns} <= set(roles)
        for kind, pattern in patterns:
            assert len(roles[kind]) == pattern.groups, kind
    assert len(_ROLES["update"]) == 2  # the state-change templates' (person, object), built by `_classify_action`
