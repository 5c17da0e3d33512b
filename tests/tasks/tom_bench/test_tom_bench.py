"""ToMBench: answer reading, majority vote, bilingual samples from records in the real layout, the task offline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

import tombench._registry  # noqa: F401 - registers the tombench/ baseline models
from tombench.kit.errors import OptionError
from tombench.scorers.suites.tom_bench import PAPER_TASKS, majority, read_choice
from tombench.tasks.tom_bench.tom_bench import (
    abilities,
    build_user_prompt,
    option_order,
    record_to_sample,
    tom_bench,
)

FIXTURE = Path(__file__).parent / "fixtures"


def _records(name: str) -> list[dict]:
    return [json.loads(line) for line in (FIXTURE / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("[[B]]", "B"),
        ("The answer is [[C]].", "C"),
        ("[D]", "D"),
        ("B", "B"),
        (" (A) ", "A"),
        ("[[A]] or [[B]]", None),
        ("I think D is right", None),  # the paper's fallback (last capital A-D anywhere) is not used
        ("", None),
        ("[[D]]", None),  # not an option of a two-way item
    ],
)
def test_read_choice(text: str, read: str | None) -> None:
    assert read_choice(text, "AB" if read is None and text == "[[D]]" else "ABCD") == read


def test_majority_vote_counts_unreadable_tries() -> None:
    assert majority(["A", "B", "A", None, "C"]) == "A"
    assert majority(["B", "A", "A", "B"]) == "B"  # a tie goes to the answer given first
    assert majority([None, None, None, "A", "A"]) is None
    assert majority([]) is None


def test_abilities_split_merge_and_normalise() -> None:
    assert abilities("Belief: Location false beliefs Belief: Second-order beliefs") == [
        "Belief: Location false beliefs", "Belief: Second-order beliefs"]
    assert abilities("Non-literal communication: White lies") == ["Non-Literal Communication: White lies"]
    assert abilities("Knowledge: Information-knowledge links ") == ["Knowledge: Information-knowledge links"]
    assert abilities("Desire: Desires influence on actions") == ["Desire: Desires influence on emotions and actions"]


def test_option_order_is_seeded_by_id_and_try() -> None:
    assert option_order("x", 1, 4) == option_order("x", 1, 4)
    assert sorted(option_order("x", 2, 4)) == [0, 1, 2, 3]
    assert len({tuple(option_order("x", t, 4)) for t in range(1, 9)}) > 1


def test_record_to_sample_both_languages() -> None:
    rec = _records("False Belief Task")[0]
    zh, en = (record_to_sample(rec, task="False Belief Task", language=lang) for lang in ("zh", "en"))
    assert zh.choices == ["鞋柜", "抽屉", "书包", "窗台"] and zh.target == "B"  # "A. " prefixes stripped
    assert en.choices == ["Shoe rack", "Drawer", "Schoolbag", "Windowsill"]
    assert en.input == build_user_prompt("en", rec["STORY"], rec["QUESTION"], en.choices)
    assert en.input.startswith("[Story]\nLin put the keys") and "[Candidate Answers]\nA. Shoe rack\nB. Drawer" in en.input
    assert zh.input.startswith("[故事]\n") and "[答案选项]\nA. 鞋柜" in zh.input
    assert en.metadata["abilities"] == ["Belief: Location false beliefs", "Belief: Second-order beliefs"]
    assert en.metadata["categories"] == ["Belief"] and en.metadata["k"] == 4 and zh.id != en.id


def test_two_way_items_and_odd_values() -> None:
    two = record_to_sample(_records("Faux-pas Recognition Test")[1], task="Faux-pas Recognition Test", language="en")
    assert two.choices == ["Yes", "No"] and two.metadata["k"] == 2
    strange = _records("Strange Story Task")[1]
    assert record_to_sample(strange, task="s", language="zh").choices == ["是", "不是"]
    assert record_to_sample(strange, task="s", language="en").metadata["k"] == 4
    dup = record_to_sample(_records("Unexpected Outcome Test")[1], task="u", language="en")
    assert dup.choices == ["Angry", "Happy", "Angry", "Scared"]  # kept by position, never matched by text
    assert record_to_sample(_records("Knowledge-Attention Links")[1], task="k", language="en").target == "A"


def test_task_offline_with_baselines(tmp_path: Path) -> None:
    logs = inspect_eval(
        [tom_bench(data=str(FIXTURE), tries=2, language="en")],
        model=["tombench/primacy"],
        log_dir=str(tmp_path),
        display="none",
    )
    logs += inspect_eval(
        [tom_bench(data=str(FIXTURE), tries=3, task_name="Faux-pas Recognition Test,Strange Story Task")],
        model=["tombench/random"],
        log_dir=str(tmp_path),
        display="none",
    )
    for log, tries, n in zip(logs, (2, 3), (24, 8), strict=True):
        assert log.status == "success", log.error
        md = log.eval.metadata
        assert md["suite"] == "tombench" and md["dataset_records"] == 24 and md["paper_items"] == 2860
        assert md["dataset_pinned"] is False and md["tries"] == tries
        metrics = {k: m.value for score in log.results.scores for k, m in score.metrics.items()}
        assert {"accuracy", "accuracy_ci_low", "language=en", "k=2", "k=4"} <= set(metrics)
        assert log.results.total_samples == n * tries
    assert logs[0].eval.metadata["chance"] == pytest.approx((23 * 0.25 + 0.5) / 24)  # one two-way item in English
    assert "language=zh" in {k for score in logs[1].results.scores for k in score.metrics}
    primacy = {k: m.value for score in logs[0].results.scores for k, m in score.metrics.items()}
    assert {"task_language=en/False Belief Task", "ability_language=en/Belief: Second-order beliefs",
            "category_language=en/Belief", "category_language=en/Belief:n"} <= set(primacy)
    # the pooled task/ability/category groups are not logged again (issue #32 point 6): the cells per language
    # hold the same items, and a pooled group is their count-weighted mean
    assert not any(k.startswith(("task=", "ability=", "category=")) for k in primacy)
    assert 0 <= primacy["accuracy"] <= 1
    # the paper's headline: per language the unweighted mean of its 8 tasks (all 8 are in the English run)
    assert logs[0].eval.metadata["headline"] == "avg" and logs[0].eval.metadata["headline_parts"] == ["avg_en"]
    cells = [primacy[f"task_language=en/{t}"] for t in PAPER_TASKS]
    assert primacy["avg"] == primacy["avg_en"] == pytest.approx(sum(cells) / 8)
    assert "avg_zh" not in primacy and "ability_avg_en" in primacy and "category_language=en/Belief" in primacy
    both = {k: m.value for score in logs[1].results.scores for k, m in score.metrics.items()}
    assert both["avg"] == pytest.approx((both["avg_zh"] + both["avg_en"]) / 2)
    assert {"task_language=zh/Strange Story Task", "task_language=en/Faux-pas Recognition Test"} <= set(both)


def test_options_and_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    task = tom_bench(data=str(FIXTURE), language="en", task_name="False Belief Task", tries=1)
    assert len(task.dataset) == 1 and task.epochs == 1
    with pytest.raises(OptionError, match="Invalid language"):
        tom_bench(data=str(FIXTURE), language="fr")
    with pytest.raises(OptionError, match="Invalid tries"):
        tom_bench(data=str(FIXTURE), tries=0)
    monkeypatch.setenv("TOMBENCH_OFFLINE", "1")
    monkeypatch.setenv("TOMBENCH_CACHE", str(tmp_path))
    with pytest.raises(OptionError, match="offline mode") as e:
        tom_bench()
    assert "\n" not in str(e.value)
