"""Reading what a model wrote: a JSON value inside prose, a yes/no verdict, a score, a JSON boolean, the option of a
multiple-choice question.

Models asked for "JSON only" or "answer yes or no" still wrap their answer in prose and code fences, so every
generator reads replies leniently. A reply that cannot be read gives `None`, never a guess: the caller decides
whether that is a retry, a rejection or a missing value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from tombench.dsl.denials import denials, strip_denials

__all__ = ["find_json", "read_bool", "read_option", "read_score", "read_yes_no"]

# any language tag after the opening fence; it holds no bracket, so it can never start a JSON value
_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_OPENERS = {dict: "{", list: "["}


def find_json(
    text: str,
    kind: type | tuple[type, ...] = dict,
    *,
    fenced_first: bool = True,
    forgive_trailing_commas: bool = False,
) -> Any:
    """The first JSON object (`kind=dict`), list (`list`) or either (`(dict, list)`) in `text`, or None.

    Every `{`/`[` is tried as a start with a real JSON decoder, so braces in the prose or inside strings cannot
    confuse it; the outermost value wins. With `fenced_first`, code-fenced blocks are searched before the whole
    text, because a model that fences its answer often shows an example in the prose around it.
    `forgive_trailing_commas` reads `{"a": 1,}` as `{"a": 1}` (tried only after the exact text fails at a start).
    """
    kinds = kind if isinstance(kind, tuple) else (kind,)
    openers = "".join(_OPENERS[k] for k in kinds)
    candidates = [m.group(1) for m in _FENCE.finditer(text)] if fenced_first else []
    decoder = json.JSONDecoder()
    for candidate in [*candidates, text]:
        for i, ch in enumerate(candidate):
            if ch in openers and (value := _decode_at(decoder, candidate[i:], forgive_trailing_commas)) is not None:
                return value
    return None


def _decode_at(decoder: json.JSONDecoder, text: str, forgive_trailing_commas: bool) -> Any:
    attempts = (text, _TRAILING_COMMA.sub(r"\1", text)) if forgive_trailing_commas else (text,)
    for attempt in attempts:
        try:
            return decoder.raw_decode(attempt)[0]
        except json.JSONDecodeError:
            continue
    return None


def read_yes_no(text: str, *, label: str | None = None) -> bool | None:
    """A yes/no verdict: True, False, or None for anything else ("maybe", "it depends", empty).

    Without `label`, the reply's first word decides (after an optional leading "Answer"), as a judge asked to
    "answer yes or no" tends to start with its verdict and then explain. With `label` (e.g. "Persuaded"), the reply
    is reasoning that ends in "<label>: yes/no": the last such label decides, else the reply must be a lone yes/no.
    """
    if label is None:
        words = re.findall(r"[a-z]+", text.lower())
        if words[:1] == ["answer"]:
            words = words[1:]
        return _YES_NO.get(words[0]) if words else None
    labelled = re.findall(rf"{re.escape(label)}\s*[:=]\s*\**\s*(yes|no)\b", text, re.IGNORECASE)
    if labelled:
        return labelled[-1].lower() == "yes"
    return _YES_NO.get(text.strip().strip(".!").lower())


_YES_NO = {"yes": True, "no": False}
_SCORE = re.compile(r"score\s*[:=]?\s*\**\s*(\d+(?:\.\d+)?)", re.IGNORECASE)


def read_score(text: str, low: float = 1, high: float = 10) -> float | None:
    """The last "Score: N" in `text` (or a bare number if that is all there is), if within [low, high]."""
    matches = _SCORE.findall(text)
    if not matches:
        bare = text.strip().rstrip(".")
        matches = [bare] if re.fullmatch(r"\d+(?:\.\d+)?", bare) else []
    if not matches:
        return None
    value = float(matches[-1])
    return value if low <= value <= high else None


def read_bool(value: Any) -> bool | None:
    """A JSON field meant as a boolean, which models also write as "yes", "Y", 1 or "false"."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return bool(value)
    if isinstance(value, str):
        v = value.strip().lower()
        if v in {"true", "yes", "y", "1"}:
            return True
        if v in {"false", "no", "n", "0"}:
            return False
    return None


