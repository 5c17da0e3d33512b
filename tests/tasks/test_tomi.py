"""tombench/tomi: the 100 inspect-ai ToMi items, question types from the question's form, the shared scorer."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import headline_metric

from tests.scorers.test_tom_scorer import replying
from tombench.tasks.tomi import containers, question_type, record_to_sample, tomi

ITEM = (
    "Carter entered the cellar. Jacob entered the workshop. Mia is in the cellar. The gloves is in the envelope. "
    "Mia moved the gloves to the container. Jacob hates the pumpkin Carter exited the cellar. "
    "Where does Carter think that Mia searches for the gloves?"
)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Where was the boots at the beginning?", ("memory", 0)),
        ("Where is the sweet_potato really?", ("reality", 0)),
        ("Where will Chloe look for the boots?", ("first_order", 1)),
        ("Where does Chloe think that Jackson searches for the boots?", ("second_order", 2)),
    ],
)
def test_question_type(question: str, expected: tuple[str, int]) -> None:
    assert question_type(question) == expected


def test_unknown_question_form() -> None:
    with pytest.raises(ValueError, match="not a ToMi question"):
        question_type("Who entered the hall?")


def test_record_to_sample() -> None:
    s = record_to_sample(ITEM, "container", 7)
    assert s.id == "tomi-007"
    assert s.target == "container"
    # a distractor without a full stop stays in the story; the question is the paper's prompt's last line
    assert s.input.endswith(
        "Jacob hates the pumpkin Carter exited the cellar.\n"
        "Where does Carter think that Mia searches for the gloves? Short Answer."
    )
    md = s.metadata
    assert md["question_type"] == "second_order" and md["order"] == 2
    assert md["candidates"] == ["envelope", "container"]  # containers only: "Mia is in the cellar" is a room
    assert md["answer_type"] == "container"
    assert md["false_belief"] is False  # the gloves really are in the container
    assert containers("The boots is in the bathtub. Chloe moved the boots to the pantry.") == ["bathtub", "pantry"]


def test_tomi_end_to_end(tmp_path: Path) -> None:
    """A scripted model that always names the object's first container: right on memory, wrong on reality."""

    def first_container(user: str) -> str:
        story = user.rsplit("\n", 1)[0]
        return f"The {containers(story)[0].replace('_', ' ')}."

    task = tomi()
    types = Counter(s.metadata["question_type"] for s in task.dataset)
    assert len(task.dataset) == 100
    assert types == {"first_order": 33, "second_order": 33, "memory": 17, "reality": 17}
    log = inspect_eval(task, model=replying(first_container), log_dir=str(tmp_path), display="none")[0]
    assert log.status == "success"
    metrics = {k: v.value for k, v in log.results.scores[0].metrics.items()}
    assert metrics["question_type=memory"] == 1.0
    assert metrics["question_type=reality"] == 0.0
    assert metrics["question_type=first_order:n"] == 33
    assert 0 < metrics["accuracy"] < 1
    for key in ("false_belief=True", "false_belief=False", "order=0", "order=1", "order=2"):
        assert key in metrics
    assert log.eval.scorers[0].options == {"check": "strict"}
    assert log.eval.headline_metric.metric == "accuracy"
    assert headline_metric(log).name == "accuracy"


def test_check_option_is_validated() -> None:
    with pytest.raises(ValueError, match="Invalid check value"):
        tomi(check="fuzzy")
