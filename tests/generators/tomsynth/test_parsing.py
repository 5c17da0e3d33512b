"""Parsing of generator and verifier outputs: the messy shapes real models produce."""

from __future__ import annotations

import json

import pytest

from tombench.generators.tomsynth.parsing import ParseError, parse_entry, parse_verdict

ENTRY = {
    "Dialogue": "Amanda: I wanted this. But now I can't stop shaking.\nJean: You did the right thing.",
    "Question": "What best describes Amanda's emotional experience?",
    "Options": {"A": "Conflicted: satisfied and anxious", "B": "Purely relieved", "C": "Regretful", "D": "Angry"},
    "Answer": "A",
    "Analysis": "She wanted it yet is shaking.",
}


def test_paper_format_list_of_one_object() -> None:
    e = parse_entry(json.dumps([ENTRY]), "Dialogue")
    assert e.answer == "A" and e.options["B"] == "Purely relieved" and e.text.startswith("Amanda:")
    assert e.analysis == "She wanted it yet is shaking."


def test_code_fence_and_trailing_prose_and_trailing_comma() -> None:
    body = json.dumps(ENTRY, indent=2)[:-1].rstrip() + ",\n}"
    text = f"Sure! Here is the entry:\n```json\n{body}\n```\nLet me know if you need changes."
    assert parse_entry(text, "Dialogue").answer == "A"
    assert parse_entry("Here: " + json.dumps(ENTRY) + " -- done {not json}", "Dialogue").question.startswith("What")


def test_renamed_keys_list_options_and_answer_shapes() -> None:
    raw = {
        "story": "Tom moved the keys while Ann was out.",
        "question": "Where will Ann look?",
        "choices": ["A. In the drawer", "B) On the table", "In the car", "In the bag"],
        "Correct Answer": "Option B",
    }
    e = parse_entry(json.dumps(raw))
    assert e.options == {"A": "In the drawer", "B": "On the table", "C": "In the car", "D": "In the bag"}
    assert e.answer == "B"
    raw["Correct Answer"] = "(c)"
    assert parse_entry(json.dumps(raw)).answer == "C"
    raw["Correct Answer"] = "In the bag"
    assert parse_entry(json.dumps(raw)).answer == "D"


def test_dialogue_as_list_of_turns() -> None:
    raw = dict(ENTRY, Dialogue=[{"speaker": "Amanda", "line": "Hi."}, {"speaker": "Jean", "line": "Hello."}])
    assert parse_entry(json.dumps(raw), "Dialogue").text == "Amanda: Hi.\nJean: Hello."


@pytest.mark.parametrize(
    ("output", "kind"),
    [
        ("I cannot help with that.", "no_json"),
        ("[{'Dialogue': 'x'", "invalid_json"),
        (json.dumps({"Story": "x", "Options": {"A": "1", "B": "2", "C": "3", "D": "4"}, "Answer": "A"}), "wrong_keys"),
        (json.dumps(dict(ENTRY, Options={"A": "1", "B": "2", "C": "3"})), "bad_options"),
        (json.dumps(dict(ENTRY, Options={"A": "1", "B": "2", "C": "3", "E": "4"})), "bad_options"),
        (json.dumps(dict(ENTRY, Answer="E")), "bad_answer"),
        (json.dumps(dict(ENTRY, Answer="the second")), "bad_answer"),
    ],
)
def test_malformed_outputs_raise_with_kind(output: str, kind: str) -> None:
    with pytest.raises(ParseError) as ei:
        parse_entry(output, "Dialogue")
    assert ei.value.kind == kind


def test_verdicts() -> None:
    v = parse_verdict('```json\n{"judgment": "pass", "correct_answer": null, "reason": "ok"}\n```')
    assert (v.judgment, v.correct_answer, v.reason) == ("PASS", None, "ok")
    v = parse_verdict('{"judgment": "FALSE", "correct_answer": "C", "reason": "C is right"}')
    assert (v.judgment, v.correct_answer) == ("FALSE", "C")
    assert parse_verdict('{"Judgement": "AMBIGUOUS", "correct_answer": "null", "reason": ""}').judgment == "AMBIGUOUS"
    with pytest.raises(ParseError) as ei:
        parse_verdict('{"judgment": "MAYBE"}')
    assert ei.value.kind == "bad_judgment"