# ------------------------------------------------------------------------------------------------------ options
# Which lettered option a reply picks, read as a careful grader reads it. Every multiple-choice
# suite and ToM-Synth read through `read_option`, so "The answer is B." means B in every column of a report.
_CLEAN = (
    (re.compile(r"\\boxed\s*\{\s*([^{}]*?)\s*\}"), r"\1"),  # $\boxed{F}$
    (re.compile(r"\\text\s*\{\s*([^{}]*?)\s*\}"), r"\1"),
    (re.compile(r"\*\*|__|`|\$"), ""),  # bold, code, maths markers
    (re.compile(r"[：]"), ":"),
)
_WORDISH = "A-Za-z0-9'’_"
# a cue after which the answer letter comes; "strong" ones name the answer, the weak ones only conclude
_STRONG_CUE = re.compile(
    r"(?:\b(?:final|correct|right|best|most\s+likely|my)\s+)?\banswer\b\s*(?:is|would\s+be|should\s+be|will\s+be)?\s*:?"
    r"|\b(?:correct|right|best)\s+(?:option|choice)\s*(?:is|would\s+be)?\s*:?"
    r"|\b(?:option|choice)\b\s*:?"
    r"|\bI\s*(?:would|'d|will|'ll)?\s*(?:choose|pick|select|go\s+with|say)\s*(?:option\s*)?:?"
    r"|(?:正确)?答案\s*(?:应该)?(?:是|为)?\s*:?|选(?:择)?",
    re.IGNORECASE,
)
_WEAK_CUE = re.compile(r"\b(?:so|therefore|thus|hence|it\s+is|it's|that\s+is|that's)\b\s*,?\s*", re.IGNORECASE)
_REASONING = re.compile(r"^\W*(?:let'?s|let\s+us|step\s+by\s+step|step\s*\d|first(?:ly)?\b|to\s+(?:answer|solve|determine)"
                        r"|we\s+need)",
                        re.IGNORECASE)
_REFUSAL = re.compile(
    r"\b(?:not\s+sure|unsure|unclear|cannot|can't|can\s*not|don't\s+know|do\s+not\s+know|not\s+enough|impossible\s+to"
    r"|hard\s+to\s+(?:say|tell)|neither|none\s+of|either|both|could\s+be|might\s+be)\b|无法|不确定",
    re.IGNORECASE,
)
_OR = re.compile(r"\s*(?:,|/|&|\bor\b|\band\b|或|、|和)\s*(?:(?:option|choice)\s+)?", re.IGNORECASE)
_LABEL = re.compile(r"(?:(\[\[|\[|\()\s*)?([A-Za-z])(?:\s*(\]\]|\]|\)))?")
_STOP = {"a", "an", "the", "is", "are", "to", "of", "in", "on", "at", "and", "or", "it", "that", "this", "be", "for",
         "with", "her", "his", "she", "he", "they", "their", "will", "would", "not", "no"}


def _plain(text: str) -> str:
    for pattern, repl in _CLEAN:
        text = pattern.sub(repl, text)
    return text.strip().strip("\"'“”‘’ ")


def _norm(text: str) -> list[str]:
    """Lower-case words with underscores as spaces and articles dropped (option texts and replies alike)."""
    return [w for w in re.sub(r"[_\W]+", " ", text.lower()).split() if w not in ("a", "an", "the")]


def _find(words: list[str], phrase: list[str]) -> int:
    n = len(phrase)
    return next((i for i in range(len(words) - n + 1) if n and words[i : i + n] == phrase), -1)


def _token(text: str, i: int, letters: str, options: Sequence[str]) -> tuple[str, int] | None:
    """A label at `text[i:]`: "F", "(F)", "[F]", "[[F]]", "b)" — the canonical letter and where it ends, or None."""
    m = _LABEL.match(text, i)
    if not m or (i > 0 and re.match(f"[{_WORDISH}\\\\]", text[i - 1])):
        return None  # inside a word ("sofa)") or a LaTeX command
    letter = next((c for c in letters if c.lower() == m.group(2).lower()), None)
    if letter is None:
        return None
    own = options[letters.index(letter)] if options else ""
    if m.group(1) or m.group(3) or _ends_label(text[m.end() :], m.group(2), own):
        return letter, m.end()
    return None


