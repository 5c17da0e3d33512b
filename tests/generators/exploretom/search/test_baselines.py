"""Baselines: over-generate-and-filter and a single random story, with the search's budget accounting."""

from __future__ import annotations

import asyncio
import json
import random

from tests.generators.exploretom.search.test_astar import ROOMS, TOMI, Target
from tombench.dsl import DEFAULT_CONTEXT, Conditions, Prompt, Setting
from tombench.generators.exploretom.search.evaluator import EvalConfig
from tombench.generators.exploretom.search.over_generate import over_generate
from tombench.generators.exploretom.search.random_story import random_baseline

CFG = EvalConfig(lookahead=5)


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


def test_over_generate_evaluates_its_planned_draws_in_one_batch() -> None:
    calls: list[int] = []

    async def answer(prompts: list[Prompt]) -> list[str]:
        calls.append(len(prompts))
        await asyncio.sleep(0)
        return ["none"] * len(prompts)

    gate: list[int] = []

    async def counting(prompts: list[Prompt]) -> list[str]:
        gate.append(1)
        try:
            await asyncio.sleep(0.01)
            # all stories of the batch are in flight together, not one after another
            return await answer(prompts)
        finally:
            gate.pop()

    peak = 0

    async def watch(prompts: list[Prompt]) -> list[str]:
        nonlocal peak
        peak = max(peak, len(gate) + 1)
        return await counting(prompts)

    cfg = EvalConfig(budget_unit="calls")
    r = asyncio.run(over_generate(Setting.make("tomi", 2, 2), DEFAULT_CONTEXT, watch, 20, random.Random(0), cfg))
    assert peak == sum(1 for n in r.trace if n.spent and not n.shortcut) > 1
    # the planned spend stops once it reaches the budget: the last story overshoots by less than its own questions
    last = len(r.trace[-1].questions)
    assert 20 <= r.model_calls == sum(calls) < 20 + last
