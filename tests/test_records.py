"""tests/records.py: a failed comparison of records names the first record and field that differ."""

from __future__ import annotations

import copy

import pytest

from tests.records import assert_same_records, first_difference


def test_the_first_difference_is_named_by_its_path() -> None:
    want = {"story": {"id": "s1"}, "questions": [{"q": "Where?", "answer": "box"}, {"q": "Who?", "answer": "Ann"}]}
    got = copy.deepcopy(want)
    assert first_difference(got, want) is None
    got["questions"][1]["answer"] = "Bob"
    assert first_difference(got, want) == "questions[1].answer: 'Bob', expected 'Ann'"
    del got["questions"][1]
    assert first_difference(got, want) == "questions: 1 items, expected 2"
    assert first_difference({"a": 1}, {"b": 1}) == "a: present, not expected"
    assert first_difference(1, 1.0) == "value: 1, expected 1.0"


def test_a_changed_label_in_the_golden_stories_names_the_story_and_the_field() -> None:
    from tests.dsl.test_equivalence import _golden, _named

    want = _golden()
    got = copy.deepcopy(want)
    got[5][1][1][2]["expected_answer"] = "nowhere"
    with pytest.raises(AssertionError) as failed:
        assert_same_records(_named(got), _named(want), name=lambda i, _: want[i][0])
    message = str(failed.value)
    assert message.startswith(f"record 6 of {len(want)} ({want[5][0]}) differs at questions[2].expected_answer: "
                              "'nowhere', expected ")


def test_missing_and_extra_records_are_said() -> None:
    with pytest.raises(AssertionError, match="1 record\\(s\\) missing, the first: #1"):
        assert_same_records([{"a": 1}], [{"a": 1}, {"a": 2}])
    with pytest.raises(AssertionError, match="1 record\\(s\\) more than expected"):
        assert_same_records([{"a": 1}, {"a": 2}], [{"a": 1}])
