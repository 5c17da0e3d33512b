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


def test_a_failed_call_counts_once_and_the_calls_it_cancelled_not_at_all():
    """A batch's calls are cancelled with the first that fails for good: the call summary counts that one."""
    import asyncio

    import pytest

    from tombench.dsl import Prompt
    from tombench.generators.exploretom.search.pool import JobCalls
    from tombench.tasks.exploretom.prompt_caller import PromptCaller

    class Model:
        async def generate(self, messages, config, cache):  # noqa: ANN001, ANN202
            if "bad" in messages[-1].text:
                raise ValueError("the provider refused")
            await asyncio.sleep(10)

    calls = JobCalls()
    prompts = [Prompt(system="s", user=u) for u in ("slow 1", "bad", "slow 2")]
    with pytest.raises(BaseExceptionGroup):  # noqa: F821 - a builtin since Python 3.11
        asyncio.run(PromptCaller(Model(), False)(prompts, calls))  # type: ignore[arg-type]
    assert (calls.calls, calls.errors) == (0, 1)
