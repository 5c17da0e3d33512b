"""Where a reply denies what it names: "not A", "B is wrong", "A? No.", "A - just kidding", "不是A", "A不对".

A reader that finds an option, a label or a location in a reply must not credit one the reply names only to reject
it; and a reply often rejects one option on its way to the one it chooses ("The answer is not A but D."). Every
reader (the DSL matcher, `tombench.kit.replies.read_option`, OpenToM's and FANToM's readers) asks this module which
parts of a reply sit under a denial, and reads the rest, so "denied" means the same thing everywhere.

A denial is one of two clause-level shapes:

* a **negator before** what it denies ("not", "n't", "never", "nor", "rather than", "instead of", "excluding",
  "rule out", "不是", "并非", "排除", "不选"): its scope runs from the negator to the end of its clause (punctuation, a
  dash, or a clause word: "but", "so", "because", "而", "但"), and a contrast word that closes it ("not A but D",
  "不是C而是A") goes with it, so what follows reads as the answer;
* a **verdict after** the clause it judges ("B is wrong", "(A) is incorrect", "D is not right", "A isn't the
  answer", "A? No", "A - just kidding", "A是错的", "A不对"): the scope is the clause before the verdict, with it.

A negated verb of knowing or perceiving ("does not know", "isn't aware", "didn't see") is not a denial: in a
theory-of-mind reply it is the answer's content ("Ines does not know what the puppy is called"), not a rejection of
an option. Phrases in `keep` (an option's own text, "Not reasonable") carry their own negation: a negator inside one
of them denies nothing.

Pure functions of strings; no state.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

_T = TypeVar("_T")

__all__ = ["Denial", "YES_NO_WORDS", "denials", "read_yes_no_affirmed", "strip_denials"]

#: The answer words of a yes/no reply: what a yes/no reader passes as `only` to `strip_denials`, so that under "not"
#: it loses only these ("Not yes." says no answer, "it is not in its initial location" still says where it is).
YES_NO_WORDS = re.compile(r"\b(?:yes|yeah|yep|yup|no|nope|nah|true|false)\b", re.IGNORECASE)

_EN_NEGATOR = (
    r"\b(?:not|never|nor|rather\s+than|instead\s+of|other\s+than|except(?:\s+for)?|excluding|exclude"
    r"|rul(?:e|ing)\s+out|eliminat(?:e|ing))\b|n[’']t\b"
)
_ZH_NEGATOR = r"并不是|不是|并非|而非|排除|不选|不会是|不可能是|不应该是|不应选"
_NEGATOR = re.compile(rf"{_EN_NEGATOR}|{_ZH_NEGATOR}", re.IGNORECASE)

# A negated verb of knowing or perceiving states a belief; it rejects no option ("she doesn't know", "has not seen").
_MENTAL_VERB = re.compile(
    r"\s*(?:(?:really|even|actually|necessarily|fully|also|yet|quite|ever|have|has|had|be|been)\s+)*"
    r"(?:know|knows|knew|known|knowing|aware|realiz|realis|notic|see|sees|saw|seen|hear|heard|remember|recall"
    r"|understand|learn|told|informed|witness|watch|detect|discover|find|found)",
    re.IGNORECASE,
)

# Where a clause ends: punctuation, a spaced dash, or a word that starts a new clause.
_CLAUSE_END = re.compile(
    r"[,;:.!?。，；：！？\n]|\s[-–—]+\s|[–—]"
    r"|\b(?:but|rather|instead|although|though|whereas|while|so|therefore|thus|hence|because|since|and)\b"
    r"|而|但|所以|因为|因此",
    re.IGNORECASE,
)
# The contrast that turns a denial into a correction ("not A but D", "not A, rather D", "不是C而是A").
_CONTRAST = re.compile(r"\s*[,;，；]?\s*(?:(?:but(?:\s+rather)?|rather|instead)\b|而是|而|但是|但)\s*:?", re.IGNORECASE)

_COPULA = r"(?:is|was|are|seems|looks|sounds|would\s+be|must\s+be|can\s+be|should\s+be|[’']s)"
_GOOD = (r"(?:right|correct|true|valid|accurate|possible|it|the\s+(?:right\s+|correct\s+|best\s+|final\s+)?answer"
         r"|an?\s+option|the\s+case)")
_BAD = r"(?:wrong|incorrect|false|invalid|impossible|unlikely|ruled\s+out|eliminated|excluded|a\s+trap|a\s+distractor)"
_RETRACT = r"(?:just\s+kidding|no\s*,?\s*wait|scratch\s+that|never\s*mind|I\s+take\s+(?:it|that)\s+back)"
_EN_VERDICT = (
    rf"\s*{_COPULA}(?:\s+not|n[’']t|\s+never)\s+{_GOOD}\b"
    rf"|\s*{_COPULA}\s+{_BAD}\b"
    rf"|\s*[-–—,(.]*\s*{_RETRACT}\b\)?"
)
_ZH_VERDICT = r"\s*(?:是错的|是错误的|是不对的|错了|不对|不正确|不是正确答案|不是答案|可以排除|应排除|被排除)"
_VERDICT = re.compile(f"{_EN_VERDICT}|{_ZH_VERDICT}", re.IGNORECASE)
# "A? No.": the question mark asks, the "no" rejects. In a yes/no reply that "no" is also the answer.
_QUESTION_NO = re.compile(r"[?？]\s*(?P<no>(?:no|nope)\b|不是|不对|不)", re.IGNORECASE)


@dataclass(frozen=True)
class Denial:
    """A denied span of a reply: `text[start:end]`. `before` marks a negator's scope ("not A ..."), whose words a
    yes/no reader may keep (only the answer words under it are denied); a verdict's clause ("A is wrong") is denied
    whole."""

    start: int
    end: int
    before: bool


def _kept(text: str, keep: Sequence[str]) -> list[tuple[int, int]]:
    """Where the `keep` phrases occur as whole words (any case): the negators inside them belong to an option's own
    text ("Not reasonable"), while the option "No" says nothing about the "No" inside "Not"."""
    low = text.lower()
    spans = []
    for phrase in keep:
        p = phrase.strip().lower().rstrip(".")
        if p:
            spans += [(m.start(), m.end()) for m in re.finditer(rf"(?<!\w){re.escape(p)}(?!\w)", low)]
    return spans


def _inside(i: int, spans: Sequence[tuple[int, int]]) -> bool:
    return any(s <= i < e for s, e in spans)


def _clause_end(text: str, start: int) -> int:
    m = _CLAUSE_END.search(text, start)
    return m.start() if m else len(text)


def _clause_start(text: str, end: int) -> int:
    """The start of the clause that ends at `end` (after the last clause end before it)."""
    starts = [m.end() for m in _CLAUSE_END.finditer(text, 0, end)]
    return starts[-1] if starts else 0


def _negator_scopes(text: str, kept: Sequence[tuple[int, int]]) -> list[Denial]:
    """Each negator's scope, from the negator to the end of its clause, with a closing contrast ("but", "而是")."""
    out = []
    for m in _NEGATOR.finditer(text):
        if _inside(m.start(), kept) or _MENTAL_VERB.match(text, m.end()):
            continue
        end = _clause_end(text, m.end())
        if contrast := _CONTRAST.match(text, end):
            end = contrast.end()
        out.append(Denial(m.start(), end, before=True))
    return out


