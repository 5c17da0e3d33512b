"""An `Answerer` (the search's target) backed by any Inspect model.

The search is pure asyncio and knows nothing of Inspect; this adapter is the one place that turns its prompts into
Inspect `generate` calls, so the model's concurrency limit (`max_connections`), retries and response cache are
Inspect's own. A reply Inspect cannot read and does not retry (a truncated body) is asked again here
(`kit.calls.reread`), each retry in its own cache scope; a call that keeps failing raises `kit.calls.CallFailed`.

Where the model can be rebuilt in another process (`worker_model.worker_target`), the answerer says how, and a
search pool's workers then make the calls themselves (`search.pool`): the eval's main process only coordinates.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from inspect_ai.model import (
    CachePolicy,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelUsage,
    get_model,
)

from tombench.dsl import Prompt
from tombench.generators.exploretom.search.evaluator import Answerer
from tombench.generators.exploretom.search.pool import JobCalls
from tombench.kit.calls import reread

__all__ = ["PromptCaller", "calls_summary", "inspect_answerer"]


@asynccontextmanager
async def _no_limit() -> AsyncIterator[None]:
    yield


class PromptCaller:
    """Ask one Inspect model the search's prompts: one `generate` per prompt, a batch's prompts at once.

    Each prompt's decoding parameters (temperature 0, top_p 1, 40 tokens by default) become its GenerateConfig, and
    responses are cached by Inspect when `cache` is on, keyed by model, messages and config (semantics §5.5).

    The user message carries `source="input"`, as Inspect gives every sample's input: the cache key includes the
    message source, so only then does a task that later asks the same question (the live task's question samples,
    the transfer and static tasks) read the search's answer instead of calling the model again.

    `slots()`: entered around each call (the one limit shared with a search pool's workers; none by default)."""

    def __init__(self, model: Model, cache: bool | CachePolicy,
                 slots: Callable[[], AbstractAsyncContextManager[None]] = _no_limit) -> None:
        self.model, self.cache, self.slots = model, cache, slots
        # one system message and one config per distinct value, not per call: building these pydantic objects was
        # a tenth of this adapter's CPU per call. Sharing them is safe: Inspect merges the config into a copy,
        # snapshots the messages it logs, and its cache key leaves message ids out
        self._systems: dict[str, ChatMessageSystem] = {}
        self._configs: dict[tuple, GenerateConfig] = {}

    async def one(self, p: Prompt, calls: JobCalls) -> str:
        system = self._systems.get(p.system)
        if system is None:
            system = self._systems[p.system] = ChatMessageSystem(content=p.system)
        key = (p.temperature, p.top_p, p.max_tokens)
        config = self._configs.get(key)
        if config is None:
            config = self._configs[key] = GenerateConfig(temperature=p.temperature, top_p=p.top_p,
                                                         max_tokens=p.max_tokens)
        messages = [system, ChatMessageUser(content=p.user, source="input")]
        async with self.slots():
            start = time.monotonic()
            try:
                out = await reread(lambda c: self.model.generate(messages, config=config, cache=c), self.cache)
            except BaseException:
                calls.errors += 1
                raise
            finally:
                calls.seconds += time.monotonic() - start
        calls.calls += 1
        return out.completion

    async def __call__(self, prompts: list[Prompt], calls: JobCalls) -> list[str]:
        # a task group: when one call fails for good, the batch's other calls are cancelled with it, not left
        # asking the model for a sample that has already ended
        async with asyncio.TaskGroup() as tg:
            tasks = [tg.create_task(self.one(p, calls)) for p in prompts]
        return [t.result() for t in tasks]


def inspect_answerer(
    model: str | Model | None = None,
    *,
    cache: bool | CachePolicy = True,
    model_args: dict[str, Any] | None = None,
    max_connections: int | None = None,
    in_workers: bool = True,
) -> Answerer:
    """Answer prompts with `model` (an Inspect model, a model string, or None for the active eval's model).

    `in_workers`: let a search pool's workers rebuild the model and call it themselves where it can be rebuilt
    (`worker_model.worker_target`); False keeps every call in this process (each one a model event of the
    calling sample's transcript). The answerer's `stats` (a `JobCalls`) sums its calls wherever they were made."""
    from tombench.tasks.exploretom.worker_model import worker_target

    if isinstance(model, Model):
        m = model
    else:
        config = GenerateConfig(max_connections=max_connections) if max_connections else None
        m = get_model(model, config=config, **(model_args or {})) if config else get_model(model, **(model_args or {}))
    caller = PromptCaller(m, cache)
    stats = JobCalls()

    async def answer(prompts: list[Prompt]) -> list[str]:
        return await caller(prompts, stats)

    def worker_calls(calls: JobCalls) -> None:
        """A worker's calls for one job: counted here, and their tokens recorded as Inspect records its own."""
        from inspect_ai.model._model import record_and_check_model_usage

        stats.calls += calls.calls
        stats.errors += calls.errors
        stats.seconds += calls.seconds
        for name, usage in calls.usage.items():
            stats.usage[name] = stats.usage.get(name, ModelUsage()) + usage
            record_and_check_model_usage(m, usage)

    answer.model_name = str(m)  # type: ignore[attr-defined]
    answer.stats = stats  # type: ignore[attr-defined]
    answer.calls = lambda: stats.calls  # type: ignore[attr-defined]  # answered so far (the live task's progress)
    answer.worker_target = worker_target(m, cache) if in_workers else None  # type: ignore[attr-defined]
    answer.worker_calls = worker_calls  # type: ignore[attr-defined]
    return answer


def calls_summary(stats: JobCalls, where: str, usage: dict[str, ModelUsage] | None = None) -> dict[str, Any]:
    """The search sample's account of its model calls (its metadata and an info event), in place of one model
    event per call: `where` they were made, how many, failed for good, seconds in calls, tokens the server counted
    (`usage`, default the ones the workers reported)."""
    usage = stats.usage if usage is None else usage
    return {
        "where": where, "calls": stats.calls, "errors": stats.errors, "call_seconds": round(stats.seconds, 3),
        "input_tokens": sum(u.input_tokens for u in usage.values()),
        "output_tokens": sum(u.output_tokens for u in usage.values()),
        "total_tokens": sum(u.total_tokens for u in usage.values()),
    }
