"""Which capital letters of an analysis name an option, how they follow the options when stage 2 moves them, and
whether an analysis still names the key.

Stage 2 re-orders the options of an item, so an analysis that says "B is correct. A seems plausible." must then
name the options by their new letters. A capital A-D in free text is not always an option, though: "A" is also the
article ("A friend would see"), and B, C and D are parts of names ("Plan B", "Vitamin C", "Room D", "Type A").
The rule (`option_references`), for a standalone capital A-D (not inside a word or a number, not followed by an
apostrophe, "+" or "-": "B's", "C++", "A+", "D-Day" are never options):

1. **Named by an option word**: right after "option(s)", "choice(s)", "answer(s)", "alternative(s)", "letter(s)"
   or "key" (with an optional "is"/"was"/":"/"(" between): "option B", "answer: C", "the answer is (D)". Always.
2. **A list goes on as it began**: after another letter and a separator (",", "and", "or", "nor", "/", "&"), a
   letter is what that letter was: "options C and D" (both options), "Plan A or B" (neither).
3. **A name, not an option**: right after a word that names things with letters (`_NAME_WORDS`: "plan",
   "vitamin", "room", "box", "type", "grade", "section", "labelled", the articles "a"/"an" of a grade, ...), or after any capitalised word that is not one of
   the words an option letter follows in an analysis (`_BEFORE_LETTER`: "Because", "Unlike", "Only", ...), the
   letter is part of a name: "Plan B", "Vitamin C", "folder D", "Type A", "Hepatitis B". A letter after
   punctuation or at the start has no word before it; after any other lower-case word ("notices B", "supports
   C") it is an option.
4. **The article**: "A" opening a sentence (the text's start, or after ".", "!", "?", ":", ";", a newline or a
   bullet) is the article unless what follows shows a letter: punctuation or the end ("A.", "A:", "A)"), "and",
   "or", "nor", or a verb ("A is", "A seems", "A assumes": a word of `_VERBS`, or a word ending in -s that is not
   a noun or adjective ending such as -ss, -us, -is, -os, -as). "A" inside a sentence is always a letter (the
   article inside a sentence is lower case).
5. Otherwise B, C and D are options.

Lower-case letters are never rewritten ("option b" is rare in generated analyses; "(a)" is as often a list
marker). `remap_letters` replaces all references at once (never one letter after another), so "B ... A" under
A->C, B->A becomes "A ... C", not "A ... A".

The check (`analysis_verdict`) reads what the analysis claims, independently of how letters were rewritten: the
letters it calls correct ("the correct answer is B", "B is correct", "Answer: B") must be the key, and the key must
not be among the letters it describes as a distractor ("A seems plausible", "C is wrong", "D ignores ..."). So
after a remap that left "A seems plausible" naming the new key, the check fails; and `claims_follow` compares the
claims before and after a remap (each must move with its option), which also catches a distractor left behind.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

__all__ = ["Reference", "option_references", "remap_letters", "analysis_claims", "analysis_verdict", "claims_follow"]

_LETTER = re.compile(r"(?<![\w'’+\-°.&])([A-D])(?![\w'’+\-°&]|\.\w)")
_OPTION_WORD = re.compile(
    r"\b(?:options?|choices?|answers?|alternatives?|letters?|key)\s*(?:(?:is|was|would\s+be)\s+)?[:(\[]?\s*\**\s*$",
    re.IGNORECASE,
)
_LIST_GAP = re.compile(r"^[)\]*]*\s*(?:,\s*(?:and|or|nor)?|and|or|nor|/|&)\s*\**[(\[]?$", re.IGNORECASE)
_BARE_COMMA = re.compile(r"^[)\]*]*\s*,\s*\**[(\[]?$")
_PREV_WORD = re.compile(r"([A-Za-z][A-Za-z'’.]*)\s+$")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]|\n)[\s*_#>•\-]*$")
_NEXT = re.compile(r"[)\]*]*\s*(\S*)")

#: Words after which a letter is an option (rule 3): anything else before a letter makes it part of a name.
_BEFORE_LETTER = frozenset(
    """and or nor but because since as while whereas although though so thus hence therefore that which why where
    if whether when then also only not both either neither unlike like than however instead rather namely whereas
    of to over between from vs versus with against for by about on into than
    is are was were be being been
    choose chooses chose chosen choosing pick picks picked picking select selects selected selecting prefer prefers
    preferred preferring make makes made making eliminate eliminates eliminated
    eliminating reject rejects rejected rejecting rule rules ruled out favor favors favour favours consider considers
    considering answer answered says say said excluding except including leaving leaves leave""".split()
)
#: Lower-case words that name things with a letter (rule 3): a letter right after one is part of a name; the
#: articles too ("got an A", "a B+" are grades, never options).
_NAME_WORDS = frozenset(
    """a an plan plans vitamin vitamins hepatitis type types grade grades class classes category level levels section
    sections part parts room rooms box boxes folder folders drawer drawers shelf shelves cabinet locker lockers bin
    bins basket baskets bag bags jar jars bottle bottles envelope envelopes container containers cupboard door doors
    building buildings apartment flat suite floor wing hall lab block unit units gate gates platform exit terminal
    seat row lane track line route bus team teams group groups player person agent character site zone ward table
    desk court field tier size cell bed phase stage step version draft model project task area point city town
    island planet star paper exam test quiz slot file files mr mrs ms dr labelled labeled named called marked
    tagged""".split()
)
_TITLES = frozenset({"mr", "mrs", "ms", "dr", "st", "no"})
#: Verbs and adverbs that follow an option letter opening a sentence, never the article "A" (rule 4).
_VERBS = frozenset(
    """is was are were would could does did do has had have can cannot might may must should will shall seems seem
    appears appear sounds looks fits matches captures describes states suggests assumes ignores reflects misreads
    confuses contradicts overlooks attributes claims fails focuses mistakes implies incorrectly wrongly only also
    correctly reverses neglects misses treats names says gets gives wrongly clearly alone""".split()
)
_NOUN_ENDINGS = ("ss", "us", "is", "os", "as", "ys")
_NOT_VERBS = frozenset({"series", "species", "lens", "news", "means", "kids", "parents", "friends"})


@dataclass(frozen=True)
class Reference:
    """One capital A-D in a text and whether it names an option (`option`) or is the article or part of a name."""

    start: int
    letter: str
    option: bool
    joined: str = ""  # the list separator that joins it to the letter before ("C and D", "A, B or C"), if any


def _verb_like(word: str) -> bool:
    w = word.lower().strip("*_,.;:!?")
    if w in _VERBS or w in ("and", "or", "nor"):
        return True
    return len(w) > 3 and w.endswith("s") and not w.endswith(_NOUN_ENDINGS) and w not in _NOT_VERBS


def _names_a_thing(word: str) -> bool:
    """Rule 3: the word before a letter makes it part of a name ("Plan B", "box C", "Building D")."""
    if word.endswith("."):  # a sentence's last word, unless a title ("Mr. B")
        return word[:-1].lower() in _TITLES
    lower = re.sub(r"['’]s$", "", word.lower())
    return lower in _NAME_WORDS or (word[0].isupper() and lower not in _BEFORE_LETTER)


def _article(text: str, m: re.Match[str]) -> bool:
    """Rule 4: an "A" opening a sentence and followed by a word that is not a verb (or "and"/"or") is the article."""
    if m.group(1) != "A" or not _SENTENCE_START.search(text[: m.start()]):
        return False
    after = text[m.end() :]
    if not after.strip() or not after[0].isspace():
        return False  # "A.", "A:", "A)", the end: a letter
    word = _NEXT.match(after.lstrip())
    nxt = word.group(1) if word else ""
    return bool(nxt) and nxt[0].isalpha() and not _verb_like(nxt)


def _is_option(text: str, m: re.Match[str], previous: Reference | None, joined: bool) -> bool:
    before = text[: m.start()]
    if _OPTION_WORD.search(before[-40:]):
        return True  # rule 1
    if previous is not None and joined:
        return previous.option  # rule 2
    if (word := _PREV_WORD.search(before[-40:])) is not None and _names_a_thing(word.group(1)):
        return False  # rule 3
    return not _article(text, m)  # rules 4 and 5


def option_references(text: str) -> list[Reference]:
    """Every standalone capital A-D in `text`, in order, with whether it names an option (the module's rule)."""
    refs: list[Reference] = []
    previous_end = 0
    for m in _LETTER.finditer(text):
        prev = refs[-1] if refs else None
        gap = text[previous_end : m.start()].strip()
        joined = gap if prev is not None and gap and _LIST_GAP.match(gap) is not None else ""
        refs.append(Reference(m.start(), m.group(1), _is_option(text, m, prev, bool(joined)), joined))
        previous_end = m.end()
    return refs


def remap_letters(text: str, mapping: Mapping[str, str]) -> str:
    """`text` with every option letter it names replaced by `mapping[letter]` (old -> new), all at once; the
    article "A" and letters of names ("Plan B", "Vitamin C") are left as they are."""
    out, last = [], 0
    for ref in option_references(text):
        if ref.option and ref.letter in mapping:
            out += [text[last : ref.start], mapping[ref.letter]]
            last = ref.start + 1
    return "".join(out) + text[last:]


_WRONG_BEFORE = re.compile(
    r"\b(?:wrong|incorrect|distractor|implausible)\s+(?:answers?|options?|choices?)?\s*(?:is|are|:)?\s*[(\[*]*\s*$",
    re.IGNORECASE,
)
_CORRECT_BEFORE = re.compile(
    r"(?:\b(?:correct|right|best|true)\s+(?:answer|option|choice)s?\s*(?:is|:|would\s+be)?"
    r"|\banswer\s*(?:is|:))\s*[(\[*]*\s*$",
    re.IGNORECASE,
)
_WRONG_AFTER = re.compile(
    r"^[)\]*]*\s*(?:both\s+|all\s+|each\s+|also\s+)?(?:(?:is|was|are|were|would\s+be)\s+(?:also\s+|clearly\s+"
    r"|therefore\s+|both\s+|all\s+)?"
    r"(?:not\s+(?:correct|right)|wrong|incorrect|false|mistaken|implausible|unlikely|(?:a\s+)?distractors?|tempting)"
    r"|(?:seems?|sounds?|looks?|might\s+seem|may\s+seem|could\s+seem)\b(?!\s+(?:to\s+be\s+)?(?:correct|right|best))"
    r"|(?:ignores?|confuses?|misreads?|overlooks?|fails?|mistakes?|assumes?|contradicts?|neglects?|reverses?"
    r"|misses|miss|forgets?)\b)",
    re.IGNORECASE,
)
_CORRECT_AFTER = re.compile(
    r"^[)\]*]*\s*(?:is|was)\s+(?:the\s+)?(?:only\s+)?(?:correct|right|best|true|accurate|answer)\b", re.IGNORECASE
)


def _lists(refs: list[Reference]) -> list[list[Reference]]:
    """The option references grouped into lists ("C and D", "A, B or C"; a lone letter is a list of one)."""
    groups: list[list[Reference]] = []
    for ref in refs:
        if not ref.option:
            continue
        if ref.joined and groups and groups[-1][-1].option:
            groups[-1].append(ref)
        else:
            groups.append([ref])
    return [part for group in groups for part in _closed(group)]


def _closed(group: list[Reference]) -> list[list[Reference]]:
    """A list ends with "and", "or", "nor", "/" or "&" ("A, B and C"); a letter after a bare comma that closes
    nothing starts a clause of its own ("Unlike A, C misreads ...")."""
    if len(group) > 1 and _BARE_COMMA.match(group[-1].joined):
        return [*_closed(group[:-1]), [group[-1]]]
    return [group]


def analysis_claims(text: str) -> tuple[set[str], set[str]]:
    """(letters the analysis calls correct, letters it describes as distractors), read from the phrases around
    each option letter (a list shares the phrase around it: "Options C and D are wrong"), not from how the
    letters were rewritten."""
    correct: set[str] = set()
    wrong: set[str] = set()
    for group in _lists(option_references(text)):
        before, after = text[: group[0].start], text[group[-1].start + 1 :]
        letters = {ref.letter for ref in group}
        if _WRONG_AFTER.match(after) or _WRONG_BEFORE.search(before[-40:]):
            wrong |= letters
        elif _CORRECT_BEFORE.search(before[-40:]) or _CORRECT_AFTER.match(after):
            correct |= letters
    return correct, wrong


Verdict = Literal["consistent", "contradicts", "unchecked"]


def analysis_verdict(text: str, key: str) -> Verdict:
    """Whether an analysis names `key` as the answer: "contradicts" when it calls another letter correct or
    describes the key as a distractor, "consistent" when it makes a claim and none contradicts, "unchecked" when
    it names no option as correct or wrong (nothing to check)."""
    correct, wrong = analysis_claims(text)
    if not correct and not wrong:
        return "unchecked"
    if correct - {key} or key in wrong:
        return "contradicts"
    return "consistent"


def claims_follow(before: str, after: str, mapping: Mapping[str, str]) -> bool:
    """Whether the claims of a rewritten analysis are those of the original moved by `mapping` (old -> new): each
    letter called correct or a distractor before is called so under its new letter after, and no other. Catches
    a rewrite that left a letter behind ("A seems plausible" kept while A's option moved to C)."""
    c0, w0 = analysis_claims(before)
    c1, w1 = analysis_claims(after)
    return ({mapping.get(x, x) for x in c0}, {mapping.get(x, x) for x in w0}) == (c1, w1)
