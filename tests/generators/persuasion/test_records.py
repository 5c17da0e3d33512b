"""Pure parts of the persuasion feature: record parsing, causal-ToM rule, round plan, ROUGE-L, answer parsing."""

from __future__ import annotations

import pytest

from tests.generators.persuasion.test_scripted import FIXTURE
from tombench.generators.persuasion.data import load_records
from tombench.generators.persuasion.records import (
    causal_tom_success,
    clean_utterance,
    parse_dialog,
    record_from_dict,
    record_to_dict,
)
from tombench.generators.persuasion.rouge import lcs_length, rouge_l
from tombench.generators.persuasion.rounds import PersuadeeDisclosure, PersuaderFocus, round_plan
from tombench.kit.replies import find_json, read_score, read_yes_no

RAW = {
    "scenario": {
        "tag": "t",
        "background": "b",
        "persuader": "A",
        "persuadee": "B",
        "goal": "g",
        "domain": ["Health", "Sport"],
        "preventive": "None",
        "generative": {"content": "run", "belief": "running hurts", "desire": "be fit"},
    },
    "dialog": ["persuader: Hi.", "persuadee: Hello,", "how are you?", "Persuader: Fine."],
}


def test_record_parses_cToMPersu_layout_and_joins_continuation_lines() -> None:
    r = record_from_dict(RAW)
    assert r.scenario.domain == ("Health", "Sport") and r.scenario.primary_domain == "Health"
    assert r.mental_state is not None and r.mental_state.preventive is None
    assert r.mental_state.generative.belief == "running hurts"
    assert [(t.speaker, t.text) for t in r.dialog] == [
        ("persuader", "Hi."),
        ("persuadee", "Hello, how are you?"),
        ("persuader", "Fine."),
    ]
    assert len(r.id) == 16 and record_from_dict(RAW).id == r.id  # stable content id


def test_record_round_trips_through_dict() -> None:
    r = record_from_dict(RAW)
    again = record_from_dict(record_to_dict(r))
    assert again == r
    assert record_to_dict(r)["scenario"]["preventive"] == "None"


def test_record_without_generative_has_no_mental_state() -> None:
    r = record_from_dict({"scenario": {"goal": "g", "domain": "Charity"}, "dialog": ["persuader: give"]})
    assert r.mental_state is None and r.scenario.domain == ("Charity",)


def test_dialog_must_start_with_a_label() -> None:
    with pytest.raises(ValueError, match="unlabelled"):
        parse_dialog(["hello there"])


def test_clean_utterance_strips_label_and_quotes() -> None:
    assert clean_utterance('Persuader: "Let us go."') == "Let us go."
    assert clean_utterance("**persuadee:** ok") == "ok"
    assert clean_utterance("persuader: Try it.\nIt is fun.\n\nPersuadee: Fine, I will.") == "Try it. It is fun."


@pytest.mark.parametrize(
    ("generative", "preventive", "expected"),
    [
        ((True, True), None, True),
        ((True, False), None, False),  # generating needs belief AND desire
        ((False, True), None, False),
        ((True, True), (True, False), True),  # preventing needs belief OR desire
        ((True, True), (False, True), True),
        ((True, True), (False, False), False),
        ((True, False), (True, True), False),
    ],
)
def test_causal_tom_rule(generative, preventive, expected) -> None:  # noqa: ANN001
    assert causal_tom_success(generative, preventive) is expected


def test_round_plan_matches_paper() -> None:
    without, with_ = round_plan(False), round_plan(True)
    assert len(without) == 3 and len(with_) == 4
    assert [r.persuader for r in without] == [
        PersuaderFocus.PROBE,
        PersuaderFocus.GENERATIVE_BELIEF,
        PersuaderFocus.GENERATIVE_DESIRE,
    ]
    assert [r.persuadee for r in with_] == [
        PersuadeeDisclosure.PREVENTIVE,
        PersuadeeDisclosure.GENERATIVE_BELIEF,
        PersuadeeDisclosure.GENERATIVE_DESIRE,
        PersuadeeDisclosure.FINAL,
    ]
    # paper Fig. 4: with a preventive behaviour, round 3 eliminates the generative belief
    assert with_[2].persuader is PersuaderFocus.GENERATIVE_BELIEF
    # before each turn but the first, the persuader guesses what the persuadee just disclosed
    assert [r.predict for r in with_] == [None, *[r.persuadee for r in with_[:-1]]]


