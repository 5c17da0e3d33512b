"""The tombench/tomsynth task end to end with scripted mockllm answers: grouped metrics in the log, the RL reward."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, get_model

from tests.generators.tomsynth.test_generation import mock_output
from tombench.generators.tomsynth.items import LETTERS, Item, append_jsonl
from tombench.generators.tomsynth.units import unit_by_id
from tombench.kit.metrics import parse_breakdown
from tombench.scorers.tomsynth import extract_answer, grpo_reward, tomsynth_reward
from tombench.tasks.tomsynth.tomsynth import record_to_sample, rl_prompt, tomsynth

UNITS = [
    "mixed-emotions.education.school-bullying.dialogue",
    "hidden-emotions.workplace.meetings.narrative",
    "content-false-beliefs.family.family-dinner.narrative",
    "second-order-beliefs-belief-about-desire.friendship.keeping-secrets.dialogue",
]


def item(n: int, unit_id: str, answer: str) -> Item:
    unit = unit_by_id(unit_id)
    return Item(
        id=f"{unit_id}#{n}",
        **unit.metadata(),
        text=f"Story number {n}. Ann left; Tom moved the report.",
        question=f"Where does Ann think the report is? [case {n}]",
        options={letter: f"Place {letter}{n}" for letter in LETTERS},
        answer=answer,
    )


@pytest.fixture
def data_file(tmp_path: Path) -> Path:
    # two items per unit, keys spread over A-D
    items = [item(n, UNITS[n // 2], LETTERS[n % 4]) for n in range(8)]
    path = tmp_path / "items.jsonl"
    append_jsonl(path, (i.to_row() for i in items))
    return path


def _case(messages: list[ChatMessage]) -> int:
    return int(re.search(r"\[case (\d+)\]", messages[-1].text).group(1))


def answering_model(reply: callable):
    def fn(messages: list[ChatMessage], tools: object, tool_choice: object, config: GenerateConfig) -> ModelOutput:
        return mock_output(reply(_case(messages), messages[-1].text))

    return get_model("mockllm/model", custom_outputs=fn, memoize=False)


def test_record_to_sample() -> None:
    row = item(3, UNITS[1], "D").to_row()
    s = record_to_sample(row)
    assert s.id == row["id"] and s.target == "D" and s.choices == [f"Place {x}3" for x in LETTERS]
    assert s.input.startswith("Narrative:\nStory number 3.") and s.input.endswith("[case 3]")
    assert s.metadata == {"unit_id": UNITS[1], "dimension": "Emotion", "sub_dimension": "Hidden Emotions",
                          "domain": "Workplace", "situation": "Meetings", "format": "Narrative", "space": "full"}


def test_task_grouped_accuracy_in_log(data_file: Path, tmp_path: Path) -> None:
    # right on cases 0-5 except case 3; wrong on 6 and 7 (the "Belief about desire" unit)
    def reply(case: int, prompt: str) -> str:
        correct = LETTERS[case % 4]
        wrong = LETTERS[(case + 1) % 4]
        return f"ANSWER: {correct if case in (0, 1, 2, 4, 5) else wrong}"

    (log,) = inspect_eval(tomsynth(data=str(data_file)), model=answering_model(reply), log_dir=str(tmp_path / "logs"),
                          display="none")
    assert log.status == "success"
    metrics = {name: m.value for s in log.results.scores for name, m in s.metrics.items()}
    assert metrics["accuracy"] == pytest.approx(5 / 8)
    assert metrics["dimension=Emotion"] == pytest.approx(3 / 4)
    assert metrics["dimension=Emotion:n"] == 4
    assert metrics["dimension=Belief"] == pytest.approx(2 / 4)
    assert metrics["sub_dimension=Mixed Emotions"] == 1.0
    assert metrics["sub_dimension=Hidden Emotions"] == 0.5
    assert metrics["sub_dimension=Second-order Beliefs (Belief about desire)"] == 0.0
    assert metrics["domain=Family"] == 1.0 and metrics["domain=Friendship"] == 0.0
    assert metrics["format=Dialogue"] == pytest.approx(2 / 4) and metrics["format=Narrative"] == pytest.approx(3 / 4)
    # 0/1 scores: the group's stderr is not logged (one summary line less per group) but read back by the parser
    assert "format=Narrative:stderr" not in metrics
    entries = {(e.dimension, e.group): e for e in parse_breakdown(metrics)}
    assert entries["format", "Narrative"].stderr == pytest.approx(math.sqrt(0.75 * 0.25 / 3))
    assert log.eval.task_args.get("data") == str(data_file)


def test_task_filters_and_validation(data_file: Path) -> None:
    t = tomsynth(data=str(data_file), dimension="emotion", format=["Dialogue"])
    assert [s.metadata["sub_dimension"] for s in t.dataset] == ["Mixed Emotions", "Mixed Emotions"]
    assert len(tomsynth(data=str(data_file), limit_per_unit=1).dataset) == 4
    with pytest.raises(ValueError, match=r"Invalid domain value\(s\): \['Mars'\]. Must be one of"):
        tomsynth(data=str(data_file), domain="Mars")
    with pytest.raises(ValueError, match="needs data"):
        tomsynth()
    with pytest.raises(ValueError, match="does not exist"):
        tomsynth(data=str(data_file.with_name("missing.jsonl")))


@pytest.mark.parametrize(
    ("response", "answer", "reward"),
    [
        ("<think>Ann was away.</think><answer>B</answer>", "B", 1),
        ("<think>x</think>\n<answer> (b) </answer>\n", "B", 1),
        ("<think>x</think><answer>B. In the tray</answer>", "B", 1),
        ("<think>x</think><answer>C</answer>", "B", 0),
        ("<answer>B</answer>", "B", -1),
        ("<think>x</think>B", "B", -1),
        ("The answer is B", "B", -1),
        ("<think>x</think><answer>B</answer> trailing", "B", -1),
        ("<think>x</think><answer>E</answer>", "B", -1),
        ("<think>a</think><think>b</think><answer>B</answer>", "B", -1),
        ("<think>x</think><answer>B or C</answer>", "B", -1),
    ],
)
def test_rl_reward(response: str, answer: str, reward: int) -> None:
    assert tomsynth_reward(response, answer) == reward
    assert (extract_answer(response) is not None) == (reward != -1)


def test_grpo_reward_batch_signature() -> None:
    comps = ["<think>t</think><answer>A</answer>", [{"role": "assistant", "content": "<answer>A</answer>"}], "x"]
    assert grpo_reward(comps, answer=["A", "A", "A"], prompts=["p"] * 3) == [1.0, -1.0, -1.0]


def test_task_think_format_scores_reward(data_file: Path, tmp_path: Path) -> None:
    prompts: list[str] = []

    def reply(case: int, prompt: str) -> str:
        prompts.append(prompt)
        if case == 0:
            return "B"  # malformed
        letter = LETTERS[case % 4] if case < 6 else LETTERS[(case + 1) % 4]
        return f"<think>Ann did not see the move.</think><answer>{letter}</answer>"

    task = tomsynth(data=str(data_file), answer_format="think")
    (log,) = inspect_eval(task, model=answering_model(reply), log_dir=str(tmp_path / "logs"), display="none")
    scores = {s.name: {name: m.value for name, m in s.metrics.items()} for s in log.results.scores}
    assert list(scores) == ["reward", "accuracy", "format_error"]
    assert scores["reward"]["mean"] == pytest.approx((-1 + 5 * 1 + 2 * 0) / 8)
    assert scores["reward"]["breakdown_sub_dimension=Mixed Emotions"] == pytest.approx(0.0)  # -1 and +1
    assert scores["reward"]["breakdown_sub_dimension=Hidden Emotions"] == 1.0
    # the reward mixes two things; both are reported, with intervals that keep a width at 0% and 100%
    assert scores["accuracy"]["accuracy"] == pytest.approx(5 / 8)
    assert scores["format_error"]["mean"] == pytest.approx(1 / 8)
    assert scores["accuracy"]["wilson95_n"] == 8 and 0 < scores["format_error"]["wilson95_low"] < 1 / 8
    assert scores["accuracy"]["breakdown_sub_dimension=Mixed Emotions"] == pytest.approx(0.5)
    assert "<think> </think>" in prompts[0] and "A) Place A" in prompts[0]
    row = json.loads(data_file.read_text(encoding="utf-8").splitlines()[2])
    assert rl_prompt(row) in prompts
