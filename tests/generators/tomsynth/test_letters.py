"""Option letters in analyses (issue #31 point 6): which capitals name options, their exact remap under every
permutation of A-D, and a consistency check that fails when an analysis names the wrong option.

The analyses are generated from sentence templates in which every option letter is a slot, so the right rewrite of
any analysis under any permutation is known: the template filled with the moved letters. The templates mix the
ways generated analyses name options (bare subject, "Option X", "(X)", "X)", "Answer: X", bold, lists) with the
false friends a rewrite must leave alone (the article "A", "Plan B", "Vitamin C", "Room D", "Type A", grades).
"""

from __future__ import annotations

import itertools
import random
import re
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tombench.generators.tomsynth.items import LETTERS
from tombench.generators.tomsynth.letters import (
    analysis_claims,
    analysis_verdict,
    claims_follow,
    option_references,
    remap_letters,
)
from tombench.generators.tomsynth.qc import analysis_check, stage2_balance

#: the key named as correct ({k}); {n} is a character's name
CORRECT = (
    "The correct answer is {k}: {n} never saw the move.",
    "{k} is correct because {n} left before the change.",
    "Answer: {k}. {n} holds an outdated belief.",
    "Option {k} is right, since {n} was away.",
    "The answer is ({k}), as {n} could not know.",
    "**{k}** is the best choice here.",
    "{k}) is correct: {n} only saw the first spot.",
    "Because {n} was outside, {k} is the right answer.",
)
#: distractors ({d}, {e}, {f}) described as such; {k} may be named in passing
DISTRACTORS = (
    "{d} seems plausible but ignores what {n} saw.",
    "{d} is wrong because it uses knowledge {n} lacks.",
    "Option {d} confuses the two containers.",
    "({d}) assumes {n} watched the whole scene.",
    "{d} and {e} both overlook the timing.",
    "Options {d}, {e} and {f} are incorrect.",
    "Unlike {k}, {d} misreads the story.",
    "{d} might seem tempting, yet it is mistaken.",
    "Choice {d} fails to track the move.",
    "A reader who picks {d} forgets the timing; {e} is also wrong.",
)
#: sentences whose capitals are not options (the article, names, grades, symbols)
FALSE_FRIENDS = (
    "A friend of {n} would reach the same view.",
    "A careful reader notices the timing.",
    "Plan B was never discussed.",
    "{n} had taken Vitamin C that morning.",
    "The box sat in Room D all day.",
    "Type A people may react faster.",
    "{n} got an A on the quiz and a B+ on the essay.",
    "The drawer labelled C stayed shut.",
    "Nobody mentioned D-Day or C++.",
    "It was Plan A or B for {n}.",
)
NAMES = ("Ann", "Tom", "Mei", "Ravi")


def render(sentences: list[str], letters: dict[str, str], name: str) -> str:
    """The analysis with each slot ({k}, {d}, {e}, {f}) filled with its letter."""
    return " ".join(s.format(n=name, **letters) for s in sentences)


def slots(key: str, rng: random.Random) -> dict[str, str]:
    distractors = [x for x in LETTERS if x != key]
    rng.shuffle(distractors)
    return {"k": key, **dict(zip("def", distractors, strict=True))}


