"""BigToM end to end: the task run by Inspect on its fixture (two templates, 48 items) with a scripted `mockllm/bigtom`
that answers each prompt from the sample it was asked, in the format the paper's instruction asks for."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import Model

from tests.tasks.mockllm import metrics, scripted
from tombench.tasks.bigtom import bigtom
from tombench.tasks.bigtom.bigtom import CONDITIONS, INSTRUCTION, VARIABLES

FIXTURE = Path(__file__).parent / "fixtures" / "bigtom.csv"
#: the mock model these runs use (Inspect's mockllm, scripted per test)
MOCK = "mockllm/bigtom"


def _model(task: Any, answer: Callable[[str, Mapping[str, Any]], str]) -> Model:
    """The scripted model replying `answer(target key, metadata)` to each sample, after the paper's instruction."""
    return scripted(task.dataset, lambda s: answer(str(s.target), s.metadata), system=INSTRUCTION, input_tokens=150,
                    output_tokens=12, model=MOCK)


def _say(key: str, md: Mapping[str, Any]) -> str:
    return f"Answer:{key}){md['options']['ab'.index(key)]}"  # the instruction's 'Answer:<option>)<answer>'


def _other(key: str) -> str:
    return "a" if key == "b" else "b"


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (lambda key, md: _say(key, md), 1.0),
        (lambda key, md: md["options"]["ab".index(key)], 1.0),  # the option's words only
        (lambda key, md: _say(_other(key), md), 0.0),
        (lambda key, md: "Answer:a) or b)", 0.0),  # both keys: a miss (the authors' substring test credits it)
    ],
    ids=["key_and_text", "text_only", "wrong_key", "both_keys"],
)
def test_accuracy_in_every_cell(tmp_path: Path, answer: Callable[..., str], expected: float) -> None:
    task = bigtom(data=str(FIXTURE))
    (log,) = inspect_eval(task, model=_model(task, answer), log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    assert log.results.total_samples == log.results.completed_samples == len(task.dataset) == 48
    m = metrics(log)
    assert m["accuracy"] == expected and m["chance"] == 0.5
    for variable in VARIABLES:
        for condition in CONDITIONS:
            assert m[f"cell={variable}/{condition}"] == expected
            assert m[f"cell={variable}/{condition}:n"] == 4.0  # 2 templates x 2 initial-belief settings
    assert m["init_belief=0"] == m["init_belief=1"] == expected


def test_false_belief_failure_shows_in_its_cells(tmp_path: Path) -> None:
    """A model that answers as if the agent always saw the event: right on true belief and the controls, wrong on
    every false-belief item."""
    def answer(key: str, md: Mapping[str, Any]) -> str:
        return _say(_other(key) if md["condition"] == "false_belief" else key, md)

    task = bigtom(data=str(FIXTURE), variable="forward_belief,forward_action")
    (log,) = inspect_eval(task, model=_model(task, answer), log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    assert log.results.total_samples == 32
    m = metrics(log)
    assert m["condition=false_belief"] == 0.0
    assert m["condition=true_belief"] == m["condition=true_control"] == m["condition=false_control"] == 1.0
    assert m["accuracy"] == 0.75 and "cell=backward_belief/true_belief" not in m
