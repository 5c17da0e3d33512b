"""Which capital letters of an analysis name an option, how they follow the options when stage 2 moves them, and
whether an analysis still names the key.

Stage 2 re-orders the options of an item, so an analysis that says "B is correct. A seems plausible." must then
name the options by their new letters. A capital A-D in free text is not always an option, though: "A" is also the
article ("A friend would see", "A reader's guess", "A lot"), and B, C and D are parts of names ("Plan B",
"Vitamin C", "Room D", "Type A"). A letter is read by what its sentence does with it, not by the word before it
alone (`option_references`), for a standalone capital A-D (not inside a word or a number, not followed by "+",
"-" or an apostrophe other than a possessive: "C++", "A+", "D-Day" are never options, "B's reasoning" is one):

1. **Named by an option word**: right after "option(s)", "choice(s)", "answer(s)", "alternative(s)", "letter(s)"
   or "key" (with an optional "is"/"was"/":"/"(" between): "option B", "answer: C", "the answer is (D)". Always.
2. **A list goes on as it began**: after another letter and a separator (",", "and", "or", "nor", "/", "&"), a
   letter is what that letter was: "options C and D" (both options), "Plan A or B" (neither).
3. **The word before**: after a word that names things with letters (`_NAME_WORDS`: "plan", "vitamin", "room",
   "box", "type", "labelled", the articles "a"/"an" of a grade, ...) the letter is part of a name. A capitalised
   word inside a sentence is a name too ("Hepatitis B", "Building D", "Mr. B"), unless it is one of the words an
   option letter follows (`_BEFORE_LETTER`: connectives, prepositions, verbs that take an option, sentence
   adverbs). A word that opens a sentence is capitalised by its place, so it is read as its lower-case self:
   "Clearly B", "Overall C", "Here A", "In A,", "Choose C" (an -ly word is an adverb); an unknown one ("Gamma
   B ...") leaves the letter unsure. After a lower-case word ("notices B", "I think B") the letter is an option.
4. **What follows a letter that opens a sentence** (the text's start, after ".", "!", "?", ":", ";", a newline,
   a bullet, an opening bracket or quote): punctuation, the end, a possessive "'s", a verb ("A is", "A errs", "A
   doesn't": `_VERBS` or an -s form that is not a noun ending), a conjunction or a preposition show a letter; a
   noun or adjective shows the article ("A reader's guess", "A lot", "A careful reader"); an -ly adverb is looked
   through ("A clearly fails", "A truly careful reader"); a past form is read by the word after it ("A assumed
   that", "A biased reader") and is unsure before a name ("A confused Tom ..."), as is a number ("A 10-minute").
   An "A" read as the article is left; a B, C or D read so ("B reader ...") is an option but unsure, since once
   rewritten to A it would read as the article. "A" inside a sentence is a letter (the article there is lower
   case).
5. Otherwise B, C and D are options.

An unsure letter is never rewritten by guess: `remap_letters` raises `UnreadableLetters` when the mapping would
move one, and also when its output, read afresh, is not the input's references moved (`references_follow`).
Stage 2 drops and counts the items whose analysis has one (`unreadable_letters`). Lower-case letters are never
rewritten ("option b" is rare in generated analyses; "(a)" is as often a list marker). All references are
replaced at once (never one letter after another), so "B ... A" under A->C, B->A becomes "A ... C", not "A ... A".

The check (`rewrite_contradicts`) reads the rewritten analysis afresh: the letters it calls correct ("the correct
answer is B", "Clearly B is correct", "B's reading is correct", "Answer: B", "Choose B", "- B: correct") must be
the key, and the key must not be among the letters it denies ("A seems plausible", "C is wrong", "Option D's
premise is mistaken", "In A, Tom errs", "Reject D"); its claims must be those before the rewrite moved
(`claims_follow`), and its letters those before moved (`references_follow`), which catches a rewrite that left a
letter behind or moved the article even where no claim is read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "Reference",
    "UnreadableLetters",
    "option_references",
    "unreadable_letters",
    "remap_letters",
    "references_follow",
    "analysis_claims",
    "analysis_verdict",
    "claims_follow",
    "rewrite_contradicts",
]

_LETTER = re.compile(r"(?<![\w+\-°.&])(?<!\w['’])([A-D])(?![\w+\-°&]|\.\w|['’](?!s\b)\w)")
_OPTION_WORD = re.compile(
    r"\b(?:options?|choices?|answers?|alternatives?|letters?|key)\s*(?:(?:is|was|would\s+be)\s+)?[:(\[]?\s*\**\s*$",
    re.IGNORECASE,
)
_LIST_GAP = re.compile(r"^[)\]*]*\s*(?:,\s*(?:and|or|nor)?|and|or|nor|/|&)\s*\**[(\[]?$", re.IGNORECASE)
_BARE_COMMA = re.compile(r"^[)\]*]*\s*,\s*\**[(\[]?$")
_PREV_WORD = re.compile(r"([A-Za-z][A-Za-z'’.]*)[ \t]+$")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]|\n|\b\d+\))[\s*_#>•\-\"“‘'(\[]*$")
_WORDS = re.compile(r"[)\]*_'’\"”]*\s*([^\s*_)\]\"”]*)")

#: Words after which a letter is an option (rule 3), capitalised or not: connectives, prepositions, verbs that take
#: an option, and the sentence adverbs an analysis opens with ("Clearly B", "Overall C", "Here A").
_BEFORE_LETTER = frozenset(
    """and or nor but because since as while whereas although though so thus hence therefore that which why where
    if whether when then also only not both either neither unlike like than however instead rather namely whereas
    of to over between from vs versus with against for by about on into than in at under within without per after
    before given via through among beyond despite toward towards upon
    is are was were be being been
    choose chooses chose chosen choosing pick picks picked picking select selects selected selecting prefer prefers
    preferred preferring make makes made making eliminate eliminates eliminated
    eliminating reject rejects rejected rejecting rule rules ruled out favor favors favour favours consider considers
    considering answer answered says say said excluding except including leaving leaves leave avoid avoids compare
    compares take takes trust trusts discard discards dismiss dismisses skip skips keep keeps mark marks go goes
    it what this here there overall now still yet again finally ultimately otherwise conversely likewise meanwhile
    indeed maybe perhaps yes even just next first second third last note notice see check try read
    do does did can could would should will might must has have had""".split()
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
    tagged straight""".split()
)
_TITLES = frozenset({"mr", "mrs", "ms", "dr", "st", "no"})
#: Words that follow an option letter, never the article "A": verbs, conjunctions and adverbs (rule 4).
_VERBS = frozenset(
    """is was are were would could does did do has had have can cannot might may must should will shall seems seem
    appears appear sounds looks fits matches captures describes states suggests assumes ignores reflects misreads
    confuses contradicts overlooks attributes claims fails focuses mistakes implies incorrectly wrongly only also
    correctly reverses neglects misses treats names says gets gives wrongly clearly alone
    and or nor vs vs. versus but because since too instead here again then therefore thus however itself now just
    even still never merely already either though which that who whose where when if unless while whereas although
    in on at for by with without from of to into about under over after before as than like unlike despite""".split()
)
#: Past forms that may be a verb ("A assumed that ...") or an adjective ("A biased reader"): the word after decides.
_PAST = frozenset("got made said thought knew saw took left put gave went came found kept held told felt meant".split())
#: After a past form, these show the verb ("A assumed that ...", "A put the ball ...").
_OBJECTS = frozenset(
    """the that this these those a an her his him it its them their they he she what where when how why which who
    to by in on at into from with only also not""".split()
)
_NOUN_ENDINGS = ("ss", "us", "is", "os", "as", "ys")
_NOT_VERBS = frozenset({"series", "species", "lens", "news", "means", "kids", "parents", "friends"})
#: Nouns and adjectives ending in -ly, read as a noun after "A" (other -ly words are adverbs, looked through).
_LY_NOUNS = frozenset(
    """family reply supply ally bully jelly belly rally assembly anomaly butterfly fly italy july holly lily emily
    sally polly molly kelly billy""".split()
)

