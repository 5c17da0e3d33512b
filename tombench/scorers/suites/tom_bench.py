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

from tombench.dsl.denials import strip_denials
from tombench.kit.metrics import group_metrics
from tombench.kit.replies import read_option

_to_float = value_to_float()

__all__ = [
    "PAPER_TASKS",
    "list_breakdown",
    "majority",
    "majority_vote",
    "paper_average",
    "read_choice",
    "tombench_answer",
    "tombench_cells",
]

_DOUBLE = re.compile(r"\[\[\s*([A-Z])\s*\]\]")
_SINGLE = re.compile(r"\[\s*([A-Z])\s*\]")


def read_choice(text: str, letters: Sequence[str], options: Sequence[str] = ()) -> str | None:
    """The option letter a response names (one of `letters`), or None if it names none or several.

    `[[X]]` (the format the system prompt asks for), else `[X]`, decides when present; otherwise the careful
    grader's reading shared by the suites (`tombench.kit.replies.read_option`: "The answer is C.", "答案：C",
    "C. text", the text of one of `options`, the options in the order shown).
    """
    said = strip_denials(text, options)  # "[[A]] is wrong. [[C]]" asks for C: a denied bracket is no choice
    for pattern in (_DOUBLE, _SINGLE):
        found = {m.group(1) for m in pattern.finditer(said)}
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
    `ability=Belief: Second-order beliefs` (accuracy) and `:n` (`group_metrics`). Pooled over the languages, so
    the task no longer logs it (its `tombench_cells` per language hold the same items, and a pooled group is the
    count-weighted mean of its cells); registered still so that the logs that list it among
    their metrics recompute by name (`tombench.kit.logs.combine_shards`).
    """

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        by_dimension: dict[str, dict[str, list[float]]] = {}
        for key, dim in dimensions.items():
            groups: dict[str, list[float]] = {}
            for s in scores:
                for value in (s.sample_metadata or {}).get(key) or []:
                    groups.setdefault(str(value), []).append(_to_float(s.score.value))
            by_dimension[dim] = {value: groups[value] for value in sorted(groups)}
        return group_metrics(by_dimension)

    return compute


# ------------------------------------------------------------------------------------------- the paper's AVG columns
#: The 8 tasks of the paper's task table (its AVG column), by data file: 2,470 of the 2,860 items. The other 12
#: files (ability-oriented, e.g. "Hidden Emotions") count only in the ability table.
PAPER_TASKS: tuple[str, ...] = (
    "Unexpected Outcome Test",
    "Scalar Implicature Test",
    "Persuasion Story Task",
    "False Belief Task",
    "Ambiguous Story Task",
    "Hinting Task Test",
    "Strange Story Task",
    "Faux-pas Recognition Test",
)
#: The ATOMS categories of the paper's ability table, in its column order (each item is in exactly one).
CATEGORIES: tuple[str, ...] = ("Emotion", "Desire", "Intention", "Knowledge", "Belief", "Non-Literal Communication")


def _cells(scores: Sequence[SampleScore], key: str) -> dict[tuple[str, str], list[float]]:
    """(language, value) -> item scores, for a metadata `key` holding one value or a list of values."""
    cells: dict[tuple[str, str], list[float]] = {}
    for s in scores:
        md = s.sample_metadata or {}
        values = md.get(key)
        for value in values if isinstance(values, list) else [values] if values is not None else []:
            cells.setdefault((str(md.get("language")), str(value)), []).append(_to_float(s.score.value))
    return cells


def paper_average(cells: Mapping[str, Sequence[float]], wanted: Sequence[str]) -> tuple[float, float] | None:
    """The paper's AVG of one language: the unweighted mean of the accuracy of each wanted cell that has items,
    with the standard error of that mean (cells independent; a cell's variance from (x + 1) / (n + 2), so an
    all-right or all-wrong cell still has some). None when no wanted cell has items."""
    present = [cells[c] for c in wanted if cells.get(c)]
    if not present:
        return None
    means = [sum(v) / len(v) for v in present]
    smoothed = [(sum(v) + 1) / (len(v) + 2) for v in present]
    var = sum(p * (1 - p) / len(v) for p, v in zip(smoothed, present, strict=True)) / len(present) ** 2
    return sum(means) / len(means), math.sqrt(var)


def _by_language(cells: Mapping[tuple[str, str], list[float]]) -> dict[str, list[float]]:
    """The cells as breakdown groups `{language}/{value}`, in (language, value) order."""
    return {f"{lang}/{value}": vals for (lang, value), vals in sorted(cells.items())}


def _chance(scores: Sequence[SampleScore], lang: str, tasks: Sequence[str]) -> float:
    """The AVG a uniform guess expects in one language: the mean over the averaged tasks of their mean 1/k."""
    per_task: dict[str, list[float]] = {}
    for s in scores:
        md = s.sample_metadata or {}
        if md.get("language") == lang and md.get("task") in tasks:
            per_task.setdefault(str(md["task"]), []).append(1 / int(md["k"]))
    return sum(sum(v) / len(v) for v in per_task.values()) / len(per_task) if per_task else 0.0


@metric
def tombench_cells() -> Metric:
    """The paper's headline and its table cells, from the items scored (so `--limit` and filters are honoured).

    * `avg_zh`, `avg_en`: the task table's AVG, the unweighted mean over the paper's 8 tasks (`PAPER_TASKS`) of each
      task's accuracy in that language (a run of other files only: the mean over the files run);
    * `ability_avg_zh`, `ability_avg_en`: the ability table's AVG, the mean of its 6 category accuracies;
    * `avg` (the headline): the mean of the languages' `avg_*`, with `avg_ci_low`/`avg_ci_high` (normal 95%
      interval of a mean of independent cell accuracies) and `avg_chance` (the AVG of a uniform guess);
    * the cells themselves as breakdown keys: `task_language=zh/False Belief Task`, `category_language=en/Belief`,
      `ability_language=zh/Belief: Second-order beliefs` (accuracy and `:n`, `group_metrics`).
    """

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        tasks, categories = _cells(scores, "task"), _cells(scores, "categories")
        per_language: dict[str, float] = {}
        heads: list[tuple[float, float, float]] = []
        for lang in sorted({lang for lang, _ in tasks}, key=lambda x: (x != "zh", x)):
            mine = {t: v for (la, t), v in tasks.items() if la == lang}
            wanted = PAPER_TASKS if any(t in mine for t in PAPER_TASKS) else sorted(mine)
            avg = paper_average(mine, wanted)
            if avg is not None:
                per_language[f"avg_{lang}"] = avg[0]
                heads.append((avg[0], avg[1], _chance(scores, lang, wanted)))
            by_cat = paper_average({c: v for (la, c), v in categories.items() if la == lang}, CATEGORIES)
            if by_cat is not None:
                per_language[f"ability_avg_{lang}"] = by_cat[0]
        out: dict[str, float] = {}  # the headline first: Inspect's summary lists the keys in this order
        if heads:
            value = sum(h[0] for h in heads) / len(heads)
            se = math.sqrt(sum(h[1] ** 2 for h in heads)) / len(heads)
            out.update({"avg": value, "avg_ci_low": max(0.0, value - 1.96 * se),
                        "avg_ci_high": min(1.0, value + 1.96 * se), "avg_chance": sum(h[2] for h in heads) / len(heads)})
        out.update(per_language)
        return out | group_metrics({"task_language": _by_language(tasks),
                                    "category_language": _by_language(categories),
                                    "ability_language": _by_language(_cells(scores, "abilities"))})

    return compute
