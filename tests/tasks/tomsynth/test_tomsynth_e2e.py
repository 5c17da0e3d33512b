"""tombench/tomsynth end to end through `inspect_ai.eval` on `mockllm/model` with scripted replies, offline.

The data is `fixtures/tomsynth_items.jsonl`: 8 hand-written items in the row schema `tombench tomsynth generate`
writes (4 units x 2 items; Emotion and Belief, narrative and dialogue; answer keys A-D twice each). Both answer
formats run: `letter` (Inspect's multiple-choice prompt, accuracy) and `think` (the paper's RL reward). The think
format's solver, `_think_answer`, is also run on its own.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai import Task, eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, ModelUsage, get_model

from tombench.tasks.tomsynth import tomsynth
from tombench.tasks.tomsynth.tomsynth import _think_answer, record_to_sample, rl_prompt

FIXTURE = Path(__file__).parent / "fixtures" / "tomsynth_items.jsonl"
ROWS = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]
#: the key of each item, found by its question (the prompts hold it verbatim)
KEYS = {row["question"]: row["answer"] for row in ROWS}


def _key(prompt: str) -> str:
    [key] = [k for question, k in KEYS.items() if question in prompt]
    return key


def _wrong(key: str) -> str:
    return "ABCD"[("ABCD".index(key) + 1) % 4]


def _mock(reply: Callable[[str], str]) -> Model:
    """`mockllm/model` answering each prompt with `reply(user message)`, with explicit token usage."""

    def fn(messages: list[ChatMessage], tools: object, tool_choice: object, config: GenerateConfig) -> ModelOutput:
        out = ModelOutput.from_content(model="mockllm/model", content=reply(messages[-1].text))
        out.usage = ModelUsage(input_tokens=200, output_tokens=12, total_tokens=212)
        return out

    return get_model("mockllm/model", custom_outputs=fn, memoize=False)


def _run(task: Task, reply: Callable[[str], str], tmp_path: Path) -> EvalLog:
    [log] = eval(task, model=_mock(reply), log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    assert log.results is not None and log.results.total_samples == len(ROWS) == 8
    return log


def _metrics(log: EvalLog) -> dict[str, dict[str, float]]:
    assert log.results is not None
    return {s.name: {k: m.value for k, m in s.metrics.items()} for s in log.results.scores}


@pytest.mark.parametrize(("right", "accuracy"), [(True, 1.0), (False, 0.0)])
def test_letter_format(tmp_path: Path, right: bool, accuracy: float) -> None:
    log = _run(tomsynth(data=str(FIXTURE)), lambda p: f"ANSWER: {_key(p) if right else _wrong(_key(p))}", tmp_path)
    [metrics] = _metrics(log).values()
    assert metrics["accuracy"] == accuracy
    for group in ("dimension=Emotion", "dimension=Belief", "format=Narrative", "format=Dialogue",
                  "domain=Workplace", "sub_dimension=Content False Beliefs"):
        assert metrics[group] == accuracy, group
    assert metrics["dimension=Emotion:n"] == metrics["dimension=Belief:n"] == 4
    assert log.eval.metadata["data"] == str(FIXTURE) and log.eval.metadata["answer_format"] == "letter"


def test_letter_format_reads_replies_beyond_answer_colon(tmp_path: Path) -> None:
    """The careful reading (`read_letter`): a bare letter and "The answer is X." are read; a hedge is not."""

    def reply(prompt: str) -> str:
        [n] = [n for n, row in enumerate(ROWS) if row["question"] in prompt]
        key = ROWS[n]["answer"]
        return (key, f"The answer is {key}.", "ANSWER: A or B")[n % 3]

    log = _run(tomsynth(data=str(FIXTURE)), reply, tmp_path)
    samples = {s.id: s for s in log.samples or []}
    hedged = [row["id"] for n, row in enumerate(ROWS) if n % 3 == 2]
    assert _metrics(log)["tomsynth_choice"]["accuracy"] == pytest.approx((8 - len(hedged)) / 8)
    assert all(samples[i].scores["tomsynth_choice"].value == "I" for i in hedged)


@pytest.mark.parametrize(("reply", "reward", "accuracy", "format_error"), [
    ("<think>Tracking what each character saw.</think><answer>{key}</answer>", 1.0, 1.0, 0.0),
    ("<think>Tracking what each character saw.</think><answer>{wrong}</answer>", 0.0, 0.0, 0.0),
    ("The answer is {key}.", -1.0, 0.0, 1.0),  # right letter, no think/answer blocks: malformed
])
def test_think_format_reward(tmp_path: Path, reply: str, reward: float, accuracy: float, format_error: float) -> None:
    task = tomsynth(data=str(FIXTURE), answer_format="think")
    log = _run(task, lambda p: reply.format(key=_key(p), wrong=_wrong(_key(p))), tmp_path)
    metrics = _metrics(log)
    assert list(metrics) == ["reward", "accuracy", "format_error"]
    assert metrics["reward"]["mean"] == reward
    assert metrics["reward"]["breakdown_dimension=Emotion"] == reward
    assert metrics["accuracy"]["accuracy"] == accuracy and metrics["accuracy"]["wilson95_n"] == 8
    assert metrics["format_error"]["mean"] == format_error


def test_think_answer_solver_on_its_own(tmp_path: Path) -> None:
    """`_think_answer` rewrites the prompt into the paper's think/answer template (the `rl_prompt` text) and
    generates once."""
    prompts: list[str] = []

    def reply(prompt: str) -> str:
        prompts.append(prompt)
        return f"<think>x</think><answer>{_key(prompt)}</answer>"

    samples = [record_to_sample(row) for row in ROWS[:2]]
    [log] = eval(Task(dataset=samples, solver=_think_answer()), model=_mock(reply), log_dir=str(tmp_path),
                 display="none")
    assert log.status == "success" and log.results is not None and log.results.total_samples == 2
    assert sorted(prompts) == sorted(rl_prompt(row) for row in ROWS[:2])
    assert all("<think> </think>" in p and "\nA) " in p and "\nD) " in p for p in prompts)
    assert {s.id: s.output.completion for s in log.samples or []} == {
        row["id"]: f"<think>x</think><answer>{row['answer']}</answer>" for row in ROWS[:2]}
