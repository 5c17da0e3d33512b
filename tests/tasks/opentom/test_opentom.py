"""OpenToM: label reading, samples from records in the real layout, the task offline on its fixture."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

import tombench._registry  # noqa: F401 - registers the tombench/ baseline models
from tombench.kit.errors import OptionError
from tombench.scorers.suites.opentom import GENRES, fine_location_label, macro_f1, paper_f1, paper_reading, read_label
from tombench.tasks.opentom.opentom import OpenToMQuestion, build_prompt, opentom, record_to_sample

FIXTURE = Path(__file__).parent / "fixtures"


@pytest.mark.parametrize(
    ("genre", "text", "label"),
    [
        ("loc_coarse_fo", "No.", "no"),
        ("loc_coarse_fo", "Yes, it is.", "yes"),
        ("loc_coarse_so", "I don't know", None),  # "no" inside "know" is not a No (the paper's substring test)
        ("loc_coarse_so", "Yes or no: no", None),
        ("attitude", "Negative.", "negative"),
        ("attitude", "Positive, or maybe neutral", None),
    ],
)
def test_read_label(genre: str, text: str, label: str | None) -> None:
    assert read_label(genre, text) == label


def test_read_multihop_needs_topic_and_reads_synonyms() -> None:
    assert read_label("multihop_fo", "It becomes emptier.", topic="fullness") == "less full"
    assert read_label("multihop_fo", "Fuller than before", topic="fullness") == "more full"
    assert read_label("multihop_so", "Less accessible.", topic="accessibility") == "less accessible"
    assert read_label("multihop_so", "more accessible", topic="fullness") is None
    with pytest.raises(ValueError):
        read_label("multihop_fo", "more full")


def test_fine_location_overlap_and_nested_places() -> None:
    assert fine_location_label("In the garden shed.", "toy_chest", "the garden shed") == "new"
    assert fine_location_label("the toy chest", "toy_chest", "the garden shed") == "initial"
    assert fine_location_label("I am not sure.", "toy_chest", "the garden shed") is None
    # the new place contains the initial one's words: the paper calls "another drawer" a tie; we read it as new
    assert fine_location_label("another drawer", "drawer", "another drawer") == "new"
    assert fine_location_label("The drawer.", "drawer", "another drawer") == "initial"


def _q(genre: str, question: str, answer: str) -> OpenToMQuestion:
    return OpenToMQuestion("11111111", genre, question, answer, "Story text.", "Nora", "Felix", "drawer",
                           "another drawer")


def test_record_to_sample_prompt_label_and_identity() -> None:
    s = record_to_sample(_q("attitude", "As Felix, what is your attitude towards Nora's action of moving kite?",
                            "neutral"))
    assert s.input == build_prompt("attitude", "Story text.", s.metadata and
                                   "As Felix, what is your attitude towards Nora's action of moving kite?")
    assert s.input.startswith("Read and comprehend the following short story. Then, answer the question that "
                              "follows.\n\nStory text.\n\nQuestion: As Felix,")
    assert s.input.endswith("moving kite, assuming that you observed the action? Answer with \"positive\", "
                            "\"neutral\", or \"negative\". Answer without any explanation.")
    assert s.metadata["label"] == "neutral" and s.metadata["perspective"] == "observer"
    assert s.metadata["order"] is None
    fine = record_to_sample(_q("loc_fine_so", "From Nora's perspective, where precisely does Felix think that the "
                               "kite is located by the end of the story?", "another drawer"))
    assert fine.metadata["label"] == "new" and fine.metadata["order"] == "second"
    assert fine.input.endswith("by the end of the story? Answer the question without any explanation.")
    mh = record_to_sample(_q("multihop_fo", "From Nora's perspective, how does drawer's fullness change by the end "
                             "of the story?", "less full"))
    assert mh.metadata["topic"] == "fullness"
    assert 'Answer with "more full", "equally full", or "less full". Answer the question' in mh.input
    again = record_to_sample(_q("attitude", "As Felix, what is your attitude towards Nora's action of moving kite?",
                                "neutral"))
    assert again.id == s.id
    with pytest.raises(ValueError, match="cannot read gold"):
        record_to_sample(_q("loc_coarse_fo", "From Nora's perspective, is the kite in its initial location?", "?"))


def test_macro_f1_counts_unreadable_as_a_miss() -> None:
    assert macro_f1(["yes", "no"], ["yes", "no"]) == 1.0
    assert macro_f1(["yes", "no"], ["yes", None]) == 0.5  # "yes" is still perfect: a miss is no false positive
    assert macro_f1(["yes", "no"], ["yes", "yes"]) == pytest.approx((2 / 3 + 0) / 2)


def test_task_runs_offline_on_fixture_with_baselines(tmp_path: Path) -> None:
    logs = inspect_eval(
        [opentom(data=str(FIXTURE))],
        model=["tombench/recency", "tombench/random"],
        log_dir=str(tmp_path),
        display="none",
    )
    for log in logs:
        assert log.status == "success", log.error
        md = log.eval.metadata
        assert md["suite"] == "opentom" and md["headline"] == "macro_f1"
        assert md["dataset_records"] == 46 and md["dataset_pinned"] is False
        assert md["paper_items"] == 13708 and set(md["dataset_files"]) >= {"attitude.json", "meta_data.json"}
        metrics = {k: m.value for score in log.results.scores for k, m in score.metrics.items()}
        assert 0.0 <= metrics["macro_f1"] <= 1.0 and "macro_f1_ci_low" in metrics
        assert {f"macro_f1:genre={g}" for g in ("loc_coarse_fo", "loc_fine_so", "multihop_fo", "attitude")} <= set(metrics)
        assert "genre=attitude" in metrics and "unreadable" in metrics
        assert log.results.total_samples == 46
        # the headline is the mean of the seven genre cells, each scored as the authors' evaluator scores it
        cells = [metrics[f"macro_f1:genre={g}"] for g in GENRES]
        assert metrics["macro_f1"] == pytest.approx(sum(cells) / 7)
        assert metrics["macro_f1_ci_low"] <= metrics["macro_f1"] <= metrics["macro_f1_ci_high"]
        assert {"macro_f1:genre=multihop_fo_fullness", "corrupted:genre=loc_fine_fo", "strict_f1",
                "strict_f1:genre=loc_fine_fo"} <= set(metrics)
        # the authors' chat-model path: their system message, then the prompt
        first = log.samples[0].messages
        assert first[0].role == "system" and first[0].text == "You are an expert in modeling other's mental state."
        assert first[1].role == "user" and first[1].text.startswith("Read and comprehend the following short story.")


def test_task_cells_match_the_authors_reading_on_fixture(tmp_path: Path) -> None:
    """Recency on the fixture, cell by cell against `paper_f1` of `paper_reading` of the logged responses."""
    (log,) = inspect_eval(opentom(data=str(FIXTURE)), model="tombench/recency", log_dir=str(tmp_path),
                          display="none")
    metrics = {k: m.value for score in log.results.scores for k, m in score.metrics.items()}
    by_genre: dict[str, list] = {}
    for sample in log.samples:
        md = sample.metadata
        pair = paper_reading(md["genre"], sample.output.completion, str(sample.target), question=md["question"],
                             original_place=md["original_place"], move_to_place=md["move_to_place"])
        by_genre.setdefault(md["genre"], []).append(pair)
    assert set(by_genre) == set(GENRES)
    for genre, pairs in by_genre.items():
        assert metrics[f"macro_f1:genre={genre}"] == pytest.approx(paper_f1(pairs)), genre
        assert metrics[f"macro_f1:genre={genre}:n"] == len(pairs)


def test_long_narrative_and_genre_filter(tmp_path: Path) -> None:
    (log,) = inspect_eval(opentom(data=str(FIXTURE), narrative="long", genre="attitude,loc_coarse_fo"),
                          model="tombench/primacy", log_dir=str(tmp_path), display="none")
    assert log.status == "success" and log.results.total_samples == 3  # one long story: 1 attitude + 2 coarse
    assert log.eval.metadata["dataset_records"] == 23 and log.eval.metadata["paper_items"] == 2300


def test_option_and_data_errors_are_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(OptionError, match="Invalid genre"):
        opentom(data=str(FIXTURE), genre="loc_medium")
    with pytest.raises(OptionError, match=r"has no location_cg_fo.json: give a complete copy"):
        opentom(data=str(tmp_path))
    monkeypatch.setenv("TOMBENCH_OFFLINE", "1")
    monkeypatch.setenv("TOMBENCH_CACHE", str(tmp_path / "cache"))
    with pytest.raises(OptionError, match=r"offline mode.*-T data=PATH") as e:
        opentom()
    assert "\n" not in str(e.value)
