"""The one ExploreToM answer scorer: a model's short free-text answer to a story question, right or wrong.

Every ToM task (static public data, random stories, ToMi, the live adversarial and transfer tasks) scores with
`tom_answer`, which is a thin Inspect wrapper around the one matcher, `tombench.dsl.answers.check_answer`, so an
accuracy means the same thing in the search, the baselines and the logs.

    from tombench.scorers.story_questions import tom_answer, tom_metrics
    Task(dataset=..., solver=tom_solver(), scorer=tom_answer(check="strict"))

The sample supplies everything the matcher needs in its metadata (see `tombench.tasks.shared.story_questions`): `answer_type`
("container", "room", "yes_no", "knowledge"), `candidates` (the story's containers or rooms: the names a rival
answer may take) and `question` (so names the question itself supplies are not rivals). The verdict (what was read,
whether the answer was ambiguous) goes into the score's metadata and explanation, and the check mode into the
scorer's logged options.

`check="strict"` (default) reads whole words and counts an answer naming two containers as wrong; `"substring"` is
the original `expected in response.lower()`, for parity with published numbers; `"judge"` asks a grader model
(Inspect's model-graded pattern, `--model-role grader=...`). The choice matters: see docs/explanation/answer-matching.md for
each check's precision and recall on a labelled set of real answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from inspect_ai.model import ModelRole, model_roles
from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    Metric,
    Score,
    Scorer,
    Target,
    accuracy,
    model_graded_qa,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState

from tombench.dsl.answers import AnswerType, Verdict, check_answer
from tombench.kit.errors import OptionError
from tombench.kit.metrics import breakdown

__all__ = [
    "CHECK_MODES",
    "GRADER_ROLE",
    "JUDGE_INSTRUCTIONS",
    "JUDGE_TEMPLATE",
    "TOM_DIMENSIONS",
    "CheckMode",
    "judge",
    "matcher_check",
    "tom_answer",
    "task_check",
    "tom_metrics",
    "validate_check",
]

CheckMode = Literal["strict", "substring", "judge"]
CHECK_MODES: tuple[str, ...] = ("strict", "substring", "judge")

#: The model role the judge grades with: `inspect eval ... -T check=judge --model-role grader=openai/gpt-4o`.
GRADER_ROLE = "grader"

#: What the grader sees (Inspect's model-graded template variables: question = the prompt the model under test got,
#: criterion = the expected answer, answer = its response). The rules are those the labelled set was read with.
JUDGE_TEMPLATE = """You are grading a short answer that a model gave to a question about a story.

[BEGIN DATA]
***
[Story and question]: {question}
***
[Expected answer]: {criterion}
***
[Submitted answer]: {answer}
***
[END DATA]

{instructions}
"""

JUDGE_INSTRUCTIONS = """The submitted answer is CORRECT only if it commits to the expected answer: it states that answer
(any wording, e.g. "Beth doesn't know" for "does not know about it", "In the box." for "box") and no other answer.

It is INCORRECT if it:
- gives a different answer, or names several possible answers without choosing one ("the box or the basket");
- hedges or declines ("I'm not sure", "it is unclear", "I can't tell");
- answers only conditionally ("If Hannah knows about it, ...");
- only repeats the story, the question or the answer options (even if the expected answer appears in that copy);
- asks a question back, or talks about something else.
The answer may be cut off mid-sentence: judge what it has committed to so far.

