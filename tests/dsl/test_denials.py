"""The shared denial rule (`tombench.dsl.denials`): what a reply names only to reject it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tombench.dsl.denials import YES_NO_WORDS, denials, read_yes_no_affirmed, strip_denials


def _said(text: str, **kwargs) -> str:
    """The words left after the denials are blanked."""
    return " ".join(strip_denials(text, **kwargs).split())


@pytest.mark.parametrize(
    "reply,left",
    [
        ("B is wrong.", "."),
        ("(A) is incorrect.", "."),
        ("D is not right, nor is A.", ", ."),
        ("A - just kidding, it's B.", ", it's B."),
        ("A? No. C.", ". C."),
        ("The answer is not A but D.", "The answer is D."),
        ("Not (A). She would look in the attic (C).", ". She would look in the attic (C)."),
        ("It isn't less full.", "It is ."),
        ("in the box, not the basket", "in the box,"),
        ("She does not think it is in the basket; it's in the box", "She does ; it's in the box"),
        ("A isn't the answer; C is.", "; C is."),
        ("不是B，答案是A。", "，答案是A。"),
        ("答案不是C而是A。", "答案 A。"),
        ("A不对，选B。", "，选B。"),
        ("B是错的。", "。"),
        ("排除A。", "。"),
    ],
)
def test_what_a_reply_denies_is_blanked_and_the_rest_kept(reply: str, left: str) -> None:
    assert _said(reply) == left


@pytest.mark.parametrize(
    "reply",
    [
        "Ines does not know what the puppy is called.",
        "No, she doesn't know.",
        "Beth isn't aware of the move.",
        "He has not seen it moved.",
        "The answer is C.",
    ],
)
def test_a_negated_verb_of_knowing_or_perceiving_denies_nothing(reply: str) -> None:
    assert strip_denials(reply) == reply and denials(reply) == ()


def test_an_options_own_negation_denies_nothing() -> None:
    assert _said("Not reasonable.", keep=["Not reasonable"]) == "Not reasonable."
    assert _said("It is not reasonable.", keep=["Not reasonable"]) == "It is not reasonable."
    assert _said("Not (A).", keep=["Yes", "No"]) == "."  # the option "No" is not the "No" inside "Not"


def test_a_yes_no_reader_keeps_the_rest_of_a_negators_clause_and_the_no_of_a_rejection() -> None:
    assert _said("Not yes.", only=YES_NO_WORDS) == "Not ."
    assert _said("No, it is not in its initial location.", only=YES_NO_WORDS) == (
        "No, it is not in its initial location.")
    assert _said("Yes? No.", no_is_answer=True) == "No."
    assert _said("Yes? No.") == "."


@given(st.text(max_size=80))
def test_blanking_keeps_offsets_and_only_blanks(text: str) -> None:
    out = strip_denials(text)
    assert len(out) == len(text)
    assert all(a == b or b == " " for a, b in zip(text, out, strict=True))


def test_the_no_of_a_rejection_answers_only_when_nothing_else_does() -> None:
    def first_word(text: str) -> str | None:
        words = text.replace(".", " ").split()
        return words[0] if words else None

    assert read_yes_no_affirmed("Yes? No.", first_word) == "No"
    assert read_yes_no_affirmed("Yes? No. So yes.", first_word) == "So"
    assert read_yes_no_affirmed("Not yes.", first_word) == "Not"
