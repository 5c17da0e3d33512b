"""One model call with parse-and-retry, shared by synthesis and verification.

Retries must not hit Inspect's cache entry of the failed attempt, so the attempt number is part of the cache scope;
the item id is too, so two items whose prompts happen to coincide still get independent generations. Re-running a
finished job therefore replays every call from the cache at no cost.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from inspect_ai.model import CachePolicy, GenerateConfig, Model

from tombench.generators.tomsynth.parsing import ParseError

T = TypeVar("T")

__all__ = ["CallResult", "generate_parsed", "cache_policy"]


@dataclass
class CallResult(Generic[T]):
    value: T | None
    attempts: int
    errors: Counter[str] = field(default_factory=Counter)
    last_output: str = ""


def cache_policy(cache: bool | CachePolicy, scope: str, attempt: int) -> bool | CachePolicy:
    if cache is False:
        return False
    base = cache if isinstance(cache, CachePolicy) else CachePolicy(expiry=None)
    return base.model_copy(update={"scopes": {**base.scopes, "tomsynth": scope, "attempt": str(attempt)}})


async def generate_parsed(
    model: Model,
    prompt: str,
    parse: Callable[[str], T],
    *,
    scope: str,
    max_retries: int = 2,
    config: GenerateConfig | None = None,
    cache: bool | CachePolicy = True,
) -> CallResult[T]:
    """Ask `model`, parse its completion; on a `ParseError` (or a model-side error) count its kind and ask again."""
    result: CallResult[T] = CallResult(value=None, attempts=0)
    for attempt in range(max_retries + 1):
        result.attempts = attempt + 1
        output = await model.generate(
            prompt, config=config or GenerateConfig(), cache=cache_policy(cache, scope, attempt)
        )
        result.last_output = output.completion
        if output.error:
            result.errors["model_error"] += 1
            continue
        try:
            result.value = parse(output.completion)
            return result
        except ParseError as e:
            result.errors[e.kind] += 1
    return result