Think in one or two sentences, then end with 'GRADE: C' for correct or 'GRADE: I' for incorrect."""

#: The paper's breakdowns (Table 1: action set, with and without asymmetry; Table 6: interesting questions; Figure 3:
#: number of people and of moves) plus the ToM order. Sample metadata keys; samples lacking one are left out of that
#: dimension's groups.
TOM_DIMENSIONS: tuple[str, ...] = ("action_set", "interesting", "order", "asymmetric", "people", "moves")


def validate_check(check: str) -> CheckMode:
    """The check mode, or a ValueError naming the valid ones (tasks validate early, before any model call)."""
    if check not in CHECK_MODES:
        raise OptionError(f"Invalid check value: {check!r}. Must be one of: {list(CHECK_MODES)}")
    return check  # type: ignore[return-value]


#: what a task built with check=judge and no grader says (one line, before any model call)
NO_GRADER = ("check=judge needs a grader model: add --model-role grader=MODEL (in Python: eval(..., "
             "model_roles={'grader': MODEL}) with the task given by name), or use -T check=strict")


def task_check(check: str) -> CheckMode:
    """A task's `check` option, read when the task is built: `validate_check`, and for "judge" a model bound to the
    grader role, or one line (`OptionError`) before any model call.

    Without a grader, `tom_answer` stops at the first question it scores: the live task would have run its whole
    search by then (model calls a user pays for), and a fixed task would end in a traceback. Inspect binds the
    eval's model roles (`--model-role`, `eval(model_roles=...)`, a retried log's) before it builds a task it loads
    by name or from its function, so `model_roles()` holds them here. A task object built before `eval()` is given
    its roles sees none and is refused too: pass the task by name (or function) with `task_args` instead."""
    mode = validate_check(check)
    if mode == "judge" and GRADER_ROLE not in model_roles():
        raise OptionError(NO_GRADER)
    return mode


def matcher_check(check: str) -> Literal["strict", "substring"]:
    """The rule-based check behind `check` for code that cannot call a grader (the A* search): judge -> strict."""
    mode = validate_check(check)
    return "strict" if mode == "judge" else mode  # type: ignore[return-value]


def tom_metrics(dimensions: Sequence[str] = TOM_DIMENSIONS) -> list[Metric]:
    """Accuracy and stderr overall plus the `breakdown` by `dimensions`: pass as `Task(metrics=...)` to regroup."""
    return [accuracy(), stderr(), breakdown(list(dimensions))]


def judge(response: str, expected: str, metadata: dict, check: CheckMode = "strict", story: str = "") -> Verdict:
    """Judge one response with the sample's metadata (`answer_type`, `candidates`, `question`) and the story asked.

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
        story=story,
    )


def _explain(verdict: Verdict, expected: str, check: str) -> str:
    if check == "substring":
        return f"{check}: expected {expected!r} {'found' if verdict.correct else 'not found'} in the response"
    if verdict.ambiguous:
        return f"{check}: ambiguous, the response names {list(verdict.matched)}; expected {expected!r}"
    if verdict.predicted is None:
        aside = f" (set aside: {', '.join(verdict.discarded)})" if verdict.discarded else ""
        return f"{check}: no answer read{aside}; expected {expected!r}"
    return f"{check}: read {verdict.predicted!r}; expected {expected!r}"


@scorer(metrics=tom_metrics())
def tom_answer(check: CheckMode = "strict") -> Scorer:
    """Score a short answer against the target: the one matcher ("strict", "substring") or a grader ("judge").

    `check="judge"` grades with the model bound to the `grader` role (`--model-role grader=...`; required: without
    it the first scored sample stops the eval with one line, rather than the model under test grading itself).
    The strict reading is kept beside the grade in the score's metadata; where the grader gives no `GRADE:`, the
    strict verdict is used and `judge_failed` is set, so a grader's lapse never drops a sample from the accuracy.
    """
    mode = validate_check(check)
    grader = (
        model_graded_qa(template=JUDGE_TEMPLATE, instructions=JUDGE_INSTRUCTIONS,
                        model_role=ModelRole(GRADER_ROLE, required=True))
        if mode == "judge"
        else None
    )

    async def score(state: TaskState, target: Target) -> Score:
        response = state.output.completion
        expected = target.text
        has_type = state.metadata.get("answer_type") is not None
        reading = "strict" if mode == "judge" else mode
        story = state.input_text.rpartition("\n")[0]  # the user message is "{story}\n{question} Short Answer."
        verdict = judge(response, expected, state.metadata, reading, story)  # type: ignore[arg-type]
        used = reading if has_type else "substring"
        metadata = {
            "check": used,
            "predicted": verdict.predicted,
            "ambiguous": verdict.ambiguous,
            "matched": list(verdict.matched),
            "discarded": list(verdict.discarded),
        }
        if grader is None:
            return Score(
                value=CORRECT if verdict.correct else INCORRECT,
                answer=verdict.predicted if verdict.predicted is not None else response,
                explanation=_explain(verdict, expected, used),
                metadata=metadata,
            )
        graded = await grader(state, target)
        grade = graded.value if graded is not None and graded.value in (CORRECT, INCORRECT) else None
        metadata.update({"check": "judge", "strict": CORRECT if verdict.correct else INCORRECT,
                         "judge_failed": grade is None})
        if grade is None:
            return Score(value=CORRECT if verdict.correct else INCORRECT, answer=response,
                         explanation=f"judge: no grade from the grader, strict used ({_explain(verdict, expected, used)})",
                         metadata=metadata)
        return Score(value=grade, answer=response, explanation=f"judge: {graded.explanation}", metadata=metadata)

    return score
