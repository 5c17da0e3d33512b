"""Scripted Inspect models for the persuasion tests, and a check of the script machinery itself.

`Scripted` wraps `mockllm/model` with a callable that answers from the prompt (each agent and judge is recognised
by the first words of its system prompt) and records every prompt it received, so tests can assert what each role
was shown. Every output carries explicit token usage (mockllm's own estimate would need a tokenizer download).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

from inspect_ai.model import ChatMessage, Model, ModelOutput, ModelUsage, get_model

FIXTURE = Path(__file__).resolve().parents[3] / "tombench" / "data" / "persuasion" / "ctompersu_sample.json"
#: Written in the layout of the authors' released file: exact copies, 6- and 8-utterance dialogues, records listing
#: several domains, a preventive behaviour of content "none", a turn split over two lines.
RELEASE_SHAPE = Path(__file__).resolve().parents[2] / "tasks" / "persuasion" / "fixtures" / "ctompersu_release_shape.json"

ROLE_PREFIXES = {
    "mental_state": "You design the hidden mental state",
    "guess": "You guess the persuadee's mental state",
    "persuader": "You are the persuader",
    "persuadee": "You are the persuadee in a conversation",
    "observer": "You review a persuader's guess",
    "persuasive": "You rate persuasion",
    "satisfaction": "You are the persuadee of the conversation below",
    "direct": "Imagine you are the persuadee",
    "ctom": "You audit a persuasion dialogue",
    "quality": "You evaluate a multi-turn dialogue",
}


def prompt_kind(system: str) -> str:
    for kind, prefix in ROLE_PREFIXES.items():
        if system.startswith(prefix):
            return kind
    raise AssertionError(f"unrecognised prompt: {system[:60]!r}")


class Scripted:
    """A mockllm model answering `respond(kind, system, user)`; `calls` keeps (kind, system, user) per call."""

    def __init__(self, respond: Callable[[str, str, str], str]) -> None:
        self.respond = respond
        self.calls: list[tuple[str, str, str]] = []
        self.model: Model = get_model("mockllm/model", custom_outputs=self._output, memoize=False)

    def _output(self, messages: list[ChatMessage], tools, tool_choice, config) -> ModelOutput:  # noqa: ANN001
        system = "\n".join(m.text for m in messages if m.role == "system")
        user = "\n".join(m.text for m in messages if m.role == "user")
        kind = prompt_kind(system)
        self.calls.append((kind, system, user))
        output = ModelOutput.from_content(model="mockllm/model", content=self.respond(kind, system, user))
        output.usage = ModelUsage(input_tokens=len(system + user) // 4, output_tokens=8, total_tokens=8 + len(system + user) // 4)
        return output

    def kinds(self) -> list[str]:
        return [c[0] for c in self.calls]


def guess_json(belief: str = "unknown", desire: str = "unknown") -> str:
    """A persuader's guess as a model would write it (fenced JSON; the fields not asked for are ignored)."""
    return "```json\n" + json.dumps({"belief": belief, "desire": desire}) + "\n```"


def test_scripted_model_answers_and_records_with_usage() -> None:
    scripted = Scripted(lambda kind, system, user: f"answer for {kind}")

    async def go() -> ModelOutput:
        from inspect_ai.model import ChatMessageSystem, ChatMessageUser

        return await scripted.model.generate(
            [ChatMessageSystem(content="You rate persuasion. x"), ChatMessageUser(content="hello")]
        )

    output = asyncio.run(go())
    assert output.completion == "answer for persuasive"
    assert output.usage is not None and output.usage.output_tokens == 8
    assert scripted.calls == [("persuasive", "You rate persuasion. x", "hello")]
