"""The record of an infill run: its report, and the output file read back (one JSON record per whole-story round)
to tell which stories are done, how many rounds each used, and the acceptance over the whole file."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tombench.dsl import Story, StoryError
from tombench.generators.exploretom.identity import story_digest
from tombench.generators.exploretom.story_inputs import story_type_and_setting


@dataclass
class InfillReport:
    """Counts of one run, plus the acceptance of this input's stories over the whole output file.

    `first_round_ok / first_round_of` is the paper's "infilled in a single attempt" (§3: 40%, 73% in another
    version): stories whose first whole-story round passed every step and the final check, among the stories whose
    first round is in the file. `final_ok / final_of` counts stories accepted in any round, up to `story_attempts`.
    Both are read back from the file, so they cover earlier runs too and never depend on how often it was resumed.
    """

    stories: int = 0
    rounds: int = 0
    already_done: int = 0
    exhausted: int = 0
    no_story_lines: int = 0
    duplicate_inputs: int = 0
    ok: int = 0
    failed: int = 0
    steps: int = 0
    steps_accepted: int = 0
    steps_first_candidate: int = 0
    generations: int = 0
    candidates: int = 0
    candidates_judged: int = 0
    candidates_accepted: int = 0
    precheck_rejections: int = 0
    judge_rejections: int = 0
    judge_unclear: int = 0
    malformed_infills: int = 0
    malformed_narrations: int = 0
    narration_rejections: int = 0
    malformed_goals: int = 0
    final_checks: int = 0
    final_passed: int = 0
    final_contradicted: int = 0
    final_unclear: int = 0
    final_failures: int = 0
    model_calls: int = 0
    judge_calls: int = 0
    first_round_ok: int = 0
    first_round_of: int = 0
    final_ok: int = 0
    final_of: int = 0

    @staticmethod
    def _rate(num: int, den: int) -> float | None:
        return None if den == 0 else num / den

    @property
    def first_attempt_acceptance(self) -> float | None:
        """The paper's single-attempt acceptance (first whole-story round), over the output file."""
        return self._rate(self.first_round_ok, self.first_round_of)

    @property
    def story_acceptance(self) -> float | None:
        """Stories accepted in any round (up to `story_attempts`), over the output file."""
        return self._rate(self.final_ok, self.final_of)

    @property
    def step_acceptance(self) -> float | None:
        return self._rate(self.steps_accepted, self.steps)

    @property
    def candidate_acceptance(self) -> float | None:
        """Accepted / judged candidates (judging stops at the first accepted one of a step)."""
        return self._rate(self.candidates_accepted, self.candidates_judged)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = asdict(self)
        d.update(
            first_attempt_acceptance=self.first_attempt_acceptance,
            story_acceptance=self.story_acceptance,
            step_acceptance=self.step_acceptance,
            candidate_acceptance=self.candidate_acceptance,
        )
        return d

    def summary(self) -> str:
        """Counts only (the commands show rates with their intervals, `tombench.kit.format.percent`)."""
        return (
            f"{self.first_round_ok}/{self.first_round_of} stories infilled at the first attempt, "
            f"{self.final_ok}/{self.final_of} after up to the allowed whole-story retries; this run: {self.rounds} "
            f"rounds over {self.stories} stories, {self.steps_accepted}/{self.steps} steps, "
            f"{self.candidates_accepted}/{self.candidates_judged} judged candidates accepted, "
            f"{self.final_passed}/{self.final_checks} final label checks passed ({self.final_contradicted} "
            f"contradicted, {self.final_unclear} unclear); {self.malformed_infills} malformed infills, "
            f"{self.precheck_rejections} pre-check and {self.judge_rejections} judge rejections"
        )


def read_infill_output(out: str | Path) -> list[dict[str, Any]]:
    """The records of an infill output with their digests (computed for lines written before the field existed);
    a line cut by an interrupted run is skipped (that story is simply done again)."""
    path = Path(out)
    if not path.exists():
        return []
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(rec, dict) or not isinstance(rec.get("story"), dict):
            continue
        if not isinstance(rec.get("digest"), str):
            try:
                story = Story.from_dict(rec["story"])
            except StoryError:
                continue
            rec["digest"] = story_digest(story, story_type_and_setting(rec)[0])
        records.append(rec)
    return records


@dataclass
class StoryProgress:
    """What the output file says about one story: accepted or not, and how many whole-story rounds it used."""

    ok: bool = False
    rounds: int = 0
    first_round: bool | None = None


def story_progress(records: Iterable[dict[str, Any]]) -> dict[str, StoryProgress]:
    """Each story's progress (by digest) over the records of an output file, whichever run wrote them."""
    by: dict[str, StoryProgress] = {}
    for rec in records:
        p = by.setdefault(rec["digest"], StoryProgress())
        r = rec.get("round") if isinstance(rec.get("round"), int) else 0
        ok = rec.get("status") == "ok"
        p.ok = p.ok or ok
        p.rounds = max(p.rounds, r + 1)
        if r == 0:
            p.first_round = ok if p.first_round is None else p.first_round or ok
    return by


def story_acceptance(out: str | Path, digests: Iterable[str] | None = None) -> tuple[int, int, int, int]:
    """(first-round ok, stories with a first round, ok in any round, stories with any round) in an infill output,
    over `digests` (default: every story in it)."""
    prog = story_progress(read_infill_output(out))
    keys = list(prog) if digests is None else [d for d in dict.fromkeys(digests) if d in prog]
    firsts = [prog[d].first_round for d in keys if prog[d].first_round is not None]
    return sum(bool(f) for f in firsts), len(firsts), sum(prog[d].ok for d in keys), len(keys)
