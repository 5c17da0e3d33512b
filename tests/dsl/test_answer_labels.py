"""The answer matcher against a labelled set of real SmolLM2-135M answers (issue #19): precision and recall, pinned.

The set (tests/dsl/data/answer_labels.jsonl) was generated with tests/dsl/data/make_answer_responses.py and
labelled by reading each response (rules and debatable cases: docs/explanation/answer-matching.md, "The labelled set"). The
table in that doc is printed by `python benchmarks/bench_answer_matching.py`; the counts below must match it, so a
matcher change that moves them shows up here and the doc is updated with it.
"""

from __future__ import annotations

from collections import Counter

import pytest

from tests.dsl import labelled as L
from tombench.dsl.answers import DOES_NOT_KNOW, KNOWS, NO, YES, normalise

ROWS = L.load()

#: (check, answer type) -> (true positives, false positives, false negatives, true negatives) on the labelled set.
PINNED: dict[tuple[str, str], tuple[int, int, int, int]] = {
    ("strict", "container"): (55, 1, 0, 88),
    ("strict", "room"): (13, 0, 1, 30),
    ("strict", "yes_no"): (32, 0, 0, 67),
    ("strict", "knowledge"): (27, 1, 0, 36),
    ("substring", "container"): (55, 7, 0, 82),
    ("substring", "room"): (13, 4, 1, 26),
    ("substring", "yes_no"): (32, 0, 0, 67),
    ("substring", "knowledge"): (2, 0, 25, 37),
}


def test_the_set_is_large_and_covers_every_answer_type_and_source():
    assert len(ROWS) >= 300
    types = Counter(r["answer_type"] for r in ROWS)
    assert set(types) == set(L.TYPES) and min(types.values()) >= 25, types
    assert {r["source"] for r in ROWS} == {"random", "static", "adversarial"}
    assert len({r["id"] for r in ROWS}) == len(ROWS)  # one row per prompt digest


def test_labels_are_well_formed():
    options = {"yes_no": {YES, NO}, "knowledge": {KNOWS, DOES_NOT_KNOW}}
    for r in ROWS:
        label = r["label"]
        assert r["category"], r["id"]
        if label is None or label == L.OTHER:
            assert r["category"] != "answer" or label == L.OTHER, r["id"]
            continue
        if r["answer_type"] in options:
            assert label in options[r["answer_type"]], r["id"]
        else:
            assert normalise(label) in {normalise(c) for c in [*r["candidates"], r["expected"]]}, r["id"]


@pytest.mark.parametrize("check", list(L.CHECKS))
def test_precision_and_recall_are_pinned(check):
    got = {atype: L.confusion([r for r in ROWS if r["answer_type"] == atype], L.CHECKS[check]).as_tuple()
           for atype in L.TYPES}
    assert got == {atype: PINNED[(check, atype)] for atype in L.TYPES}


def test_strict_gives_no_credit_to_hedges_conditionals_echoes_or_questions_back():
    credited = [r["id"] for r in ROWS if r["category"] in L.NON_ANSWERS and L.strict(r)]
    assert credited == []


def test_strict_gives_less_false_credit_and_misses_fewer_answers_than_substring_overall():
    s, u = L.confusion(ROWS, L.strict), L.confusion(ROWS, L.substring)
    assert s.fp < u.fp and s.fn < u.fn


def test_wilson_interval_is_honest_at_the_edges():
    assert L.wilson(0, 10)[0] == 0.0 and L.wilson(0, 10)[1] > 0.2
    assert L.wilson(10, 10)[1] == 1.0 and L.wilson(10, 10)[0] < 0.8
    assert L.wilson(0, 0) == (0.0, 1.0)
