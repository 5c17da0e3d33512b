"""SimpleToM: the paper's prompt, samples from records in the Hub layout, the task offline on its fixture."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

import tombench._registry  # noqa: F401 - registers the tombench/ baseline models
from tombench.kit.errors import OptionError
from tombench.scorers.suites.choice import match_choice
from tombench.tasks.simpletom.simpletom import FILES, build_prompt, record_to_sample, simpletom

FIXTURE = Path(__file__).parent / "fixtures"


def _record(config: str, n: int = 0) -> dict:
    return json.loads((FIXTURE / config / "test.jsonl").read_text().splitlines()[n])


def test_prompt_is_the_papers() -> None:
    expected = (
        "Given the following story, answer the question by giving the correct answer choice, (A) or (B).\n\n"
        "Story:\nS1. S2.\n\nQuestion: Is Mary aware? \n(A) Yes \n(B) No\n\n"
        'What is the correct answer? Respond with just "(A)" or "(B)"\n'
    )
    assert build_prompt("S1. S2.", "Is Mary aware?", ["Yes", "No"]) == expected


def test_record_to_sample() -> None:
    s = record_to_sample(_record("behavior-qa", 1), question_set="behavior-qa")
    assert s.choices == ["ask for the brake line to be replaced", "sign the purchase papers"] and s.target == "B"
    assert s.metadata["kind"] == "behavior" and s.metadata["severity"] == 3 and s.metadata["id_matches_kind"]
    assert s.metadata["letters"] == "AB" and s.metadata["chance"] == 0.5
    assert s.input.endswith('Respond with just "(A)" or "(B)"\n')
    m = record_to_sample(_record("mental-state-qa"), question_set="mental-state-qa")
    assert m.metadata["kind"] == "mental_state" and m.metadata["severity"] == 1 and m.target == "B"
    assert record_to_sample(_record("mental-state-qa"), question_set="mental-state-qa").id == m.id
    assert m.metadata["scenario"] == "food_item_in_grocery_store"
    # texts as released: the judgment question's final space stays, as in the authors' prompt ("as:  \n(A) ...")
    j = record_to_sample(_record("judgment-qa"), question_set="judgment-qa")
    assert "can be best described as:  \n(A) Not reasonable \n(B) Reasonable\n\n" in j.input
    bad = {**_record("judgment-qa"), "answerKey": "C"}
    with pytest.raises(ValueError, match="answerKey"):
        record_to_sample(bad, question_set="judgment-qa")


@pytest.mark.parametrize(
    ("response", "read"),
    [("(B)", "B"), ("(A) pay for the jam", "A"), ("B", "B"), ("(A) or (B)", None), ("I am not sure", None)],
)
def test_answers_read_with_the_shared_letter_protocol(response: str, read: str | None) -> None:
    assert match_choice(response, "AB", ["pay for the jam", "point out the cracked lid"]) == read


def test_pinned_files_are_the_three_question_sets() -> None:
    assert sorted(FILES) == ["behavior-qa/test.jsonl", "judgment-qa/test.jsonl", "mental-state-qa/test.jsonl"]
    assert {f.revision for f in FILES.values()} == {"5799bfb5b339ae39df403b26a2bf3e240db2a728"}


def test_task_offline_with_baselines(tmp_path: Path) -> None:
    logs = inspect_eval([simpletom(data=str(FIXTURE))], model=["tombench/primacy", "tombench/recency"],
                        log_dir=str(tmp_path), display="none")
    accuracy = {}
    for log in logs:
        assert log.status == "success", log.error
        md = log.eval.metadata
        assert md["suite"] == "simpletom" and md["headline_groups"] == ["kind"] and md["chance"] == 0.5
        assert md["dataset_records"] == 6 and md["paper_items"] == 3441 and md["dataset_pinned"] is False
        metrics = {k: m.value for score in log.results.scores for k, m in score.metrics.items()}
        assert {"kind=mental_state", "kind=behavior", "kind=judgment", "accuracy_ci_high"} <= set(metrics)
        accuracy[log.eval.model] = metrics
    # primacy always answers (A): right on 2 of the 6 fixture questions (behaviour 1, judgment 1)
    assert accuracy["tombench/primacy"]["accuracy"] == pytest.approx(2 / 6)
    assert accuracy["tombench/recency"]["accuracy"] == pytest.approx(4 / 6)


def test_filter_and_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert len(simpletom(data=str(FIXTURE), question_set="judgment-qa").dataset) == 2
    with pytest.raises(OptionError, match="Invalid question_set"):
        simpletom(data=str(FIXTURE), question_set="story-data")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    with pytest.raises(OptionError, match="offline mode") as e:
        simpletom()
    assert "\n" not in str(e.value)
