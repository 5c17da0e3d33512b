"""The ToMMA agents: mental-state author, persuader, persuadee and observer (paper §3.3-3.5).

Each agent holds only what it may know. The persuader is built from a model alone and receives the public scenario
and the visible turns: it has no way to reach the persuadee's mental state. The persuadee holds its mental state
and receives only the visible turns (never the persuader's inferences or the observer's notes). The observer sees
what the persuader sees plus the persuader's draft, so its feedback cannot leak the hidden state either.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inspect_ai.model import CachePolicy

from tombench.generators.persuasion import prompts
from tombench.generators.persuasion.llm import AgentModel, complete, parse_bool, parse_json_object
from tombench.generators.persuasion.records import MentalState, Scenario, Turn, clean_utterance, record_from_dict
from tombench.generators.persuasion.rounds import PersuadeeDisclosure, PersuaderFocus, Round

__all__ = [
    "generate_mental_state",
    "Persuader",
    "PersuaderTurn",
    "Persuadee",
    "Observer",
    "Review",
]


async def generate_mental_state(
    scenario: Scenario, model: AgentModel, cache: bool | CachePolicy = False
) -> MentalState:
    """Write the persuadee's generative (and optional preventive) behaviour with belief and desire (§3.3)."""
    text = await complete(model, prompts.mental_state_messages(scenario), cache)
    parsed = parse_json_object(text)
    if parsed is None:
        raise ValueError(f"mental-state model did not answer with JSON: {text[:120]!r}")
    record = record_from_dict({"scenario": {**scenario.to_dict(), **parsed}})
    if record.mental_state is None:
        raise ValueError(f"mental-state model gave no generative behaviour: {text[:120]!r}")
    return record.mental_state


@dataclass(frozen=True)
class PersuaderTurn:
    """One persuader attempt: its written-down inference of the persuadee's mental state and its reply."""

    reply: str
    inference: dict[str, Any] | None
    raw: str

    def inference_text(self) -> str:
        return json.dumps(self.inference, ensure_ascii=False) if self.inference is not None else "(none written)"


class Persuader:
    """The persuader agent.

    `guided` gives it the round's causal-ToM focus (ToMMA's generator); the model under test in the dynamic task is
    unguided. `infer` makes it write its inference of the mental state each round before replying.
    """

    def __init__(
        self, model: AgentModel, *, guided: bool = True, infer: bool = True, cache: bool | CachePolicy = False
    ) -> None:
        self.model, self.guided, self.infer, self.cache = model, guided, infer, cache

    async def respond(
        self,
        scenario: Scenario,
        history: Sequence[Turn],
        round_: Round,
        total_rounds: int,
        revision: tuple[PersuaderTurn, str] | None = None,
    ) -> PersuaderTurn:
        messages = prompts.persuader_messages(
            scenario,
            history,
            focus=round_.persuader if self.guided else None,
            infer=self.infer,
            reply_number=round_.number,
            total_replies=total_rounds,
            revision=(revision[0].inference_text(), revision[0].reply, revision[1]) if revision else None,
        )
        text = await complete(self.model, messages, self.cache)
        if not self.infer:
            return PersuaderTurn(clean_utterance(text), None, text)
        parsed = parse_json_object(text)
        if parsed is None or not str(parsed.get("reply") or "").strip():
            # An unstructured answer is still a usable reply; the missing inference is recorded as None.
            return PersuaderTurn(clean_utterance(text), None, text)
        inference = parsed.get("inference")
        return PersuaderTurn(
            clean_utterance(str(parsed["reply"])), inference if isinstance(inference, dict) else None, text
        )


class Persuadee:
    """The persuadee agent: holds the hidden mental state and discloses it one part per round."""

    def __init__(self, model: AgentModel, mental_state: MentalState, cache: bool | CachePolicy = False) -> None:
        self.model, self.mental_state, self.cache = model, mental_state, cache

    async def respond(self, scenario: Scenario, history: Sequence[Turn], disclosure: PersuadeeDisclosure) -> str:
        messages = prompts.persuadee_messages(scenario, self.mental_state, history, disclosure)
        return clean_utterance(await complete(self.model, messages, self.cache))


@dataclass(frozen=True)
class Review:
    approved: bool
    feedback: str
    raw: str


class Observer:
    """Reviews the persuader's inference and reply; a rejection sends the turn back with feedback (§3.5)."""

    def __init__(self, model: AgentModel, cache: bool | CachePolicy = False) -> None:
        self.model, self.cache = model, cache

    async def review(
        self, scenario: Scenario, history: Sequence[Turn], focus: PersuaderFocus, turn: PersuaderTurn
    ) -> Review:
        messages = prompts.observer_messages(scenario, history, focus, turn.inference_text(), turn.reply)
        text = await complete(self.model, messages, self.cache)
        parsed = parse_json_object(text) or {}
        approved = parse_bool(parsed.get("approved"))
        # An unreadable review must not block generation: it counts as approval and is kept in the log.
        return Review(approved is not False, str(parsed.get("feedback") or "").strip(), text)
