"""The three-stage quality-control pipeline of ToM-Synth (paper §3.3).

- Stage 1, format and consistency: exactly 4 distinct non-empty options, a valid answer key, length limits, no
  option that points at other options (stage 2 reorders them), no duplicate items. Paper: removed 89 (0.32%).
- Length bias (ours): generators tend to make the correct option the longest one, a shortcut the prompt forbids.
  After stage 1, and again after stage 3, just enough of the items whose correct option is the strictly longest are
  dropped, the most lopsided first, for that share to be at most `max_longest_correct_pct` (default 35%; chance 25%).
- Stage 2, answer distribution balancing: generators put the key on B or C far too often; we *re-order* options so
  the keys are spread evenly over A-D (nothing is dropped), and rewrite the option letters the analysis refers to
  (`letters.remap_letters`: all at once, only letters that name options). `analysis_check` counts the analyses
  that still name the key (before and after stage 2, and in the output), so a broken rewrite shows.
  Paper: no count, nothing removed. Stage 3 removes items unevenly, so the keys are balanced once more at the end.
- Stage 3, cross-model verification: a second model judges each item with the App. B prompt; only PASS is kept
  (AMBIGUOUS, FALSE = answer disagreement, OTHER, and unparseable verdicts are removed). Paper: removed 1,703 (6.2%).

Stages 1 and 2 are pure functions; stage 3 awaits a model and appends its verdicts to a jsonl as they arrive, so an
interrupted run resumes without re-asking (an unreadable verdict is asked again, with a fresh call).
"""

from __future__ import annotations

import asyncio
import math
import random
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from inspect_ai.model import CachePolicy, GenerateConfig, Model, get_model

from tombench.generators.tomsynth._calls import attempt_caches
from tombench.generators.tomsynth.items import LETTERS, Item, append_jsonl, read_jsonl
from tombench.generators.tomsynth.letters import (
    analysis_verdict,
    remap_letters,
    rewrite_contradicts,
    unreadable_letters,
)
from tombench.generators.tomsynth.parsing import JUDGMENTS, parse_verdict
from tombench.generators.tomsynth.prompts import verification_prompt
from tombench.kit.calls import ask_until_parsed

__all__ = [
    "Stage1Limits",
    "check_item",
    "stage1_format",
    "stage2_readable",
    "stage2_balance",
    "answer_distribution",
    "longest_is_correct_pct",
    "length_balance",
    "remap_letters",
    "analysis_check",
    "stage3_verify",
    "QCReport",
    "run_qc",
]


@dataclass(frozen=True)
class Stage1Limits:
    """Length limits of stage 1.

    The prompt asks for at most 800 characters of story; models overshoot by a few sentences without harming the
    item, and the paper's stage 1 removed only 0.32%, so it cannot have enforced 800 strictly. We reject at 1.5x.
    """

    max_text_chars: int = 1200
    min_text_chars: int = 80
    max_question_chars: int = 400
    max_option_chars: int = 400


def _norm(text: str) -> str:
    return re.sub(r"\W+", " ", text.lower()).strip()


_REFERS_TO_OPTIONS = re.compile(
    r"\b(all|none|both|neither) of the (above|options|answers)\b"
    r"|\b(both|either|neither|options?|answers?)\s+\(?(?-i:[A-D])\)?\s+(and|or|nor)\s+\(?(?-i:[A-D])\)?(?!\w)",
    re.IGNORECASE,
)


def _choice_defects(item: Item, texts: list[str]) -> list[str]:
    """Whether the item is a well-formed four-way choice at all: four distinct non-empty options and a key among
    them (an item failing these cannot be answered, whatever its text)."""
    defects = []
    if sorted(item.options) != list(LETTERS):
        defects.append("not_4_options")
    if any(not t.strip() for t in texts):
        defects.append("empty_option")
    if len({_norm(t) for t in texts}) != len(texts):
        defects.append("duplicate_options")
    if item.answer not in LETTERS:
        defects.append("invalid_answer_key")
    return defects