def _ends_label(rest: str, written: str, own: str) -> bool:
    """Whether what follows a bare letter makes it a label: the end, punctuation, a CJK character, a line break.

    Followed by more words, a letter that is also an English word ("A", "I") or written in lower case ("a red
    basket") is a label only when its own option text follows ("A green_crate"), so "A red basket" and "I think"
    are words, not options A and I; "B because ..." is option B.
    """
    if not rest:
        return True
    if re.match(f"[{_WORDISH}]", rest[0]):
        return False  # inside a word ("Answer")
    if not rest[0].isspace():
        return True
    after = rest.lstrip()
    if not after or not re.match(f"[{_WORDISH}]", after[0]) or "\n" in rest[: len(rest) - len(after)]:
        return True  # the letter ends its line ("ANSWER: A\nShe smiles ...")
    words = _norm(own)
    if words and _norm(after)[: len(words)] == words:
        return True
    return not (written in "AaIi" or written.islower())


def _hedged(text: str, end: int, letter: str, letters: str, options: Sequence[str]) -> bool:
    """Whether the label ending at `end` is one of several offered ("B or C", "A, B", "F. x or B. y", "A或B")."""
    line = text[end:].split("\n", 1)[0]
    for m in _OR.finditer(line):
        other = _token(line, m.end(), letters, options)
        if other is not None and other[0] != letter:
            return True
    return False


def _after_cues(text: str, cue: re.Pattern[str], letters: str, options: Sequence[str], *, concluding: bool) -> list:
    """(letter, hedged) for each cue followed by a label. A concluding cue ("so", "therefore") counts only when
    its label ends the sentence ("..., so A." but not "so (a) is wrong")."""
    found = []
    for m in cue.finditer(text):
        tok = _token(text, m.end() + len(text[m.end() :]) - len(text[m.end() :].lstrip()), letters, options)
        if tok is None:
            continue
        if concluding and not re.match(r"\s*(?:[.!。\n]|$)", text[tok[1] :]):
            continue
        found.append((tok[0], _hedged(text, tok[1], tok[0], letters, options)))
    return found


def _bracketed(text: str, letters: str, options: Sequence[str], closing_only: bool) -> set[str]:
    """Every "(X)", "[X]", "[[X]]" (and with `closing_only`, "x)" after a space) anywhere in the reply."""
    pattern = r"(?:\[\[|\[|\()\s*[A-Za-z]\s*(?:\]\]|\]|\))" + (r"|(?<![A-Za-z0-9])[A-Za-z]\)" if closing_only else "")
    return {tok[0] for m in re.finditer(pattern, text) if (tok := _token(text, m.start(), letters, options))}


def _named(segment: str, letters: str, options: Sequence[str]) -> str | None:
    """The one option whose text the segment states: its whole text, its text without a leading subject ("will
    look for a different vase" for "Tamsin will look for a different vase"), else the words only it has."""
    words = _norm(segment)
    texts = [_norm(o) for o in options]
    whole = _spans(words, texts)
    if not whole:
        whole = _spans(words, [t[1:] if len(t) >= 4 else [] for t in texts])
    if whole:
        return letters[whole[0]] if len(set(whole)) == 1 else None
    own = [set(t) - _STOP - set().union(*(set(u) for j, u in enumerate(texts) if j != i)) for i, t in enumerate(texts)]
    hits = {i for i, o in enumerate(own) if o & set(words)}
    return letters[hits.pop()] if len(hits) == 1 else None


def _spans(words: list[str], texts: list[list[str]]) -> list[int]:
    """Indices of the texts found in `words`, longest first, a found text's words not reused by a shorter one."""
    taken = [False] * len(words)
    found = []
    for i in sorted(range(len(texts)), key=lambda k: -len(texts[k])):
        t, n = texts[i], len(texts[i])
        for s in range(len(words) - n + 1 if n else 0):
            if words[s : s + n] == t and not any(taken[s : s + n]):
                found.append(i)
                taken[s : s + n] = [True] * n
    return found


