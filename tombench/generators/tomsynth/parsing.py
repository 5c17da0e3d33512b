"""Robust parsing of generator and verifier outputs.

Models asked for "raw JSON only" still wrap it in code fences, add prose before or after, use a dict where a list
was asked (or the reverse), rename keys (`Story`, `Choices`, `Correct Answer`), prefix option texts with their
letter, or write the answer as `"(B)"` / `"Option B"`. We accept all of those; anything else is a `ParseError` with
a `kind`, which generation counts and retries (the counts are part of the run report).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from tombench.generators.tomsynth.items import LETTERS
from tombench.kit.calls import MalformedOutput
from tombench.kit.replies import find_json

__all__ = ["ParseError", "ParsedEntry", "Verdict", "JUDGMENTS", "extract_json", "parse_entry", "parse_verdict"]

JUDGMENTS: tuple[str, ...] = ("PASS", "AMBIGUOUS", "FALSE", "OTHER")


class ParseError(MalformedOutput):
    """An output we could not turn into an entry; `kind` is the counter it goes to."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind


@dataclass(frozen=True)
class ParsedEntry:
    text: str
    question: str
    options: dict[str, str]
    answer: str
    analysis: str


@dataclass(frozen=True)
class Verdict:
    judgment: str
    correct_answer: str | None
    reason: str


def extract_json(text: str) -> Any:
    """The first JSON value in `text`, looking inside code fences first, then at every `{`/`[` in order (the
    outermost value first; a trailing comma is forgiven before we fall back to an inner value)."""
    value = find_json(text, (dict, list), forgive_trailing_commas=True)
    if value is not None:
        return value
    if "{" not in text and "[" not in text:
        raise ParseError("no_json", "no JSON object in output")
    raise ParseError("invalid_json", "output contains no decodable JSON value")


def _norm_key(key: str) -> str:
    return re.sub(r"[^a-z]", "", str(key).lower())


_TEXT_KEYS = ("narrative", "dialogue", "story", "scenario", "context", "passage", "text", "conversation")
_QUESTION_KEYS = ("question",)
_OPTIONS_KEYS = ("options", "choices", "answeroptions")
_ANSWER_KEYS = ("answer", "correctanswer", "correctoption", "correct", "label")
_ANALYSIS_KEYS = ("analysis", "explanation", "rationale", "reasoning")


def _pick(obj: dict[str, Any], keys: tuple[str, ...]) -> Any:
    normed = {_norm_key(k): v for k, v in obj.items()}
    for k in keys:
        if k in normed:
            return normed[k]
    return None


