"""An `Answerer` (the search's target) backed by any Inspect model.

The search is pure asyncio and knows nothing of Inspect; this adapter is the one place that turns its prompts into
Inspect `generate` calls, so the model's concurrency limit (`max_connections`), retries and response cache are
Inspect's own. A reply Inspect cannot read and does not retry (a truncated body) is asked again here
(`kit.calls.reread`), each retry in its own cache scope; a call that keeps failing raises `kit.calls.CallFailed`.
"""

from __future__ import annotations

import asyncio
from typing import Any

from inspect_ai.model import CachePolicy, ChatMessageSystem, ChatMessageUser, GenerateConfig, Model, get_model

from tombench.dsl import Prompt
from tombench.generators.exploretom.search.evaluator import Answerer
from tombench.kit.calls import reread

__all__ = ["inspect_answerer"]


def inspect_answerer(
    model: str | Model | None = None,
    *,
    cache: bool | CachePolicy = True,
    model_args: dict[str, Any] | None = None,
    max_connections: int | None = None,
) -> Answerer:
    """Answer prompts with `model` (an Inspect model, a model string, or None for the active eval's model).

    Each prompt's decoding parameters (temperature 0, top_p 1, 40 tokens by default) become its GenerateConfig, and
    responses are cached by Inspect when `cache` is on, keyed by model, messages and config (semantics §5.5).

    The user message carries `source="input"`, as Inspect gives every sample's input: the cache key includes the
    message source, so only then does a task that later asks the same question (the live task's question samples,
    the transfer and static tasks) read the search's answer instead of calling the model again.
    """
    if isinstance(model, Model):
        m = model
    else:
        config = GenerateConfig(max_connections=max_connections) if max_connections else None
        m = get_model(model, config=config, **(model_args or {})) if config else get_model(model, **(model_args or {}))

    # one system message and one config per distinct value, not per call: building these pydantic objects was a
    # tenth of this adapter's CPU per call. Sharing them is safe: Inspect merges the config into a copy,
    # snapshots the messages it logs, and its cache key leaves message ids out
    systems: dict[str, ChatMessageSystem] = {}
    configs: dict[tuple, GenerateConfig] = {}
    calls = [0]

    async def one(p: Prompt) -> str:
        system = systems.get(p.system)
        if system is None:
            system = systems[p.system] = ChatMessageSystem(content=p.system)
        key = (p.temperature, p.top_p, p.max_tokens)
        config = configs.get(key)
        if config is None:
            config = configs[key] = GenerateConfig(temperature=p.temperature, top_p=p.top_p, max_tokens=p.max_tokens)
        messages = [system, ChatMessageUser(content=p.user, source="input")]
        out = await reread(lambda c: m.generate(messages, config=config, cache=c), cache)
        calls[0] += 1
        return out.completion

    async def answer(prompts: list[Prompt]) -> list[str]:
        # a task group: when one call fails for good, the batch's other calls are cancelled with it, not left
        # asking the model for a sample that has already ended
        async with asyncio.TaskGroup() as tg:
            tasks = [tg.create_task(one(p)) for p in prompts]
        return [t.result() for t in tasks]

    answer.model_name = str(m)  # type: ignore[attr-defined]
    answer.calls = lambda: calls[0]  # type: ignore[attr-defined]  # answered so far (the live task's progress)
    return answer
