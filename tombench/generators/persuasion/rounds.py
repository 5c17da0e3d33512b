"""The round structure of a ToMMA dialogue (paper §3.4, "Prompt Design").

Without a preventive behaviour a dialogue has 3 rounds (6 utterances): the persuader opens and probes the belief
about the goal behaviour, the persuadee reveals it; the persuader addresses that belief, the persuadee reveals their
desire; the persuader addresses the desire, the persuadee makes a final statement. With a preventive behaviour a
first round is added that brings out and then addresses the competing behaviour (4 rounds, 8 utterances).
Each round is one (persuader focus, persuadee disclosure) pair, so both agents' prompts come from the same plan.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

__all__ = ["PersuaderFocus", "PersuadeeDisclosure", "Round", "round_plan", "FIXED_ROUND"]


class PersuaderFocus(str, Enum):
    """What the persuader should do in a round (it does not know the mental state: it aims at its inference)."""

    PROBE = "probe"  # open: present the viewpoint and ask about the persuadee's stance
    PREVENTIVE = "preventive"  # change the belief OR the desire behind the competing behaviour
    GENERATIVE_BELIEF = "generative_belief"  # resolve the negative belief about the goal behaviour
    GENERATIVE_DESIRE = "generative_desire"  # show how the goal behaviour satisfies the desire


class PersuadeeDisclosure(str, Enum):
    """What the persuadee reveals in its reply to that round."""

    PREVENTIVE = "preventive"
    GENERATIVE_BELIEF = "generative_belief"
    GENERATIVE_DESIRE = "generative_desire"
    FINAL = "final"


@dataclass(frozen=True)
class Round:
    number: int  # 1-based
    persuader: PersuaderFocus
    persuadee: PersuadeeDisclosure


_WITHOUT_PREVENTIVE = (
    (PersuaderFocus.PROBE, PersuadeeDisclosure.GENERATIVE_BELIEF),
    (PersuaderFocus.GENERATIVE_BELIEF, PersuadeeDisclosure.GENERATIVE_DESIRE),
    (PersuaderFocus.GENERATIVE_DESIRE, PersuadeeDisclosure.FINAL),
)
_WITH_PREVENTIVE = (
    (PersuaderFocus.PROBE, PersuadeeDisclosure.PREVENTIVE),
    (PersuaderFocus.PREVENTIVE, PersuadeeDisclosure.GENERATIVE_BELIEF),
    (PersuaderFocus.GENERATIVE_BELIEF, PersuadeeDisclosure.GENERATIVE_DESIRE),
    (PersuaderFocus.GENERATIVE_DESIRE, PersuadeeDisclosure.FINAL),
)

#: The fixed-persuadee test predicts the persuader's utterance of this round (paper §4.2: "up to the third round").
FIXED_ROUND = 3


def round_plan(has_preventive: bool) -> tuple[Round, ...]:
    """3 rounds without a preventive behaviour, 4 with one."""
    pairs = _WITH_PREVENTIVE if has_preventive else _WITHOUT_PREVENTIVE
    return tuple(Round(i + 1, p, q) for i, (p, q) in enumerate(pairs))
