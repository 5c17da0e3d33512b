"""One way for the generators to ask a model: `await ask(prompt, retry={"round": 1})` -> text.

Used by context generation and infilling. `model` is an Inspect `Model`, a model name, or a plain `async (prompt) ->
text` callable (tests, custom clients). Inspect models get an optional system prompt and Inspect's response cache.

A cache must never turn a retry into a replay: a retry is the same prompt asked again because the last answer was
rejected, so the cache would hand back exactly the rejected answer. Every non-zero entry of `retry` (a whole-story
round, a step attempt, a context attempt) therefore goes into the cache key as an Inspect cache scope. The first try
(all zeros) keeps the plain key, so re-running a finished command is still served from the cache for free.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from inspect_ai.model import CachePolicy, GenerateConfig, Model

__all__ = ["Ask", "Asker", "MalformedOutput", "ModelError", "make_asker", "retry_cache"]

#: a plain model: prompt in, text out
Ask = Callable[[str], Awaitable[str]]


class MalformedOutput(ValueError):
    """A model answer that does not parse into what was asked for (counted and retried, never fatal)."""


class ModelError(MalformedOutput):
    """The provider answered with an error instead of text (a refusal, a content filter): counted, never fatal."""


class Asker(Protocol):
    async def __call__(self, prompt: str, *, retry: Mapping[str, int] | None = None) -> str: ...


def retry_cache(cache: bool | CachePolicy, retry: Mapping[str, int] | None) -> bool | CachePolicy:
    """`cache` with every non-zero retry counter added as a cache scope (`tombench_retry_<name>`)."""
    keys = {f"tombench_retry_{k}": str(v) for k, v in sorted((retry or {}).items()) if v}
    if not keys or cache is False:
        return cache
    from inspect_ai.model import CachePolicy

    policy = cache if isinstance(cache, CachePolicy) else CachePolicy()
    return policy.model_copy(update={"scopes": {**policy.scopes, **keys}})


def make_asker(
    model: Model | str | Ask,
    *,
    config: GenerateConfig | None = None,
    cache: bool | CachePolicy = True,
    system: str | None = None,
    on_call: Callable[[], Any] | None = None,
) -> Asker:
    """An `Asker` over any kind of model; `on_call` runs before every call (the reports count model calls with it)."""
    if callable(model) and not hasattr(model, "generate"):
        fn: Ask = model  # type: ignore[assignment]

        async def call(prompt: str, *, retry: Mapping[str, int] | None = None) -> str:
            if on_call is not None:
                on_call()
            return await fn(prompt)

        return call

    from inspect_ai.model import ChatMessageSystem, ChatMessageUser, get_model

    m = get_model(model) if isinstance(model, str) else model

    async def ask(prompt: str, *, retry: Mapping[str, int] | None = None) -> str:
        if on_call is not None:
            on_call()
        messages: Any = prompt
        if system is not None:
            messages = [ChatMessageSystem(content=system), ChatMessageUser(content=prompt)]
        output = await m.generate(messages, config=config if config is not None else {}, cache=retry_cache(cache, retry))
        if output.error:
            raise ModelError(f"model error: {output.error}")
        return output.completion

    return ask
