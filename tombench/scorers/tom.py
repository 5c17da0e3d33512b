"""The one ExploreToM answer scorer: a model's short free-text answer to a story question, right or wrong.

Every ToM task (static public data, random stories, ToMi, the live adversarial and transfer tasks) scores with
`tom_answer`, which is a thin Inspect wrapper around the one matcher, `tombench.dsl.answers.check_answer`, so an
accuracy means the same thing in the search, the baselines and the logs.

    from tombench.scorers.tom import tom_answer, tom_metrics
    Task(dataset=..., solver=tom_solver(), scorer=tom_answer(check="strict"))

The sample supplies everything the matcher needs in its metadata (see `tombench.tasks._samples`): `answer_type`
("container", "room", "yes_no", "knowledge"), `candidates` (the story's containers or rooms: the names a rival
answer may take) and `question` (so names the question itself supplies are not rivals). The verdict (what was read,
whether the answer was ambiguous) goes into the score's metadata and explanation, and the check mode into the
scorer's logged options.

`check="strict"` (default) reads whole words and counts an answer naming two containers as wrong; `"substring"` is
the original `expected in response.lower()`, for parity with published numbers. The choice matters: a 135M model on
400 questions of the public sample scores 0.30 under the substring test and about 0.39 under a phrase-level reading.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from inspect_ai.scorer import CORRECT, INCORRECT, Metric, Score, Scorer, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState

from tombench._errors import OptionError
from tombench.dsl.answers import AnswerType, Verdict, check_answer
from tombench.scorers.breakdown import breakdown

__all__ = ["CHECK_MODES", "TOM_DIMENSIONS", "CheckMode", "judge", "tom_answer", "tom_metrics", "validate_check"]

CheckMode = Literal["strict", "substring"]
CHECK_MODES: tuple[str, ...] = ("strict", "substring")

#: The paper's breakdowns (Table 1: action set and interesting questions; Table 6: ToM order, asymmetric, number
#: of people, number of moves). Sample metadata keys; samples lacking one are left out of that dimension's groups.
TOM_DIMENSIONS: tuple[str, ...] = ("action_set", "interesting", "order", "asymmetric", "people", "moves")


def validate_check(check: str) -> CheckMode:
    """The check mode, or a ValueError naming the valid ones (tasks validate early, before any model call)."""
    if check not in CHECK_MODES:
        raise OptionError(f"Invalid check value: {check!r}. Must be one of: {list(CHECK_MODES)}")
    return check  # type: ignore[return-value]


def tom_metrics(dimensions: Sequence[str] = TOM_DIMENSIONS) -> list[Metric]:
    """Accuracy and stderr overall plus the `breakdown` by `dimensions`: pass as `Task(metrics=...)` to regroup."""
    return [accuracy(), stderr(), breakdown(list(dimensions))]


def judge(response: str, expected: str, metadata: dict, check: CheckMode = "strict") -> Verdict:
    """Judge one response with the sample's metadata (`answer_type`, `candidates`, `question`).

    Samples without an `answer_type` (free-form questions of other benchmarks) are judged with the substring test,
    whatever `check` says: there is nothing for the strict reader to read.
    """
    answer_type = metadata.get("answer_type")
    if answer_type is None:
        return check_answer(response, expected, AnswerType.CONTAINER, mode="substring")
    return check_answer(
        response,
        expected,
        answer_type,
        list(metadata.get("candidates") or ()),
        mode=check,
        question=metadata.get("question") or "",
    )


def _explain(verdict: Verdict, expected: str, check: str) -> str:
    if check == "substring":
        return f"{check}: expected {expected!r} {'found' if verdict.correct else 'not found'} in the response"
    if verdict.ambiguous:
        return f"{check}: ambiguous, the response names {list(verdict.matched)}; expected {expected!r}"
    if verdict.predicted is None:
        return f"{check}: no answer read; expected {expected!r}"
    return f"{check}: read {verdict.predicted!r}; expected {expected!r}"


@scorer(metrics=tom_metrics())
def tom_answer(check: CheckMode = "strict") -> Scorer:
    """Score a short answer against the target with the one matcher, in `check` mode ("strict" or "substring")."""
    mode = validate_check(check)

    async def score(state: TaskState, target: Target) -> Score:
        response = state.output.completion
        expected = target.text
        verdict = judge(response, expected, state.metadata, mode)
        used = mode if state.metadata.get("answer_type") is not None else "substring"
        return Score(
            value=CORRECT if verdict.correct else INCORRECT,
            answer=verdict.predicted if verdict.predicted is not None else response,
            explanation=_explain(verdict, expected, used),
            metadata={
                "check": used,
                "predicted": verdict.predicted,
                "ambiguous": verdict.ambiguous,
                "matched": list(verdict.matched),
            },
        )

    return score
