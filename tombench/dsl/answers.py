"""The one answer matcher: reading a model's free-text answer to a story question (semantics §5.6).

The A* search decides which stories are hard from these verdicts, and the Inspect scorers report accuracies from
them, so both must read answers in exactly the same way; this module is the only place that does.

Two modes:

* ``"substring"`` is the original ExploreToM test, ``expected in response.lower()``, kept so that numbers can be
  compared with the paper. It is lenient in known ways: "no" matches "anne **kno**ws", "box" matches "toolbox", and a
  hedge that lists every container is counted correct.
* ``"strict"`` (the default) normalises both sides and matches whole words only:

  - names (containers, rooms): whole candidate phrases, longest first, each token used once; the answer is correct
    only if the expected name is the *only* candidate named ("box, or maybe the basket" is ambiguous, so wrong);
  - yes/no: the first yes/no word is the answer;
  - knowledge (K2): a negated knowing verb ("does not know", "isn't aware", "has no idea") means "does not know about
    it"; otherwise a knowing word ("knows", "aware") means "knows about it".

Everything here is a pure function of strings; see docs/answer-matching.md for the decisions and what they cost.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Literal

__all__ = [
    "AnswerType",
    "CheckMode",
    "Extraction",
    "Verdict",
    "YES",
    "NO",
    "KNOWS",
    "DOES_NOT_KNOW",
    "normalise",
    "extract_answer",
    "check_answer",
]

YES = "yes"
NO = "no"
KNOWS = "knows about it"
DOES_NOT_KNOW = "does not know about it"

CheckMode = Literal["strict", "substring"]


class AnswerType(str, Enum):
    """What kind of answer a question expects (semantics §5.1): it decides how a response is read."""

    CONTAINER = "container"
    ROOM = "room"
    YES_NO = "yes_no"
    KNOWLEDGE = "knowledge"


@dataclass(frozen=True)
class Extraction:
    """What a response says, independent of what was expected.

    `predicted` is a canonical answer (a candidate as given, "yes"/"no", `KNOWS`/`DOES_NOT_KNOW`) or None when the
    response says nothing recognisable or is ambiguous; `matched` lists every distinct answer found, in order of
    first appearance, so an ambiguous response can still be inspected.
    """

    predicted: str | None
    ambiguous: bool = False
    matched: tuple[str, ...] = ()


@dataclass(frozen=True)
class Verdict:
    """The judgement of one response against one expected answer."""

    correct: bool
    predicted: str | None
    ambiguous: bool = False
    matched: tuple[str, ...] = ()


_NON_ALNUM = re.compile(r"[\W_]+")
_ARTICLES = frozenset({"a", "an", "the"})


def normalise(text: str) -> str:
    """Lower-case; every non-alphanumeric character and underscore becomes a space; drop the articles a/an/the.

    Both the response and the answers go through this, so "**The Red_Box.**" and "red box" compare equal, and an
    apostrophe splits a contraction ("doesn't" -> "doesn t") instead of gluing it into a new word.
    """
    return " ".join(tok for tok in _NON_ALNUM.sub(" ", text.lower()).split() if tok not in _ARTICLES)


def _tokens(text: str) -> list[str]:
    return normalise(text).split()


def _distinct(items: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


# --- names: containers and rooms -------------------------------------------------------------------------------------


def _read_names(response: str, candidates: Sequence[str]) -> Extraction:
    """Scan left to right; at each token try the candidate phrases longest first and consume the match.

    Consuming is what stops "black bin" from also counting as "bin"; matching token sequences (not substrings) is
    what stops "box" from matching "toolbox".
    """
    phrases: dict[tuple[str, ...], str] = {}
    for cand in candidates:
        toks = tuple(_tokens(cand))
        if toks and toks not in phrases:
            phrases[toks] = cand
    ordered = sorted(phrases.items(), key=lambda item: -len(item[0]))  # stable: ties keep candidate order
    tokens = _tokens(response)
    found: list[str] = []
    i = 0
    while i < len(tokens):
        for toks, cand in ordered:
            if tuple(tokens[i : i + len(toks)]) == toks:
                found.append(cand)
                i += len(toks)
                break
        else:
            i += 1
    matched = _distinct(found)
    if len(matched) == 1:
        return Extraction(predicted=matched[0], matched=matched)
    return Extraction(predicted=None, ambiguous=len(matched) > 1, matched=matched)


# --- yes / no ---------------------------------------------------------------------------------------------------------

_YES_WORDS = frozenset({"yes", "yeah", "yep", "yup"})
_NO_WORDS = frozenset({"no", "nope"})
_CONNECTORS = frozenset({"or", "and"})


def _yes_no(token: str) -> str | None:
    if token in _YES_WORDS:
        return YES
    if token in _NO_WORDS:
        return NO
    return None


def _read_yes_no(response: str) -> Extraction:
    """The first yes/no word decides; "yes or no" / "Yes/No" (the options echoed back) is ambiguous."""
    tokens = _tokens(response)
    found = [(i, v) for i, tok in enumerate(tokens) if (v := _yes_no(tok)) is not None]
    if not found:
        return Extraction(predicted=None)
    matched = _distinct([v for _, v in found])
    first_i, first = found[0]
    if len(found) > 1:
        second_i, second = found[1]
        between = tokens[first_i + 1 : second_i]
        if second != first and (not between or (len(between) == 1 and between[0] in _CONNECTORS)):
            return Extraction(predicted=None, ambiguous=True, matched=matched)
    return Extraction(predicted=first, matched=matched)


# --- knowledge (K2) ---------------------------------------------------------------------------------------------------

# A negator, at most one softening adverb, then a verb of knowing or believing. "t" is the tail of a split
# contraction (doesn't, don't, isn't, hasn't, wasn't, can't ...). Negated "think"/"believe" is included because
# "Anne doesn't think Beth knows about it" answers "does not know about it".
_NEGATORS = r"(?:not|t|never|doesnt|dont|didnt|isnt|wasnt|hasnt|havent|hadnt|wont|wouldnt|cannot|cant)"
_ADVERBS = r"(?:really|yet|even|actually|necessarily|fully|also|truly|likely|probably)"
_KNOW_VERBS = (
    r"(?:know|knows|knew|known|knowing|aware|heard|think|thinks|believe|believes|realize|realizes|realise|realises"
    r"|told|informed)"
)
_NEGATIVE = re.compile(
    rf"\b(?:{_NEGATORS}(?: {_ADVERBS})? {_KNOW_VERBS}"
    r"|unaware|oblivious|clueless|no idea|no clue|no knowledge|knows nothing|know nothing)\b"
)
_POSITIVE = re.compile(r"\b(?:know|knows|knew|knowing|aware|heard)\b")
# Both options echoed back to back, e.g. "(knows about it / does not know about it)".
_ECHO = re.compile(rf"\b(?:{KNOWS}(?: or| and)? {DOES_NOT_KNOW}|{DOES_NOT_KNOW}(?: or| and)? {KNOWS})\b")


def _read_knowledge(response: str) -> Extraction:
    """A negated knowing verb anywhere wins; else a knowing word; else nothing.

    Negation wins because the answer is about one person's belief and the usual long form is "Anne knows that Beth
    does not know about it": the positive "knows" there is about Anne, the negative about Beth.
    """
    text = normalise(response)
    hits: list[tuple[int, str]] = [(m.start(), DOES_NOT_KNOW) for m in _NEGATIVE.finditer(text)]
    masked = _NEGATIVE.sub(lambda m: " " * len(m.group(0)), text)  # keep offsets; hide the negated verbs
    hits += [(m.start(), KNOWS) for m in _POSITIVE.finditer(masked)]
    matched = _distinct([v for _, v in sorted(hits)])
    if _ECHO.search(text):
        return Extraction(predicted=None, ambiguous=True, matched=matched)
    if DOES_NOT_KNOW in matched:
        return Extraction(predicted=DOES_NOT_KNOW, matched=matched)
    if KNOWS in matched:
        return Extraction(predicted=KNOWS, matched=matched)
    return Extraction(predicted=None)


# --- public API -------------------------------------------------------------------------------------------------------


def _not_named_in(question: str, candidates: Sequence[str], keep: str | None = None) -> list[str]:
    """Drop the candidates that the question itself names (read with the same consuming scan), except `keep`.

    "In which container was the apple before Anne moved the apple to the crate?" names the crate, and the usual
    full-sentence answer repeats it ("It was in the basket before Anne moved it to the crate."). A name that the
    question supplies is context, not a rival answer; the expected answer is never dropped.
    """
    if not question:
        return list(candidates)
    named = {normalise(name) for name in _read_names(question, candidates).matched}
    if keep is not None:
        named.discard(normalise(keep))
    return [cand for cand in candidates if normalise(cand) not in named]


def extract_answer(
    response: str, answer_type: AnswerType | str, candidates: Sequence[str] = (), *, question: str = ""
) -> Extraction:
    """Read the answer a response gives, without knowing the expected one (strict rules).

    `candidates` are the names a container/room answer may take (all context containers, or all rooms); they are
    ignored for yes/no and knowledge questions. With `question`, candidates the question names are not recognised.
    """
    answer_type = AnswerType(answer_type)
    if answer_type in (AnswerType.CONTAINER, AnswerType.ROOM):
        return _read_names(response, _not_named_in(question, candidates))
    if answer_type is AnswerType.YES_NO:
        return _read_yes_no(response)
    return _read_knowledge(response)


def _canonical_expected(expected: str, answer_type: AnswerType) -> str:
    """Read the expected answer with the same rules, so "Yes" or "doesn't know about it" are accepted as given."""
    if answer_type in (AnswerType.CONTAINER, AnswerType.ROOM):
        if not normalise(expected):
            raise ValueError(f"Expected {answer_type.value} answer is empty: {expected!r}")
        return expected
    reading = extract_answer(expected, answer_type)
    if reading.predicted is None or len(reading.matched) != 1:
        allowed = (YES, NO) if answer_type is AnswerType.YES_NO else (KNOWS, DOES_NOT_KNOW)
        raise ValueError(f"Expected {answer_type.value} answer must be one of {allowed}, got {expected!r}")
    return reading.predicted


def check_answer(
    response: str,
    expected: str,
    answer_type: AnswerType | str,
    candidates: Sequence[str] = (),
    mode: CheckMode = "strict",
    *,
    question: str = "",
) -> Verdict:
    """Judge `response` against `expected`.

    In strict mode a name answer is correct iff the set of candidates it names is exactly {expected} (`expected` is
    added to `candidates`, so an empty list still works, but then no other name can be recognised as a rival); a
    yes/no or knowledge answer is correct iff the reading equals the canonical `expected`. In substring mode, the
    original test `expected in response.lower()` decides and nothing is read (`predicted` is None).

    Pass the `question` text for name questions: candidates it names (other than `expected`) are then not counted
    as rivals, so a full-sentence answer to an M-before question that repeats the question's event is not ambiguous.
    Substring mode ignores it, as the original did.
    """
    answer_type = AnswerType(answer_type)
    if mode == "substring":
        return Verdict(correct=expected in response.lower(), predicted=None)
    if mode != "strict":
        raise ValueError(f"Invalid check mode {mode!r}. Must be one of: ['strict', 'substring']")
    canonical = _canonical_expected(expected, answer_type)
    if answer_type in (AnswerType.CONTAINER, AnswerType.ROOM):
        reading = _read_names(response, _not_named_in(question, [canonical, *candidates], keep=canonical))
        correct = [normalise(m) for m in reading.matched] == [normalise(canonical)]
    else:
        reading = extract_answer(response, answer_type)
        correct = reading.predicted == canonical
    return Verdict(correct=correct, predicted=reading.predicted, ambiguous=reading.ambiguous, matched=reading.matched)