def _length_defects(item: Item, texts: list[str], limits: Stage1Limits) -> list[str]:
    """The length limits (`Stage1Limits`): a story under the minimum or well past the prompt's 800 characters, an
    empty or overlong question, an overlong option."""
    defects = []
    if not limits.min_text_chars <= len(item.text) <= limits.max_text_chars:
        defects.append("text_length")
    if not item.question.strip() or len(item.question) > limits.max_question_chars:
        defects.append("question_length")
    if any(len(t) > limits.max_option_chars for t in texts):
        defects.append("option_length")
    return defects


def check_item(item: Item, limits: Stage1Limits = Stage1Limits()) -> list[str]:
    """The stage-1 defects of one item (empty list: it passes)."""
    texts = [item.options.get(letter, "") for letter in LETTERS]
    defects = _choice_defects(item, texts) + _length_defects(item, texts, limits)
    if any(_REFERS_TO_OPTIONS.search(t) for t in texts):
        defects.append("option_refers_to_options")
    return defects


def stage1_format(
    items: Sequence[Item], limits: Stage1Limits = Stage1Limits()
) -> tuple[list[Item], dict[str, Counter[str]]]:
    """Keep the items without defects; a later copy of an earlier item (same text and question) is a duplicate.

    Returns the kept items and, per removed item id, its defects.
    """
    kept: list[Item] = []
    removed: dict[str, Counter[str]] = {}
    seen: set[tuple[str, str]] = set()
    for item in items:
        defects = Counter(check_item(item, limits))
        key = (_norm(item.text), _norm(item.question))
        if key in seen:
            defects["duplicate_item"] += 1
        if defects:
            removed[item.id] = defects
            continue
        seen.add(key)
        kept.append(item)
    return kept, removed


def _lengths(item: Item) -> dict[str, int]:
    return {letter: len(item.options[letter]) for letter in LETTERS}


def _correct_is_longest(item: Item) -> bool:
    lengths = _lengths(item)
    longest = max(lengths.values())
    return lengths[item.answer] == longest and list(lengths.values()).count(longest) == 1


def longest_is_correct_pct(items: Sequence[Item]) -> float:
    """How often the correct option is the strictly longest one (chance: 25%): the prompt's "no length bias" rule,
    measured rather than trusted. A reader who always picks the longest option scores at least this much."""
    if not items:
        return 0.0
    return round(100.0 * sum(_correct_is_longest(i) for i in items) / len(items), 2)


def length_balance(items: Sequence[Item], max_pct: float) -> tuple[list[Item], list[str]]:
    """Drop just enough items whose correct option is the strictly longest for their share to be <= `max_pct`.

    The most lopsided go first (correct option longest relative to the longest distractor), since they are the
    easiest to answer by length alone. Order is kept. Returns the kept items and the removed ids."""
    flagged = [i for i, item in enumerate(items) if _correct_is_longest(item)]
    n, k = len(items), len(flagged)
    if n == 0 or 100.0 * k / n <= max_pct or max_pct >= 100:
        return list(items), []
    target = max_pct / 100.0
    # smallest r with (k - r) / (n - r) <= target
    r = max(0, math.ceil((k - target * n) / (1 - target) - 1e-9)) if target < 1 else 0
    r = min(r, k)

    def margin(i: int) -> float:
        lengths = _lengths(items[i])
        correct = lengths.pop(items[i].answer)
        return correct / max(1, max(lengths.values()))

    drop = set(sorted(flagged, key=lambda i: (-margin(i), items[i].id))[:r])
    return [item for i, item in enumerate(items) if i not in drop], [items[i].id for i in sorted(drop)]


def answer_distribution(items: Sequence[Item]) -> dict[str, int]:
    counts = Counter(item.answer for item in items)
    return {letter: counts.get(letter, 0) for letter in LETTERS}


def _moves(before: Item, after: Item) -> dict[str, str]:
    """old letter -> new letter of each option (by its text; stage 1 made the texts distinct)."""
    new = {text: letter for letter, text in after.options.items()}
    return {letter: new.get(text, letter) for letter, text in before.options.items()}


