"""ToMBench answer reading and its per-item majority vote (Chen et al., 2024).

ToMBench asks every item several times with its options shuffled (5 in the paper) and takes the most frequent
answer, mapped back to the original option letters, as the item's prediction. `read_choice` reads one response:
`[[X]]` (the format the system prompt asks for), else `[X]`, else the careful grader's reading the suites share
("The answer is C.", "答案：C", "C. On the coat hook", the option's text). The paper's `get_results.py` falls back
to the last capital A-D anywhere in the response and finally to "A" (so "无法确定。" is an A); we count responses
that name no option as unreadable (wrong), so an answer must name its option to score.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    Metric,
    SampleScore,
    Score,
    Scorer,
    ScoreReducer,
    Target,
    metric,
    score_reducer,
    scorer,
    value_to_float,
)
from inspect_ai.solver import TaskState

from tombench.kit.metrics import breakdown_key
from tombench.kit.replies import read_option

_to_float = value_to_float()

__all__ = ["list_breakdown", "majority", "majority_vote", "read_choice", "tombench_answer"]

_DOUBLE = re.compile(r"\[\[\s*([A-Z])\s*\]\]")
_SINGLE = re.compile(r"\[\s*([A-Z])\s*\]")


def read_choice(text: str, letters: Sequence[str], options: Sequence[str] = ()) -> str | None:
    """The option letter a response names (one of `letters`), or None if it names none or several.

    `[[X]]` (the format the system prompt asks for), else `[X]`, decides when present; otherwise the careful
    grader's reading shared by the suites (`tombench.kit.replies.read_option`: "The answer is C.", "答案：C",
    "C. text", the text of one of `options`, the options in the order shown).
    """
    for pattern in (_DOUBLE, _SINGLE):
        found = {m.group(1) for m in pattern.finditer(text)}
        if found:
            return found.pop() if len(found) == 1 and next(iter(found)) in letters else None
    return read_option(text, "".join(letters), options)


def majority(answers: Sequence[str | None]) -> str | None:
    """The most frequent answer over the tries, unreadable ones (None) included; a tie goes to the one given first.

    So an item whose tries are mostly unreadable has no prediction, however the readable ones split.
    """
    if not answers:
        return None
    counts: dict[str | None, int] = {}
    for a in answers:
        counts[a] = counts.get(a, 0) + 1
    best = max(counts.values())
    return next(a for a in answers if counts[a] == best)


# ------------------------------------------------------------------------------------------------------ Inspect glue
LETTERS = "ABCD"


@scorer(metrics=[])
def tombench_answer() -> Scorer:
    """One try: the letter read from the response, mapped back through the try's option order (`store["order"]`).

    The score's answer is the original option letter (None if unreadable); the `majority_vote` reducer turns the
    tries of an item into its prediction.
    """

    async def score(state: TaskState, target: Target) -> Score:
        order = list(state.store.get("order") or range(int(state.metadata["k"])))
        shown = LETTERS[: len(order)]
        read = read_choice(state.output.completion, shown, [state.choices[i].value for i in order])
        original = LETTERS[order[shown.index(read)]] if read is not None else None
        return Score(
            value=CORRECT if original == target.text else INCORRECT,
            answer=original,
            explanation=f"read {read!r} of shown order {''.join(LETTERS[i] for i in order)}; expected {target.text}",
            metadata={"read": read, "original": original, "target": target.text, "order": order},
        )

    return score


@score_reducer(name="majority_vote")
def majority_vote() -> ScoreReducer:
    """ToMBench's item score: right when the majority answer of the tries (`majority`) is the correct letter."""

    def reduce(scores: list[Score]) -> Score:
        answers = [(s.metadata or {}).get("original") for s in scores]
        target = next(((s.metadata or {}).get("target") for s in scores), None)
        pred = majority(answers)
        return Score(  # a number, as Inspect's own reducers return (the shared metrics read floats)
            value=1.0 if pred is not None and pred == target else 0.0,
            answer=pred,
            explanation=f"tries {answers} -> {pred!r}; expected {target!r}",
            metadata={"tries": answers, "target": target, "predicted": pred},
        )

    return reduce


@metric
def list_breakdown(dimensions: Mapping[str, str]) -> Metric:
    """`breakdown` for list-valued metadata: an item counts in the group of every value it lists.

    `dimensions` maps a metadata key to the dimension name in the keys: {"abilities": "ability"} gives
    `ability=Belief: Second-order beliefs` (accuracy), `:stderr` and `:n`.
    """

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        out: dict[str, float] = {}
        for key, dim in dimensions.items():
            groups: dict[str, list[float]] = {}
            for s in scores:
                for value in (s.sample_metadata or {}).get(key) or []:
                    groups.setdefault(str(value), []).append(_to_float(s.score.value))
            for value in sorted(groups):
                vals = groups[value]
                mean = sum(vals) / len(vals)
                se = math.sqrt(sum((v - mean) ** 2 for v in vals) / (len(vals) - 1) / len(vals)) if len(vals) > 1 else 0
                out[breakdown_key(dim, value)] = mean
                out[f"{breakdown_key(dim, value)}:stderr"] = se
                out[f"{breakdown_key(dim, value)}:n"] = float(len(vals))
        return out

    return compute