Role = Literal["letter", "article", "unsure"]


@dataclass(frozen=True)
class Reference:
    """One capital A-D in a text and whether it names an option (`option`) or is the article or part of a name;
    `sure` is False where the sentence does not say which (a rewrite must not guess there)."""

    start: int
    letter: str
    option: bool
    joined: str = ""  # the list separator that joins it to the letter before ("C and D", "A, B or C"), if any
    sure: bool = True


class UnreadableLetters(ValueError):
    """An analysis has a capital A-D that cannot be read with confidence as an option or not: rewriting it would be
    a guess. `references` are the unsure ones."""

    def __init__(self, text: str, references: list[Reference]) -> None:
        where = ", ".join(repr(text[max(0, r.start - 20) : r.start + 20]) for r in references)
        super().__init__(f"option letters that cannot be read with confidence: {where}")
        self.references = references


def _verb_like(word: str) -> bool:
    w = word.lower().strip("*_,.;:!?")
    if w in _VERBS or w.endswith(("n't", "n’t")):
        return True
    return len(w) > 3 and w.endswith("s") and not w.endswith(_NOUN_ENDINGS) and w not in _NOT_VERBS


def _word_role(word: str, rest: list[str]) -> Role:
    """What a word right after a sentence-opening letter shows it is: a verb, conjunction or adverb follows an
    option letter ("A is", "A and B", "A clearly fails"); a noun or adjective follows the article ("A reader's",
    "A lot", "A careful reader"). An -ly adverb is looked through; a past form ("A assumed", "A biased") is read by
    the word after it, and left unsure before a name ("A confused Tom ...")."""
    bare = word.strip("*_,.;:!?")
    if bare[:1].isdigit():
        return "unsure"  # "A 10-minute gap ..." or a letter before a number
    if not bare or not bare[0].isalpha():
        return "letter"  # "A.", "A:", "A)", "A (the box)", "A -- ", the end
    lower = bare.lower()
    if re.search(r"['’]s$", lower):
        return "article"  # a possessive noun: "A reader's guess"
    if _verb_like(bare):
        return "letter"
    if lower.endswith("ly") and lower not in _LY_NOUNS and len(lower) > 4 and rest:
        return _word_role(rest[0], rest[1:])
    if lower.endswith("ed") or lower in _PAST:
        return _after_past(rest[0] if rest else "")
    return "article"


