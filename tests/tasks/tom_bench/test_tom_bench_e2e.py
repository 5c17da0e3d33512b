"""ToMBench end to end: the task run by Inspect on its fixture (24 bilingual items, one or two per task file: 48
samples) with a scripted `mockllm/tom_bench`.

The model reads the options in the order each try shows them and answers with the letter of the option it means,
so the letter is mapped back through the try's shuffle and the tries are reduced by the majority vote, as in a
real run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessage

from tests.tasks.mockllm import reply_model
from tombench.scorers.suites.tom_bench import PAPER_TASKS
from tombench.tasks.tom_bench import tom_bench

FIXTURE = Path(__file__).parent / "fixtures"
#: the mock model these runs use (Inspect's mockllm, scripted per test)
MOCK = "mockllm/tom_bench"
SAMPLES = 48  # 24 items x zh, en
HEADINGS = ("[Candidate Answers]\n", "[答案选项]\n")

#: what the model says on the n-th try (1-based) of an item: "right", "wrong" or "unreadable"
Plan = Callable[[int], str]


def scripted(task: Any, plan: Plan) -> Any:
    """A mockllm model that answers each try as `plan(n)` says, n counting the tries of that item so far."""
    meant: dict[str, dict[str, str]] = {}  # item (its prompt before the options) -> the option text meant
    for s in task.dataset:
        header = s.input.split(next(h for h in HEADINGS if h in s.input))[0]
        right = s.choices["ABCD".index(str(s.target))]
        # one wrong option for every try (so wrong tries agree), unique among the options: one fixture item offers
        # "Angry" twice
        wrong = next(c for c in s.choices if c != right and s.choices.count(c) == 1)
        meant[header] = {"right": right, "wrong": wrong}
    asked: Counter[str] = Counter()

    def reply(messages: list[ChatMessage]) -> str:
        text = messages[-1].text
        heading = next(h for h in HEADINGS if h in text)
        header, options = text.split(heading)
        shown = [line.split(". ", 1)[1] for line in options.splitlines()]  # "B. Drawer" -> "Drawer"
        asked[header] += 1
        what = plan(asked[header])
        if what == "unreadable":
            content = "I cannot tell from the story."
        else:
            content = f"[[{'ABCD'[shown.index(meant[header][what])]}]]"
        return content

    return reply_model(reply, model=MOCK, input_tokens=200, output_tokens=5)


def _run(tmp_path: Path, plan: Plan, samples: int, **options: Any) -> dict[str, float]:
    task = tom_bench(data=str(FIXTURE), **options)
    tries = options.get("tries", 5)
    (log,) = inspect_eval(task, model=scripted(task, plan), log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    assert len(task.dataset) == samples
    assert log.results.total_samples == log.results.completed_samples == samples * tries
    assert log.eval.metadata["headline"] == "avg" and log.eval.metadata["tries"] == tries
    return {k: m.value for score in log.results.scores for k, m in score.metrics.items()}


@pytest.mark.parametrize(("answer", "expected"), [("right", 1.0), ("wrong", 0.0)])
def test_headline_avg_of_right_and_wrong_answers(tmp_path: Path, answer: str, expected: float) -> None:
    """The whole fixture in both languages, one shuffled try per item (the tries are tested below)."""
    m = _run(tmp_path, lambda n: answer, SAMPLES, tries=1)
    assert m["avg"] == m["avg_zh"] == m["avg_en"] == expected
    assert m["ability_avg_zh"] == m["ability_avg_en"] == m["accuracy"] == expected
    assert all(m[f"task_language={lang}/{t}"] == expected for lang in ("zh", "en") for t in PAPER_TASKS)
    assert m["language=zh:n"] == m["language=en:n"] == 24.0


@pytest.mark.parametrize(
    ("plan", "options", "expected"),
    [
        (lambda n: "right" if n <= 3 else "wrong", {}, 1.0),  # the paper's 5 tries, 3 right: the majority is right
        (lambda n: "right" if n <= 2 else "wrong", {}, 0.0),  # 2 of 5 right: the majority is the wrong option
        (lambda n: "right" if n <= 2 else "wrong", {"tries": 3}, 1.0),  # 2 of 3 right
        (lambda n: "right" if n == 1 else "unreadable", {"tries": 3}, 0.0),  # unreadable tries vote: no prediction
    ],
    ids=["three_of_five_right", "two_of_five_right", "two_of_three_right", "one_right_two_unreadable"],
)
def test_majority_vote_over_tries(tmp_path: Path, plan: Plan, options: dict[str, int], expected: float) -> None:
    """One item in zh and en (the fixture's task files share their item, so one file keeps each prompt apart)."""
    m = _run(tmp_path, plan, 2, task_name="False Belief Task", **options)
    assert m["avg"] == m["avg_zh"] == m["avg_en"] == m["accuracy"] == expected
