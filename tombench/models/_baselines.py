"""Offline baseline answerers: pure functions from a prompt to a short answer.

Each baseline answers one ExploreToM-style prompt (`{story}\\n{question} Short Answer.`, see
`tombench.dsl.prompting`) without a model or a network, so every command has an honest offline default and the
leaderboard has reference points:

* ``oracle``: parses the story with the DSL and answers from the tracker (100% on raw structures);
* ``reality``: answers with the true world state, as if every mind knew it (no theory of mind);
* ``recency``: the most recently mentioned candidate of the asked type ("yes" / "knows about it" for yes/no and
  knowledge questions);
* ``primacy``: the first mentioned candidate ("no" / "does not know about it");
* ``random``: a seeded random candidate, the seed mixed with a SHA-256 of the prompt so that equal prompts get
  equal answers in every process.

None of them may crash on a prompt they do not understand (ToMi items, multiple choice, free text): they fall back
to a documented guess (see docs/how-to/baselines.md). Everything here is deterministic and free of I/O apart from
reading the packaged context bank once, which makes stories with object-state sentences parseable.
"""

from __future__ import annotations

import functools
import hashlib
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

from tombench.dsl import (
    AnswerType,
    Context,
    Question,
    Story,
    StoryParseError,
    parse_structure,
    split_sentences,
    tomi_question,
)
from tombench.dsl.answers import DOES_NOT_KNOW, KNOWS, NO, YES
from tombench.dsl.render import WHILE_PREFIX

__all__ = [
    "BASELINES",
    "UNKNOWN",
    "ParsedPrompt",
    "answer",
    "answer_question",
    "offered_answers",
    "prompt_seed",
    "split_prompt",
]

BASELINES: tuple[str, ...] = ("oracle", "reality", "recency", "primacy", "random")
"""The baseline names, as used in `--model tombench/<name>`."""

UNKNOWN = "I don't know"
"""The answer when a prompt gives no candidates at all: wrong under every matcher, never a lucky guess."""

SUFFIX = " Short Answer."

_CONTAINER_Q = re.compile(r"^In which container .*\bthe (?P<thing>.+?)(?: at the beginning| now| before .+)?\?$")
_ROOM_Q = re.compile(r"^In which room .*\bthe (?P<thing>.+?)(?: at the beginning| now| before .+)?\?$")
_ROOM_Q_PERSON = re.compile(r"^In which room does \S+ think that \S+ will search for the (?P<thing>.+)\?$")
_STATE_Q = re.compile(
    r"^Does \S+ (?:believe|think that \S+ believes) that the (?P<claim>.+)\? Answer yes or no\.$"
)
_K1_Q = re.compile(r"^Does \S+ know about (?P<thing>.+)\? Answer yes or no\.$")
_K2_Q = re.compile(r"^What does \S+ think about \S+'s belief on (?P<thing>.+)\? \(knows about it / does not know")
_OPTION = re.compile(r"^\s*\(?([A-Za-z])[).:]\s*\S")
#: Hi-ToM lists its options on one line: "Choices: A. red_box, B. blue_jar, ..."
_INLINE_CHOICES = re.compile(r"^Choices:\s*(.+)$", re.MULTILINE)
_INLINE_OPTION = re.compile(r"(?:^|,\s+)([A-Z])\.\s")
#: An answer instruction that offers its answers as quoted words: 'Answer with "positive", "neutral", or "negative".',
#: 'Answer the question with "Yes" or "No".' (OpenToM); the words are the alternatives, in the order offered.
_OFFERED = re.compile(
    r'\b(?:answer|respond|reply)\b(?:\s+\w+){0,3}?\s+with\s+(?:just\s+)?'
    r'("[^"\n]+"(?:\s*,\s*(?:or\s+)?"[^"\n]+"|\s+or\s+"[^"\n]+")+)',
    re.IGNORECASE,
)
_QUOTED = re.compile(r'"([^"\n]+)"')
#: The same offer unquoted: "Answer yes or no." (FANToM's yes/no questions).
_YES_OR_NO = re.compile(r"\banswer\s+(yes)\s+or\s+(no)\b", re.IGNORECASE)
_LOCATION_PHRASE = re.compile(r"\b(?:in|into|to|on|inside) the ([a-z][a-z_ ]*?)(?=[,.;!?]|\s+(?:in|at|and|which|leaving)\b|$)")