def analysis_check(items: Sequence[Item], before: Sequence[Item] | None = None) -> dict[str, Any]:
    """How many analyses name their key (`letters.analysis_verdict`): consistent, contradicting (ids kept) and
    unchecked (no claim to read). With `before` (the same items before stage 2), an analysis also contradicts when
    its claims did not move with the options or its letters, read afresh, are not the old ones moved
    (`letters.rewrite_contradicts`). Run before and after stage 2 and on the
    output, so a remap that breaks an analysis shows as a contradiction that was not there before."""
    counts: Counter[str] = Counter()
    contradicting = []
    for n, item in enumerate(items):
        verdict = analysis_verdict(item.analysis, item.answer)
        if before is not None and rewrite_contradicts(before[n].analysis, item.analysis, _moves(before[n], item),
                                                      item.answer):
            verdict = "contradicts"
        counts[verdict] += 1
        if verdict == "contradicts":
            contradicting.append(item.id)
    return {
        "consistent": counts["consistent"],
        "contradicts": counts["contradicts"],
        "unchecked": counts["unchecked"],
        "contradicting_ids": contradicting,
    }


def stage2_readable(items: Sequence[Item]) -> tuple[list[Item], list[str]]:
    """The items whose analysis letters can all be read with confidence, and the ids of the others (dropped and
    counted: an analysis with a letter that may be the article or an option, "A confused Tom ...", would be
    rewritten by guess if its options moved; `letters.unreadable_letters`)."""
    kept, dropped = [], []
    for item in items:
        if unreadable_letters(item.analysis):
            dropped.append(item.id)
        else:
            kept.append(item)
    return kept, dropped


def _move_answer(item: Item, target: str) -> Item:
    """Put the correct option at `target`, the distractors keep their relative order in the other slots; the
    analysis's letter references follow the options (`letters.UnreadableLetters` when one cannot be read with
    confidence: `stage2_readable` drops those items first)."""
    original = item.original_answer or item.answer
    if item.answer == target:
        return replace(item, original_answer=original)
    old_distractors = [letter for letter in LETTERS if letter != item.answer]
    slots = [letter for letter in LETTERS if letter != target]
    mapping = {item.answer: target, **dict(zip(old_distractors, slots, strict=True))}
    options = {new: item.options[old] for old, new in mapping.items()}
    return replace(
        item,
        options={letter: options[letter] for letter in LETTERS},
        answer=target,
        analysis=remap_letters(item.analysis, mapping),
        original_answer=original,
    )