def _after_past(nxt: str) -> Role:
    bare = nxt.strip("*_")
    if not bare or not bare[0].isalpha():
        return "letter"  # "... what A assumed."
    if bare.lower().strip(",.;:!?") in _OBJECTS:
        return "letter"
    return "unsure" if bare[0].isupper() else "article"


def _opens_sentence(text: str, start: int) -> bool:
    return _SENTENCE_START.search(text[:start]) is not None


def _next_words(after: str, n: int = 3) -> list[str]:
    words = []
    pos = 0
    for _ in range(n):
        m = _WORDS.match(after, pos)
        if m is None or not m.group(1):
            break
        words.append(m.group(1))
        pos = m.end()
    return words


def _role_at_start(text: str, m: re.Match[str]) -> Role:
    """Rule 4: how a letter opening a sentence reads by what follows it."""
    after = text[m.end() :]
    if not after.strip() or not after[0].isspace():
        return "letter"  # "A.", "A:", "A)", "A's", the end
    words = _next_words(after)
    return _word_role(words[0], words[1:]) if words else "letter"


def _word_before(text: str, m: re.Match[str]) -> tuple[bool, bool] | None:
    """Rule 3: (option, sure) when the word right before the letter decides, else None. A word that opens a
    sentence is capitalised by its place, so it is read as its lower-case self; an unknown one ("Building D"?
    "Naturally"-like words are adverbs) leaves the letter unsure. A capitalised word inside a sentence is a name."""
    before = text[: m.start()]
    found = _PREV_WORD.search(before[-40:])
    if found is None:
        return None
    word = found.group(1)
    if word.endswith("."):  # a sentence's last word, unless a title ("Mr. B")
        return (False, True) if word[:-1].lower() in _TITLES else None
    lower = re.sub(r"['’]s$", "", word.lower())
    if lower in _NAME_WORDS:
        return False, True
    if not word[0].isupper() or lower in _BEFORE_LETTER:
        return None
    if _opens_sentence(before, len(before) - len(found.group(0))):
        return None if lower.endswith("ly") else (True, False)
    return False, True  # "Hepatitis B", "Building D"


def _read(text: str, m: re.Match[str], previous: Reference | None, joined: bool) -> tuple[bool, bool]:
    """(option, sure) of one capital letter, by the module's rules in order."""
    if _OPTION_WORD.search(text[: m.start()][-40:]):
        return True, True  # rule 1
    if previous is not None and joined:
        return previous.option, previous.sure  # rule 2
    decided = _word_before(text, m)
    if decided is not None:
        return decided  # rule 3
    if not _opens_sentence(text, m.start()):
        return True, True  # rule 5; "A" inside a sentence is a letter (the article there is lower case)
    role = _role_at_start(text, m)
    if m.group(1) == "A":
        return role != "article", role != "unsure"  # rule 4
    return True, role == "letter"  # "B reader ..." would read as the article once rewritten to A


