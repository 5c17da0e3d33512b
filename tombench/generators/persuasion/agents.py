"""The agents: mental-state author, ToMMA persuader, the model under test as persuader, persuadee, observer.

Each agent holds only what it may know (paper §3.4 and the authors' prompts). The ToMMA persuader is built from a
model alone and receives the scenario, the behaviours' names and the visible turns: no argument can carry the
persuadee's beliefs or desires to it. The model under test receives the scenario and the turns. The persuadee holds
its mental state and sees only the visible turns (never the persuader's guesses or the observer's notes). The
observer knows the true mental state: it checks the persuader's guesses against it during data generation.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inspect_ai.model import CachePolicy

from tombench.generators.persuasion import prompts
from tombench.generators.persuasion.prompts import GUESS_FIELDS, Prompting
from tombench.generators.persuasion.records import MentalState, Scenario, Turn, clean_utterance, record_from_dict
from tombench.generators.persuasion.rounds import PersuadeeDisclosure, PersuaderFocus
from tombench.kit.calls import ModelLike, call_model
from tombench.kit.replies import find_json, read_bool

__all__ = [
    "generate_mental_state",
    "Guess",
    "Persuader",
    "TestedPersuader",
    "Persuadee",
    "Observer",
    "Review",
]


async def generate_mental_state(
    scenario: Scenario, model: ModelLike, cache: bool | CachePolicy = False
) -> MentalState:
    """The persuadee's behaviours, then their beliefs and desires (§3.3, two steps as in the authors' prompts)."""
    text = (await call_model(model, prompts.behaviours_messages(scenario), cache=cache)).text
    names = find_json(text)
    generative = str((names or {}).get("generative") or "").strip()
    if not generative:
        raise ValueError(f"mental-state model did not name a generative behaviour in JSON: {text[:120]!r}")
    raw_prev = (names or {}).get("preventive")
    preventive = str(raw_prev).strip() if raw_prev is not None else ""
    if preventive.lower() in {"", "none", "null"}:
        preventive = ""
    text = (await call_model(model, prompts.beliefs_messages(scenario, generative, preventive or None), cache=cache)).text
    parsed = find_json(text)
    if parsed is None:
        raise ValueError(f"mental-state model did not answer with JSON: {text[:120]!r}")
    record = record_from_dict({"scenario": {**scenario.to_dict(), **parsed}})
    if record.mental_state is None:
        raise ValueError(f"mental-state model gave no generative behaviour: {text[:120]!r}")
    return record.mental_state


@dataclass(frozen=True)
class Guess:
    """One persuader guess of what the persuadee just revealed (only the fields the round asks for)."""

    fields: dict[str, str] | None
    raw: str

    def text(self) -> str:
        return json.dumps(self.fields, ensure_ascii=False) if self.fields is not None else "(unreadable)"


class Persuader:
    """The ToMMA persuader: guesses the disclosed part of the mental state, then replies to the round's focus."""

    def __init__(self, model: ModelLike, cache: bool | CachePolicy = False) -> None:
        self.model, self.cache = model, cache

    async def guess(
        self,
        scenario: Scenario,
        behaviours: tuple[str, str | None],
        history: Sequence[Turn],
        target: PersuadeeDisclosure,
        revision: tuple[Guess, str] | None = None,
    ) -> Guess:
        generative, preventive = behaviours
        messages = prompts.guess_messages(
            scenario, generative, preventive, history, target,
            (revision[0].text(), revision[1]) if revision else None,
        )
        text = (await call_model(self.model, messages, cache=self.cache)).text
        parsed = find_json(text) or {}
        fields = {f: str(parsed[f]).strip() for f in GUESS_FIELDS[target] if str(parsed.get(f) or "").strip()}
        return Guess(fields or None, text)

    async def respond(
        self,
        scenario: Scenario,
        behaviours: tuple[str, str | None],
        history: Sequence[Turn],
        focus: PersuaderFocus,
        guesses: Mapping[str, Mapping[str, str]],
    ) -> str:
        generative, preventive = behaviours
        messages = prompts.tomma_persuader_messages(scenario, generative, preventive, history, focus, guesses)
        return clean_utterance((await call_model(self.model, messages, cache=self.cache)).text)


class TestedPersuader:
    """The model under test as the persuader: the public scenario and the visible turns, nothing else."""

    __test__ = False  # not a pytest class

    def __init__(self, model: ModelLike, prompting: Prompting = "none", cache: bool | CachePolicy = False) -> None:
        self.model, self.prompting, self.cache = model, prompting, cache

    async def respond(self, scenario: Scenario, history: Sequence[Turn]) -> str:
        messages = prompts.tested_persuader_messages(scenario, history, self.prompting)
        return clean_utterance((await call_model(self.model, messages, cache=self.cache)).text)


class Persuadee:
    """The persuadee agent: holds the hidden mental state and discloses it one part per round."""

    def __init__(self, model: ModelLike, mental_state: MentalState, cache: bool | CachePolicy = False) -> None:
        self.model, self.mental_state, self.cache = model, mental_state, cache

    async def respond(self, scenario: Scenario, history: Sequence[Turn], disclosure: PersuadeeDisclosure) -> str:
        messages = prompts.persuadee_messages(scenario, self.mental_state, history, disclosure)
        return clean_utterance((await call_model(self.model, messages, cache=self.cache)).text)


@dataclass(frozen=True)
class Review:
    approved: bool
    feedback: str
    raw: str


class Observer:
    """Checks each persuader guess against the true mental state; a rejection sends it back with advice (§3.5)."""

    def __init__(self, model: ModelLike, cache: bool | CachePolicy = False) -> None:
        self.model, self.cache = model, cache

    async def review(
        self,
        scenario: Scenario,
        mental_state: MentalState,
        history: Sequence[Turn],
        target: PersuadeeDisclosure,
        guess: Guess,
    ) -> Review:
        messages = prompts.observer_messages(scenario, mental_state, history, target, guess.text())
        text = (await call_model(self.model, messages, cache=self.cache)).text
        parsed: dict[str, Any] = find_json(text) or {}
        approved = read_bool(parsed.get("approved"))
        # An unreadable review must not block generation: it counts as approval and is kept in the row.
        return Review(approved is not False, str(parsed.get("feedback") or "").strip(), text)
