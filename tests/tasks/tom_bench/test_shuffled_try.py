"""`shuffled_try`, ToMBench's solver: each try asks the item with the language's system prompt and the options in
that try's seeded order, and records the order so the scorer can map the letter back."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, ModelName, ModelOutput
from inspect_ai.solver import TaskState

from tombench.tasks.tom_bench.tom_bench import (
    SYSTEM_PROMPTS,
    build_user_prompt,
    option_order,
    record_to_sample,
    shuffled_try,
)

FIXTURE = Path(__file__).parent / "fixtures"


def _sample(language: str) -> Any:
    record = json.loads((FIXTURE / "False Belief Task.jsonl").read_text(encoding="utf-8").splitlines()[0])
    return record_to_sample(record, task="False Belief Task", language=language)


def _try(sample: Any, epoch: int) -> tuple[TaskState, list[list[Any]]]:
    """Run the solver on one try of `sample`; returns the state and the messages each generate call saw."""
    state = TaskState(ModelName("mockllm/model"), sample.id, epoch, sample.input,
                      [ChatMessageUser(content=sample.input)], choices=sample.choices, metadata=sample.metadata)
    seen: list[list[Any]] = []

    async def generate(state: TaskState, **_: Any) -> TaskState:
        seen.append(list(state.messages))
        state.output = ModelOutput.from_content("mockllm/model", "[[A]]")
        return state

    return asyncio.run(shuffled_try()(state, generate)), seen  # type: ignore[arg-type]


@pytest.mark.parametrize("language", ["en", "zh"])
def test_each_try_shows_the_options_in_its_seeded_order(language: str) -> None:
    sample = _sample(language)
    md = sample.metadata
    orders = []
    for epoch in range(1, 6):
        state, seen = _try(sample, epoch)
        order = option_order(sample.id, epoch, 4)
        assert len(seen) == 1  # one model call per try
        system, user = seen[0]
        assert isinstance(system, ChatMessageSystem) and system.text == SYSTEM_PROMPTS[language]
        assert isinstance(user, ChatMessageUser)
        assert user.text == build_user_prompt(language, md["story"], md["question"],
                                              [sample.choices[i] for i in order])
        assert state.store.get("order") == order and sorted(order) == [0, 1, 2, 3]
        assert state.output.completion == "[[A]]"
        orders.append(tuple(order))
    assert len(set(orders)) > 1  # the options are shuffled anew across the tries
    assert _try(sample, 3)[1][0][1].text == _try(sample, 3)[1][0][1].text  # the same try is asked the same way


def test_english_try_shows_english_headings_and_the_correct_option_moves_with_the_order() -> None:
    sample = _sample("en")
    _, seen = _try(sample, 2)
    text = seen[0][1].text
    assert text.startswith("[Story]\n") and "\n\n[Question]\n" in text and "\n\n[Candidate Answers]\nA. " in text
    order = option_order(sample.id, 2, 4)
    shown_letter = "ABCD"[order.index("ABCD".index(sample.target))]
    assert f"{shown_letter}. Drawer" in text  # the correct option (original B) under the letter this try gives it