@dataclass(frozen=True)
class ParsedPrompt:
    """A prompt split into the story and the question, with the question's answer type when it is a §5.1 one."""

    story: str
    question: str
    answer_type: AnswerType | None
    thing: str = ""
    claim: str | None = None
    """For state questions (S1, S2): "{object} {value}", split only against the story's world state."""


@dataclass
class _Analysis:
    """What the story text tells about candidates and the world, computed once per story text."""

    story: Story | None
    exact: bool
    containers: tuple[str, ...] = ()
    rooms: tuple[str, ...] = ()

    @functools.cached_property
    def questions(self) -> dict[str, Question]:
        """The story's questions by text (only the oracle reads them: built on its first question, not per parse).
        A best-effort parse lost object-state sentences: its location answers still stand, its state answers do
        not."""
        if self.story is None:
            return {}
        return {
            q.text: q
            for q in self.story.questions(first_order_room_questions=True)
            if self.exact or q.answer_type in (AnswerType.CONTAINER, AnswerType.ROOM)
        }


def split_prompt(text: str) -> ParsedPrompt:
    """Split a user message into story and question; the question is the last line, " Short Answer." removed."""
    text = text.strip()
    story, _, question = text.rpartition("\n")
    question = question.strip()
    if question.endswith(SUFFIX.strip()):
        question = question[: -len(SUFFIX.strip())].rstrip()
    story = story.strip()
    question = tomi_question(question) or question  # ToMi's forms, read as the DSL questions they ask
    for pattern, atype in ((_CONTAINER_Q, AnswerType.CONTAINER), (_ROOM_Q, AnswerType.ROOM)):
        if m := pattern.match(question):
            thing = m.group("thing")
            if atype is AnswerType.ROOM and (m2 := _ROOM_Q_PERSON.match(question)):
                thing = m2.group("thing")
            return ParsedPrompt(story, question, atype, thing)
    if m := _STATE_Q.match(question):
        return ParsedPrompt(story, question, AnswerType.YES_NO, "", m.group("claim"))
    if m := _K1_Q.match(question):
        return ParsedPrompt(story, question, AnswerType.YES_NO, m.group("thing"))
    if m := _K2_Q.match(question):
        return ParsedPrompt(story, question, AnswerType.KNOWLEDGE, m.group("thing"))
    return ParsedPrompt(story, question, None)


