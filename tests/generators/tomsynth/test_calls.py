"""ToM-Synth's cache scopes: exactly the policies of earlier versions, so that users' caches keep replaying."""

from __future__ import annotations

from inspect_ai.model import CachePolicy

from tombench.generators.tomsynth._calls import attempt_caches, cache_policy


def test_a_default_cache_never_expires_and_scopes_item_attempt_and_later_rounds() -> None:
    first = cache_policy(True, "u1-0", 0)
    assert isinstance(first, CachePolicy) and first.expiry is None and first.per_epoch
    assert list(first.scopes.items()) == [("tomsynth", "u1-0"), ("attempt", "0")]  # the key reads the dict's order
    again = attempt_caches(True, "verify:u1-0:B", 2)(1)
    assert isinstance(again, CachePolicy)
    assert list(again.scopes.items()) == [("tomsynth", "verify:u1-0:B"), ("attempt", "1"), ("round", "2")]


def test_a_given_policy_keeps_its_expiry_and_scopes_and_no_cache_stays_off() -> None:
    mine = CachePolicy(expiry="1D", scopes={"user": "x"})
    scoped = cache_policy(mine, "u", 2, 1)
    assert isinstance(scoped, CachePolicy) and scoped.expiry == "1D"
    assert list(scoped.scopes.items()) == [("user", "x"), ("tomsynth", "u"), ("attempt", "2"), ("round", "1")]
    assert mine.scopes == {"user": "x"}
    assert attempt_caches(False, "u", 3)(0) is False