def option_references(text: str) -> list[Reference]:
    """Every standalone capital A-D in `text`, in order, with whether it names an option (the module's rule) and
    whether that reading is sure."""
    refs: list[Reference] = []
    previous_end = 0
    for m in _LETTER.finditer(text):
        prev = refs[-1] if refs else None
        gap = text[previous_end : m.start()].strip()
        joined = gap if prev is not None and gap and _LIST_GAP.match(gap) is not None else ""
        option, sure = _read(text, m, prev, bool(joined))
        refs.append(Reference(m.start(), m.group(1), option, joined, sure))
        previous_end = m.end()
    return refs


def unreadable_letters(text: str) -> list[Reference]:
    """The capitals of `text` that cannot be read with confidence (empty: every letter can be rewritten)."""
    return [ref for ref in option_references(text) if not ref.sure]


def _rewrite(text: str, refs: list[Reference], mapping: Mapping[str, str]) -> str:
    out, last = [], 0
    for ref in refs:
        if ref.option and ref.letter in mapping:
            out += [text[last : ref.start], mapping[ref.letter]]
            last = ref.start + 1
    return "".join(out) + text[last:]


def remap_letters(text: str, mapping: Mapping[str, str]) -> str:
    """`text` with every option letter it names replaced by `mapping[letter]` (old -> new), all at once; the
    article "A" and letters of names ("Plan B", "Vitamin C") are left as they are.

    Raises `UnreadableLetters` rather than guess: when a letter the mapping moves cannot be read with confidence,
    or when the rewritten text would read differently (a moved letter that no longer reads as an option)."""
    if unsure := _moves_unsure(text, mapping):
        raise UnreadableLetters(text, unsure)
    refs = option_references(text)
    out = _rewrite(text, refs, mapping)
    if not references_follow(text, out, mapping):
        raise UnreadableLetters(text, [ref for ref in refs if ref.option])
    return out


def _moves_unsure(text: str, mapping: Mapping[str, str]) -> list[Reference]:
    return [ref for ref in option_references(text) if not ref.sure and mapping.get(ref.letter, ref.letter) != ref.letter]


def references_follow(before: str, after: str, mapping: Mapping[str, str]) -> bool:
    """Whether `after`, read afresh, names the options of `before` moved by `mapping` (old -> new): the same
    capitals at the same places, each option letter moved and every other letter left, and nothing else changed.
    Catches a rewrite that moved an article or a name, or left an option letter behind."""
    old, new = option_references(before), option_references(after)
    if len(old) != len(new) or len(before) != len(after):
        return False
    for a, b in zip(old, new, strict=True):
        expected = mapping.get(a.letter, a.letter) if a.option else a.letter
        if (a.start, a.option, expected) != (b.start, b.option, b.letter):
            return False
    return _rewrite(before, old, mapping) == after


