"""The labelled set of real answers (tests/dsl/data/answer_labels.jsonl): loading, truth, and each check's scores.

Used by `tests/dsl/test_answer_labels.py` (which pins the numbers) and `benchmarks/bench_answer_matching.py` (which
prints the table of docs/explanation/answer-matching.md). The labelling rules are in docs/explanation/answer-matching.md.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tombench.dsl.answers import AnswerType, check_answer, normalise

LABELS = Path(__file__).parent / "data" / "answer_labels.jsonl"
#: A label: the answer a careful reader reads; `None` no answer, `OTHER` an answer that is none of the options.
OTHER = "~"
#: Categories of responses that give no answer; the goal (issue #19) is no false credit on these.
NON_ANSWERS = ("hedge", "conditional", "echo-story", "echo-options", "echo-question", "question-back")
TYPES = [t.value for t in AnswerType]


def load(path: Path = LABELS) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def truly_correct(row: dict) -> bool:
    """What the label says: the response commits to the expected answer."""
    label = row["label"]
    if label is None or label == OTHER:
        return False
    return normalise(label) == normalise(row["expected"])


def strict(row: dict) -> bool:
    return check_answer(row["response"], row["expected"], row["answer_type"], row["candidates"], "strict",
                        question=row["question"], story=row["story"]).correct


def substring(row: dict) -> bool:
    return check_answer(row["response"], row["expected"], row["answer_type"], mode="substring").correct


CHECKS: dict[str, Callable[[dict], bool]] = {"strict": strict, "substring": substring}


@dataclass(frozen=True)
class Confusion:
    """Credit given by a check against the label: true/false positives and negatives."""

    tp: int
    fp: int
    fn: int
    tn: int

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    def as_tuple(self) -> tuple[int, int, int, int]:
        return (self.tp, self.fp, self.fn, self.tn)


def confusion(rows: Iterable[dict], check: Callable[[dict], bool]) -> Confusion:
    tp = fp = fn = tn = 0
    for row in rows:
        truth, credit = truly_correct(row), check(row)
        tp += truth and credit
        fp += credit and not truth
        fn += truth and not credit
        tn += not truth and not credit
    return Confusion(tp, fp, fn, tn)


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for k successes in n: honest at 0% and 100% (never a zero-width interval)."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def rate(k: int, n: int) -> str:
    if n == 0:
        return "n/a (0)"
    lo, hi = wilson(k, n)
    return f"{k / n:.2f} [{lo:.2f}, {hi:.2f}] ({k}/{n})"


def table(rows: Sequence[dict], checks: dict[str, Callable[[dict], bool]] = CHECKS) -> str:
    """Markdown: per answer type and check, precision and recall with 95% Wilson intervals, and the accuracy read."""
    lines = [
        "| answer type | n | truly correct | check | precision | recall | accuracy it reports |",
        "|---|---|---|---|---|---|---|",
    ]
    for atype in [*TYPES, "all"]:
        subset = [r for r in rows if atype in ("all", r["answer_type"])]
        right = sum(truly_correct(r) for r in subset)
        for name, check in checks.items():
            c = confusion(subset, check)
            lines.append(
                f"| {atype} | {len(subset)} | {right} | {name} | {rate(c.tp, c.tp + c.fp)} | {rate(c.tp, c.tp + c.fn)} "
                f"| {(c.tp + c.fp) / max(1, c.n):.3f} (true {right / max(1, c.n):.3f}) |"
            )
    return "\n".join(lines)
