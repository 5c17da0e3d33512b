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

Inspect retries what a provider's status says is transient (429, 5xx, timeouts, connections refused or dropped);
a reply it cannot read at all (status 200 with a truncated JSON body, as a gateway cutting a reply sends) escapes
it. `reread` retries such a call a bounded number of times with backoff, each retry in its own cache scope
(`retry_cache`, scope `tombench_retry_reread`), and then raises `CallFailed`, which says what failed and after how
many tries: the caller's sample ends with that error and the rest of the eval goes on.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, Union

if TYPE_CHECKING:
    from inspect_ai.model import CachePolicy, ChatMessage, GenerateConfig, Model

__all__ = [
    "Ask",
    "Asker",
    "CallFailed",
    "MalformedOutput",
    "ModelError",
    "ModelLike",
    "Parsed",
    "PlainModel",
    "Reply",
    "ask_until_parsed",
    "call_model",
    "make_asker",
    "reread",
    "unreadable",
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


class CallFailed(RuntimeError):
    """A model call whose reply could not be read after every try `reread` gave it."""


#: tries of a call whose reply could not be read, and the wait before the first retry (doubled for each next one)
REREAD_TRIES = 4
REREAD_BACKOFF = 1.0
#: words by which a provider's error names itself transient in its class name, `code` or `type`
_TRANSIENT_WORDS = ("transient", "temporar", "overload", "unavailable")


def unreadable(ex: BaseException) -> str | None:
    """What made a call fail in a way worth asking again that Inspect does not retry, or None.

    A reply that does not parse (`JSONDecodeError` from the SDK's parser), a connection that broke while the body
    was read (httpx's transport errors, where the SDK lets them through), and a provider error that names itself
    transient. Anything else (a bad request, an authentication error, a bug) is not asked again."""
    import json

    import httpx

    seen: set[int] = set()
    e: BaseException | None = ex
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, json.JSONDecodeError):
            return f"an unreadable reply ({type(e).__name__}: {e})"
        if isinstance(e, httpx.TransportError):
            return f"a broken connection ({type(e).__name__}: {e})"
        names = [type(e).__name__, getattr(e, "code", None), getattr(e, "type", None)]
        if any(isinstance(n, str) and any(w in n.lower() for w in _TRANSIENT_WORDS) for n in names):
            return f"a transient provider error ({type(e).__name__}: {e})"
        e = e.__cause__ or e.__context__
    return None


async def reread(call: Callable[[bool | CachePolicy], Awaitable[T]], cache: bool | CachePolicy, *,
                 tries: int | None = None, backoff: float | None = None) -> T:
    """`await call(cache)`, asked again up to `tries` times in all when it fails `unreadable`-ly, after `backoff`,
    2 x `backoff`, ... seconds, each retry with its own cache scope; `CallFailed` when every try failed so.

    The first try keeps the plain cache key, so a finished run re-run reads the cache for free."""
    tries = max(1, REREAD_TRIES if tries is None else tries)
    wait = REREAD_BACKOFF if backoff is None else backoff
    for attempt in range(tries):
        try:
            return await call(retry_cache(cache, {"reread": attempt}))
        except Exception as ex:  # noqa: BLE001 - classified right here; anything else is raised again
            what = unreadable(ex)
            if what is None:
                raise
            if attempt + 1 >= tries:
                raise CallFailed(f"a model call failed {tries} times in a row, the last with {what}") from ex
        await asyncio.sleep(min(wait * 2 ** attempt, 60.0))
    raise AssertionError("unreachable")


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
