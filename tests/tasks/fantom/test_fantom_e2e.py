"""FANToM end to end: the task run by Inspect on its fixture with a scripted `mockllm/fantom`.

The model answers every question from the sample it was asked (the prompt is the key): with the gold answers every
set is right (All* 1.0), with answers that are wrong for each question type none is (All* 0.0).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import Model

from tests.tasks.mockllm import metrics, scripted
from tombench.tasks.fantom import fantom

FIXTURE = Path(__file__).parent / "fixtures" / "fantom_v1.json"
#: the mock model these runs use (Inspect's mockllm, scripted per test)
MOCK = "mockllm/fantom"


def right_answer(md: Mapping[str, Any]) -> str:
    """What a model that knows the answer says, per question type."""
    kind, correct = md["kind"], md["correct"]
    if kind == "belief_choice":
        return f"({correct})"
    if kind.endswith("_list"):
        return ", ".join(correct)
    return str(correct)  # fact, free-form belief (the correct sentence), yes/no


def wrong_answer(md: Mapping[str, Any]) -> str:
    """A wrong answer of each question type (the fact answer shares no word with any gold fact answer)."""
    kind, correct = md["kind"], md["correct"]
    if kind == "belief_choice":
        return "(b)" if correct == "a" else "(a)"
    if kind == "belief_free":
        return str(md["wrong"])
    if kind.endswith("_list"):
        return ", ".join(md["wrong"]) if md["wrong"] else "Nobody."
    if kind.endswith("_binary"):
        return "No." if correct == "yes" else "Yes."
    return "I could not say."


def _model(task: Any, answer: Callable[[Mapping[str, Any]], str]) -> Model:
    """The scripted model replying `answer(metadata)` to each sample."""
    return scripted(task.dataset, lambda s: answer(s.metadata), output_tokens=10, model=MOCK)


@pytest.mark.parametrize(("context", "aggregate", "samples"), [("short", "set", 25), ("full", "conversation", 26)])
def test_right_answers_score_every_set(tmp_path: Path, context: str, aggregate: str, samples: int) -> None:
    task = fantom(data=str(FIXTURE), context=context, aggregate=aggregate)
    (log,) = inspect_eval(task, model=_model(task, right_answer), log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    assert log.results.total_samples == log.results.completed_samples == len(task.dataset) == samples
    m = metrics(log)
    assert m["all_star"] == m["all"] == m["accuracy"] == 1.0
    assert m["control:all_star"] == m["control:all"] == 1.0
    assert m["answerability_binary_f1"] == m["info_binary_f1"] == 1.0
    assert m["belief_choice"] == m["belief_free"] == m["fact_token_f1"] == 1.0
    assert log.eval.metadata["headline"] == "all_star" and log.eval.metadata["context"] == context


def test_wrong_answers_score_no_set(tmp_path: Path) -> None:
    task = fantom(data=str(FIXTURE))
    (log,) = inspect_eval(task, model=_model(task, wrong_answer), log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    assert log.results.total_samples == 25
    m = metrics(log)
    assert m["all_star"] == m["all"] == m["accuracy"] == 0.0
    assert m["control:all_star"] == 0.0 and m["fact_token_f1"] == 0.0
    assert m["all_star:n"] == 2.0 and m["control:all_star:n"] == 1.0  # two inaccessible sets, one accessible
    assert m["kind=belief_choice"] == m["kind=info_binary"] == 0.0