def read_option(text: str, letters: str, options: Sequence[str] = (), *, closing_keys: bool = False) -> str | None:
    """The option (one of `letters`, as given) a reply picks, or None when it picks none, several, or hedges.

    Read as a careful grader reads: the last stated answer ("Answer: B", "The answer is (B).", "I would choose B",
    "答案是B") wins; else a label opening the reply ("B", "(B)", "[[B]]", "B. text", "B\\n\\nExplanation ...");
    else a concluding label ("..., so B."); else the one "[[X]]" anywhere, or the one bracketed label ("... (C)");
    else, unless the reply opens with reasoning or declines, the one option its first sentence states in words. A label offered
    with another ("B or C", "A, B") is a hedge (None). What the reply denies ("not A", "B is wrong", "A? No.") is
    never read: a reply that only denies picks nothing. Letters are read in either case; "A"/"I" followed by words
    are read as the article and the pronoun unless option A's (I's) text follows. `closing_keys` also reads "b)"
    anywhere (BigToM's key format), never inside a word ("sofa)"). An option the reply states and later denies is
    withdrawn: the reply is read again from after that denial ("Answer: F. Wait, no - F is wrong. A." is A).
    """
    said = _plain(text or "")
    letter = _read(said, letters, options, closing_keys)
    if letter is not None and (rest := _after_withdrawal(said, letter, letters, options)) is not None:
        return read_option(rest, letters, options, closing_keys=closing_keys)
    return letter


def _after_withdrawal(said: str, letter: str, letters: str, options: Sequence[str]) -> str | None:
    """The text after the last denial that names `letter` (by its label or its text), or None if none does.

    The final affirmed choice is the answer: what a reply chose before denying it no longer stands, and what it
    says after the denial (the same option again, another one, or nothing) decides."""
    named = [d for d in denials(said, options) if _names(said[d.start : d.end], letter, letters, options)]
    return said[named[-1].end :] if named else None


def _names(span: str, letter: str, letters: str, options: Sequence[str]) -> bool:
    """Whether a denied span names `letter`: as a label ("F", "(F)") or in words ("the wardrobe")."""
    labels = {tok[0] for i in range(len(span)) if (tok := _token(span, i, letters, options))}
    return letter in labels or bool(options) and _named(span, letters, options) == letter


def _read(said: str, letters: str, options: Sequence[str], closing_keys: bool) -> str | None:
    """`read_option`'s reading of the reply without what it denies."""
    text = _affirmed(said, options)
    if not text:
        return None
    steps = (
        lambda: _after_cues(text, _STRONG_CUE, letters, options, concluding=False)[-1:],
        lambda: [(t[0], _hedged(text, t[1], t[0], letters, options))] if (t := _token(text, 0, letters, options)) else [],
        lambda: _after_cues(text, _WEAK_CUE, letters, options, concluding=True)[-1:],
    )
    for step in steps:
        if found := step():
            letter, hedged = found[0]
            return None if hedged else letter
    doubled = {tok[0] for m in re.finditer(r"\[\[", text) if (tok := _token(text, m.start(), letters, options))}
    cited = doubled or _bracketed(text, letters, options, closing_keys)  # "[[X]]" is a format asked for by name
    if cited:
        return cited.pop() if len(cited) == 1 else None
    first = _first_sentence(text)
    if not options or _REASONING.match(said) or _REFUSAL.search(first) or _REFUSAL.search(_first_sentence(said)):
        return None
    return _named(first, letters, options)


def _first_sentence(text: str) -> str:
    return re.split(r"(?<=[.!?。])\s+|\n", text, maxsplit=1)[0]


def _affirmed(text: str, options: Sequence[str]) -> str:
    """The reply without what it denies ("not A", "B is wrong", "A? No.", "A - just kidding", "不是A": the shared
    rule of `tombench.dsl.denials`), so a denied option is never read and the option stated after it is: "The answer
    is not A but D." reads as "The answer is D.". An option's own negation ("Not reasonable") is kept. Leading
    punctuation left by a blanked denial is dropped, so "A? No. C." opens with its answer."""
    return strip_denials(text, options).strip().lstrip(".,;:!?。，；：！？-–— \n").strip()