def prompt_seed(seed: int, text: str) -> int:
    """A stable per-prompt seed: SHA-256 of (seed, text), never Python's salted `hash`."""
    digest = hashlib.sha256(f"{seed}\n{text}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@functools.lru_cache(maxsize=1)
def _bank_contexts() -> tuple[Context, ...]:
    """Contexts whose state-change templates may be needed to parse a story (the packaged bank)."""
    try:
        from tombench.generators.exploretom.contexts import load_context_bank

        return tuple(c for c in load_context_bank() if c.state_changes)
    except Exception:  # a broken bank must not break a baseline: stories then parse without state changes
        return ()


def _without_unparseable(sentences: list[str], failing: int) -> list[str]:
    """Drop sentence `failing` and the modifier sentence that belongs to it."""
    out = sentences[:failing]
    rest = sentences[failing + 1 :]
    while rest and rest[0].startswith(WHILE_PREFIX):
        rest = rest[1:]
    return out + rest


def _parse(story_text: str, contexts: Sequence[Context]) -> tuple[Story | None, bool]:
    """Parse the story exactly if possible (plain, then with each context whose templates fit); else best effort.

    Best effort drops sentences that are not template sentences (object-state changes of an unknown context): the
    locations they leave are still exact, only state questions are lost. Returns (story or None, exact).
    """
    try:
        return parse_structure(story_text), True
    except StoryParseError as err:
        first_error = err
    sentences = split_sentences(story_text)
    bad = sentences[first_error.index] if first_error.index is not None else None
    for ctx in (*contexts, *_bank_contexts()):
        if bad is not None and not any(
            re.fullmatch(re.escape(sc.text).replace(r"\{person\}", r"\S+").replace(r"\{object\}", ".+"), bad)
            for sc in ctx.state_changes
        ):
            continue
        try:
            return parse_structure(story_text, ctx), True
        except StoryParseError:
            continue
    for _ in range(len(sentences)):
        if not sentences:
            break
        try:
            return parse_structure(" ".join(sentences)), False
        except StoryParseError as err:
            if err.index is None:
                break
            sentences = _without_unparseable(sentences, err.index)
    return None, False


@functools.lru_cache(maxsize=4096)
def _analyse(story_text: str, contexts: tuple[Context, ...] = ()) -> _Analysis:
    story, exact = _parse(story_text, contexts)
    if story is None:
        return _Analysis(None, False)
    return _Analysis(story, exact, tuple(story.context.containers), tuple(story.context.rooms))


def _mentions(text: str, candidates: Sequence[str]) -> tuple[tuple[int, str], ...]:
    """(position, candidate) for every whole-word mention, longest names first so "black bin" hides "bin"."""
    return _mentions_in(text, tuple(candidates))


@functools.lru_cache(maxsize=1024)
def _mentions_in(text: str, candidates: tuple[str, ...]) -> tuple[tuple[int, str], ...]:
    """`_mentions`, cached: a story's questions share its text and candidates (the search asks them one after
    another), so the story is scanned once per candidate list, not once per question."""
    lowered = text.lower()
    taken = [False] * len(lowered)
    found: list[tuple[int, str]] = []
    for cand in sorted(set(candidates), key=len, reverse=True):
        for m in re.finditer(r"(?<![\w])" + re.escape(cand.lower()) + r"(?![\w])", lowered):
            if not any(taken[m.start() : m.end()]):
                found.append((m.start(), cand))
                for i in range(m.start(), m.end()):
                    taken[i] = True
    return tuple(sorted(found))


def _candidates(p: ParsedPrompt, a: _Analysis) -> list[str]:
    """The names of the asked type in order of first mention (fallback: location phrases of a free-text story)."""
    if p.answer_type is AnswerType.YES_NO:
        return [YES, NO]
    if p.answer_type is AnswerType.KNOWLEDGE:
        return [KNOWS, DOES_NOT_KNOW]
    if a.story is not None and p.answer_type in (AnswerType.CONTAINER, AnswerType.ROOM):
        names = a.containers if p.answer_type is AnswerType.CONTAINER else a.rooms
    else:
        names = tuple(dict.fromkeys(m.group(1).strip() for m in _LOCATION_PHRASE.finditer(p.story.lower())))
    if p.thing:
        names = tuple(n for n in names if n != p.thing)
    seen = dict.fromkeys(c for _, c in _mentions(p.story, names))
    return list(seen)


def _options(question_block: str) -> list[str]:
    """Option letters of a multiple-choice prompt ("A) ...", "(b) ...", "C. ...", "a)text", or one "Choices: A. x,
    B. y" line), in order: the run A, B, C, ... so that a stray "I." in a story is not taken for an option."""
    found = [m.group(1).upper() for line in question_block.splitlines() if (m := _OPTION.match(line))]
    if not found and (m := _INLINE_CHOICES.search(question_block)):
        found = _INLINE_OPTION.findall(m.group(1))
    run: list[str] = []
    for letter in found:
        if letter == chr(ord("A") + len(run)):
            run.append(letter)
    return run


def offered_answers(text: str) -> list[str]:
    """The answers a free-text prompt's last answer instruction offers, in its order and spelling ("more full",
    "Yes"; or "yes", "no" from an unquoted "Answer yes or no."); [] when it offers none (e.g. a location question)."""
    found: list[list[str]] = [[m.start(), *_QUOTED.findall(m.group(1))] for m in _OFFERED.finditer(text)]
    found += [[m.start(), m.group(1), m.group(2)] for m in _YES_OR_NO.finditer(text)]
    if not found:
        return []
    words = [str(w) for w in max(found, key=lambda f: f[0])[1:]]
    return list(dict.fromkeys(words))


def _format_letter(letter: str, text: str) -> str:
    """A letter in the format the prompt asks for: Inspect's `ANSWER: $LETTER`, the RL `<answer>X</answer>`, or bare."""
    if "<answer>" in text:
        return f"<think>baseline</think><answer>{letter}</answer>"
    if "ANSWER: $LETTER" in text:
        return f"ANSWER: {letter}"
    return letter


def _ordered(p: ParsedPrompt, a: _Analysis, last: bool) -> str | None:
    """The first or last mentioned candidate of the asked type (None when there is none)."""
    if p.answer_type is AnswerType.YES_NO:
        return YES if last else NO
    if p.answer_type is AnswerType.KNOWLEDGE:
        return KNOWS if last else DOES_NOT_KNOW
    names = _candidates(p, a)
    if not names:
        return None
    if not last:
        return names[0]
    mentions = _mentions(p.story, names)
    return mentions[-1][1]


def _reality(p: ParsedPrompt, a: _Analysis) -> str | None:
    """The true world state, as if every mind held it; None when the story gives no world state for the question."""
    if a.story is None or p.answer_type is None:
        return None
    world = a.story.state.world
    if p.answer_type is AnswerType.KNOWLEDGE:
        return KNOWS
    if p.answer_type is AnswerType.YES_NO:
        if p.claim is None:  # K1: the topic was told, so an omniscient reader says everyone knows it
            return YES
        return YES if any(isinstance(v, str) and f"{e} {v}" == p.claim for (e, _), v in world.items()) else NO
    prop = "container" if p.answer_type is AnswerType.CONTAINER else "room"
    value = world.get((p.thing, prop))
    return value if isinstance(value, str) and value in (a.containers + a.rooms) else None


def _pick_listed(name: str, choices: Sequence[str], seed: int, text: str) -> str:
    """A baseline's guess among answers the prompt lists itself: nothing in the story ranks them, so recency takes
    the last, random a seeded one and every other baseline the first."""
    if name == "random":
        return random.Random(prompt_seed(seed, text)).choice(choices)
    return choices[-1] if name == "recency" else choices[0]


def _answer_listed(name: str, text: str, seed: int) -> str | None:
    """The answer to a prompt that is no §5.1 question but lists its answers, as option letters (multiple choice,
    in the format the prompt asks for) or as words its instruction offers; None when it lists none."""
    options = _options(text)
    if options:
        return _format_letter(_pick_listed(name, options, seed, text), text)
    offered = offered_answers(text)
    if offered:
        return _pick_listed(name, offered, seed, text)
    return None


def _answer_from_story(name: str, p: ParsedPrompt, a: _Analysis, seed: int, text: str) -> str:
    """Each baseline's own rule over the story's candidates. The oracle falls back to reality, then recency, when
    the tracker has no answer: an unparseable story still gets the best guess a story-reader can make."""
    if name == "oracle" and (q := a.questions.get(p.question)) is not None:
        return q.answer
    if name in ("oracle", "reality"):
        result = _reality(p, a) or _ordered(p, a, last=True)
    elif name in ("recency", "primacy"):
        result = _ordered(p, a, last=name == "recency")
    else:
        names = _candidates(p, a)
        result = random.Random(prompt_seed(seed, text)).choice(names) if names else None
    return result or UNKNOWN


def answer(
    name: str, text: str, *, seed: int = 0, contexts: Sequence[Context] = ()
) -> str:
    """Answer the user message `text` as baseline `name` (one of `BASELINES`).

    `contexts` are extra contexts whose state-change templates make object-state sentences parseable (the packaged
    bank is always tried); `seed` only matters for ``random``.
    """
    if name not in BASELINES:
        raise ValueError(f"Unknown baseline {name!r}. Must be one of: {list(BASELINES)}")
    p = split_prompt(text)
    if p.answer_type is not None:
        return _answer_from_story(name, p, _analyse(p.story, tuple(contexts)), seed, text)
    listed = _answer_listed(name, text, seed)
    if listed is not None:
        return listed
    return _answer_from_story(name, p, _Analysis(None, False), seed, text)


def answer_question(
    name: str, story_text: str, question_text: str, *, seed: int = 0, contexts: Sequence[Context] = ()
) -> str:
    """`answer` for a story and a §5.1 question, put to the baseline exactly as the one prompt builder words it."""
    from tombench.dsl import build_prompt

    return answer(name, build_prompt(story_text, question_text).user, seed=seed, contexts=contexts)
