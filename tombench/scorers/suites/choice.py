"""Multiple-choice reading for the established ToM suites: answer matchers and the grouped metrics they share.

One module for what every suite shares, so a number in `tombench report suites` means the same thing in every column:

* `match_choice(response, letters, options, protocol)`: which option a free-text response picks (None when it picks
  none or several). `protocol="letter"` is the robust default (a final "Answer: X", a leading "B)", "(b)", "C." or
  a bare letter, else the one option whose text the response names); `"bigtom"` is BigToM's own rule (the
  response contains "a)" or "b)"), with the option text as the fallback where the paper used an LLM grader.
* `choice_answer(protocol)`: the Inspect scorer for lettered multiple choice (target = the correct label; sample
  metadata `letters`, `options`). Value C/I; the score's metadata records what was read.
* `suite_metrics(dimensions)`: `accuracy`, `stderr`, the Wilson 95% interval of the accuracy (`accuracy_ci_low`,
  `accuracy_ci_high`) and the shared `breakdown` by each metadata dimension (`dim=value`, `:stderr`, `:n`).

A suite whose headline is not a plain accuracy has its own module beside this one (`opentom`: macro-F1; `fantom`:
All*; `tom_bench`: its per-language average); intervals come from `tombench.kit.intervals`.

Headline convention (see `tombench.tasks.suites`): a task names its headline metric in its metadata (`headline`);
for a proportion the report computes the Wilson interval from the value and n; any other headline must also log
`{headline}_ci_low` and `{headline}_ci_high` (e.g. `opentom.macro_f1_metric` does, by bootstrap).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Literal

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

from tombench.kit.metrics import accuracy_interval, breakdown

__all__ = ["PROTOCOLS", "choice_answer", "match_choice", "suite_metrics"]


Protocol = Literal["letter", "bigtom"]
PROTOCOLS: tuple[str, ...] = ("letter", "bigtom")


# ------------------------------------------------------------------------------------------------------ matching
_FINAL = re.compile(r"(?:final\s+)?answer\s*(?:is)?\s*[:：]", re.IGNORECASE)


def _label_pattern(letters: str) -> str:
    return "[" + re.escape(letters) + "]"


def _words(text: str) -> str:
    return " ".join(re.sub(r"[_\W]+", " ", text.lower()).split())


def _named_options(response: str, letters: str, options: Sequence[str]) -> list[str]:
    """Labels of the options whose text the response names (whole words, longest first, no overlaps)."""
    text = " " + _words(response) + " "
    taken = [False] * len(text)
    found: list[tuple[int, str]] = []
    order = sorted(range(len(options)), key=lambda i: -len(_words(options[i])))
    for i in order:
        opt = _words(options[i])
        if not opt:
            continue
        for m in re.finditer(r"(?<= )" + re.escape(opt) + r"(?= )", text):
            if not any(taken[m.start() : m.end()]):
                found.append((m.start(), letters[i]))
                for j in range(m.start(), m.end()):
                    taken[j] = True
    return list(dict.fromkeys(lab for _, lab in sorted(found)))


def _leading_label(text: str, letters: str, options: Sequence[str]) -> str | None:
    """A label at the very start: "B", "B.", "(b)", "c)", "B: ...", or "B green_box" when B's text follows."""
    lab = _label_pattern(letters)
    stripped = text.strip().strip("*` ")
    if m := re.match(rf"^\(?({lab})\s*(?:[.):\]]|$)", stripped, re.IGNORECASE):
        return m.group(1)
    if m := re.match(rf"^({lab})\s+(.+)$", stripped, re.IGNORECASE | re.DOTALL):
        for i, opt in enumerate(options):
            if letters[i].lower() == m.group(1).lower() and _words(m.group(2)).startswith(_words(opt)):
                return m.group(1)
    return None


def _canonical(label: str, letters: str) -> str | None:
    for lab in letters:
        if lab.lower() == label.lower():
            return lab
    return None


def _letter_protocol(response: str, letters: str, options: Sequence[str]) -> str | None:
    text = response.strip()
    finals = list(_FINAL.finditer(text))
    if finals:  # the last "Answer:" is the model's final word
        text = text[finals[-1].end() :]
    lab = _label_pattern(letters)
    cited = {
        _canonical(m.group(1) or m.group(2), letters)
        for m in re.finditer(rf"\(({lab})\)|\b(?:option|choice)\s+({lab})\b", text, re.IGNORECASE)
    }
    cited.discard(None)
    if (label := _leading_label(text, letters, options)) is not None:
        cited.add(_canonical(label, letters))
    if len(cited) == 1:
        return cited.pop()
    if len(cited) > 1:
        return None
    named = _named_options(text, letters, options)
    return named[0] if len(named) == 1 else None


def _bigtom_protocol(response: str, letters: str, options: Sequence[str]) -> str | None:
    """BigToM (Gandhi et al. 2023, evaluate_conditions.py): the lower-cased response contains "a)" or "b)".

    The original checks the correct key first, so a response naming both keys is graded correct; here it is
    ambiguous (None) unless the text after a final "Answer:" names only one. Where neither key appears the paper
    asked an LLM grader, told to match a single character to its option; here a lone label ("b", "B.") does the
    same, and otherwise the option text decides (one named option), else None.
    """
    text = response
    lone = re.fullmatch(r"\s*(?:answer\s*[:：]\s*)?\(?([A-Za-z])\)?[.\s]*", text, re.IGNORECASE)
    if lone and (label := _canonical(lone.group(1), letters)) is not None:
        return label
    finals = list(_FINAL.finditer(text))
    if finals:
        tail = text[finals[-1].end() :]
        keys = [lab for lab in letters if f"{lab.lower()})" in tail.lower()]
        if len(keys) == 1:
            return keys[0]
    keys = [lab for lab in letters if f"{lab.lower()})" in text.lower()]
    if len(keys) == 1:
        return keys[0]
    if len(keys) > 1:
        return None
    named = _named_options(text, letters, options)
    return named[0] if len(named) == 1 else None


_PROTOCOLS: dict[str, Callable[[str, str, Sequence[str]], str | None]] = {
    "letter": _letter_protocol,
    "bigtom": _bigtom_protocol,
}


def match_choice(response: str, letters: str, options: Sequence[str], protocol: Protocol = "letter") -> str | None:
    """The label (one of `letters`) a response picks among `options`, or None if it picks none or several."""
    if protocol not in _PROTOCOLS:
        raise ValueError(f"Invalid protocol {protocol!r}. Must be one of: {list(PROTOCOLS)}")
    if len(letters) != len(options):
        raise ValueError(f"{len(letters)} labels for {len(options)} options")
    return _PROTOCOLS[protocol](response or "", letters, options)


# ------------------------------------------------------------------------------------------------------ metrics
def suite_metrics(dimensions: Sequence[str]) -> list[Metric]:
    """Accuracy, stderr, its Wilson interval and the `breakdown` by `dimensions` (pass as `Task(metrics=...)`)."""
    return [accuracy(), stderr(), accuracy_interval(), breakdown(list(dimensions))]


# ------------------------------------------------------------------------------------------------------ scorer
@scorer(metrics=[accuracy(), stderr(), accuracy_interval()])
def choice_answer(protocol: Protocol = "letter") -> Scorer:
    """Lettered multiple choice: the target is the correct label; metadata `letters` and `options` give the rest.

    Pass the suite's grouped metrics with `Task(metrics=suite_metrics(...))`.
    """
    if protocol not in PROTOCOLS:
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
