"""Multiple-choice reading for the established ToM suites: answer matchers and the grouped metrics they share.

One module for what every suite shares, so a number in `tombench report suites` means the same thing in every column:

* `match_choice(response, letters, options, protocol)`: which option a free-text response picks (None when it picks
  none or several, or hedges). `protocol="letter"` is the careful grader's reading shared with ToMBench and
  ToM-Synth (`tombench.kit.replies.read_option`: "The answer is B.", "Answer: (B)", "B. text", "**B**", "[[B]]",
  the option's text; "A red basket" is not option A; "B or C" is a hedge); `"bigtom"` adds BigToM's key format
  ("b)" anywhere, never inside a word), with the option text where the paper used an LLM grader.
* `choice_answer(protocol)`: the Inspect scorer for lettered multiple choice (target = the correct label; sample
  metadata `letters`, `options`). Value C/I; the score's metadata records what was read.
* `suite_metrics(dimensions)`: `accuracy`, `stderr`, the Wilson 95% interval of the accuracy (`accuracy_ci_low`,
  `accuracy_ci_high`), the chance level of the samples scored (`chance`, mean 1/k) and the shared `breakdown` by
  each metadata dimension (`dim=value`, `:n`; `kit.metrics.group_metrics`).

A suite whose headline is not a plain accuracy has its own module beside this one (`opentom`: macro-F1; `fantom`:
All*; `tom_bench`: its per-language average); intervals come from `tombench.kit.intervals`.

Headline convention (see `tombench.tasks.shared`): a task names its headline metric in its metadata (`headline`);
for a proportion the report computes the Wilson interval from the value and n; any other headline must also log
`{headline}_ci_low` and `{headline}_ci_high` (e.g. `opentom.macro_f1_metric` does, by bootstrap).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    Metric,
    Score,
    Scorer,
    Target,
    accuracy,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState

from tombench.kit.metrics import accuracy_interval, breakdown, chance_level
from tombench.kit.replies import read_option

__all__ = ["PROTOCOLS", "choice_answer", "match_choice", "suite_metrics"]


#: a protocol's reading: (response, labels as shown, option texts) -> the label it picks, or None
Matcher = Callable[[str, str, Sequence[str]], str | None]

#: the protocols by name, each registered once by `_protocol` beside its reading
_PROTOCOLS: dict[str, Matcher] = {}


def _protocol(name: str) -> Callable[[Matcher], Matcher]:
    """Register a reading under its protocol name (the `protocol` option of `choice_answer` and `match_choice`)."""

    def register(matcher: Matcher) -> Matcher:
        _PROTOCOLS[name] = matcher
        return matcher

    return register


# ------------------------------------------------------------------------------------------------------ matching
@_protocol("letter")
def _letter_protocol(response: str, letters: str, options: Sequence[str]) -> str | None:
    """The careful grader's reading (`tombench.kit.replies.read_option`): a stated answer, a leading label, a
    concluding label, one bracketed label, else the one option the first sentence states; hedges read nothing."""
    return read_option(response, letters, options)


@_protocol("bigtom")
def _bigtom_protocol(response: str, letters: str, options: Sequence[str]) -> str | None:
    """BigToM (Gandhi et al. 2023, evaluate_conditions.py): the lower-cased response contains "a)" or "b)".

    The original checks the correct key first, so a response naming both keys is graded correct, and it finds a
    key inside a word ("... near the sofa)." holds "a)"). Here the shared reading decides (`read_option`, which
    also reads the key format "b)" anywhere, never inside a word): a reply offering both keys is a hedge (None),
    and an explanation after the answer ("b) ..., so a) is wrong") does not undo it. Where no key appears the
    paper asked an LLM grader, told to match a single character to its option; here a lone label or the one
    option the reply states in words does the same, else None.
    """
    return read_option(response, letters, options, closing_keys=True)


#: every protocol's name, in registration order
PROTOCOLS: tuple[str, ...] = tuple(_PROTOCOLS)


def match_choice(response: str, letters: str, options: Sequence[str], protocol: str = "letter") -> str | None:
    """The label (one of `letters`) a response picks among `options`, or None if it picks none or several."""
    if protocol not in _PROTOCOLS:
        raise ValueError(f"Invalid protocol {protocol!r}. Must be one of: {list(PROTOCOLS)}")
    if len(letters) != len(options):
        raise ValueError(f"{len(letters)} labels for {len(options)} options")
    return _PROTOCOLS[protocol](response or "", letters, options)


# ------------------------------------------------------------------------------------------------------ metrics
def suite_metrics(dimensions: Sequence[str]) -> list[Metric]:
    """Accuracy, stderr, its Wilson interval, the chance level of the samples scored (`chance`, the report's chance
    row) and the `breakdown` by `dimensions` (pass as `Task(metrics=...)`)."""
    return [accuracy(), stderr(), accuracy_interval(), chance_level(), breakdown(list(dimensions))]


# ------------------------------------------------------------------------------------------------------ scorer
@scorer(metrics=[accuracy(), stderr(), accuracy_interval()])
def choice_answer(protocol: str = "letter") -> Scorer:
    """Lettered multiple choice: the target is the correct label; metadata `letters` and `options` give the rest.

    Pass the suite's grouped metrics with `Task(metrics=suite_metrics(...))`.
    """
    if protocol not in _PROTOCOLS:
        from tombench.kit.errors import OptionError

        raise OptionError(f"Invalid protocol value: {protocol!r}. Must be one of: {list(PROTOCOLS)}")

    async def score(state: TaskState, target: Target) -> Score:
        letters = str(state.metadata["letters"])
        options = list(state.metadata["options"])
        read = match_choice(state.output.completion, letters, options, protocol)
        expected = target.text
        return Score(
            value=CORRECT if read is not None and read == expected else INCORRECT,
            answer=read if read is not None else state.output.completion,
            explanation=f"{protocol}: read {read!r}; expected {expected!r}" if read else
            f"{protocol}: no single option read; expected {expected!r}",
            metadata={"protocol": protocol, "read": read, "k": len(options)},
        )

    return score
