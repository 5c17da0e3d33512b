"""The cache scopes of ToM-Synth's model calls (the calls themselves go through `tombench.kit.calls`).

A retry must ask the model again, never replay a cached failure. Within a run the attempt number is part of the
cache scope; across runs the *retry round* is (how many earlier runs already failed on this item, read from the
failures file or the verdicts file), so re-running after failures makes fresh calls for exactly the failed items,
while a finished item's calls (round 0) still replay from the cache at no cost. The item id is in the scope too, so
two items whose prompts happen to coincide get independent generations.
"""

from __future__ import annotations

from collections.abc import Callable

from inspect_ai.model import CachePolicy

from tombench.kit.calls import scoped_cache

__all__ = ["attempt_caches", "cache_policy"]


def cache_policy(cache: bool | CachePolicy, scope: str, attempt: int, retry_round: int = 0) -> bool | CachePolicy:
    """Inspect's cache policy for one attempt; round 0 keeps the scope of earlier versions, so old caches replay.

    The items are a dataset, so a default cache never expires (unlike the kit's default week)."""
    if cache is False:
        return False
    base = cache if isinstance(cache, CachePolicy) else CachePolicy(expiry=None)
    round_scope = {"round": str(retry_round)} if retry_round else {}
    return scoped_cache(base, {"tomsynth": scope, "attempt": str(attempt), **round_scope})


def attempt_caches(
    cache: bool | CachePolicy, scope: str, retry_round: int = 0
) -> Callable[[int], bool | CachePolicy]:
    """The cache of every attempt at one item, as `ask_until_parsed` asks for it."""
    return lambda attempt: cache_policy(cache, scope, attempt, retry_round)
