"""The one answer matcher: reading a model's free-text answer to a story question (semantics §5.6).

The A* search decides which stories are hard from these verdicts, and the Inspect scorers report accuracies from
them, so both must read answers in exactly the same way; this module is the only place that does.

Two modes:

* ``"substring"`` is the original ExploreToM test, ``expected in response.lower()``, kept so that numbers can be
  compared with the paper, except that what the response denies ("not in the box") does not count as saying it. It is lenient in known ways: "no" matches "anne **kno**ws", "box" matches "toolbox", and a
  hedge that lists every container is counted correct.
* ``"strict"`` (the default) normalises both sides and matches whole words only:

  - names (containers, rooms): whole candidate phrases, longest first, each token used once; the answer is correct
    only if the expected name is the *only* candidate named ("box, or maybe the basket" is ambiguous, so wrong);
  - yes/no: the first yes/no word is the answer;
  - knowledge (K2): a negated knowing verb ("does not know", "isn't aware", "has no idea") means "does not know about
    it"; otherwise a knowing word ("knows", "aware") means "knows about it".
  - names and yes/no: what the response denies ("in the box, not the basket", "Not yes.") is not read
    (`tombench.dsl.denials`, the rule every suite's reader shares).

Everything here is a pure function of strings; see docs/explanation/answer-matching.md for the decisions and what they cost.
A caller that checks many responses (the search) passes an `AnswerMemo`, which remembers the readings of repeated
texts for as long as the caller keeps it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import Literal, TypeVar

from tombench.dsl.denials import strip_denials

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
    "answer_text",
    "extract_answer",
    "check_answer",
    "AnswerMemo",
]

YES = "yes"
NO = "no"
KNOWS = "knows about it"
DOES_NOT_KNOW = "does not know about it"

CheckMode = Literal["strict", "substring"]
_T = TypeVar("_T")


class AnswerMemo:
    """The readings of texts that come back again and again, for one caller: the search checks every question of a
    story against the same story text and a story's questions share their candidates, a target's short replies repeat
    ("yes", "the red box"), and the same question text comes back with the same candidates.

    Each entry is what the function computes for its arguments (`remembered`), so a memo never changes a verdict. It
    holds one entry per distinct text the caller checked, so it lives as long as the caller's run (a search's
    `Evaluator` owns one); without one, nothing is remembered.
    """

    __slots__ = ("values",)

    def __init__(self) -> None:
        #: (function, *arguments) -> its value
        self.values: dict[tuple, object] = {}


#: a memo's "not there yet" (None is a value a function may return)
_MISSING = object()


def _remembered(memo: AnswerMemo | None, fn: Callable[..., _T], *args: object) -> _T:
    """`fn(*args)`, looked up in `memo` first and kept there (computed each time without a memo)."""
    if memo is None:
        return fn(*args)
    key = (fn, *args)
    value = memo.values.get(key, _MISSING)
    if value is _MISSING:
        value = memo.values[key] = fn(*args)
    return value  # type: ignore[return-value]


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
    #: what was set aside before reading: "hedge", "question", "conditional", "story" (see `answer_text`)
    discarded: tuple[str, ...] = ()


@dataclass(frozen=True)
class Verdict:
    """The judgement of one response against one expected answer."""

    correct: bool
    predicted: str | None
    ambiguous: bool = False
    matched: tuple[str, ...] = ()
    discarded: tuple[str, ...] = ()


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


# --- what can carry an answer ---------------------------------------------------------------------------------------

#: Stand-ins in a cleaned text: a set-aside span, and a sentence boundary. Digits and letters, so `normalise` keeps
#: them as one token, and no candidate, yes/no or knowing word can contain them.
_GAP = "0gap0"
_BREAK = "0brk0"

# Saying one cannot or will not answer, in normalised text ("I'm" -> "i m", "can't" -> "can t").
_HEDGE = re.compile(
    r"\b(?:not sure|unsure|uncertain|unclear|not clear|i m sorry|i am sorry|as an ai"
    r"|i (?:do not|don t|dont|cannot|can t|cant) (?:know|tell|say|determine|answer|be sure|provide|have)"
    r"|(?:cannot|can t|cant|unable to|impossible to|hard to|difficult to|not possible to)"
    r" (?:be )?(?:determine|determined|tell|say|know|answer|infer|be sure)"
    r"|(?:not enough|insufficient|no|any) (?:information|context|details|data|evidence)"
    r"|(?:does not|doesn t|doesnt|did not|didn t|do not|don t) (?:say|mention|specify|state|tell us)"
    r"|not (?:mentioned|specified|stated|provided|given)"
    r"|(?:would not|will not|won t|wouldn t|cannot|can t) (?:answer|respond)|i refuse)\b"
)
# A clause that makes what follows hypothetical: "If Hannah knows about it, ...".
_CONDITIONAL = re.compile(r"\b(?:if|unless|assuming|suppose|supposing|provided that)\b", re.IGNORECASE)
# A premise, up to the next comma or the end of the sentence: "Since Gaspard moved it to the bread crate, ...",
# "... in the box, because she did not see it moved to the basket". What it names is a reason, not the answer.
_PREMISE = re.compile(r"\b(?:since|because|given that|as long as)\b[^,;]*", re.IGNORECASE)
# Working out loud ("To solve this puzzle, we need to think about ...", "First, we know that ..."): once a response
# starts reasoning, only a sentence that draws a conclusion can carry its answer.
_REASONING = re.compile(
    r"\b(?:to (?:solve|answer|determine|find out|figure out)|we need to|we (?:know|can see) that|let s|let us"
    r"|step by step|possible (?:locations|scenarios|places|outcomes))\b"
)
_CONCLUSION = re.compile(
    r"\b(?:answer is|answer|most likely|therefore|thus|hence|so|in conclusion|will (?:search|look))\b"
)
_TRAILING = re.compile(r"[\W_]*$")
_SENTENCE_END = re.compile(r"(?<=[.!?;:\n])\s+|\n+")
_STORY_SENTENCE = re.compile(r"(?<=[.!?])\s+")


#: the fewest tokens of a story span: shorter copies ("the box") are answers, not restatements
_MIN_SPAN = 3


def _story_spans(story: str) -> tuple[tuple[str, ...], ...]:
    """The story's sentences as token sequences (and each without its ", which is also located in ..." tail), longest
    first: a response that copies one of them is restating the story, not answering."""
    spans: set[tuple[str, ...]] = set()
    for sentence in _STORY_SENTENCE.split(story.strip()):
        toks = tuple(_tokens(sentence))
        head = tuple(_tokens(sentence.split(", which is also located", 1)[0]))
        for span in (toks, head):
            if len(span) >= _MIN_SPAN:
                spans.add(span)
    return tuple(sorted(spans, key=len, reverse=True))


def _mask(tokens: list[str], spans: Sequence[tuple[str, ...]]) -> tuple[list[str], bool]:
    """Replace every occurrence of a span by one `_GAP` token (longest spans first, left to right)."""
    out: list[str] = []
    hit = False
    i = 0
    while i < len(tokens):
        for span in spans:
            if tuple(tokens[i : i + len(span)]) == span:
                out.append(_GAP)
                i += len(span)
                hit = True
                break
        else:
            out.append(tokens[i])
            i += 1
    return out, hit


def answer_text(response: str, story: str = "", memo: AnswerMemo | None = None, *,
                deny: bool = True) -> tuple[str, tuple[str, ...]]:
    """The normalised part of `response` that can carry an answer, and what was set aside.

    In this order: a hedge anywhere ("I'm not sure", "I don't know", "it is unclear", "the story does not say")
    leaves nothing: the response did not commit to an answer, whatever it names afterwards. Then whole sentences are
    set aside when they are questions (end in "?": a question back, or the question echoed), hypothetical (if,
    unless, assuming, suppose: "If Hannah knows about it, ...") or reasoning ("To solve this puzzle, we need
    to ..."; after such a sentence only one that concludes, "The most likely location is ...", "so ...", is read);
    premises ("since ...", "because ...") are cut up to the next comma; with `deny`, what a sentence denies ("not the
    basket", "he won't look in the box", "Not yes.", `tombench.dsl.denials`) is cut too, so "in the box, not the
    basket" answers "box" and a name said only under a negation answers nothing. Last, every copy of a story sentence is
    masked (with `story`): "Amara entered the kitchen." restates the story, it does not answer "In which room ...?",
    even when the story has only one room. Sentences are joined by a break token, so no phrase spans two of them.
    """
    tokens, discarded = _remembered(memo, _cleaned, response, deny)
    # a story span is 3 tokens or more (`_story_spans`): a shorter reply ("red box", "yes") cannot copy one, so the
    # story's sentences are not even tokenised for it
    if story and len(tokens) >= _MIN_SPAN:
        masked, echoed = _mask(list(tokens), _remembered(memo, _story_spans, story))
        if echoed:
            return " ".join(masked), (*discarded, "story")
        tokens = tuple(masked)
    return " ".join(tokens), discarded


def _cleaned(response: str, deny: bool = True) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """`answer_text` before the story is masked: the tokens that can carry an answer and what was set aside."""
    text = normalise(response)
    if _HEDGE.search(text):
        return (), ("hedge",)
    discarded: list[str] = []
    kept: list[str] = []
    reasoning = False
    for sentence in _SENTENCE_END.split(response.strip()):
        if not normalise(sentence):
            continue
        if "?" in _TRAILING.search(sentence).group(0):
            discarded.append("question")
            continue
        if _CONDITIONAL.search(sentence):
            discarded.append("conditional")
            continue
        clause = _PREMISE.sub(" ", sentence)
        if clause != sentence:
            discarded.append("premise")
        if deny and (affirmed := strip_denials(clause)) != clause:
            discarded.append("denial")
            clause = affirmed
        words = normalise(clause)
        if _REASONING.search(words) or reasoning:
            reasoning = True
            discarded.append("reasoning")
            conclusion = list(_CONCLUSION.finditer(words))
            if not conclusion:
                continue
            words = words[conclusion[-1].start() :]  # "..., so she will look in the box": read from the conclusion
        if words:
            kept.append(words)
    return tuple(f" {_BREAK} ".join(kept).split()), tuple(dict.fromkeys(discarded))


# --- names: containers and rooms -------------------------------------------------------------------------------------


def _read_names(text: str, candidates: Sequence[str], memo: AnswerMemo | None = None) -> Extraction:
    """Scan the cleaned text left to right; at each token try the candidate phrases longest first and consume it.

    Consuming is what stops "black bin" from also counting as "bin"; matching token sequences (not substrings) is
    what stops "box" from matching "toolbox".
    """
    ordered = _remembered(memo, _phrases, tuple(candidates))
    tokens = text.split()
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


def _phrases(candidates: tuple[str, ...]) -> tuple[tuple[tuple[str, ...], str], ...]:
    """`_read_names`' candidates as (token phrase, candidate), longest first; ties keep the candidates' order, a
    phrase two candidates share is the first one's."""
    phrases: dict[tuple[str, ...], str] = {}
    for cand in candidates:
        toks = tuple(_tokens(cand))
        if toks and toks not in phrases:
            phrases[toks] = cand
    return tuple(sorted(phrases.items(), key=lambda item: -len(item[0])))  # stable: ties keep candidate order


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


#: "no" before one of these is a determiner ("no idea", "there is no indication"), not the answer "no".
_NO_NOUNS = frozenset({
    "idea", "one", "longer", "information", "indication", "mention", "way", "reason", "need", "matter", "evidence",
    "sign", "knowledge", "clue", "other", "more", "doubt", "detail", "details", "data", "context", "specific",
    "further", "such", "answer", "record", "change", "changes", "time", "problem", "point", "difference", "question",
    "body", "proof", "explicit", "direct", "new", "access", "chance", "interest", "effect",
})


def _answer_word(tokens: list[str], i: int) -> str | None:
    value = _yes_no(tokens[i])
    if value == NO and tokens[i] == "no" and i + 1 < len(tokens) and tokens[i + 1] in _NO_NOUNS:
        return None
    return value


def _read_yes_no(text: str) -> Extraction:
    """The first yes/no word of the cleaned text decides; "yes or no" / "Yes/No" (the options echoed) is ambiguous.

    "no" used as a determiner ("I have no idea", "There is no indication that ..., so yes") is not an answer word.
    """
    tokens = text.split()
    found = [(i, v) for i in range(len(tokens)) if (v := _answer_word(tokens, i)) is not None]
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
#: A knowing verb right after one of these is not a statement about the person asked about: "I know", "you're
#: aware", "wants to know", "let me know", "you'll know".
_NOT_ABOUT_THEM = frozenset({"i", "you", "we", "me", "us", "re", "ll", "ve", "d", "m", "let", "please"})
#: "to know" after one of these is a wish, not knowledge ("a user who wants to know"); "Beth seems to know" counts.
_WISHES = frozenset({
    "want", "wants", "wanted", "need", "needs", "needed", "like", "likes", "love", "hope", "hopes", "wish", "wishes",
    "try", "tries", "trying", "going", "curious", "interested", "eager",
})
#: "I don't think Beth knows" answers for Beth: a negated opinion counts whoever holds it.
_OPINION_VERBS = frozenset({"think", "thinks", "believe", "believes"})
# Both options echoed back to back, e.g. "(knows about it / does not know about it)".
_ECHO = re.compile(rf"\b(?:{KNOWS}(?: or| and)? {DOES_NOT_KNOW}|{DOES_NOT_KNOW}(?: or| and)? {KNOWS})\b")


def _about_them(text: str, start: int) -> bool:
    """Whether the verb at `start` is said of a third person (not "I", "you", "to know", "let me know")."""
    before = text[:start].split()
    if before and before[-1] == "to":
        return len(before) < 2 or before[-2] not in _WISHES
    return not before or before[-1] not in _NOT_ABOUT_THEM


def _read_knowledge(text: str) -> Extraction:
    """A negated knowing verb anywhere wins; else a knowing word said of someone; else nothing.

    Negation wins because the answer is about one person's belief and the usual long form is "Anne knows that Beth
    does not know about it": the positive "knows" there is about Anne, the negative about Beth. Either verb counts
    only when said of a third person: "a user who wants to know about it" or "glad that you're aware" say nothing
    about Beth.
    """
    hits: list[tuple[int, str]] = [
        (m.start(), DOES_NOT_KNOW)
        for m in _NEGATIVE.finditer(text)
        if m.group(0).split()[-1] in _OPINION_VERBS or _about_them(text, m.start())
    ]
    masked = _NEGATIVE.sub(lambda m: " " * len(m.group(0)), text)  # keep offsets; hide the negated verbs
    hits += [(m.start(), KNOWS) for m in _POSITIVE.finditer(masked) if _about_them(masked, m.start())]
    matched = _distinct([v for _, v in sorted(hits)])
    if _ECHO.search(text):
        return Extraction(predicted=None, ambiguous=True, matched=matched)
    if DOES_NOT_KNOW in matched:
        return Extraction(predicted=DOES_NOT_KNOW, matched=matched)
    if KNOWS in matched:
        return Extraction(predicted=KNOWS, matched=matched)
    return Extraction(predicted=None)


# --- public API -------------------------------------------------------------------------------------------------------


def _not_named(question: str, candidates: tuple[str, ...], keep: str | None = None) -> tuple[str, ...]:
    """Drop the candidates that the question itself names (read with the same consuming scan), except `keep`.

    "In which container was the apple before Anne moved the apple to the crate?" names the crate, and the usual
    full-sentence answer repeats it ("It was in the basket before Anne moved it to the crate."). A name that the
    question supplies is context, not a rival answer; the expected answer is never dropped.
    """
    if not question:
        return candidates
    named = {normalise(name) for name in _read_names(normalise(question), candidates).matched}
    if keep is not None:
        named.discard(normalise(keep))
    return tuple(cand for cand in candidates if normalise(cand) not in named)


def extract_answer(
    response: str,
    answer_type: AnswerType | str,
    candidates: Sequence[str] = (),
    *,
    question: str = "",
    story: str = "",
    memo: AnswerMemo | None = None,
) -> Extraction:
    """Read the answer a response gives, without knowing the expected one (strict rules).

    `candidates` are the names a container/room answer may take (all context containers, or all rooms); they are
    ignored for yes/no and knowledge questions. With `question`, candidates the question names are not recognised;
    with `story`, copies of story sentences are not read (see `answer_text`). `memo`: see `AnswerMemo`.
    """
    answer_type = AnswerType(answer_type)
    # knowledge answers are themselves negations ("Beth doesn't think Anne knows"): nothing is denied there
    text, discarded = answer_text(response, story, memo, deny=answer_type is not AnswerType.KNOWLEDGE)
    if answer_type in (AnswerType.CONTAINER, AnswerType.ROOM):
        reading = _read_names(text, _remembered(memo, _not_named, question, tuple(candidates)), memo)
    elif answer_type is AnswerType.YES_NO:
        reading = _read_yes_no(text)
    else:
        reading = _read_knowledge(text)
    return replace(reading, discarded=discarded)


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
    story: str = "",
    memo: AnswerMemo | None = None,
) -> Verdict:
    """Judge `response` against `expected`.

    In strict mode the response is first cut to what can carry an answer (`answer_text`: no hedges, questions back,
    conditionals or copies of the story); then a name answer is correct iff the set of candidates it names is
    exactly {expected} (`expected` is added to `candidates`, so an empty list still works, but then no other name
    can be recognised as a rival); a yes/no or knowledge answer is correct iff the reading equals the canonical
    `expected`. In substring mode, the original test `expected in response.lower()` decides, on the response without
    what it denies (`tombench.dsl.denials`: "Anne will not look in the box" does not say "box"), and nothing is read
    (`predicted` is None).

    Pass the `question` text for name questions: candidates it names (other than `expected`) are then not counted
    as rivals, so a full-sentence answer to an M-before question that repeats the question's event is not ambiguous.
    Pass the `story` so that a response restating it is not read as an answer. Substring mode ignores both, as the
    original did. A caller that checks many responses passes an `AnswerMemo` (see there).
    """
    answer_type = AnswerType(answer_type)
    if mode == "substring":
        said = response if answer_type is AnswerType.KNOWLEDGE else strip_denials(response)
        return Verdict(correct=expected in said.lower(), predicted=None)
    if mode != "strict":
        raise ValueError(f"Invalid check mode {mode!r}. Must be one of: ['strict', 'substring']")
    canonical = _remembered(memo, _canonical_expected, expected, answer_type)
    if answer_type in (AnswerType.CONTAINER, AnswerType.ROOM):
        text, discarded = answer_text(response, story, memo)
        not_named = _remembered(memo, _not_named, question, (canonical, *candidates), canonical)
        reading = _read_names(text, not_named, memo)
        reading = replace(reading, discarded=discarded)
        correct = [normalise(m) for m in reading.matched] == [normalise(canonical)]
    else:
        reading = extract_answer(response, answer_type, story=story, memo=memo)
        correct = reading.predicted == canonical
    return Verdict(correct=correct, predicted=reading.predicted, ambiguous=reading.ambiguous, matched=reading.matched,
                   discarded=reading.discarded)
