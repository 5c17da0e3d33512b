"""OpenToM scored as its authors score it: their reading of a response into class ids and their per-genre F1.

The responses below are written for these tests; each case pins one rule of the authors' evaluator (substring
tests, the fine-location tie class, the article cut, the attitude token after the last colon, the multihop ids).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tombench.scorers.suites.opentom import PAPER_CORRUPTED, counts_interval, paper_f1, paper_reading

FULLNESS_Q = "From Ines's perspective, how does the crate's fullness change by the end of the story?"
ACCESS_Q = "From Ines's perspective, how would the lantern's accessibility change by the end of the story?"


@pytest.mark.parametrize(
    ("response", "answer", "pair"),
    [
        ("No.", "No", (0, 0)),
        ("Yes, it still is.", "No", (0, 1)),
        ("I don't know.", "Yes", (1, 0)),  # "no" inside "know": the authors read a No
        ("Yes or no, hard to say", "Yes", (1, PAPER_CORRUPTED)),
        ("It is not clear", "Yes", (1, 0)),  # "no" inside "not"
    ],
)
def test_coarse_location_is_read_by_substrings(response: str, answer: str, pair: tuple[int, int]) -> None:
    assert paper_reading("loc_coarse_fo", response, answer) == pair


def test_fine_location_keeps_a_third_class_for_ties() -> None:
    def read(response: str, answer: str, initial: str = "cupboard", new: str = "the wicker basket"):
        return paper_reading("loc_fine_fo", response, answer, original_place=initial, move_to_place=new)

    assert read("In the wicker basket.", "the wicker basket") == (2, 2)
    assert read("cupboard", "cupboard") == (1, 1)
    assert read("I cannot tell.", "cupboard") == (1, 3)  # no overlap with either place: a tie, id 3
    assert read("The basket, not the cupboard", "cupboard") == (1, 1)  # 1/1 of "cupboard" beats 1/2 of the other
    # a new place that holds the initial one's word: the right answer ties (1/1 vs 2/2) and can never score
    assert read("second cupboard", "second cupboard", new="second cupboard") == (2, 3)
    # ... and "another cupboard" is cut to "nother cupboard" (the article cut below): read as the initial place
    assert read("another cupboard", "another cupboard", new="another cupboard") == (2, 1)
    # a gold answer that is neither place as the plot writes it is unlabelled (dropped from F1)
    assert read("the cupbord", "the cupbord")[0] is None
    # the article cut works on characters: "armchair" loses its "a", so the response's "armchair" never overlaps
    assert read("On the armchair.", "armchair", initial="armchair") == (1, 3)
    # full stops go, underscores are spaces, "'s" is removed before the words are compared
    assert read("Tom's toy chest.", "toy_chest", initial="toy_chest") == (1, 1)


def test_multihop_ids_mix_fullness_and_accessibility() -> None:
    assert paper_reading("multihop_fo", "It gets emptier.", "less full", question=FULLNESS_Q) == (1, 1)
    assert paper_reading("multihop_fo", "Fuller.", "more full", question=FULLNESS_Q) == (2, 2)
    assert paper_reading("multihop_fo", "Equally full.", "less full", question=FULLNESS_Q) == (1, 3)
    assert paper_reading("multihop_fo", "Less full, or more full", "less full", question=FULLNESS_Q) == (1, 1)
    assert paper_reading("multihop_fo", "unchanged", "more full", question=FULLNESS_Q) == (2, PAPER_CORRUPTED)
    # accessibility uses the same ids the other way round: 1 is *more* accessible
    assert paper_reading("multihop_so", "More accessible.", "more accessible", question=ACCESS_Q) == (1, 1)
    assert paper_reading("multihop_so", "less accessible", "equally accessible", question=ACCESS_Q) == (3, 2)
    assert paper_reading("multihop_so", "x", "more accessible|less accessible", question=ACCESS_Q)[0] == 3
    assert paper_reading("multihop_so", "more full", "more full", question="How does it change?") is None


@pytest.mark.parametrize(
    ("response", "pair"),
    [
        ("Negative.", (3, 2)),
        ("My attitude: b. Because nothing changed.", (3, 3)),  # letter options a/b/c = positive/neutral/negative
        ("I would feel positive about it", (3, 1)),
        ("Positive at first.\n\nOn reflection: neutral.", (3, 3)),  # only the last paragraph, after its last colon
        ("Neutral: I would not mind. Negative if it were mine.", (3, PAPER_CORRUPTED)),  # "i would not mind" names none
        ("positive or negative", (3, PAPER_CORRUPTED)),
    ],
)
def test_attitude_reads_the_last_colon_token(response: str, pair: tuple[int, int]) -> None:
    assert paper_reading("attitude", response, "neutral") == pair


def _sklearn_macro_f1(gold: list[int], pred: list[int]) -> float:
    """The definition scikit-learn applies: precision and recall per label of the union, F1 0 without a hit."""
    scores = []
    for lab in sorted(set(gold) | set(pred)):
        tp = sum(g == p == lab for g, p in zip(gold, pred, strict=True))
        prec = tp / pred.count(lab) if pred.count(lab) else 0.0
        rec = tp / gold.count(lab) if gold.count(lab) else 0.0
        scores.append(2 * prec * rec / (prec + rec) if prec + rec else 0.0)
    return sum(scores) / len(scores)


def test_paper_f1_drops_corrupted_and_counts_a_predicted_only_class() -> None:
    assert paper_f1([(1, 1), (2, 3)]) == pytest.approx(1 / 3)  # labels 1, 2 and the tie 3: (1 + 0 + 0) / 3
    assert paper_f1([(1, 1), (2, 2), (2, PAPER_CORRUPTED), (None, 1)]) == 1.0
    rng = random.Random(7)
    for _ in range(200):
        pairs = [(rng.choice([None, 1, 2, 3]), rng.choice([-1, 1, 2, 3])) for _ in range(rng.randint(1, 30))]
        kept = [(g, p) for g, p in pairs if g is not None and p != -1]
        expected = _sklearn_macro_f1([g for g, _ in kept], [p for _, p in kept]) if kept else 0.0
        assert paper_f1(pairs) == pytest.approx(expected, abs=1e-12)


def test_counts_interval_brackets_the_statistic() -> None:
    kinds = [("attitude", 1, 1)] * 30 + [("attitude", 2, 1)] * 10 + [("attitude", 2, 2)] * 20
    lo, hi = counts_interval(kinds, lambda c: paper_f1(Counter({(g, p): n for (_, g, p), n in c.items()})))
    value = paper_f1([(g, p) for _, g, p in kinds])
    assert lo < value < hi and 0 < lo and hi < 1
    assert counts_interval(kinds, lambda c: 0.5) == (0.5, 0.5)