_WRONG_BEFORE = re.compile(
    r"\b(?:wrong|incorrect|distractors?|implausible)\s*(?:(?:answers?|options?|choices?)\s*)?(?:is|are|:)?"
    r"\s*[(\[*]*\s*$"
    r"|(?:^|[.!?;:\n]\s*|\b(?:I|we)\s+(?:would\s+|'d\s+|’d\s+)?)[*_]*(?:reject|eliminate|avoid|rule\s+out|discard)"
    r"\s*[(\[*\"“'‘]*\s*$",
    re.IGNORECASE,
)
_CORRECT_BEFORE = re.compile(
    r"(?:\b(?:correct|right|best|true)\s+(?:answer|option|choice)s?\s*(?:is|:|would\s+be)?"
    r"|\banswer\s*(?:is|:)\s*(?:option\s+)?|\bcorrect\s*:"
    r"|(?:^|[.!?;:\n]\s*|\b(?:I|we)\s+(?:would\s+|'d\s+|’d\s+)?)[*_]*(?:pick|choose|select|go\s+with))"
    r"\s*[(\[*\"“'‘]*\s*$",
    re.IGNORECASE,
)
#: What may stand between a letter and what is said of it, on its line: closing marks, a possessive ("B's
#: reasoning fails", "Option A's premise is wrong"), a dash or colon of a list ("A: wrong", "(B) - correct"), or
#: nothing ("makes D correct and A wrong").
_HEAD = r"^[)\]*\"”'’]*(?:['’]s(?:[ \t]+[a-z]+){1,2}?)?[ \t]*"
_DENY = (
    r"(?:not\s+(?:correct|right)|wrong|incorrect|false|mistaken|implausible|unlikely|flawed|(?:a\s+)?distractors?"
    r"|tempting|a\s+trap)"
)
_WRONG_AFTER = re.compile(
    _HEAD + r"(?:both\s+|all\s+|each\s+|also\s+)?(?:(?:is|was|are|were|would\s+be)\s+(?:also\s+|clearly\s+"
    r"|therefore\s+|both\s+|all\s+)?" + _DENY + r"|(?:[:\-–—][ \t]*[*_]*)?" + _DENY + r"\b(?![ \t]*\?)"
    r"|(?:cannot|can't|can’t)\s+be\s+(?:correct|right)|(?:does\s+not|doesn't|doesn’t)\s+(?:fit|hold|work)"
    r"|(?:seems?|sounds?|looks?|might\s+seem|may\s+seem|could\s+seem)\b(?!\s+(?:to\s+be\s+)?(?:correct|right|best))"
    r"|(?:ignores?|confuses?|misreads?|overlooks?|fails?|mistakes?|assumes?|contradicts?|neglects?|reverses?"
    r"|misses|miss|forgets?|errs?)\b)",
    re.IGNORECASE,
)
_CORRECT_AFTER = re.compile(
    _HEAD + r"(?:(?:is|was)\s+(?:clearly\s+|therefore\s+|indeed\s+)?(?:the\s+)?(?:only\s+)?"
    r"(?:correct|right|best|true|accurate|answer)\b|(?:[:\-–—][ \t]*[*_]*)?(?:correct|right)\b(?![ \t]*\?))",
    re.IGNORECASE,
)
#: "In A, Tom errs", "With D, she would know ..., so D is wrong": the clause after a preposition says it.
_PREPOSITION = re.compile(r"\b(?:in|under|with|for)\s*[(\[*]*\s*$", re.IGNORECASE)
_CLAUSE = re.compile(r"^[)\]*]*\s*,([^.;\n]*)")
_CLAUSE_DENY = re.compile(r"\b(?:errs?|fails?|wrong|incorrect|mistaken|ignores?|misreads?|overlooks?)\b", re.I)
_CLAUSE_ENDORSE = re.compile(r"\b(?:correct|right)\b", re.IGNORECASE)


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


def _claim(before: str, after: str) -> str:
    """What the words around an option letter (or list) say of it: "wrong", "correct" or "" (nothing)."""
    if _WRONG_AFTER.match(after) or _WRONG_BEFORE.search(before[-40:]):
        return "wrong"
    if _CORRECT_BEFORE.search(before[-40:]) or _CORRECT_AFTER.match(after):
        return "correct"
    clause = _CLAUSE.match(after) if _PREPOSITION.search(before[-12:]) else None
    if clause is not None and _CLAUSE_DENY.search(clause.group(1)):
        return "wrong"
    if clause is not None and _CLAUSE_ENDORSE.search(clause.group(1)):
        return "correct"
    return ""


def analysis_claims(text: str) -> tuple[set[str], set[str]]:
    """(letters the analysis calls correct, letters it describes as distractors), read from the phrases around
    each option letter (a list shares the phrase around it: "Options C and D are wrong"; a clause after a
    preposition speaks of its letter: "In A, Tom errs"), not from how the letters were rewritten."""
    correct: set[str] = set()
    wrong: set[str] = set()
    for group in _lists(option_references(text)):
        claim = _claim(text[: group[0].start], text[group[-1].start + 1 :])
        letters = {ref.letter for ref in group}
        if claim == "wrong":
            wrong |= letters
        elif claim == "correct":
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


def rewrite_contradicts(before: str, after: str, mapping: Mapping[str, str], key: str) -> bool:
    """Whether `after`, the analysis `before` rewritten for options moved by `mapping` (old -> new), fails to
    support its new `key`: it endorses another option or denies the key (`analysis_verdict`), its claims did not
    move with their options (`claims_follow`), or, read afresh, its letters are not those of `before` moved
    (`references_follow`: an article or a name moved, an option letter left behind). A letter of `before` that
    cannot be read with confidence and that the mapping would move fails it too: no rewrite of it can be vouched
    for."""
    return (
        bool(_moves_unsure(before, mapping))
        or analysis_verdict(after, key) == "contradicts"
        or not claims_follow(before, after, mapping)
        or not references_follow(before, after, mapping)
    )
