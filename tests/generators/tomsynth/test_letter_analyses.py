"""Option letters in hand-written analyses (`data/letter_analyses.txt`): the rewrite moves exactly the option
references under every permutation of A-D (or refuses, rarely), and the analysis check passes every right rewrite
and flags every wrong one.

The four patterns of the sentence-adverb / preposition / possessive / article bugs are checked with the outputs
the earlier rewrite gave them (`EARLIER`): the check must flag those and pass today's rewrite.
"""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest

from tests.generators.tomsynth.letter_analyses import PERMUTATIONS, load, tally
from tests.generators.tomsynth.test_qc import make_item
from tombench.generators.tomsynth import letters
from tombench.generators.tomsynth.letters import (
    UnreadableLetters,
    analysis_verdict,
    remap_letters,
    rewrite_contradicts,
    unreadable_letters,
)
from tombench.generators.tomsynth.qc import _move_answer, analysis_check, run_qc

ROWS = load()
MAPPING = {"A": "C", "B": "A", "C": "B", "D": "D"}
#: (analysis, key, the earlier rewrite's output under MAPPING): each leaves a letter behind or moves the
#: article, and the result names another option than the moved key
EARLIER = (
    ("Clearly B is correct. A and C are wrong.", "B", "Clearly B is correct. C and B are wrong."),
    ("B is correct. In A, Tom errs.", "B", "A is correct. In A, Tom errs."),
    ("B is correct. Option A's reasoning fails.", "B", "A is correct. Option A's reasoning fails."),
    ("A reader's guess is B, and B is correct.", "B", "C reader's guess is A, and A is correct."),
)


def test_the_labelled_set_is_large_and_varied() -> None:
    assert len(ROWS) >= 150 and sum(r.held_out for r in ROWS) >= 40
    styles = Counter(r.style for r in ROWS)
    assert len(styles) >= 10 and min(styles.values()) >= 5
    assert all(r.references() for r in ROWS)


@pytest.mark.parametrize("part", ["fix", "held-out", "held-out 2"])
def test_no_wrong_rewrite_under_any_permutation(part: str) -> None:
    rows = [r for r in ROWS if r.part == part]
    assert rows
    t = tally(rows, remap_letters, (UnreadableLetters,))
    assert t.wrong == 0, t.examples
    assert t.refused <= 0.02 * t.rewrites, (t.refused, [rows[n].text() for n in sorted(t.refused_analyses)])


def test_sentence_adverbs_prepositions_possessives_and_the_article_are_read_right() -> None:
    assert [remap_letters(s, MAPPING) for s in (
        "Clearly B is correct.", "In A, Tom errs.", "Option A's reasoning fails.", "A reader's guess is B.",
        "Similarly C fails. Overall B holds. Obviously B. Here A is right.", "A lot depends on it. I think B.",
        "Choose C.", "B's reasoning is off.",
    )] == [
        "Clearly A is correct.", "In C, Tom errs.", "Option C's reasoning fails.", "A reader's guess is A.",
        "Similarly B fails. Overall A holds. Obviously A. Here C is right.", "A lot depends on it. I think A.",
        "Choose B.", "A's reasoning is off.",
    ]


@pytest.mark.parametrize(("text", "key", "earlier"), EARLIER)
def test_the_check_flags_the_earlier_rewrite_and_passes_todays(text: str, key: str, earlier: str) -> None:
    moved_key = MAPPING[key]
    assert rewrite_contradicts(text, earlier, MAPPING, moved_key)
    assert not rewrite_contradicts(text, remap_letters(text, MAPPING), MAPPING, moved_key)


def test_stage2_check_flags_a_sentence_adverb_letter_left_behind() -> None:
    item = make_item(0, answer="B", analysis="Clearly B is correct: Ann never saw the move. A and C are wrong.")
    moved = _move_answer(item, "A")
    assert moved.analysis == "Clearly A is correct: Ann never saw the move. B and C are wrong."
    assert analysis_check([moved], before=[item])["consistent"] == 1
    earlier = moved.__class__(**{**moved.__dict__, "analysis": "Clearly B is correct: Ann never saw the move. "
                                 "B and C are wrong."})  # what the earlier rewrite wrote
    assert analysis_verdict(earlier.analysis, "A") == "contradicts"  # without `before`, from the text alone
    assert analysis_check([earlier], before=[item])["contradicts"] == 1


def test_every_labelled_analysis_supports_its_key_under_every_right_rewrite() -> None:
    """(An analysis with an unsure letter is refused, so its rewrites are never checked: the check fails them,
    since none can be vouched for.)"""
    for row in ROWS:
        assert analysis_verdict(row.text(), row.key) == "consistent", row.text()
        if unreadable_letters(row.text()):
            continue
        for mapping in PERMUTATIONS:
            assert not rewrite_contradicts(row.text(), row.text(mapping), mapping, mapping[row.key]), (row.text(),
                                                                                                      mapping)


@pytest.fixture
def texts_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each distinct text's letters read once: the check reads `before` again for every pair (576 per analysis)
    and each of its 24 rewrites 24 times. The reading is a pure function of the text, and its list is never
    changed by the check, so sharing it changes no verdict."""
    real, seen = letters.option_references, {}

    def once(text: str) -> list:
        if text not in seen:
            seen[text] = real(text)
        return seen[text]

    monkeypatch.setattr(letters, "option_references", once)


def test_the_check_flags_every_wrong_rewrite_of_the_labelled_set(texts_read_once: None) -> None:
    """Options moved by one permutation, the analysis by another (all 24 x 23 pairs): wherever the two rewrites
    differ, the check fails the analysis."""
    wrong = flagged = 0
    for row in ROWS:
        for right in PERMUTATIONS:
            for bad in PERMUTATIONS:
                after = row.text(bad)
                if after == row.text(right):
                    continue
                wrong += 1
                flagged += rewrite_contradicts(row.text(), after, right, right[row.key])
    assert wrong > 50_000 and flagged == wrong


def test_an_unreadable_letter_is_refused_not_guessed() -> None:
    text = "A confused Tom would look in the box, so B is correct."
    assert [r.letter for r in unreadable_letters(text)] == ["A"]
    with pytest.raises(UnreadableLetters):
        remap_letters(text, MAPPING)
    assert remap_letters(text, {"A": "A", "B": "C", "C": "B", "D": "D"}) == (
        "A confused Tom would look in the box, so C is correct.")  # the unsure letter does not move


def test_qc_drops_and_counts_items_whose_analysis_cannot_be_read() -> None:
    items = [make_item(i, answer="B", analysis="B is correct. A is wrong.") for i in range(8)]
    items[3] = make_item(3, answer="B", analysis="A confused Tom would look in the box, so B is correct.")
    final, report = asyncio.run(run_qc(items, None, max_longest_correct_pct=100.0))
    d = report.to_dict()
    assert d["stage2"]["unreadable_dropped"] == 1 and d["stage2"]["unreadable_ids"] == [items[3].id]
    assert len(final) == 7 and d["analysis"]["after_stage2"]["contradicts"] == 0
