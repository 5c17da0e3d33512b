"""tombench/tomi: the release split (fixture in ToMi's real line format), the 100 inspect-ai items, the DSL oracle."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import headline_metric

from tests.scorers.test_story_questions import replying
from tombench.dsl import parse_structure
from tombench.kit.errors import OptionError
from tombench.models import answer
from tombench.tasks.tomi.tomi import containers, question_type, read_tomi, record_to_sample, tomi

FIXTURES = Path(__file__).parent / "fixtures"

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
    story, _, question = ITEM.rpartition(" Where")
    s = record_to_sample({"story": story, "question": "Where" + question, "answer": "container"})
    assert s.id.startswith("tomi-") and len(s.id) == 17  # a content digest, not a position
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
    assert md["tracker_answer"] == "container" and md["label_disputed"] is False
    assert containers("The boots is in the bathtub. Chloe moved the boots to the pantry.") == ["bathtub", "pantry"]


def _fixture_records() -> list[dict]:
    return read_tomi((FIXTURES / "fb_all_test.txt").read_text(), (FIXTURES / "fb_all_test.trace").read_text())


def test_read_release_layout() -> None:
    recs = _fixture_records()
    assert len(recs) == 18
    first = recs[0]
    assert first["story"][2] == "Tobias loves the radish"  # distractors kept, as released (no full stop)
    assert first["question"] == "Where was the kiwi at the beginning?" and first["answer"] == "red_tin"
    assert first["story_type"] == "true_belief" and first["tom"] is None
    assert recs[10]["tom"] is True and recs[7]["tom"] is False  # second_order_0_tom / first_order_0_no_tom
    # the trace is joined by position, so it is checked by content
    bad = (FIXTURES / "fb_all_test.trace").read_text().replace("memory", "reality", 1)
    with pytest.raises(ValueError, match="does not describe question 1"):
        read_tomi((FIXTURES / "fb_all_test.txt").read_text(), bad)


def test_every_story_parses_and_the_oracle_matches_undisputed_labels() -> None:
    """The DSL reads ToMi's stories (TV_room, distractors, exited, the placement, open containers) and the oracle
    answers every memory, reality and first-order question right; the two second-order labels the release gets
    wrong (the mover left before the other came back) are flagged, not hidden."""
    by_type: Counter[tuple[str, bool]] = Counter()
    for rec in _fixture_records():
        story = parse_structure("\n".join(rec["story"]))
        assert story.context.open_containers
        s = record_to_sample(rec)
        correct = answer("oracle", s.input) == rec["answer"]
        assert correct != s.metadata["label_disputed"]
        by_type[(s.metadata["question_type"], correct)] += 1
    assert by_type == {("memory", True): 3, ("reality", True): 3, ("first_order", True): 6,
                       ("second_order", True): 4, ("second_order", False): 2}
    relabeled = [record_to_sample(r, relabel=True) for r in _fixture_records()]
    assert sum(s.metadata["relabeled"] for s in relabeled) == 2
    assert all(answer("oracle", s.input) == s.target for s in relabeled)


def test_release_split_offline_from_a_local_copy(tmp_path: Path) -> None:
    task = tomi(data=str(FIXTURES / "fb_all_test.txt"))
    assert len(task.dataset) == 18
    md = task.metadata
    assert md["suite"] == "tomi" and md["dataset_records"] == 18 and md["labels_disputed"] == 2
    assert md["dataset_pinned"] is False and md["dataset_sha256"]
    log = inspect_eval(task, model="tombench/oracle", log_dir=str(tmp_path), display="none")[0]
    metrics = {k: v.value for k, v in log.results.scores[0].metrics.items()}
    assert metrics["accuracy"] == pytest.approx(16 / 18)
    assert metrics["label_disputed=False"] == 1.0 and metrics["label_disputed=True"] == 0.0
    assert metrics["story_type=true_belief"] == 1.0
    with pytest.raises(OptionError, match="not found"):
        tomi(data=str(tmp_path / "missing.txt"))
    with pytest.raises(OptionError, match="Invalid split"):
        tomi(split="dev")  # type: ignore[arg-type]


def test_tomi_end_to_end(tmp_path: Path) -> None:
    """A scripted model that always names the object's first container: right on memory, wrong on reality."""

    def first_container(user: str) -> str:
        story = user.rsplit("\n", 1)[0]
        return f"The {containers(story)[0].replace('_', ' ')}."

    task = tomi(split="example")
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


def test_release_offline_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOMBENCH_CACHE", str(tmp_path))
    monkeypatch.setenv("TOMBENCH_OFFLINE", "1")
    with pytest.raises(OptionError, match=r"offline mode.*-T data=PATH, or run offline with -T split=example \(ToMi\)") as err:
        tomi()
    assert "\n" not in str(err.value)
    with pytest.raises(OptionError, match="split=example reads the items shipped"):
        tomi(split="example", data=str(FIXTURES / "fb_all_test.txt"))
