"""The DSL's memos (`Context.memo`, `Conditions`' cached properties, `AnswerMemo`): owned by the object that bounds
them, never carried into a copy, and never changing a result."""

from __future__ import annotations

import copy
import pickle
import random

from tombench.dsl import (
    DEFAULT_CONTEXT,
    AnswerMemo,
    Conditions,
    Context,
    Setting,
    Story,
    check_answer,
    random_story,
    rollout,
)
from tombench.dsl.memo import ContextMemo
from tombench.dsl.sampler import setting_context

CTX = Context(
    people=("Anne", "Beth", "Carl"),
    rooms=("kitchen", "hall"),
    objects=("apple",),
    containers=("box", "basket", "crate"),
)


def test_each_context_has_its_own_memo_and_copies_start_empty() -> None:
    setting = Setting.make("all+asymmetric", people=3, moves=3)
    s = random_story(CTX, setting, random.Random(1))
    assert s is not None
    ctx = s.context
    assert ctx.memo.records, "drawing a story fills its context's memo"
    for other in (pickle.loads(pickle.dumps(ctx)), copy.deepcopy(ctx)):
        assert other == ctx
        assert other.memo is not ctx.memo
    assert not pickle.loads(pickle.dumps(ctx)).memo.records
    assert not pickle.loads(pickle.dumps(ContextMemo())).records


def test_contexts_sampled_from_the_default_one_do_not_share_its_memo() -> None:
    setting = Setting.make("tomi", people=3, moves=2)
    rng = random.Random(0)
    a, b = setting_context(DEFAULT_CONTEXT, setting, rng), setting_context(DEFAULT_CONTEXT, setting, rng)
    assert a.memo is not b.memo and a.memo is not DEFAULT_CONTEXT.memo


def test_a_restricted_context_is_remembered_by_the_context_it_restricts() -> None:
    setting = Setting.make("tomi", people=2, moves=2)
    first = setting_context(CTX, setting, random.Random(0))
    assert setting_context(CTX, setting, random.Random(1)) is first
    assert first.people == CTX.people[:2] and first.containers == CTX.containers[:2]


def test_a_warm_memo_gives_the_same_stories_as_a_cold_one() -> None:
    setting = Setting.make("all+asymmetric", people=3, moves=3)
    cond = Conditions.of(setting)
    warm = Story(CTX)
    cold_ctx = copy.deepcopy(CTX)  # equal names, empty memo
    for seed in range(20):
        a = rollout(warm, cond, random.Random(seed))
        b = rollout(Story(cold_ctx), cond, random.Random(seed))
        assert a.text == b.text and [x.action for x in a.steps] == [x.action for x in b.steps]


def test_conditions_pickle_without_their_cached_values() -> None:
    cond = Conditions.of(Setting.make("all+asymmetric", people=3, moves=3))
    assert cond.kinds and cond.defer is False
    again = pickle.loads(pickle.dumps(cond))
    assert again == cond and again.kinds == cond.kinds and again.doomed_sets == cond.doomed_sets


def test_an_answer_memo_never_changes_a_verdict() -> None:
    memo = AnswerMemo()
    story = "Anne entered the kitchen. Anne moved the apple to the box, which is also located in the kitchen."
    cases = [
        ("The box.", "box", "container"),
        ("Anne moved the apple to the box, which is also located in the kitchen.", "box", "container"),
        ("box or basket", "box", "container"),
        ("Yes.", "yes", "yes_no"),
        ("She doesn't know about it.", "does not know about it", "knowledge"),
    ]
    for _ in range(2):  # the second pass reads from the memo
        for response, expected, kind in cases:
            plain = check_answer(response, expected, kind, ("box", "basket"), question="Where is the apple?",
                                 story=story)
            kept = check_answer(response, expected, kind, ("box", "basket"), question="Where is the apple?",
                                story=story, memo=memo)
            assert kept == plain
    assert memo.values


def test_a_records_kept_name_is_not_part_of_its_value() -> None:
    import dataclasses

    from tombench.dsl import Fact, TellPublic, action_name

    a = TellPublic("Anne", Fact("apple", "container", "box"), ("Beth",), ())
    assert [f.name for f in dataclasses.fields(a)] == ["actor", "topic", "peekers", "distracted"]
    assert action_name(a) == a.name == "publicly_tell_about_object_container_location_peeking_distracted"
    again = pickle.loads(pickle.dumps(a))
    assert again == a and hash(again) == hash(a) and again.name == a.name