def _verdict_scopes(text: str, kept: Sequence[tuple[int, int]], no_is_answer: bool) -> list[Denial]:
    """Each verdict with the clause it judges ("B is wrong", "A - just kidding", "A? No")."""
    out = []
    for m in _VERDICT.finditer(text):
        if not _inside(m.start(), kept) and (start := _clause_start(text, m.start())) < m.start():
            out.append(Denial(start, m.end(), before=False))
    for m in _QUESTION_NO.finditer(text):
        start = _clause_start(text, m.start())
        if start < m.start() and text[start : m.start()].strip():
            out.append(Denial(start, m.start("no") if no_is_answer else m.end(), before=False))
    return out


def denials(text: str, keep: Sequence[str] = (), *, no_is_answer: bool = False) -> tuple[Denial, ...]:
    """The denied spans of `text`, in order. `keep`: phrases whose own negation denies nothing (option texts).
    `no_is_answer`: for yes/no readers, the "No" of "Yes? No." is left out of the span (it is the answer)."""
    kept = _kept(text, keep)
    found = _negator_scopes(text, kept) + _verdict_scopes(text, kept, no_is_answer)
    return tuple(sorted(found, key=lambda d: (d.start, d.end)))


def strip_denials(
    text: str,
    keep: Sequence[str] = (),
    *,
    only: re.Pattern[str] | None = None,
    no_is_answer: bool = False,
) -> str:
    """`text` with every denied span blanked (replaced by spaces, so offsets and clause ends stay where they were).

    With `only` (a yes/no reader's answer words), a negator's scope loses only the matches of `only` ("Not yes." ->
    "Not    ."), so the rest of the clause still reads ("it is not in its initial location" stays a No); a verdict's
    clause is blanked whole.
    """
    chars = list(text)
    for d in denials(text, keep, no_is_answer=no_is_answer):
        if only is not None and d.before:
            for m in only.finditer(text, d.start, d.end):
                chars[m.start() : m.end()] = " " * (m.end() - m.start())
        else:
            chars[d.start : d.end] = " " * (d.end - d.start)
    return "".join(chars)


def read_yes_no_affirmed(text: str, read: Callable[[str], _T | None]) -> _T | None:
    """A yes/no reader's `read` applied to `text` without its denials (`only=YES_NO_WORDS`).

    The "No" of a rejection ("Yes? No.") rejects the yes and, for a yes/no question, also answers no, but only when
    the reply states nothing after it: "Yes? No. She was in the room, so yes she knows." concludes yes. So the reply
    is read first with that "No" denied with what it rejects, and only if that reads nothing, with it as the answer.
    """
    for no_is_answer in (False, True):
        found = read(strip_denials(text, only=YES_NO_WORDS, no_is_answer=no_is_answer))
        if found is not None:
            return found
    return None