def test_rouge_l_hand_computed() -> None:
    # candidate: the cat sat on the mat (6); reference: the cat is on the mat (6); LCS = the cat on the mat (5)
    assert lcs_length("a b c d".split(), "a c b d".split()) == 3
    assert rouge_l("The cat sat on the mat.", "the cat is on the mat") == pytest.approx(5 / 6)
    # P = 2/2, R = 2/4 -> F1 = 2 * 1 * 0.5 / 1.5 = 2/3
    assert rouge_l("police killed", "police killed the gunman") == pytest.approx(2 / 3)
    assert rouge_l("", "anything") == 0.0
    assert rouge_l("x y", "a b") == 0.0
    assert rouge_l("Same words here", "same words, here!") == pytest.approx(1.0)


def test_answer_parsers() -> None:
    assert find_json('Sure: ```json\n{"a": 1}\n``` done') == {"a": 1}
    assert find_json('text {"a": {"b": true}} more {"c": 2}') == {"a": {"b": True}}
    assert find_json("no json") is None
    assert read_score("Reasons... Score: 7") == 7.0
    assert read_score("Score: 12") is None and read_score("8") == 8.0 and read_score("great") is None
    assert read_yes_no("I like it. Persuaded: yes", label="Persuaded") is True
    assert read_yes_no("Persuaded: No.", label="Persuaded") is False and read_yes_no("maybe", label="Persuaded") is None


def test_fixture_loads() -> None:
    loaded = load_records(FIXTURE)
    assert len(loaded.records) == 4
    assert sorted(len(r.dialog) for r in loaded.records) == [6, 6, 8, 8]
    assert {r.scenario.primary_domain for r in loaded.records} == {"Health", "Ecology", "Career", "Literature"}
    assert loaded.provenance["source"] == "file"


def test_release_shape_fixture_duplicates_domains_and_turns() -> None:
    from tests.generators.persuasion.test_scripted import RELEASE_SHAPE

    dropped = load_records(RELEASE_SHAPE)
    assert [len(r.dialog) for r in dropped.records] == [8, 6, 8, 6]  # preventive: 4 rounds, none: 3 rounds
    assert [r.mental_state.has_preventive for r in dropped.records if r.mental_state] == [True, False, True, False]
    prov = dropped.provenance
    assert (prov["records_in_file"], prov["duplicates"], prov["records"], prov["duplicates_policy"]) == (7, 3, 4, "drop")
    kept = load_records(RELEASE_SHAPE, duplicates="keep")
    ids = [r.id for r in kept.records]
    assert len(ids) == len(set(ids)) == 7
    base = dropped.records[1].id  # the record that appears three times
    assert [i for i in ids if i.startswith(base)] == [base, f"{base}~2", f"{base}~3"]
    # every listed domain, once per record; the split turn is one turn
    assert sum(len(r.scenario.domains) for r in kept.records) == 12
    assert dropped.records[2].scenario.domains == ["Health", "Technology", "Finance"]
    assert dropped.records[0].dialog[1].text.startswith("Honestly, Maya")
    # a preventive behaviour of content "none" with template leftovers is no preventive behaviour
    assert dropped.records[3].mental_state is not None and dropped.records[3].mental_state.preventive is None


def test_copies_share_a_content_id_and_a_reused_id_with_other_content_is_an_error(tmp_path) -> None:  # noqa: ANN001
    import json

    from tombench.generators.persuasion.data import PersuasionDataError

    other = json.loads(json.dumps(RAW))
    other["scenario"]["generative"]["desire"] = "be strong"  # same scenario and dialogue, other mental state
    assert record_from_dict(other).id != record_from_dict(RAW).id
    path = tmp_path / "ids.json"
    path.write_text(json.dumps([{**RAW, "id": "x"}, {**other, "id": "x"}]))
    with pytest.raises(PersuasionDataError, match="two different records share the id 'x'"):
        load_records(path)


def test_domains_listed_twice_count_once() -> None:
    raw = {**RAW, "scenario": {**RAW["scenario"], "domain": ["Ethics", "Ethics"]}}
    assert record_from_dict(raw).scenario.domains == ["Ethics"]