def stage2_balance(items: Sequence[Item], rng: random.Random) -> list[Item]:
    """Re-order options so answer keys are as even over A-D as possible (counts differ by at most one).

    Targets are a shuffled round-robin of A-D; we first let every item whose current key is still needed keep it
    (fewest reorders), then move the rest to the remaining slots. The order of items is unchanged.
    """
    n = len(items)
    quota = Counter({letter: n // 4 + (1 if i < n % 4 else 0) for i, letter in enumerate(rng.sample(LETTERS, 4))})
    order = list(range(n))
    rng.shuffle(order)
    target: dict[int, str] = {}
    for i in order:
        if quota[items[i].answer] > 0:
            target[i] = items[i].answer
            quota[items[i].answer] -= 1
    free = [letter for letter in LETTERS for _ in range(quota[letter])]
    rng.shuffle(free)
    for i in order:
        if i not in target:
            target[i] = free.pop()
    return [_move_answer(item, target[i]) for i, item in enumerate(items)]


async def stage3_verify(
    items: Sequence[Item],
    verifier: Model | str,
    *,
    verdicts_path: str | Path | None = None,
    max_retries: int = 2,
    config: GenerateConfig | None = None,
    cache: bool | CachePolicy = True,
    on_item: Callable[[str, str], None] | None = None,
) -> dict[str, dict[str, Any]]:
    """Judge every item with the verifier; returns {item id: verdict row}. A verdict row has `judgment` in
    PASS/AMBIGUOUS/FALSE/OTHER, or UNPARSED when no attempt gave a readable verdict.

    Verdicts already in `verdicts_path` (for the same answer key; the last row of a key wins) are reused, except
    UNPARSED ones: those items are asked again, with the number of earlier unreadable rounds in the cache scope, so
    the retry is a fresh call and not a replay of the unreadable answer."""
    verifier = get_model(verifier) if isinstance(verifier, str) else verifier
    verdicts: dict[str, dict[str, Any]] = {}
    unparsed_rounds: Counter[str] = Counter()
    if verdicts_path is not None and Path(verdicts_path).exists():
        for row in read_jsonl(verdicts_path):
            key = f"{row['id']}|{row.get('answer')}"
            verdicts[key] = row
            unparsed_rounds[key] += row.get("judgment") == "UNPARSED"

    async def one(item: Item) -> None:
        key = f"{item.id}|{item.answer}"
        if key in verdicts and verdicts[key]["judgment"] != "UNPARSED":
            if on_item:
                on_item(item.id, verdicts[key]["judgment"])
            return
        res = await ask_until_parsed(
            verifier,
            verification_prompt(item),
            parse_verdict,
            cache=attempt_caches(cache, f"verify:{item.id}:{item.answer}", unparsed_rounds[key]),
            max_retries=max_retries,
            config=config,
        )
        v = res.value
        row = {
            "id": item.id,
            "answer": item.answer,
            "judgment": v.judgment if v else "UNPARSED",
            "correct_answer": v.correct_answer if v else None,
            "reason": v.reason if v else res.last_output[:1000],
            "verifier": str(verifier),
        }
        verdicts[key] = row
        if verdicts_path is not None:
            append_jsonl(verdicts_path, [row])
        if on_item:
            on_item(item.id, row["judgment"])

    await asyncio.gather(*(one(item) for item in items))
    return {item.id: verdicts[f"{item.id}|{item.answer}"] for item in items}


@dataclass
class QCReport:
    """Counts per stage, in the paper's terms (removed n and % of the stage's input)."""

    input: int = 0
    stage1_removed: int = 0
    stage1_defects: Counter[str] = field(default_factory=Counter)
    max_longest_correct_pct: float = 100.0
    longest_is_correct_pct_before: float = 0.0
    length_removed: int = 0  # before verification
    length_removed_after: int = 0  # after verification (what stage 3 kept can be more lopsided)
    stage2_reordered: int = 0
    #: items dropped before stage 2 because their analysis has a letter that cannot be read with confidence
    stage2_unreadable: list[str] = field(default_factory=list)
    answers_before: dict[str, int] = field(default_factory=dict)
    answers_after: dict[str, int] = field(default_factory=dict)
    stage3_removed: int = 0
    stage3_judgments: Counter[str] = field(default_factory=Counter)
    final_reordered: int = 0
    answers_final: dict[str, int] = field(default_factory=dict)
    output: int = 0
    longest_is_correct_pct: float = 0.0
    #: `analysis_check` of the items balanced (generator keys), after stage 2 and of the output (moved keys)
    analysis_before: dict[str, Any] = field(default_factory=dict)
    analysis_after: dict[str, Any] = field(default_factory=dict)
    analysis_final: dict[str, Any] = field(default_factory=dict)

    @staticmethod
    def pct(part: int, whole: int) -> float:
        return 100.0 * part / whole if whole else 0.0

    def to_dict(self) -> dict[str, Any]:
        balanced = self.input - self.stage1_removed - self.length_removed
        verified = balanced - len(self.stage2_unreadable)
        return {
            "input": self.input,
            "stage1": {
                "removed": self.stage1_removed,
                "removed_pct": round(self.pct(self.stage1_removed, self.input), 2),
                "defects": dict(self.stage1_defects),
            },
            "length_bias": {
                "max_longest_correct_pct": self.max_longest_correct_pct,
                "longest_correct_pct_before": self.longest_is_correct_pct_before,
                "removed": self.length_removed,
                "removed_pct": round(self.pct(self.length_removed, self.input - self.stage1_removed), 2),
                "removed_after_stage3": self.length_removed_after,
            },
            "stage2": {
                "reordered": self.stage2_reordered,
                "unreadable_dropped": len(self.stage2_unreadable),
                "unreadable_dropped_pct": round(self.pct(len(self.stage2_unreadable), balanced), 2),
                "unreadable_ids": self.stage2_unreadable,
                "answers_before": self.answers_before,
                "answers_after": self.answers_after,
            },
            "stage3": {
                "removed": self.stage3_removed,
                "removed_pct": round(self.pct(self.stage3_removed, verified), 2),
                "judgments": dict(self.stage3_judgments),
            },
            "final_balance": {"reordered": self.final_reordered, "answers": self.answers_final},
            "output": self.output,
            "longest_option_is_correct_pct": self.longest_is_correct_pct,
            "analysis": {"before_stage2": self.analysis_before, "after_stage2": self.analysis_after,
                         "output": self.analysis_final},
        }


async def run_qc(
    items: Sequence[Item],
    verifier: Model | str | None,
    *,
    seed: int = 0,
    limits: Stage1Limits = Stage1Limits(),
    max_longest_correct_pct: float = 35.0,
    verdicts_path: str | Path | None = None,
    max_retries: int = 2,
    config: GenerateConfig | None = None,
    cache: bool | CachePolicy = True,
    on_verdict: Callable[[str, str], None] | None = None,
) -> tuple[list[Item], QCReport]:
    """All stages in order: format, length bias, answer balancing, verification (`verifier=None` skips it, e.g.
    a pilot without a second key), then length bias and answer balancing once more on what verification kept."""
    report = QCReport(input=len(items), max_longest_correct_pct=max_longest_correct_pct)
    kept, removed = stage1_format(items, limits)
    report.stage1_removed = len(removed)
    for defects in removed.values():
        report.stage1_defects.update(defects.keys())

    report.longest_is_correct_pct_before = longest_is_correct_pct(kept)
    kept, length_removed = length_balance(kept, max_longest_correct_pct)
    report.length_removed = len(length_removed)

    kept, report.stage2_unreadable = stage2_readable(kept)
    report.answers_before = answer_distribution(kept)
    report.analysis_before = analysis_check(kept)
    balanced = stage2_balance(kept, random.Random(seed))
    report.analysis_after = analysis_check(balanced, before=kept)
    report.stage2_reordered = sum(a.answer != b.answer for a, b in zip(kept, balanced, strict=True))
    report.answers_after = answer_distribution(balanced)

    final = balanced
    if verifier is not None:
        verdicts = await stage3_verify(
            balanced,
            verifier,
            verdicts_path=verdicts_path,
            max_retries=max_retries,
            config=config,
            cache=cache,
            on_item=on_verdict,
        )
        final = []
        for item in balanced:
            judgment = verdicts[item.id]["judgment"]
            report.stage3_judgments[judgment] += 1
            if judgment == "PASS":
                final.append(item)
        report.stage3_removed = len(balanced) - len(final)
        # keep every judgment in the report, zero or not, so tables line up across runs
        for j in (*JUDGMENTS, "UNPARSED"):
            report.stage3_judgments.setdefault(j, 0)
        final, length_removed = length_balance(final, max_longest_correct_pct)
        report.length_removed_after = len(length_removed)
        rebalanced = stage2_balance(final, random.Random(f"{seed}:final"))
        report.final_reordered = sum(a.answer != b.answer for a, b in zip(final, rebalanced, strict=True))
        final = rebalanced
    report.answers_final = answer_distribution(final)
    generated = {item.id: item for item in kept}  # each output item as the generator wrote it
    report.analysis_final = analysis_check(final, before=[generated.get(i.id, i) for i in final])
    report.output = len(final)
    report.longest_is_correct_pct = longest_is_correct_pct(final)
    return final, report