def _as_text(value: Any) -> str:
    """Dialogues sometimes come as a list of turns (strings or {speaker, line} dicts): join them into lines."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        lines = []
        for turn in value:
            if isinstance(turn, dict):
                speaker = _pick(turn, ("speaker", "character", "name", "role"))
                line = _pick(turn, ("line", "text", "utterance", "content", "says"))
                lines.append(f"{speaker}: {line}" if speaker else str(line))
            else:
                lines.append(str(turn))
        return "\n".join(lines).strip()
    return "" if value is None else str(value).strip()


_LETTER_PREFIX = re.compile(r"^\s*\(?([A-Da-d])[\).:]\s+")


def _option_text(value: Any, letter: str) -> str:
    """An option's text without the letter models repeat inside it ("B) the box" under key B); another letter is
    left alone, since it may belong to the text."""
    text = _as_text(value)
    pm = _LETTER_PREFIX.match(text)
    if pm and pm.group(1).upper() == letter:
        text = text[pm.end():]
    return text.strip()


def _options_from_dict(value: dict[Any, Any]) -> dict[str, str]:
    """Options keyed by letter, however the model spells the key ("A", "(b)", "Option C:")."""
    out: dict[str, str] = {}
    for k, v in value.items():
        m = re.fullmatch(r"\s*(?:option\s*)?\(?([A-Da-d])\)?[.:]?\s*", str(k), re.IGNORECASE)
        if not m:
            raise ParseError("bad_options", f"option key {k!r} is not a letter A-D")
        letter = m.group(1).upper()
        out[letter] = _option_text(v, letter)
    return out


def _options_from_list(value: list[Any]) -> dict[str, str]:
    """Options given in order, lettered A-D by position; anything but exactly four is an error."""
    out = {letter: _option_text(v, letter) for letter, v in zip(LETTERS, value, strict=False)}
    if len(value) != len(LETTERS):
        raise ParseError("bad_options", f"expected 4 options, got {len(value)}")
    return out


def _parse_options(value: Any) -> dict[str, str]:
    """Options A-D in order from a dict or a list; a `bad_options` ParseError (a counted retry) for anything else,
    a missing letter or an empty option."""
    if isinstance(value, dict):
        out = _options_from_dict(value)
    elif isinstance(value, list):
        out = _options_from_list(value)
    else:
        raise ParseError("bad_options", "options are neither a dict nor a list")
    if sorted(out) != list(LETTERS):
        raise ParseError("bad_options", f"expected options A-D, got {sorted(out)}")
    if any(not t for t in out.values()):
        raise ParseError("bad_options", "an option is empty")
    return {letter: out[letter] for letter in LETTERS}


def _parse_letter(value: Any, options: dict[str, str] | None = None) -> str:
    s = str(value or "").strip()
    m = re.fullmatch(r"(?:option\s*|answer\s*:?\s*)?\(?([A-Da-d])\)?(?:[.):]\s*.*)?", s, re.IGNORECASE | re.DOTALL)
    if m:
        return m.group(1).upper()
    if options:
        for letter, text in options.items():
            if s.lower() == text.lower():
                return letter
    raise ParseError("bad_answer", f"answer {s[:40]!r} is not one of A-D")


def parse_entry(output: str, format: str | None = None) -> ParsedEntry:
    """Parse one synthesised entry (paper App. B output format: a list holding one JSON object)."""
    value = extract_json(output)
    if isinstance(value, list):
        value = next((v for v in value if isinstance(v, dict)), None)
    if not isinstance(value, dict):
        raise ParseError("wrong_keys", "JSON is not an object or a list holding one")
    text_keys = ((format.lower(),) if format else ()) + _TEXT_KEYS
    text = _as_text(_pick(value, text_keys))
    question = _as_text(_pick(value, _QUESTION_KEYS))
    raw_options = _pick(value, _OPTIONS_KEYS)
    raw_answer = _pick(value, _ANSWER_KEYS)
    missing = [
        name
        for name, v in (("text", text), ("question", question), ("options", raw_options), ("answer", raw_answer))
        if not v
    ]
    if missing:
        raise ParseError("wrong_keys", f"missing {', '.join(missing)} (keys: {sorted(value)})")
    options = _parse_options(raw_options)
    answer = _parse_letter(raw_answer, options)
    analysis = _as_text(_pick(value, _ANALYSIS_KEYS))
    return ParsedEntry(text=text, question=question, options=options, answer=answer, analysis=analysis)


def parse_verdict(output: str) -> Verdict:
    """Parse the verifier's JSON (`judgment`, `correct_answer`, `reason`)."""
    value = extract_json(output)
    if isinstance(value, list):
        value = next((v for v in value if isinstance(v, dict)), None)
    if not isinstance(value, dict):
        raise ParseError("wrong_keys", "verdict is not a JSON object")
    judgment = str(_pick(value, ("judgment", "judgement", "verdict", "decision")) or "").strip().upper()
    if judgment not in JUDGMENTS:
        raise ParseError("bad_judgment", f"judgment {judgment[:30]!r} is not one of {', '.join(JUDGMENTS)}")
    correct = _pick(value, ("correctanswer", "correct"))
    correct_letter = None
    if correct not in (None, "", "null", "None"):
        try:
            correct_letter = _parse_letter(correct)
        except ParseError:
            correct_letter = None
    reason = _as_text(_pick(value, ("reason", "explanation", "rationale")))
    return Verdict(judgment=judgment, correct_answer=correct_letter, reason=reason)
