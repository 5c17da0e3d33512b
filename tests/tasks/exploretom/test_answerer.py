"""The search's Inspect adapter: every prompt answered by the model through Inspect's generate, in order, with the
prompt's own decoding parameters (the adapter shares one system message and one config per distinct value)."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import tombench._registry  # noqa: F401  (the tombench/<baseline> models)
from tombench.dsl import DEFAULT_CONTEXT, Setting, build_prompt, random_story
from tombench.models._baselines import answer
from tombench.tasks.exploretom.answerer import inspect_answerer


def _prompts():
    import random

    out = []
    for seed in range(3):
        s = random_story(DEFAULT_CONTEXT, Setting.make("tomi", 2, 2), random.Random(seed))
        out += [build_prompt(s.text, q.text) for q in s.questions(orders=(1,))]
    return out


def test_answers_come_back_in_order_as_the_model_gives_them() -> None:
    prompts = _prompts()
    # two decoding configurations and two system messages in one batch: each prompt keeps its own
    prompts = [p if i % 2 else replace(p, max_tokens=7, system=p.system + " Be brief.") for i, p in enumerate(prompts)]
    got = asyncio.run(inspect_answerer("tombench/recency", cache=False)(prompts))
    assert got == [answer("recency", p.user) for p in prompts]
    assert len(set(got)) > 1


def test_a_second_batch_gets_the_same_answers() -> None:
    prompts = _prompts()
    ask = inspect_answerer("tombench/primacy", cache=False)
    assert asyncio.run(ask(prompts)) == asyncio.run(ask(prompts[::-1]))[::-1]
