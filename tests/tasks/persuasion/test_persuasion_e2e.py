"""Both persuasion tasks end to end through `inspect_ai.eval` on `mockllm/model` roles with scripted replies, offline.

The data is the packaged sample (`-T dataset=sample`: 4 records in the authors' layout, two with a preventive
behaviour and 8 utterances, two without and 6). Every role is a `mockllm/model` answering from its prompt: the model
under test, the persuadee agent and the grader (recognised by the first words of its system prompt). The dynamic
task's solver, `live_persuasion`, is also run on its own.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai import Task, eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, ModelUsage, get_model

from tombench.generators.persuasion.data import load_records
from tombench.scorers.persuasion import DIALOG_STORE_KEY
from tombench.tasks.persuasion import persuasion_dynamic, persuasion_fixed
from tombench.tasks.persuasion.persuasion import SAMPLE, dynamic_sample, live_persuasion

RECORDS = load_records(SAMPLE).records
SECRETS = [s for r in RECORDS if r.mental_state for s in r.mental_state.secret_strings()]


def _mock(reply: Callable[[str, str], str], calls: list[tuple[str, str]] | None = None) -> Model:
    """`mockllm/model` answering `reply(system, user)`, with explicit token usage; `calls` collects the prompts."""

    def fn(messages: list[ChatMessage], tools: object, tool_choice: object, config: GenerateConfig) -> ModelOutput:
        system = "\n".join(m.text for m in messages if m.role == "system")
        user = "\n".join(m.text for m in messages if m.role == "user")
        if calls is not None:
            calls.append((system, user))
        out = ModelOutput.from_content(model="mockllm/model", content=reply(system, user))
        out.usage = ModelUsage(input_tokens=300, output_tokens=20, total_tokens=320)
        return out

    return get_model("mockllm/model", custom_outputs=fn, memoize=False)


def _grader(persuasive: int, addressed: bool) -> Model:
    """A grader giving every persuader turn `persuasive` out of 10 and judging belief and desire addressed or not."""

    def reply(system: str, user: str) -> str:
        if system.startswith("You rate persuasion"):
            return f"Score: {persuasive}"
        assert system.startswith("You are the persuadee of the conversation below"), system[:60]
        return json.dumps({"belief_addressed": addressed, "desire_addressed": addressed, "explanation": "-"})

    return _mock(reply)


def _run(task: Callable[..., Task], model: Model, roles: dict[str, Model], tmp_path: Path) -> EvalLog:
    """The task built inside the eval (as `inspect eval` does, so it sees its roles), on the packaged sample."""
    [log] = eval(task, task_args={"dataset": "sample", "cache": False}, model=model, model_roles=roles,
                 log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    assert log.results is not None and log.results.total_samples == log.results.completed_samples == 4
    return log


def _metrics(log: EvalLog) -> dict[str, dict[str, float]]:
    assert log.results is not None
    return {s.name: {k: m.value for k, m in s.metrics.items()} for s in log.results.scores}


@pytest.mark.parametrize(("right", "rouge", "persuasive"), [(True, 1.0, 8), (False, 0.0, 2)])
def test_fixed(tmp_path: Path, right: bool, rouge: float, persuasive: int) -> None:
    # the model under test writes the reference round-3 reply (ROUGE-L 1) or words that share none of its tokens
    targets = {sample.input[-1].text: sample.target for sample in persuasion_fixed(dataset="sample").dataset}  # type: ignore[index, union-attr]
    under_test = _mock(lambda system, user: str(targets[user]) if right else "Zebra quantum xylophone.")
    log = _run(persuasion_fixed, under_test, {"grader": _grader(persuasive, True)}, tmp_path)
    metrics = _metrics(log)
    assert metrics["rouge_l"]["mean"] == pytest.approx(rouge)
    assert metrics["rouge_l"]["breakdown_domain=Health"] == pytest.approx(rouge)
    assert metrics["persuasive"]["mean"] == persuasive
    assert metrics["persuasive"]["breakdown_domain=Career:n"] == 1
    assert log.eval.metadata["roles"]["grader"]["defaulted"] is False
    assert log.eval.metadata["prompting"] == "none"


@pytest.mark.parametrize(("addressed", "rate"), [(True, 1.0), (False, 0.0)])
def test_dynamic(tmp_path: Path, addressed: bool, rate: float) -> None:
    under_test = _mock(lambda system, user: "Here is one more reason to say yes.")
    persuadee = _mock(lambda system, user: "Hmm, tell me more.")
    log = _run(persuasion_dynamic, under_test, {"persuadee": persuadee, "grader": _grader(9, addressed)}, tmp_path)
    metrics = _metrics(log)
    assert list(metrics) == ["ctom", "preventive", "generative", "persuasive"]  # ctom: the headline
    assert metrics["ctom"]["accuracy"] == rate and metrics["ctom"]["wilson95_n"] == 4
    assert metrics["generative"]["accuracy"] == rate
    assert metrics["preventive"]["accuracy"] == rate and metrics["preventive"]["wilson95_n"] == 2  # those with one
    assert metrics["ctom"]["breakdown_has_preventive=True:n"] == 2
    assert metrics["persuasive"]["mean"] == 9
    assert {name: r["defaulted"] for name, r in log.eval.metadata["roles"].items()} == {"persuadee": False,
                                                                                        "grader": False}


def test_live_persuasion_solver_on_its_own(tmp_path: Path) -> None:
    """`live_persuasion`: the model under test persuades the persuadee agent for the paper's rounds (4 with a
    preventive behaviour, 3 without), never seeing the hidden mental state; the dialogue is the sample's output and
    is kept in the store for the scorer."""
    calls: list[tuple[str, str]] = []
    under_test = _mock(lambda system, user: "Here is one more reason to say yes.", calls)
    persuadee = _mock(lambda system, user: "Hmm, tell me more.")
    samples = [s for s in map(dynamic_sample, RECORDS) if s is not None]
    [log] = eval(Task(dataset=samples, solver=live_persuasion(persuadee_role="persuadee", cache=False)),
                 model=under_test, model_roles={"persuadee": persuadee}, log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    assert log.results is not None and log.results.total_samples == 4
    for sample in log.samples or []:
        lines = sample.store[DIALOG_STORE_KEY]
        assert len(lines) == (8 if sample.metadata["has_preventive"] else 6)
        assert [line.split(":")[0] for line in lines] == ["persuader", "persuadee"] * (len(lines) // 2)
        assert lines[0] == "persuader: Here is one more reason to say yes."
        assert sample.output.completion == "\n".join(lines)
    assert len(calls) == 4 + 3 + 4 + 3  # one call per persuader turn
    assert all(secret not in system + user for system, user in calls for secret in SECRETS)
