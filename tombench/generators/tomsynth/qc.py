"""The three-stage quality-control pipeline of ToM-Synth (paper §3.3).

- Stage 1, format and consistency: exactly 4 distinct non-empty options, a valid answer key, length limits, no
  option that points at other options (stage 2 reorders them), no duplicate items. Paper: removed 89 (0.32%).
- Stage 2, answer distribution balancing: generators put the key on B or C far too often; we *re-order* options so
  the keys are spread evenly over A-D (nothing is dropped). Paper: no count, nothing removed.
- Stage 3, cross-model verification: a second model judges each item with the App. B prompt; only PASS is kept
  (AMBIGUOUS, FALSE = answer disagreement, OTHER, and unparseable verdicts are removed). Paper: removed 1,703 (6.2%).

Stages 1 and 2 are pure functions; stage 3 awaits a model and appends its verdicts to a jsonl as they arrive, so an
interrupted run resumes without re-asking.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from inspect_ai.model import CachePolicy, GenerateConfig, Model, get_model

from tombench.generators.tomsynth._calls import generate_parsed
from tombench.generators.tomsynth.items import LETTERS, Item, append_jsonl, read_jsonl
from tombench.generators.tomsynth.parsing import JUDGMENTS, parse_verdict
from tombench.generators.tomsynth.prompts import verification_prompt

__all__ = [
    "Stage1Limits",
    "check_item",
    "stage1_format",
    "stage2_balance",
    "answer_distribution",
    "longest_is_correct_pct",
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


def check_item(item: Item, limits: Stage1Limits = Stage1Limits()) -> list[str]:
    """The stage-1 defects of one item (empty list: it passes)."""
    defects = []
    if sorted(item.options) != list(LETTERS):
        defects.append("not_4_options")
    texts = [item.options.get(letter, "") for letter in LETTERS]
    if any(not t.strip() for t in texts):
        defects.append("empty_option")
    if len({_norm(t) for t in texts}) != len(texts):
        defects.append("duplicate_options")
    if item.answer not in LETTERS:
        defects.append("invalid_answer_key")
    if not limits.min_text_chars <= len(item.text) <= limits.max_text_chars:
        defects.append("text_length")
    if not item.question.strip() or len(item.question) > limits.max_question_chars:
        defects.append("question_length")
    if any(len(t) > limits.max_option_chars for t in texts):
        defects.append("option_length")
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


def longest_is_correct_pct(items: Sequence[Item]) -> float:
    """How often the correct option is the strictly longest one (chance: 25%): the prompt's "no length bias" rule,
    measured rather than trusted. Reported, not filtered on."""
    if not items:
        return 0.0
    hits = 0
    for item in items:
        lengths = {letter: len(item.options[letter]) for letter in LETTERS}
        longest = max(lengths.values())
        hits += lengths[item.answer] == longest and list(lengths.values()).count(longest) == 1
    return round(100.0 * hits / len(items), 2)


def answer_distribution(items: Sequence[Item]) -> dict[str, int]:
    counts = Counter(item.answer for item in items)
    return {letter: counts.get(letter, 0) for letter in LETTERS}


def _move_answer(item: Item, target: str) -> Item:
    """Put the correct option at `target`, the distractors keep their relative order in the other slots."""
    if item.answer == target:
        return replace(item, original_answer=item.original_answer or item.answer)
    distractors = [item.options[letter] for letter in LETTERS if letter != item.answer]
    slots = [letter for letter in LETTERS if letter != target]
    options = {target: item.options[item.answer], **dict(zip(slots, distractors, strict=True))}
    return replace(
        item,
        options={letter: options[letter] for letter in LETTERS},
        answer=target,
        original_answer=item.original_answer or item.answer,
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
    """Judge every item with the verifier; returns {item id: verdict row}. Verdicts already in `verdicts_path`
    (for the same answer key) are reused. A verdict row has `judgment` in PASS/AMBIGUOUS/FALSE/OTHER or UNPARSED."""
    verifier = get_model(verifier) if isinstance(verifier, str) else verifier
    verdicts: dict[str, dict[str, Any]] = {}
    if verdicts_path is not None and Path(verdicts_path).exists():
        for row in read_jsonl(verdicts_path):
            verdicts[f"{row['id']}|{row.get('answer')}"] = row

    async def one(item: Item) -> None:
        key = f"{item.id}|{item.answer}"
        if key in verdicts:
            if on_item:
                on_item(item.id, verdicts[key]["judgment"])
            return
        res = await generate_parsed(
            verifier,
            verification_prompt(item),
            parse_verdict,
            scope=f"verify:{item.id}:{item.answer}",
            max_retries=max_retries,
            config=config,
            cache=cache,
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
    stage2_reordered: int = 0
    answers_before: dict[str, int] = field(default_factory=dict)
    answers_after: dict[str, int] = field(default_factory=dict)
    stage3_removed: int = 0
    stage3_judgments: Counter[str] = field(default_factory=Counter)
    output: int = 0
    longest_is_correct_pct: float = 0.0

    @staticmethod
    def pct(part: int, whole: int) -> float:
        return 100.0 * part / whole if whole else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "input": self.input,
            "stage1": {
                "removed": self.stage1_removed,
                "removed_pct": round(self.pct(self.stage1_removed, self.input), 2),
                "defects": dict(self.stage1_defects),
            },
            "stage2": {
                "reordered": self.stage2_reordered,
                "answers_before": self.answers_before,
                "answers_after": self.answers_after,
            },
            "stage3": {
                "removed": self.stage3_removed,
                "removed_pct": round(self.pct(self.stage3_removed, self.input - self.stage1_removed), 2),
                "judgments": dict(self.stage3_judgments),
            },
            "output": self.output,
            "longest_option_is_correct_pct": self.longest_is_correct_pct,
        }


async def run_qc(
    items: Sequence[Item],
    verifier: Model | str | None,
    *,
    seed: int = 0,
    limits: Stage1Limits = Stage1Limits(),
    verdicts_path: str | Path | None = None,
    max_retries: int = 2,
    config: GenerateConfig | None = None,
    cache: bool | CachePolicy = True,
    on_verdict: Callable[[str, str], None] | None = None,
) -> tuple[list[Item], QCReport]:
    """All three stages in the paper's order; `verifier=None` skips stage 3 (e.g. a pilot without a second key)."""
    report = QCReport(input=len(items))
    kept, removed = stage1_format(items, limits)
    report.stage1_removed = len(removed)
    for defects in removed.values():
        report.stage1_defects.update(defects.keys())

    report.answers_before = answer_distribution(kept)
    balanced = stage2_balance(kept, random.Random(seed))
    report.stage2_reordered = sum(a.answer != b.answer for a, b in zip(kept, balanced, strict=True))
    report.answers_after = answer_distribution(balanced)

    report.longest_is_correct_pct = longest_is_correct_pct(balanced)
    if verifier is None:
        report.output = len(balanced)
        return balanced, report
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
    report.output = len(final)
    # keep every judgment in the report, zero or not, so tables line up across runs
    for j in (*JUDGMENTS, "UNPARSED"):
        report.stage3_judgments.setdefault(j, 0)
    return final, report
