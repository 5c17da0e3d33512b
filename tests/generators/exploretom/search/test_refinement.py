"""Improved mode's refinement: its edits copied from replays made once, its question keys, and its rates brought up
to date part by part (issue #28 point 2)."""

from __future__ import annotations

import random

import pytest

from tombench.dsl import DEFAULT_CONTEXT, Conditions, Setting, Story, random_story, rollout
from tombench.dsl.deferred import belief_free
from tombench.generators.exploretom.search.evaluator import NodeEval, Rates, qkey
from tombench.generators.exploretom.search.refinement import _dropped, _Edits, _keys


def _parent(story_type: str, seed: int = 0) -> tuple[Story, Conditions]:
    setting = Setting.make(story_type, 3, 3)
    parent = random_story(DEFAULT_CONTEXT, setting, random.Random(seed))
    assert parent is not None
    return parent, Conditions.of(setting)


def _same(a: Story, b: Story) -> None:
    """Same steps, sentences, counters and state, beliefs included (reading them replays a deferred copy's)."""
    assert a.steps == b.steps
    assert (len(a), a.num_important, a.num_modified) == (len(b), b.num_important, b.num_modified)
    assert a.state.snapshot() == b.state.snapshot()
    assert [q.text for q in a.questions()] == [q.text for q in b.questions()]


@pytest.mark.parametrize("story_type", ["tomi", "tomi+asymmetric", "all", "all+asymmetric"])
def test_edits_are_the_replays_they_copy(story_type: str) -> None:
    parent, cond = _parent(story_type)
    edits = _Edits(cond)
    assert edits.defer == belief_free(cond.aset.allowed)  # the ToMi sets copy without beliefs, those with tells not
    for _ in range(2):  # the second time from the kept replays
        for k in range(len(parent.steps)):
            _same(edits.cut(parent, k), Story(parent.context, parent.actions[:k]))
            _same(edits.drop(parent, k), _dropped(parent, cond, k))


@pytest.mark.parametrize("story_type", ["tomi", "all+asymmetric"])
def test_an_edit_rolled_out_is_the_replay_rolled_out_and_leaves_the_next_copy_alone(story_type: str) -> None:
    parent, cond = _parent(story_type, seed=1)
    edits = _Edits(cond)
    for seed in range(6):
        k = seed % len(parent.steps)
        for make, replay in ((edits.cut, lambda n: Story(parent.context, parent.actions[:n])),
                             (edits.drop, lambda n: _dropped(parent, cond, n))):
            mine = rollout(make(parent, k), cond, random.Random(seed), copy=False, skip_doomed=True)
            theirs = rollout(replay(k), cond, random.Random(seed), copy=False, skip_doomed=True)
            _same(mine, theirs)
            _same(make(parent, k), replay(k))  # the rollout wrote to its own copy only


def test_edits_of_another_parent_are_not_taken_for_a_dead_ones() -> None:
    parent, cond = _parent("tomi")
    edits = _Edits(cond)
    edits.cut(parent, 2)
    other, _ = _parent("tomi", seed=5)
    edits._made[(id(other), "cut", 2)] = edits._made.pop((id(parent), "cut", 2))  # as if `other` reused the id
    _same(edits.cut(other, 2), Story(other.context, other.actions[:2]))


@pytest.mark.parametrize("story_type", ["tomi", "all", "tomi+room-changes"])
def test_keys_are_the_evaluators_question_keys(story_type: str) -> None:
    kinds = set()
    for seed in range(5):
        story, _ = _parent(story_type, seed)
        qs = story.questions(first_order_room_questions=True)
        assert _keys(story, story.text, qs) == tuple(qkey(q, story) for q in qs)
        kinds |= {q.answer_type for q in qs}
    assert len(kinds) >= 2  # room or yes/no questions beside the container ones


def _node(i: int, rng: random.Random) -> NodeEval:
    kinds = ["container", "room", "yes_no"]
    qs = [{"kind": rng.choice(kinds), "interesting": rng.random() < 0.5, "false_belief": rng.random() < 0.3,
           "mention": rng.choice([None, "first", "last", "yes"]), "correct": rng.random() < 0.6}
          for _ in range(rng.randrange(0, 6))]
    return NodeEval(i, f"story {i}", 0.5, 0.0, 0.5, 1, True, qs, shortcut=rng.random() < 0.1)


def test_rates_added_part_by_part_are_the_rates_of_the_whole_trace() -> None:
    rng = random.Random(0)
    trace = [_node(i, rng) for i in range(60)]
    rates = None
    for a, b in ((0, 7), (7, 7), (7, 30), (30, 60)):
        before = None if rates is None else (dict(rates.fine), {k: list(c) for k, c in rates.fine.items()})
        rates = Rates(trace[a:b]) if rates is None else rates.plus(trace[a:b])
        whole = Rates(trace[:b])
        assert rates.fine == whole.fine and rates.coarse == whole.coarse
        if before is not None:  # the earlier object is left as it was
            assert {k: list(c) for k, c in before[0].items()} == before[1]
    keys = {qkey(q) for n in trace for q in n.questions} | {("room", True, True, "middle")}
    assert all(rates.get(k) == Rates(trace).get(k) for k in keys)
