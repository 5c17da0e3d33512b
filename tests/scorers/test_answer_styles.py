"""Every suite's matcher against a careful grader's labels, over every answer style models produce (issue #31 point 3).

The labelled rows are `tests/scorers/data/answer_styles/*.jsonl` (see `answer_styles.py` beside this file); the
table in docs/answer-matching.md is printed by `python benchmarks/bench_answer_styles.py`.
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


@pytest.mark.parametrize("suite", [s for s in S.SUITES if s not in ("opentom", "fantom_binary", "tomi")])
def test_each_multiple_choice_suite_covers_the_answer_styles(suite: str) -> None:
    rows = S.load(suite)
    styles = Counter(r["style"] for r in rows)
    missing = [s for s in STYLES if not styles[s] and not (s in ("bracketed", "answer-colon") and styles["requested"])]
    assert not missing, f"{suite} has no rows of {missing}"
    assert any(r["label"] is None for r in rows) and any(r.get("split") == "heldout" for r in rows)


def test_rows_are_well_formed() -> None:
    for suite in S.SUITES:
        rows = S.load(suite)
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


def test_the_authors_readings_differ_where_the_doc_says() -> None:
    """The measured differences reported in docs/answer-matching.md: each authors' reader gives false credit on
    hedges or misreadings (BigToM's substring rule, ToMBench's last-capital fallback, SimpleToM's first key)."""
    for suite in ("bigtom", "tombench", "simpletom", "fantom_choice", "opentom", "tomi"):
        assert S.authors(suite)["false_credit"], suite  # type: ignore[index]
