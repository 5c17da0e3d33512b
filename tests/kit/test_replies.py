"""Reading model replies (tombench.kit.replies), with each family's reading kept exactly as it was.

The tables hold the union of the inputs the families' own parser tests used, with the results the three former
parsers (exploretom's `parse_yes_no`/`extract_json`, persuasion's `parse_yes_no`/`parse_json_object`, tomsynth's
`extract_json`) gave; old and new were also compared on 200,000 random replies before the old ones were deleted.
"""

from __future__ import annotations

import json

import pytest

from tombench.kit.replies import find_json, read_bool, read_option, read_score, read_yes_no

# text -> (bare reading, as exploretom's judges; "Persuaded:" reading, as persuasion's direct-prompting judge)
YES_NO = [
    ("Yes", True, True),
    ("yes.", True, True),
    ("yes!", True, True),
    (" No. ", False, False),
    ("**No**, never", False, None),
    ("Answer: no", False, None),
    ("YES - all opaque", True, None),
    ("Yes, because", True, None),
    ("maybe", None, None),
    ("It depends.", None, None),
    ("", None, None),
    ("Not sure, yes", None, None),
    ("Answer: maybe yes", None, None),
    ("I like it. Persuaded: yes", None, True),
    ("Persuaded: No.", None, False),
    ("Persuaded: yes. On reflection, Persuaded = **no**", None, False),
]


@pytest.mark.parametrize("text, bare, labelled", YES_NO)
def test_yes_no_readings(text: str, bare: bool | None, labelled: bool | None) -> None:
    assert read_yes_no(text) is bare
    assert read_yes_no(text, label="Persuaded") is labelled


_TRAILING = "Here:\n```json\n" + json.dumps({"a": 1}, indent=2)[:-1].rstrip() + ",\n}\n```\nLet me know"
_BRACES = 'Sure! Here is {your} context:\n```json\n{"a": "x {y} z", "b": [1]}\n```\nHope it helps {:'
# text -> (object, fenced first: persuasion; any value, commas forgiven: tomsynth; object / list in order: exploretom)
JSON = [
    ('Sure: ```json\n{"a": 1}\n``` done', {"a": 1}, {"a": 1}, {"a": 1}, None),
    ('text {"a": {"b": true}} more {"c": 2}', {"a": {"b": True}}, {"a": {"b": True}}, {"a": {"b": True}}, None),
    (_BRACES, {"a": "x {y} z", "b": [1]}, {"a": "x {y} z", "b": [1]}, {"a": "x {y} z", "b": [1]}, [1]),
    ('The list [of things]: [{"k": 1}]', {"k": 1}, [{"k": 1}], {"k": 1}, [{"k": 1}]),
    ('Here: {"q": 1} -- done {not json}', {"q": 1}, {"q": 1}, {"q": 1}, None),
    ('Example {"x": 1}\n```python\n{"y": 2}\n```', {"y": 2}, {"y": 2}, {"x": 1}, None),
    (_TRAILING, None, {"a": 1}, None, None),
    ("no json", None, None, None, None),
    ('{"a": 1', None, None, None, None),
    ("[{'Dialogue': 'x'", None, None, None, None),
]


@pytest.mark.parametrize("text, obj, value, in_order_obj, in_order_list", JSON)
def test_json_readings(text: str, obj: object, value: object, in_order_obj: object, in_order_list: object) -> None:
    assert find_json(text) == obj
    assert find_json(text, (dict, list), forgive_trailing_commas=True) == value
    assert find_json(text, dict, fenced_first=False) == in_order_obj
    assert find_json(text, list, fenced_first=False) == in_order_list


def test_scores_and_booleans() -> None:
    assert read_score("Reasons... Score: 7") == 7.0 and read_score("score = **4.5**", 1, 5) == 4.5
    assert read_score("Score: 12") is None and read_score("8") == 8.0 and read_score("great") is None
    assert [read_bool(v) for v in (True, 0, 2.5, " Yes ", "n", "0", "maybe", None)] == [
        True, False, True, True, False, False, None, None,
    ]


_BOXES = ["green_crate", "blue_pantry", "red_basket", "green_box", "blue_tub", "red_drawer", "green_bin", "blue_can",
          "red_jar"]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("C", "C"), ("c.", "C"), ("(C)", "C"), ("[[C]]", "C"), ("**C**", "C"), (r"$\boxed{C}$", "C"),
        ("C. red_basket", "C"), ("C red_basket", "C"), ("C - red_basket", "C"), ("C\n\nExplanation: not (B).", "C"),
        ("Answer: C", "C"), ("The answer is C.", "C"), ("My final answer is (C).", "C"), ("I would choose C.", "C"),
        ("答案是C。", "C"), ("选C", "C"), ("C is the answer.", "C"), ("..., so C.", "C"),
        ("The basket is empty, so (b) is wrong. [[C]]", "C"),
        ("red_basket", "C"), ("The lemon is in the red basket.", "C"),
        ("A red basket.", "C"),  # the article, not option A
        ("A green crate.", "A"),  # option A's own text follows its letter
        ("A", "A"), ("I", "I"), ("I.", "I"), ("I think the answer is I.", "I"),
        ("I believe it is in the red_drawer.", "F"), ("I can't tell.", None), ("I'm not sure.", None),
        ("C or B", None), ("C/B", None), ("ANSWER: C, B", None), ("Either the red_basket or the blue_pantry.", None),
        ("C或B", None), ("(B) or (C)", None),
        ("Let's think step by step. The lemon is in the red_basket. Then Owen", None),  # reasoning cut short
        ("None of the options.", None), ("", None),
    ],
)
def test_read_option_reads_as_a_careful_grader(reply: str, expected: str | None) -> None:
    assert read_option(reply, "ABCDEFGHI", _BOXES) == expected


def test_read_option_key_format_never_inside_a_word() -> None:
    options = ["She puts the vase near the sofa.", "She looks for another vase."]
    assert read_option("Answer:b)She looks for another vase.", "ab", options, closing_keys=True) == "b"
    assert read_option("She looks for another vase (not the one from the sofa).", "ab", options, closing_keys=True) == "b"
    assert read_option("a) or b)", "ab", options, closing_keys=True) is None
    assert read_option("It is b).", "ab", options) == "b"


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("B is wrong.", None), ("(A) is incorrect.", None), ("D is not right, nor is A.", None), ("Not C.", None),
        ("A - just kidding, it's C.", "C"), ("A? No. C.", "C"), ("The answer is not A but C.", "C"),
        ("Not (A). The lemon is in the red_basket (C).", "C"), ("Not in the green_crate; in the red_basket.", "C"),
        ("Answer: B. Wait, no - B is wrong. C.", "C"),  # a choice the reply later denies is withdrawn
        ("B is wrong... no, B is right. Answer: B", "B"),  # and one it states again after the denial stands
        ("不是B，答案是C。", "C"), ("B是错的。", None), ("答案不是A而是C。", "C"), ("排除B。", None),
    ],
)
def test_read_option_never_credits_what_the_reply_denies(reply: str, expected: str | None) -> None:
    assert read_option(reply, "ABCDEFGHI", _BOXES) == expected


def test_an_options_own_negation_is_that_option() -> None:
    assert read_option("Not reasonable.", "AB", ["Not reasonable", "Reasonable"]) == "A"
    assert read_option("Not (A). (B)", "AB", ["Yes", "No"]) == "B"
