"""SimpleToM end to end: the task run by Inspect on its fixture (the three question sets in the Hub layout, two
questions each) with a scripted `mockllm/simpletom` that answers each prompt from the sample it was asked."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import Model

from tests.tasks.mockllm import metrics, scripted
from tombench.tasks.simpletom import simpletom

FIXTURE = Path(__file__).parent / "fixtures"
#: the mock model these runs use (Inspect's mockllm, scripted per test)
MOCK = "mockllm/simpletom"


def _model(task: Any, answer: Callable[[str, Mapping[str, Any]], str]) -> Model:
    """The scripted model replying `answer(target letter, metadata)` to each sample, after the system message."""
    return scripted(task.dataset, lambda s: answer(str(s.target), s.metadata), model=MOCK,
                    system="You are a helpful assistant.")


def _other(letter: str) -> str:
    return "A" if letter == "B" else "B"


def _run(tmp_path: Path, answer: Callable[[str, Mapping[str, Any]], str]) -> dict[str, float]:
    task = simpletom(data=str(FIXTURE))
    (log,) = inspect_eval(task, model=_model(task, answer), log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    assert log.results.total_samples == log.results.completed_samples == len(task.dataset) == 6
    return metrics(log)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (lambda target, md: f"({target})", 1.0),  # the format the prompt asks for
        (lambda target, md: f"({target}) {md['options']['AB'.index(target)]}", 1.0),  # letter and text
        (lambda target, md: f"({_other(target)})", 0.0),
        (lambda target, md: "(A) or (B)", 0.0),  # a hedge picks nothing (the authors' reader takes (A))
    ],
    ids=["letter", "letter_and_text", "wrong_letter", "hedge"],
)
def test_headline_accuracy_of_scripted_answers(tmp_path: Path, answer: Callable[..., str], expected: float) -> None:
    m = _run(tmp_path, answer)
    assert m["accuracy"] == expected
    assert m["kind=mental_state"] == m["kind=behavior"] == m["kind=judgment"] == expected
    assert m["kind=mental_state:n"] == m["kind=behavior:n"] == m["kind=judgment:n"] == 2.0
    assert m["chance"] == 0.5


def test_the_papers_gap_shows_per_kind(tmp_path: Path) -> None:
    """A model that infers mental states but does not apply them: right on the mental-state questions only."""
    m = _run(tmp_path, lambda target, md: f"({target if md['kind'] == 'mental_state' else _other(target)})")
    assert m["kind=mental_state"] == 1.0 and m["kind=behavior"] == m["kind=judgment"] == 0.0
    assert m["accuracy"] == pytest.approx(2 / 6)
    assert m["severity=1"] == m["severity=3"] == pytest.approx(1 / 3)
