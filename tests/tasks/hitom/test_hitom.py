"""tombench/hitom: the paper's VP/CoTP prompt rebuilt from the JSON, letters, filters, grouped accuracy offline."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from tombench.kit.errors import OptionError
from tombench.tasks.hitom.hitom import INSTRUCTIONS, NOTE, build_prompt, hitom, parse_choices, record_to_sample

FIXTURE = Path(__file__).parent / "fixtures" / "Hi-ToM_data.json"

RECORD = {
    "prompting_type": "VP", "deception": True, "story_length": 1, "question_order": 2, "sample_id": 7,
    "story": INSTRUCTIONS["VP"] + "\n1 Ada and Ben entered the den.\n2 The fig is in the red_tin.\n"
             "3 Ada exited the den.\n4 Ben moved the fig to the blue_jar.\n5 Ben publicly claimed that fig is in "
             "the red_tin.\n\n",
    "question": "Where does Ben think Ada thinks the fig is?",
    "choices": "A. blue_jar, B. red_tin, C. green_sack",
    "answer": "red_tin",
}


def test_record_to_sample_rebuilds_the_paper_prompt() -> None:
    s = record_to_sample(RECORD)
    assert s.target == "B" and s.id.startswith("hitom-")
    assert s.input == (
        INSTRUCTIONS["VP"] + "\nStory:\n1 Ada and Ben entered the den.\n2 The fig is in the red_tin.\n"
        "3 Ada exited the den.\n4 Ben moved the fig to the blue_jar.\n5 Ben publicly claimed that fig is in the "
        "red_tin.\nQuestion: Where does Ben think Ada thinks the fig is?\n"
        "Choices: A. blue_jar, B. red_tin, C. green_sack\n\n" + NOTE + "\n"
    )
    md = s.metadata
    assert (md["order"], md["tell"], md["length"], md["letters"], md["chance"]) == (2, True, 1, "ABC", 1 / 3)
    assert parse_choices("A. a, b, B. c") == ("AB", ["a, b", "c"])  # an option may hold a comma
    with pytest.raises(ValueError, match="not a lettered list"):
        parse_choices("B. x, A. y")
    with pytest.raises(ValueError, match="not exactly one"):
        record_to_sample({**RECORD, "answer": "blue_tub"})


def test_cotp_records_drop_the_stray_marker() -> None:
    rec = {**RECORD, "prompting_type": "CoTP", "story": "1 Ada entered the den.\n\n***"}
    assert build_prompt(rec).startswith(INSTRUCTIONS["CoTP"] + "\nStory:\n1 Ada entered the den.\nQuestion:")


def test_runs_offline_with_baselines_and_groups_by_order_and_tell(tmp_path: Path) -> None:
    task = hitom(data=str(FIXTURE))
    assert len(task.dataset) == 10  # the VP records; the CoTP one is left for prompting=cotp
    md = task.metadata
    assert md["suite"] == "hitom" and md["headline_groups"] == ["order", "tell"]
    assert md["chance"] == pytest.approx(1 / 15) and md["dataset_records"] == 11
    logs = inspect_eval([task], model=["tombench/primacy", "tombench/random"], log_dir=str(tmp_path),
                        display="none")
    for log in logs:
        assert log.status == "success"
        metrics = {k: v.value for k, v in log.results.scores[0].metrics.items()}
        for key in ("order=0", "order=4", "tell=True", "tell=False", "length=1", "accuracy_ci_low"):
            assert key in metrics
        assert metrics["order=0:n"] == 2 and metrics["tell=True:n"] == 5
    primacy = {k: v.value for k, v in logs[0].results.scores[0].metrics.items()}
    assert primacy["order=0"] == 0.0 and primacy["order=1"] == 0.0  # the fixture's answers are never under "A"
    assert len(hitom(data=str(FIXTURE), prompting="cotp").dataset) == 1
    assert len(hitom(data=str(FIXTURE), order="3,4", tell=True).dataset) == 2


def test_bad_options_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(OptionError, match="Invalid order"):
        hitom(data=str(FIXTURE), order="5")
    with pytest.raises(OptionError, match="Invalid prompting"):
        hitom(data=str(FIXTURE), prompting="cot")  # type: ignore[arg-type]
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(OptionError, match=r"Hi-ToM data file .*, line 1: not valid JSON"):
        hitom(data=str(bad))
