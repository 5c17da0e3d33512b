"""Baselines: over-generate-and-filter and a single random story, with the search's budget accounting."""

from __future__ import annotations

import asyncio
import json
import random

from tests.generators.test_search import ROOMS, TOMI, Target
from tombench.dsl import DEFAULT_CONTEXT, Conditions
from tombench.generators.baselines import over_generate, random_baseline
from tombench.generators.search import SearchConfig

CFG = SearchConfig(lookahead=5)


def test_over_generate_keeps_the_lowest_accuracy_even_if_perfect() -> None:
    t = Target("oracle")
    r = asyncio.run(over_generate(TOMI, DEFAULT_CONTEXT, t, 4, random.Random(0), CFG))
    assert r.method == "over-generate"
    assert r.nodes_evaluated == 4 and r.model_calls == t.prompts
    assert r.story is not None and r.g == 1.0
    assert Conditions.of(TOMI).is_desired(r.story)
    assert all(n.is_desired for n in r.trace)


def test_over_generate_finds_hard_stories_and_is_deterministic() -> None:
    runs = [
        asyncio.run(over_generate(ROOMS, DEFAULT_CONTEXT, Target("reality"), 5, random.Random(7), CFG)).to_dict()
        for _ in range(2)
    ]
    assert runs[0] == runs[1]
    r = runs[0]
    assert r["nodes_evaluated"] == 5
    assert r["g"] == min(n["g"] for n in r["trace"]) < 1
    assert json.loads(json.dumps(r)) == r


def test_random_baseline_spends_one_unit() -> None:
    t = Target("reality")
    r = asyncio.run(random_baseline(TOMI, DEFAULT_CONTEXT, t, random.Random(3), CFG))
    assert r.method == "random" and r.story is not None
    assert r.nodes_evaluated == 1 and len(r.trace) == 1 and t.calls == 1
    assert r.g == sum(q["correct"] for q in r.questions) / len(r.questions)
