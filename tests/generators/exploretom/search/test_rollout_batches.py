"""Paper A*'s rollout batches (`Evaluator.lookahead`, `astar._neighbours`) draw through `tombench.dsl.Rollouts`,
which shares the root's first draws and cuts never-desired rollouts short (issue #28 point 2). They must give what
the paper's plain loops over `rollout` give: the same (h, avglen), the same children in the same order, and the
random generator left in the same state, on stories of the search grid's settings.
"""

from __future__ import annotations

import random

import pytest

from tombench.dsl import DEFAULT_CONTEXT, Conditions, Setting, Story, random_story, rollout, setting_context
from tombench.generators.exploretom.search.astar import AStar, _features, _neighbours, _weight, _weighted_order
from tombench.generators.exploretom.search.evaluator import Evaluator

SETTINGS = [("tomi", 3, 3), ("tomi+asymmetric", 3, 3), ("all", 3, 3), ("all+asymmetric", 3, 3), ("all", 2, 2)]


def _stories(story_type: str, people: int, moves: int, n: int) -> tuple[list[Story], Conditions]:
    """n partial stories of desired random stories, cut anywhere (the frontier holds such stories)."""
    setting = Setting.make(story_type, people, moves)
    out = []
    for seed in range(n):
        rng = random.Random(seed)
        full = random_story(setting_context(DEFAULT_CONTEXT, setting, rng), setting, rng)
        assert full is not None
        out.append(Story(full.context, full.actions[: rng.randrange(len(full.steps) + 1)]))
    return out, Conditions.of(setting)


def _lookahead_by_rollout(story: Story, cond: Conditions, config: AStar, rng: random.Random) -> tuple:
    """The paper's lookahead, one `rollout` per completion."""
    mx = cond.setting.max_sentences
    if cond.structural(story):
        return 0.0, len(story) / mx
    hits = total = 0
    for _ in range(config.lookahead):
        s = rollout(story, cond, rng, stop=cond.structural)
        hits += cond.is_desired(s)
        total += len(s)
    return config.alpha * (1.0 - hits / config.lookahead), total / config.lookahead / mx


def _neighbours_by_rollout(story: Story, cond: Conditions, config: AStar, n: int,
                           rng: random.Random) -> list[Story]:
    """The paper's neighbours, one `rollout` per child, each child rendered and counted whole."""
    seen: set[str] = set()
    children = []
    for _ in range(50 * n):
        c = rollout(story, cond, rng, stop=cond.structural, max_actions=config.k)
        if len(c.steps) == len(story.steps) or cond.never_desired(c) or c.text in seen:
            continue
        seen.add(c.text)
        children.append(c)
    pf = _features(story, cond)
    weights = [_weight(pf, _features(c, cond), cond, config.weights) for c in children]
    return _weighted_order(children, weights, rng, 2 * n)


@pytest.mark.parametrize(("story_type", "people", "moves"), SETTINGS)
def test_lookahead_is_the_papers(story_type: str, people: int, moves: int) -> None:
    stories, cond = _stories(story_type, people, moves, 16)
    config = AStar()
    ev = Evaluator(cond, None, config)  # type: ignore[arg-type]  (no model: the lookahead asks none)
    for i, story in enumerate(stories):
        r1, r2 = random.Random(i), random.Random(i)
        assert ev.lookahead(story, r2) == _lookahead_by_rollout(story, cond, config, r1)
        assert r2.getstate() == r1.getstate()


@pytest.mark.parametrize(("story_type", "people", "moves"), SETTINGS)
@pytest.mark.parametrize("weights", ["weight-goal4", "random"])
def test_neighbours_are_the_papers(story_type: str, people: int, moves: int, weights: str) -> None:
    stories, cond = _stories(story_type, people, moves, 10)
    config = AStar(weights=weights)  # type: ignore[arg-type]
    kept = 0
    for i, story in enumerate(stories):
        for n in (1, 3):
            r1, r2 = random.Random(i), random.Random(i)
            got = _neighbours(story, cond, config, n, r2)
            want = _neighbours_by_rollout(story, cond, config, n, r1)
            assert [c.to_dict() for c in got] == [c.to_dict() for c in want]
            assert r2.getstate() == r1.getstate()
            kept += len(got)
    assert kept > 0
