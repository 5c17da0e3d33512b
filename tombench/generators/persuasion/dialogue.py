"""One ToMMA dialogue: the round loop between persuader and persuadee, with observer revision (paper §3.4-3.5)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tombench.generators.persuasion.agents import Observer, Persuadee, Persuader, PersuaderTurn
from tombench.generators.persuasion.records import MentalState, Scenario, Turn
from tombench.generators.persuasion.rounds import Round, round_plan

__all__ = ["Dialogue", "RoundLog", "run_dialogue"]


@dataclass
class RoundLog:
    """What happened in one round: every persuader attempt with the observer's verdict, then the persuadee's reply."""

    round: Round
    attempts: list[dict[str, Any]] = field(default_factory=list)
    persuadee_reply: str = ""

    @property
    def revisions(self) -> int:
        return max(0, len(self.attempts) - 1)

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.round.number,
            "persuader_focus": self.round.persuader.value,
            "persuadee_disclosure": self.round.persuadee.value,
            "attempts": self.attempts,
        }


@dataclass
class Dialogue:
    turns: list[Turn]
    rounds: list[RoundLog]

    @property
    def revisions(self) -> int:
        return sum(r.revisions for r in self.rounds)

    def final_inference(self) -> dict[str, Any] | None:
        for log in reversed(self.rounds):
            if log.attempts and log.attempts[-1].get("inference") is not None:
                return log.attempts[-1]["inference"]
        return None


async def run_dialogue(
    scenario: Scenario,
    mental_state: MentalState,
    persuader: Persuader,
    persuadee: Persuadee,
    observer: Observer | None = None,
    max_revisions: int = 2,
) -> Dialogue:
    """Play the rounds of `round_plan` (3 without a preventive behaviour, 4 with one).

    Each round the persuader writes its inference and reply; the observer (if any) may send it back up to
    `max_revisions` times; only the accepted reply enters the dialogue. The persuadee then answers from its own
    mental state. The persuader object never receives `mental_state`: only the persuadee does.
    """
    plan = round_plan(mental_state.has_preventive)
    turns: list[Turn] = []
    logs: list[RoundLog] = []
    for round_ in plan:
        log = RoundLog(round_)
        revision: tuple[PersuaderTurn, str] | None = None
        while True:
            attempt = await persuader.respond(scenario, turns, round_, len(plan), revision)
            entry: dict[str, Any] = {"inference": attempt.inference, "reply": attempt.reply}
            log.attempts.append(entry)
            if observer is None:
                break
            review = await observer.review(scenario, turns, round_.persuader, attempt)
            entry.update(approved=review.approved, feedback=review.feedback)
            if review.approved or log.revisions >= max_revisions:
                break
            revision = (attempt, review.feedback)
        turns.append(Turn("persuader", attempt.reply))
        log.persuadee_reply = await persuadee.respond(scenario, turns, round_.persuadee)
        turns.append(Turn("persuadee", log.persuadee_reply))
        logs.append(log)
    return Dialogue(turns, logs)
