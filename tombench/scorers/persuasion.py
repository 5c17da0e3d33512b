"""Scorers of the ToMMA persuasion tasks (paper §4.2, Table 2).

`persuasion_fixed_scorer`: ROUGE-L F1 of the predicted persuader reply against the reference, and a 1-10
"persuasive" score from the grader role. `persuasion_dynamic_scorer`: for a live dialogue, the mean persuasive
score of the persuader's turns, preventive and generative satisfaction judged from the persuadee's true mental
state, and the combined causal-ToM success. Each value is reported overall and per listed domain (`breakdown`: a
record with three domains counts in each); rates also get a 95% Wilson interval. A verdict the grader did not give
in a readable form is left unscored (NaN), not counted as a failure.
"""

from __future__ import annotations

import asyncio
from typing import Any

from inspect_ai.model import get_model
from inspect_ai.scorer import Score, Scorer, Target, accuracy, mean, scorer, stderr
from inspect_ai.solver import TaskState

from tombench.generators.persuasion.judge import dynamic_outcome, persuasive_score
from tombench.generators.persuasion.records import Turn, clean_utterance, parse_dialog, record_from_dict
from tombench.generators.persuasion.rouge import rouge_l
from tombench.kit.metrics import breakdown, wilson95

__all__ = ["persuasion_fixed_scorer", "persuasion_dynamic_scorer", "DIALOG_STORE_KEY"]

#: Where the dynamic solver leaves the dialogue (list of "speaker: text" lines) in the sample store.
DIALOG_STORE_KEY = "persuasion_dialog"

_NAN = float("nan")


def _num(value: float | bool | None) -> float:
    return _NAN if value is None else float(value)


def _record(state: TaskState):  # noqa: ANN202 - a PersuasionRecord
    md = state.metadata
    return record_from_dict({"id": md.get("record_id"), "scenario": {**md["scenario"], **(md.get("mental_state") or {})}})


@scorer(
    metrics={
        "rouge_l": [mean(), stderr(), breakdown(["domain"])],
        "persuasive": [mean(), stderr(), breakdown(["domain"])],
    }
)
def persuasion_fixed_scorer(grader_role: str = "grader", cache: bool = True) -> Scorer:
    """ROUGE-L against the reference reply and the grader's 1-10 persuasive score of the model's reply."""

    async def score(state: TaskState, target: Target) -> Score:
        record = _record(state)
        history = parse_dialog(state.metadata["history"])
        reply = clean_utterance(state.output.completion)
        # an unbound role is self-grading, deliberately (the task warned and recorded it)
        grader = get_model(role=grader_role, default=get_model())
        verdict = await persuasive_score(grader, record.scenario, history, reply, cache)
        return Score(
            value={"rouge_l": rouge_l(reply, target.text), "persuasive": _num(verdict.value)},
            answer=reply,
            explanation=verdict.raw,
            metadata={"grader": str(grader)},
        )

    return score


@scorer(
    metrics={  # ctom first: the headline number (and the leaderboard's primary accuracy)
        "ctom": [accuracy(), stderr(), wilson95(), breakdown(["domain", "has_preventive"])],
        "preventive": [accuracy(), stderr(), wilson95(), breakdown(["domain"])],
        "generative": [accuracy(), stderr(), wilson95(), breakdown(["domain"])],
        "persuasive": [mean(), stderr(), breakdown(["domain"])],
    }
)
def persuasion_dynamic_scorer(grader_role: str = "grader", cache: bool = True) -> Scorer:
    """Persuasive (mean over persuader turns), preventive/generative satisfaction and CToM success of a dialogue.

    Preventive satisfaction is NaN (unscored) for persuadees without a preventive behaviour, so its rate is over
    the dialogues that have one, as in the paper.
    """

    async def score(state: TaskState, target: Target) -> Score:
        record = _record(state)
        if record.mental_state is None:
            raise ValueError(f"sample {state.sample_id} has no mental state: the dynamic task needs one")
        dialog = parse_dialog(state.store.get(DIALOG_STORE_KEY, []))
        # an unbound role is self-grading, deliberately (the task warned and recorded it)
        grader = get_model(role=grader_role, default=get_model())
        persuader_turns = [i for i, t in enumerate(dialog) if t.speaker == "persuader"]
        verdicts, outcome = await asyncio.gather(
            asyncio.gather(
                *(persuasive_score(grader, record.scenario, dialog[:i], dialog[i].text, cache) for i in persuader_turns)
            ),
            dynamic_outcome(grader, record.scenario, record.mental_state, dialog, cache),
        )
        scores = [v.value for v in verdicts if v.value is not None]
        value: dict[str, Any] = {
            "persuasive": sum(scores) / len(scores) if scores else _NAN,
            "preventive": _num(outcome.preventive),
            "generative": _num(outcome.generative),
            "ctom": _num(outcome.ctom),
        }
        persuaded = "persuaded" if outcome.ctom else "not persuaded" if outcome.ctom is False else "unjudged"
        return Score(
            value=value,
            answer=_transcript(dialog),
            explanation=f"CToM: {persuaded}; judge answers: {outcome.raws}",
            metadata={"persuasive_turns": [v.value for v in verdicts], "grader": str(grader)},
        )

    return score


def _transcript(dialog: tuple[Turn, ...] | list[Turn]) -> str:
    return "\n".join(t.to_line() for t in dialog)
