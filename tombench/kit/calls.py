"""One way for the generators to call a model, and one parse-and-retry loop over it.

A model is an Inspect `Model`, a model name, or a plain async callable that takes what an Inspect model would (a
prompt, or chat messages) and returns text (tests, scripted agents, custom clients). Inspect models get an optional
system prompt and Inspect's response cache, so retries, concurrency limits and usage accounting apply.

    reply = await call_model(model, messages, cache=cache)          # Reply(text, error): the caller reads errors
    ask = make_asker(model, system=SYSTEM)                            # `await ask(prompt, retry={"round": 1})`
    parsed = await ask_until_parsed(model, prompt, parse, cache=...)  # Parsed(value, attempts, errors, last_output)

A cache must never turn a retry into a replay: a retry is the same prompt asked again because the last answer was
rejected, so the cache would hand back exactly the rejected answer. Each retry therefore gets its own Inspect cache
scope. `make_asker` puts every non-zero entry of `retry` (a whole-story round, a step attempt, a context attempt)
into the key as `tombench_retry_<name>`; its first try (all zeros) keeps the plain key, so re-running a finished
command is still served from the cache for free. `ask_until_parsed` asks its caller for the cache of each attempt,
so a family whose caches already use other scope names keeps them (and its users' caches keep replaying).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, Union

if TYPE_CHECKING:
    from inspect_ai.model import CachePolicy, ChatMessage, GenerateConfig, Model

__all__ = [
    "Ask",
    "Asker",
    "MalformedOutput",
    "ModelError",
    "ModelLike",
    "Parsed",
    "PlainModel",
    "Reply",
    "ask_until_parsed",
    "call_model",
    "make_asker",
    "retry_cache",
    "scoped_cache",
]

T = TypeVar("T")

#: a plain model: prompt in, text out
Ask = Callable[[str], Awaitable[str]]
#: a plain model of any input: what an Inspect model takes (a prompt, or chat messages) in, text out
PlainModel = Callable[[Any], Awaitable[str]]
#: an Inspect model, a model name, or a plain model
ModelLike = Union["Model", str, PlainModel]


class MalformedOutput(ValueError):
    """A model answer that does not parse into what was asked for (counted and retried, never fatal).

    `kind` names the counter it goes to; subclasses and instances may say more precisely what went wrong."""

    kind: str = "malformed"


class ModelError(MalformedOutput):
    """The provider answered with an error instead of text (a refusal, a content filter): counted, never fatal."""

    kind = "model_error"


@dataclass(frozen=True)
class Reply:
    """A model's text, and the provider's error when it gave one (the text is then whatever came with it)."""

    text: str
    error: str | None = None


def _is_plain(model: ModelLike) -> bool:
    return callable(model) and not hasattr(model, "generate")


async def call_model(
    model: ModelLike,
    input: str | Sequence[ChatMessage],
    *,
    system: str | None = None,
    config: GenerateConfig | None = None,
    cache: bool | CachePolicy = False,
) -> Reply:
    """One call. A plain model gets `input` (messages as a list); an Inspect model gets `system` first when `input`
    is a prompt.

    A provider error comes back in the `Reply`, not raised, because callers differ on what it means (a counted
    retry, a rejection, or an empty answer read leniently)."""
    messages: Any = input if isinstance(input, str) else list(input)
    if _is_plain(model):
        return Reply(await model(messages))  # type: ignore[operator]
    from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig, get_model

    m = get_model(model) if isinstance(model, str) else model
    if system is not None and isinstance(input, str):
        messages = [ChatMessageSystem(content=system), ChatMessageUser(content=input)]
    output = await m.generate(messages, config=config or GenerateConfig(), cache=cache)  # type: ignore[union-attr]
    return Reply(output.completion, output.error or None)


def scoped_cache(cache: bool | CachePolicy, scopes: Mapping[str, str]) -> bool | CachePolicy:
    """`cache` with `scopes` added to its key (`True` becomes Inspect's default policy); no cache stays no cache."""
    if not scopes or cache is False:
        return cache
    from inspect_ai.model import CachePolicy

    policy = cache if isinstance(cache, CachePolicy) else CachePolicy()
    return policy.model_copy(update={"scopes": {**policy.scopes, **scopes}})


def retry_cache(cache: bool | CachePolicy, retry: Mapping[str, int] | None) -> bool | CachePolicy:
    """`cache` with every non-zero retry counter added as a cache scope (`tombench_retry_<name>`)."""
    return scoped_cache(cache, {f"tombench_retry_{k}": str(v) for k, v in sorted((retry or {}).items()) if v})


class Asker(Protocol):
    async def __call__(self, prompt: str, *, retry: Mapping[str, int] | None = None) -> str: ...


def make_asker(
    model: ModelLike,
    *,
    config: GenerateConfig | None = None,
    cache: bool | CachePolicy = True,
    system: str | None = None,
    on_call: Callable[[], Any] | None = None,
) -> Asker:
    """An `Asker` over any kind of model; `on_call` runs before every call (the reports count model calls with it).

    A provider error raises `ModelError`, so that callers which reject malformed answers reject it with them."""
    if isinstance(model, str):
        from inspect_ai.model import get_model

        model = get_model(model)

    async def ask(prompt: str, *, retry: Mapping[str, int] | None = None) -> str:
        if on_call is not None:
            on_call()
        reply = await call_model(model, prompt, system=system, config=config, cache=retry_cache(cache, retry))
        if reply.error is not None:
            raise ModelError(f"model error: {reply.error}")
        return reply.text

    return ask


@dataclass
class Parsed(Generic[T]):
    """What `ask_until_parsed` got: the value (None when every attempt failed), and what the attempts cost."""

    value: T | None
    attempts: int
    errors: Counter[str] = field(default_factory=Counter)
    last_output: str = ""


async def ask_until_parsed(
    model: ModelLike,
    prompt: str,
    parse: Callable[[str], T],
    *,
    cache: Callable[[int], bool | CachePolicy],
    max_retries: int = 2,
    config: GenerateConfig | None = None,
) -> Parsed[T]:
    """Ask `model`, parse its answer; on a `MalformedOutput` (or a provider error) count its kind and ask again.

    `cache(attempt)` is the cache for attempt 0, 1, ...: it must scope each attempt apart (see `scoped_cache`), or
    a retry would replay the answer that was just rejected."""
    result: Parsed[T] = Parsed(value=None, attempts=0)
    for attempt in range(max_retries + 1):
        result.attempts = attempt + 1
        reply = await call_model(model, prompt, config=config, cache=cache(attempt))
        result.last_output = reply.text
        if reply.error:
            result.errors[ModelError.kind] += 1
            continue
        try:
            result.value = parse(reply.text)
            return result
        except MalformedOutput as e:
            result.errors[e.kind] += 1
    return result
