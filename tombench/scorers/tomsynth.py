"""Scorers for ToM-Synth: grouped multiple-choice accuracy, and the paper's RL reward (§4, Eqs. 3-5).

R(y) = R_format(y) + R_outcome(y) in {-1, 0, 1}: -1 when the response is not `<think>...</think><answer>...</answer>`
with a single option letter in the answer, 0 when well-formed but wrong, 1 when well-formed and right. The pure
functions (`format_ok`, `extract_answer`, `tomsynth_reward`, `grpo_reward`) import nothing from Inspect at call
time, so a GRPO loop (VeRL, TRL) can use them directly; `tomsynth_rl` wraps them as an Inspect scorer that reports
the mean reward beside what it mixes: accuracy (well-formed and right) and the format-error rate, each with a 95%
Wilson interval (a mean reward of 0.2 can be 60% right with 40% malformed, or 20% right and never malformed).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from inspect_ai.scorer import CORRECT, INCORRECT, Score, Scorer, Target, accuracy, mean, scorer, stderr
from inspect_ai.solver import TaskState

from tombench.kit.metrics import breakdown, wilson95
from tombench.kit.replies import read_option

__all__ = [
    "GROUPING_DIMENSIONS",
    "format_ok",
    "extract_answer",
    "read_letter",
    "tomsynth_reward",
    "grpo_reward",
    "tomsynth_choice",
    "tomsynth_rl",
]

#: Sample metadata keys the task reports accuracy by (dimension, sub-dimension, social domain, format).
GROUPING_DIMENSIONS: tuple[str, ...] = ("dimension", "sub_dimension", "domain", "format")

_RESPONSE = re.compile(r"\s*<think>(.*?)</think>\s*<answer>(.*?)</answer>\s*", re.DOTALL)
_LETTER = re.compile(r"\(?([A-Za-z])\)?(?:[.):]\s*.*)?", re.DOTALL)


def extract_answer(response: str, letters: str = "ABCD") -> str | None:
    """The option letter of a well-formed response, or None if the response is malformed.

    Well-formed: exactly one think block then exactly one answer block and nothing else around them; the answer
    holds one option letter, optionally bracketed and optionally followed by the option text (`B`, `(B)`,
    `B. She feels ...`).
    """
    if response.count("<think>") != 1 or response.count("<answer>") != 1:
        return None
    m = _RESPONSE.fullmatch(response)
    if m is None:
        return None
    lm = _LETTER.fullmatch(m.group(2).strip())
    if lm is None or lm.group(1).upper() not in letters:
        return None
    return lm.group(1).upper()


def format_ok(response: str, letters: str = "ABCD") -> bool:
    return extract_answer(response, letters) is not None


def tomsynth_reward(response: str, answer: str, letters: str = "ABCD") -> int:
    """R = R_format + R_outcome: -1 malformed, 0 well-formed but wrong, 1 right (paper Eqs. 3-5)."""
    letter = extract_answer(response, letters)
    if letter is None:
        return -1
    return 1 if letter == answer.strip().upper() else 0


def _completion_text(completion: Any) -> str:
    # TRL passes plain strings, or for conversational datasets a list of {"role", "content"} messages.
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and completion and isinstance(completion[-1], dict):
        return str(completion[-1].get("content", ""))
    return str(completion)


def grpo_reward(completions: Sequence[Any], answer: Sequence[str], **kwargs: Any) -> list[float]:
    """Batch reward in the signature TRL's `GRPOTrainer(reward_funcs=[...])` expects (dataset column `answer`)."""
    return [float(tomsynth_reward(_completion_text(c), a)) for c, a in zip(completions, answer, strict=True)]


def read_letter(completion: str, letters: str, options: Sequence[str] = ()) -> str | None:
    """The option letter a letter-format reply picks (shown order), or None: the careful grader's reading the suites
    share (`tombench.kit.replies.read_option`). Inspect's own parse reads only "ANSWER: X", so "B", "The answer is
    B." or the option's text scored as unanswered; "ANSWER: A or B" is still a hedge."""
    return read_option(completion, letters, options)


@scorer(metrics=[accuracy(), stderr(), breakdown(GROUPING_DIMENSIONS)])
def tomsynth_choice() -> Scorer:
    """Multiple choice (the `multiple_choice` solver's prompt), read with `read_letter`, right when the option read
    is the target; reported by the grouping dimensions too."""

    async def score(state: TaskState, target: Target) -> Score:
        letters = "".join(chr(ord("A") + i) for i in range(len(state.choices)))
        read = read_letter(state.output.completion, letters, [c.value for c in state.choices])
        original = None
        if read is not None:
            position = state.choices[letters.index(read)].original_position
            original = chr(ord("A") + (letters.index(read) if position is None else position))
        expected = target.text.strip().upper()
        return Score(
            value=CORRECT if original is not None and original == expected else INCORRECT,
            answer=original,
            explanation=f"read {original!r}; expected {expected!r}" if original else
            f"no single option read; expected {expected!r}",
        )

    return score


@scorer(
    metrics={
        "reward": [mean(), stderr(), breakdown(GROUPING_DIMENSIONS)],
        "accuracy": [accuracy(), stderr(), wilson95(), breakdown(GROUPING_DIMENSIONS)],
        "format_error": [mean(), wilson95()],
    }
)
def tomsynth_rl() -> Scorer:
    """The RL reward as a scorer: `reward` in {-1, 0, 1} (its mean is the average reward), `accuracy` (1 when
    well-formed and right) and `format_error` (1 when malformed), each per group where it matters."""

    async def score(state: TaskState, target: Target) -> Score:
        response = state.output.completion
        letter = extract_answer(response)
        reward = tomsynth_reward(response, target.text)
        return Score(
            value={"reward": float(reward), "accuracy": float(reward == 1), "format_error": float(letter is None)},
            answer=letter,
            explanation=None if letter is not None else "malformed: expected <think>...</think><answer>X</answer>",
        )

    return score
