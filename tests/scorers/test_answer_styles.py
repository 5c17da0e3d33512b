"""Every suite's matcher against a careful grader's labels, over every answer style models produce (issue #31 point 3).

The labelled rows are `tests/scorers/data/answer_styles/*.jsonl` (see `answer_styles.py` beside this file); the
table in docs/explanation/answer-matching.md is printed by `python benchmarks/bench_answer_styles.py`.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import answer_styles as S  # noqa: E402

STYLES = ("bare", "answer-colon", "answer-is", "bracketed", "bold", "letter+text", "text-only", "explanation-after",
          "hedge", "refusal", "wrong-option", "leading-article")


@pytest.mark.parametrize("suite", S.SUITES)
def test_matcher_agrees_with_the_grader_and_never_gives_false_credit(suite: str) -> None:
    result = S.ours(suite)
    assert result["false_credit"] == [], f"{suite}: credited an option the grader does not: {result['false_credit']}"
    assert result["agree"] / result["n"] >= 0.98, f"{suite}: {result['agree']}/{result['n']}; missed {result['misses']}"


@pytest.mark.parametrize("suite", S.SUITES)
def test_no_reader_credits_an_option_the_reply_only_denies(suite: str) -> None:
    """The denial set (issue #42): "B is wrong.", "A? No. C.", "不是B，答案是A。" ... never credit what they deny."""
    result = S.ours(suite, "denials")
    assert result["false_credit"] == [], f"{suite}: credited a denied option: {result['false_credit']}"


def test_the_denial_set_agrees_with_the_grader() -> None:
    """Agreement over the whole denial set (each suite has 5 to 15 rows, too few for a rate of its own)."""
    results = [S.ours(suite, "denials") for suite in S.SUITES]
    agree, n = sum(r["agree"] for r in results), sum(r["n"] for r in results)
    assert agree / n >= 0.98, f"{agree}/{n}; missed {[m for r in results for m in r['misses']]}"


def test_the_denial_set_covers_every_suite_and_keeps_a_held_out_part() -> None:
    rows = {suite: S.load(suite, "denials") for suite in S.SUITES}
    assert sum(map(len, rows.values())) >= 60 and all(len(r) >= 4 for r in rows.values())
    assert sum(r.get("split") == "heldout" for suite_rows in rows.values() for r in suite_rows) >= 20
    assert {r["language"] for r in rows["tombench"]} == {"en", "zh"}
    assert any(r["label"] is None for r in rows["tombench"]) and {r["answer_type"] for r in rows["tomi"]} >= {
        "container", "yes_no"}


@pytest.mark.parametrize("suite", [s for s in S.SUITES if s not in ("opentom", "fantom_binary", "tomi")])
def test_each_multiple_choice_suite_covers_the_answer_styles(suite: str) -> None:
    rows = S.load(suite)
    styles = Counter(r["style"] for r in rows)
    missing = [s for s in STYLES if not styles[s] and not (s in ("bracketed", "answer-colon") and styles["requested"])]
    assert not missing, f"{suite} has no rows of {missing}"
    assert any(r["label"] is None for r in rows) and any(r.get("split") == "heldout" for r in rows)


@pytest.mark.parametrize("labelled", list(S.SETS))
def test_rows_are_well_formed(labelled: str) -> None:
    for suite in S.SUITES:
        rows = S.load(suite, labelled)
        assert len({r["id"] for r in rows}) == len(rows)
        for r in rows:
            if "letters" in r:
                assert len(r["letters"]) == len(r["options"]) and r["gold"] in r["letters"]
                assert r["label"] is None or r["label"] in r["letters"], r["id"]


def test_the_issue_cases() -> None:
    """The misreadings issue #31 names: "The answer is B." was missed (ToMBench, SimpleToM), a leading article
    "A ..." was option A, BigToM read "a)" inside "sofa)"."""
    from tombench.scorers.suites.choice import match_choice
    from tombench.scorers.suites.tom_bench import read_choice

    assert read_choice("The answer is B.", "ABCD") == "B"
    assert match_choice("The answer is B.", "AB", ["Yes", "No"]) == "B"
    assert match_choice("A red basket.", "ABC", ["green_crate", "blue_box", "red_basket"]) == "C"
    vase = ["Tamsin will put the vase back on the shelf near the sofa.", "Tamsin will look for a different vase."]
    assert match_choice("She will look for a different vase (the one from the sofa).", "ab", vase, "bigtom") == "b"
    assert match_choice("a) or b)", "ab", vase, "bigtom") is None


def test_the_denial_issue_cases() -> None:
    """The readings issue #42 names: a label said only to deny it is no answer, the one stated after it is."""
    from tombench.kit.replies import read_option
    from tombench.scorers.suites.opentom import read_label

    options = ["In the kitchen", "In the garden", "In the attic", "In the cellar"]
    cases = {"B is wrong.": None, "(A) is incorrect.": None, "D is not right, nor is A.": None,
             "A - just kidding, it's B.": "B", "A? No. C.": "C", "The answer is not A but D.": "D",
             "Not (A). She would look in the attic (C).": "C"}
    for reply, read in cases.items():
        assert read_option(reply, "ABCD", options) == read, reply
    assert read_label("multihop_fo", "It isn't less full.", topic="fullness") is None
    assert read_label("loc_coarse_fo", "Not yes.") is None


def test_the_authors_readings_differ_where_the_doc_says() -> None:
    """The measured differences reported in docs/explanation/answer-matching.md: each authors' reader gives false credit on
    hedges or misreadings (BigToM's substring rule, ToMBench's last-capital fallback, SimpleToM's first key)."""
    for suite in ("bigtom", "tombench", "simpletom", "fantom_choice", "opentom", "tomi"):
        assert S.authors(suite)["false_credit"], suite  # type: ignore[index]