def analyses(count: int, seed: int = 0) -> list[tuple[list[str], dict[str, str], str]]:
    """`count` generated analyses: a claim of the key, one or two distractor sentences, zero to two false friends,
    in a seeded random order (the claim not always first)."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        sentences = [rng.choice(CORRECT), *rng.sample(DISTRACTORS, rng.randint(1, 2)),
                     *rng.sample(FALSE_FRIENDS, rng.randint(0, 2))]
        rng.shuffle(sentences)
        out.append((sentences, slots(rng.choice(LETTERS), rng), rng.choice(NAMES)))
    return out


def moved(letters: dict[str, str], mapping: dict[str, str]) -> dict[str, str]:
    return {slot: mapping[letter] for slot, letter in letters.items()}


PERMUTATIONS = [dict(zip(LETTERS, p, strict=True)) for p in itertools.permutations(LETTERS)]


def test_the_issue_example_and_the_named_false_friends() -> None:
    mapping = {"A": "C", "B": "A", "C": "B", "D": "D"}
    assert remap_letters("B is correct. A seems plausible.", mapping) == "A is correct. C seems plausible."
    for text in ("Plan B", "Vitamin C", "Type A", "Room D", "A friend would see.", "Hepatitis B", "Mr. B",
                 "an A on the test", "a B+ grade", "C++", "D-Day", "Plan A or B", "the folder labelled C"):
        assert remap_letters(text, mapping) == text, text
    assert remap_letters("Options A, B and D fail; (B) and C) too.", mapping) == "Options C, A and D fail; (A) and B) too."
    assert remap_letters("Answer: **B**", mapping) == "Answer: **A**"
    assert remap_letters("B's reasoning fails.", mapping) == "A's reasoning fails."  # a possessive names the option


def test_each_sentence_of_each_template_remaps_exactly_under_all_24_permutations() -> None:
    for sentence in CORRECT + DISTRACTORS + FALSE_FRIENDS:
        for key in LETTERS:
            letters = slots(key, random.Random(key))
            text = render([sentence], letters, "Ann")
            for mapping in PERMUTATIONS:
                assert remap_letters(text, mapping) == render([sentence], moved(letters, mapping), "Ann"), (
                    sentence, mapping)


@settings(max_examples=300, deadline=None)
@given(st.randoms(use_true_random=False), st.permutations(LETTERS))
def test_generated_analyses_remap_exactly_and_stay_consistent(rng: random.Random, perm: list[str]) -> None:
    mapping = dict(zip(LETTERS, perm, strict=True))
    ((sentences, letters, name),) = analyses(1, seed=rng.randint(0, 10**9))
    text = render(sentences, letters, name)
    expected = render(sentences, moved(letters, mapping), name)
    assert remap_letters(text, mapping) == expected
    assert analysis_verdict(text, letters["k"]) == "consistent"
    assert analysis_verdict(expected, mapping[letters["k"]]) == "consistent"


def chained_remap(text: str, mapping: dict[str, str]) -> str:
    """A broken remap for the check to catch: one letter after another (so a moved letter is moved again)."""
    for old, new in mapping.items():
        text = re.sub(rf"\b{old}\b", new, text)
    return text


def test_the_check_fails_when_an_analysis_names_the_wrong_option() -> None:
    assert analysis_verdict("A is correct. A seems plausible.", "A") == "contradicts"  # the issue's output
    assert analysis_verdict("A is correct. C seems plausible.", "A") == "consistent"
    assert analysis_verdict("The correct answer is C.", "A") == "contradicts"
    assert analysis_verdict("Ann never saw the move.", "A") == "unchecked"
    assert analysis_claims("Answer: B. Options A and D are incorrect; C ignores the move.") == ({"B"}, {"A", "C", "D"})
    assert analysis_claims("Unlike A, C misreads the story.") == (set(), {"C"})  # a clause comma, not a list
    rng = random.Random(1)
    broken = detected = 0
    for sentences, letters, name in analyses(200, seed=1):
        mapping = rng.choice(PERMUTATIONS)
        text = chained_remap(render(sentences, letters, name), mapping)
        if text != render(sentences, moved(letters, mapping), name):
            broken += 1
            detected += analysis_verdict(text, mapping[letters["k"]]) == "contradicts" or not claims_follow(
                render(sentences, letters, name), text, mapping)
    assert broken > 50 and detected >= 0.8 * broken, (broken, detected)


def test_claims_must_move_with_their_options() -> None:
    mapping = {"A": "C", "B": "A", "C": "B", "D": "D"}
    before = "B is correct. A seems plausible."
    assert claims_follow(before, "A is correct. C seems plausible.", mapping)
    assert not claims_follow(before, "A is correct. A seems plausible.", mapping)  # the old remap's output
    assert not claims_follow("B is correct. D is wrong.", "A is correct. C is wrong.", mapping)  # D stays D


def test_qc_reports_analyses_naming_the_key_before_and_after_balancing() -> None:
    from tests.generators.tomsynth.test_qc import make_item

    rng = random.Random(2)  # a generator that puts every key on B, as real ones lean to B and C
    cases = [(s, slots("B", rng), n) for s, _, n in analyses(40, seed=2)]
    items = [make_item(i, answer="B", analysis=render(s, ls, n)) for i, (s, ls, n) in enumerate(cases)]
    balanced = stage2_balance(items, random.Random(0))
    assert sum(a.answer != b.answer for a, b in zip(items, balanced, strict=True)) > 20
    before, after = analysis_check(items), analysis_check(balanced)
    assert before["consistent"] == after["consistent"] == 40 and after["contradicts"] == 0
    wrong = [replace(b, analysis=a.analysis) for a, b in zip(items, balanced, strict=True)]  # analysis not moved
    report = analysis_check(wrong)
    moved_ids = {b.id for a, b in zip(items, balanced, strict=True) if a.answer != b.answer}
    assert report["contradicts"] == len(moved_ids) and set(report["contradicting_ids"]) == moved_ids
    assert analysis_check(balanced, before=items)["contradicts"] == 0
    assert set(analysis_check(wrong, before=items)["contradicting_ids"]) == moved_ids


@pytest.mark.parametrize("text", ["A is wrong.", "Choose A.", "(A) fails.", "A, B and C.", "A and D fail."])
def test_a_opening_a_sentence_is_a_letter_when_a_letter_is_meant(text: str) -> None:
    assert option_references(text)[0].option


@pytest.mark.parametrize("text", ["A friend helps.", "A careful reader sees it.", "A nervous Ann waits."])
def test_a_opening_a_sentence_is_the_article_before_a_noun_or_adjective(text: str) -> None:
    assert not option_references(text)[0].option
