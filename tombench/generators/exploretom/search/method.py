"""What a search method is: one object behind one protocol, and what it returns.

A method is a frozen config that can search: its class names it (`name`), its fields are its own typed knobs (the
evaluation knobs every method shares come from `evaluator.EvalConfig`), its defaults are the field defaults, and it
says which scopes it supports. The runner, `tombench search`, the live task and the benchmarks never branch on a
method's name: they ask the method (`registry.METHODS` lists them).

    from tombench.generators.exploretom.search.registry import build_method
    method = build_method("astar", mode="improved")
    result = await method.search(setting, contexts, answer, budget=50, rng=random.Random(0))

Scopes: "story" is one search per story slot with a story's budget (the paper's split, §7.5); "setting" is one search
that spends the whole remaining setting budget over all the setting's slot contexts and offers its N hardest distinct
stories (`keep`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Literal, Protocol, runtime_checkable

from tombench.dsl import Context, Setting, Story
from tombench.generators.exploretom.search.evaluator import Answerer, EvalConfig, NodeEval

__all__ = ["BaseMethod", "Scope", "SearchMethod", "SearchResult"]

Scope = Literal["setting", "story"]


@dataclass
class SearchResult:
    """What a search (or a baseline) found, and what it cost."""

    method: str
    setting: str
    story: Story | None
    node: NodeEval | None
    #: budget units spent (node evaluations, shortcut included)
    nodes_evaluated: int
    #: prompts answered by the target model
    model_calls: int
    pops: int = 0
    trace: list[NodeEval] = field(default_factory=list)
    #: every distinct goal evaluated, hardest first (improved mode; paper mode: the returned goal), so one search
    #: spending a whole setting's budget can fill several story slots
    goals: list[tuple[Story, NodeEval]] = field(default_factory=list)

    @property
    def g(self) -> float | None:
        return None if self.node is None else self.node.g

    @property
    def h(self) -> float | None:
        return None if self.node is None else self.node.h

    @property
    def f(self) -> float | None:
        return None if self.node is None else self.node.f

    @property
    def questions(self) -> list[dict[str, Any]]:
        return [] if self.node is None else self.node.questions

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable record (the story via `Story.to_dict`, so it replays with every label)."""
        return {
            "method": self.method,
            "setting": self.setting,
            "found": self.story is not None,
            "story": None if self.story is None else self.story.to_dict(),
            "text": None if self.story is None else self.story.text,
            "g": self.g,
            "h": self.h,
            "f": self.f,
            "questions": self.questions,
            "nodes_evaluated": self.nodes_evaluated,
            "model_calls": self.model_calls,
            "pops": self.pops,
            "trace": [n.to_dict() for n in self.trace],
            "goals": [n.index for _, n in self.goals],
        }


@runtime_checkable
class SearchMethod(Protocol):
    """One search method: a frozen config (an `EvalConfig` with the method's own knobs) that searches one setting."""

    #: the name users type (`tombench search --method`, `-T method=`) and run.json records
    name: ClassVar[str]
    #: named presets of the method the benchmarks and docs list: label -> options (`registry.build_method`)
    variants: ClassVar[Mapping[str, Mapping[str, Any]]]

    @property
    def budget_unit(self) -> Literal["nodes", "calls"]: ...

    @property
    def max_similarity(self) -> float: ...

    def scopes(self) -> tuple[Scope, ...]:
        """The scopes this config supports, its default first."""
        ...

    def budget_blind(self) -> bool:
        """Whether a search's result is the same for any budget above what it spent (the runner may then start
        a later search of the setting early, `runner.SPECULATE`)."""
        ...

    def for_setting(self, keep: int, expand_width: int) -> SearchMethod:
        """This config as one setting-scoped search uses it: keeping `keep` stories, `expand_width` nodes a round
        where the method has rounds."""
        ...

    def record(self, setting_scoped: bool) -> dict[str, Any]:
        """The knobs that make this run what it is, for run.json (a knob the method ignores is left out)."""
        ...

    async def search(self, setting: Setting, contexts: Sequence[Context], answer: Answerer, budget: int,
                     rng: random.Random) -> SearchResult:
        """Search `setting` against `answer` with `budget` units; every random draw from `rng`."""
        ...


@dataclass(frozen=True)
class BaseMethod(EvalConfig):
    """The protocol's defaults for a method without rounds or budget tricks: a search's result may depend on its
    whole budget, one setting-scoped search uses the config as it is, and run.json records every field. A method
    derives from it and writes `name`, `variants`, `scopes` and `search` (AStar overrides the rest too)."""

    def budget_blind(self) -> bool:
        return False

    def for_setting(self, keep: int, expand_width: int) -> BaseMethod:
        return self

    def record(self, setting_scoped: bool) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}
