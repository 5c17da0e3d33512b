"""End to end: tombench/hitom through `inspect_ai.eval` with a scripted `mockllm/hitom`, on the fixture in the release's
layout (`Hi-ToM_data.json`: 10 vanilla-prompting records, orders 0-4 with and without telling, and 1 chain-of-thought
record)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import Model

from tests.tasks.mockllm import metrics as log_metrics
from tests.tasks.mockllm import scripted
from tombench.tasks.hitom import hitom

FIXTURE = Path(__file__).parent / "fixtures" / "Hi-ToM_data.json"
#: the mock model these runs use (Inspect's mockllm, scripted per test)
MOCK = "mockllm/hitom"


def _model(samples: list[Sample], reply: Callable[[Sample], str]) -> Model:
    """The mock model replying `reply(sample)` to each sample's prompt."""
    return scripted(samples, reply, model=MOCK, input_tokens=300)


def _records(prompting: str) -> int:
    raw = json.loads(FIXTURE.read_text(encoding="utf-8"))
    return sum(1 for r in raw["data"] if r["prompting_type"] == prompting)





def _wrong_letter(sample: Sample) -> str:
    return next(letter for letter in sample.metadata["letters"] if letter != sample.target)


def test_right_and_wrong_letters_vanilla_prompting(tmp_path: Path) -> None:
    """"Answer: <key>" scores 1.0 in every order and telling group; another option's letter scores 0.0."""
    task = hitom(data=str(FIXTURE))
    samples = list(task.dataset)
    assert len(samples) == _records("VP") == 10
    (log,) = inspect_eval(task, model=_model(samples, lambda s: f"Answer: {s.target}"), log_dir=str(tmp_path),
                          display="none")
    assert log.status == "success"
    assert log.results.total_samples == log.results.completed_samples == 10
    metrics = log_metrics(log)
    assert metrics["accuracy"] == 1.0
    assert all(metrics[f"order={k}"] == 1.0 and metrics[f"order={k}:n"] == 2 for k in range(5))
    assert metrics["tell=True"] == metrics["tell=False"] == 1.0
    assert metrics["chance"] == 1 / 15  # 15 lettered options per question
    assert metrics["accuracy_ci_low"] < 1.0 == metrics["accuracy_ci_high"]  # Wilson interval of 10/10

    (log,) = inspect_eval(hitom(data=str(FIXTURE)), model=_model(samples, _wrong_letter), log_dir=str(tmp_path),
                          display="none")
    assert log.status == "success" and log.results.total_samples == 10
    assert log_metrics(log)["accuracy"] == 0.0


def test_chain_of_thought_half_reads_letter_and_text(tmp_path: Path) -> None:
    """prompting=cotp runs the chain-of-thought record with its own instruction; "K. option_text" then an
    explanation that names another option is read as K."""
    task = hitom(data=str(FIXTURE), prompting="cotp")
    samples = list(task.dataset)
    assert len(samples) == _records("CoTP") == 1
    assert "Think step-by-step." in str(samples[0].input)

    def answer_then_explain(s: Sample) -> str:
        options = s.metadata["options"]
        other = options[s.metadata["letters"].index(_wrong_letter(s))]
        return f"{s.target}. {s.metadata['answer_text']}\n\nExplanation: it was never moved to the {other}."

    (log,) = inspect_eval(task, model=_model(samples, answer_then_explain), log_dir=str(tmp_path), display="none")
    assert log.status == "success" and log.results.total_samples == 1
    assert log_metrics(log)["accuracy"] == 1.0
    assert log.samples[0].scores["choice_answer"].metadata["read"] == samples[0].target


def test_filters_keep_the_asked_slice(tmp_path: Path) -> None:
    """order=3,4 with tell=true and length=1: the two telling stories' third- and fourth-order questions."""
    task = hitom(data=str(FIXTURE), order="3,4", tell=True, length="1")
    samples = list(task.dataset)
    assert len(samples) == 2
    (log,) = inspect_eval(task, model=_model(samples, lambda s: f"The answer is {s.target}."),
                          log_dir=str(tmp_path), display="none")
    assert log.status == "success" and log.results.total_samples == 2
    metrics = log_metrics(log)
    assert metrics["accuracy"] == 1.0
    assert metrics["order=3:n"] == metrics["order=4:n"] == 1 and metrics["tell=True:n"] == 2
    assert "tell=False" not in metrics
