"""The LLM judges of the paper's evaluation (§4): persuasive score, satisfaction, direct prompting, causal-ToM eval,
and the three dialogue-quality ratings of Table 1 (context coherence, logical coherence, helpfulness).

Each judge returns its parsed verdict and the raw answer (kept in logs for audit); an unreadable verdict is `None`
and callers leave it out of rates instead of counting it as a failure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inspect_ai.model import CachePolicy

from tombench.generators.persuasion import prompts
from tombench.generators.persuasion.records import Behaviour, MentalState, Scenario, Turn, causal_tom_success
from tombench.kit.calls import ModelLike, call_model
from tombench.kit.replies import find_json, read_bool, read_score, read_yes_no

__all__ = [
    "Verdict",
    "Satisfaction",
    "persuasive_score",
    "satisfaction",
    "dynamic_outcome",
    "direct_prompting",
    "ctom_evaluation",
    "dialogue_quality",
    "read_direct",
    "read_ctom",
    "read_quality",
]


@dataclass(frozen=True)
class Verdict:
    value: Any  # float score, bool, or None when unreadable
    raw: str


@dataclass(frozen=True)
class Satisfaction:
    """Which parts of one behaviour's mental state the persuader addressed, as judged from the persuadee's seat."""

    belief: bool | None
    desire: bool | None
    raw: str

    def pair(self) -> tuple[bool, bool] | None:
        if self.belief is None or self.desire is None:
            return None
        return self.belief, self.desire


async def persuasive_score(
    judge: ModelLike, scenario: Scenario, history: Sequence[Turn], reply: str, cache: bool | CachePolicy = False
) -> Verdict:
    """1-10: does `reply` aim to change the persuadee's mind, and how persuasively."""
    text = (await call_model(judge, prompts.persuasive_messages(scenario, history, reply), cache=cache)).text
    return Verdict(read_score(text), text)


async def satisfaction(
    judge: ModelLike,
    scenario: Scenario,
    name: str,
    behaviour: Behaviour,
    dialog: Sequence[Turn],
    cache: bool | CachePolicy = False,
) -> Satisfaction:
    text = (await call_model(judge, prompts.satisfaction_messages(scenario, name, behaviour, dialog), cache=cache)).text
    parsed = find_json(text) or {}
    return Satisfaction(read_bool(parsed.get("belief_addressed")), read_bool(parsed.get("desire_addressed")), text)


@dataclass(frozen=True)
class DynamicOutcome:
    """Preventive satisfaction (None without a preventive behaviour or when unreadable), generative satisfaction
    and the combined causal-ToM success (paper Table 2's Preventative, Generative, CToM)."""

    preventive: bool | None
    generative: bool | None
    ctom: bool | None
    raws: dict[str, str]


async def dynamic_outcome(
    judge: ModelLike,
    scenario: Scenario,
    mental_state: MentalState,
    dialog: Sequence[Turn],
    cache: bool | CachePolicy = False,
) -> DynamicOutcome:
    """Judge a finished dialogue against the persuadee's true mental state.

    Preventive satisfaction needs its belief OR desire addressed; generative satisfaction needs both; the persuadee
    is persuaded (CToM) only if both hold.
    """
    gen = await satisfaction(judge, scenario, "Generative", mental_state.generative, dialog, cache)
    raws = {"generative": gen.raw}
    gen_pair = gen.pair()
    generative = None if gen_pair is None else all(gen_pair)
    if mental_state.preventive is None:
        ctom = None if gen_pair is None else causal_tom_success(gen_pair)
        return DynamicOutcome(None, generative, ctom, raws)
    prev = await satisfaction(judge, scenario, "Preventive", mental_state.preventive, dialog, cache)
    raws["preventive"] = prev.raw
    prev_pair = prev.pair()
    preventive = None if prev_pair is None else any(prev_pair)
    ctom = None if gen_pair is None or prev_pair is None else causal_tom_success(gen_pair, prev_pair)
    return DynamicOutcome(preventive, generative, ctom, raws)


async def direct_prompting(
    judge: ModelLike, scenario: Scenario, dialog: Sequence[Turn], cache: bool | CachePolicy = False
) -> Verdict:
    """Does the judge, reading as the persuadee, feel persuaded? (Table 1, "Direct Prompting")."""
    text = (await call_model(judge, prompts.direct_messages(scenario, dialog), cache=cache)).text
    return Verdict(read_direct(text), text)


def read_direct(text: str) -> bool | None:
    """Direct prompting's verdict in a judge's answer ("Persuaded: yes/no"); None when unreadable. Pure, so a
    resumed audit reads the answers it kept with today's reader."""
    return read_yes_no(text, label="Persuaded")


def _pair(raw: Any) -> tuple[bool, bool] | None:
    if not isinstance(raw, dict):
        return None
    belief, desire = read_bool(raw.get("belief_addressed")), read_bool(raw.get("desire_addressed"))
    return None if belief is None or desire is None else (belief, desire)


async def ctom_evaluation(
    judge: ModelLike, scenario: Scenario, dialog: Sequence[Turn], cache: bool | CachePolicy = False
) -> Verdict:
    """Causal-ToM eval (Table 1): the judge infers the beliefs and desires from the dialogue, says which were
    addressed, and the causal rule (not the judge) decides success."""
    text = (await call_model(judge, prompts.ctom_messages(scenario, dialog), cache=cache)).text
    return Verdict(read_ctom(text), text)


def read_ctom(text: str) -> bool | None:
    """The causal-ToM verdict of a judge's JSON answer: the causal rule applied to the addressed flags it gives
    (generate: belief AND desire; prevent: belief OR desire); None when the JSON or a flag is missing."""
    parsed = find_json(text)
    if parsed is None:
        return None
    generative = _pair(parsed.get("generative"))
    raw_prev = parsed.get("preventive")
    no_preventive = raw_prev is None or (isinstance(raw_prev, str) and raw_prev.strip().lower() in {"", "none"})
    preventive = None if no_preventive else _pair(raw_prev)
    if generative is None or (not no_preventive and preventive is None):
        return None
    return causal_tom_success(generative, preventive)


async def dialogue_quality(
    judge: ModelLike, criterion: str, scenario: Scenario, dialog: Sequence[Turn], cache: bool | CachePolicy = False
) -> Verdict:
    """A 1-5 rating of the whole dialogue on one Table 1 criterion (`prompts.DIALOGUE_QUALITY`)."""
    text = (await call_model(judge, prompts.dialogue_quality_messages(criterion, scenario, dialog), cache=cache)).text
    return Verdict(read_quality(text), text)


def read_quality(text: str) -> float | None:
    """A 1-5 dialogue rating ("Score: N"); None when the answer holds none in range."""
    return read_score(text, 1, 5)
