"""The search's prompts as Inspect `generate` calls: what the eval's process and a search worker both run."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from inspect_ai.model import CachePolicy, ChatMessageSystem, ChatMessageUser, GenerateConfig, Model

from tombench.dsl import Prompt
from tombench.generators.exploretom.search.pool import JobCalls
from tombench.kit.calls import reread

__all__ = ["PromptCaller"]


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
            except Exception:  # a failed call; a cancelled one (its batch ended with another's failure) is not counted
                calls.errors += 1
                raise
            finally:
                calls.seconds += time.monotonic() - start
                calls.called()  # in a worker: its usage goes to the parent now (the sample's limits)
        calls.calls += 1
        return out.completion

    async def __call__(self, prompts: list[Prompt], calls: JobCalls) -> list[str]:
        # a task group: when one call fails for good, the batch's other calls are cancelled with it, not left
        # asking the model for a sample that has already ended
        async with asyncio.TaskGroup() as tg:
            tasks = [tg.create_task(self.one(p, calls)) for p in prompts]
        return [t.result() for t in tasks]
