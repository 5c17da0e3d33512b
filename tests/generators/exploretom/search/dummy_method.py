"""A search method that exists only in the tests: registered by a fixture, it must show up wherever methods are
listed (the registry is the one list)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar

from tombench.dsl import Context, Setting
from tombench.generators.exploretom.search.evaluator import Answerer
from tombench.generators.exploretom.search.method import BaseMethod, Scope, SearchResult
from tombench.generators.exploretom.search.random_story import random_baseline


@dataclass(frozen=True)
class Dummy(BaseMethod):
    """Two random stories per search, the harder kept: a method with one knob of its own (`tries`)."""

    name: ClassVar[str] = "dummy"
    variants: ClassVar[Mapping[str, Mapping[str, Any]]] = MappingProxyType({"dummy": MappingProxyType({})})

    tries: int = 2

    def scopes(self) -> tuple[Scope, ...]:
        return ("story",)

    async def search(self, setting: Setting, contexts: Sequence[Context], answer: Answerer, budget: int,
                     rng: random.Random) -> SearchResult:
        results = [await random_baseline(setting, contexts[0], answer, rng, self) for _ in range(self.tries)]
        best = min(results, key=lambda r: 2.0 if r.g is None else r.g)
        best.method = self.name
        best.model_calls = sum(r.model_calls for r in results)
        best.nodes_evaluated = sum(r.nodes_evaluated for r in results)
        return best
