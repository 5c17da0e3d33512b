"""ToMMA dataset generation: scenario -> mental state -> double-blind dialogue with observer, one JSONL row each.

Output rows use the CToMPersu layout (so the tasks and `persuasion evaluate` read them back) plus the persuader's
per-round guesses of the mental state, the observer's verdicts and the models used. Rows are appended as they finish and a restart
skips ids already in the file, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from inspect_ai.model import CachePolicy

from tombench.generators.persuasion.agents import Observer, Persuadee, Persuader, generate_mental_state
from tombench.generators.persuasion.dialogue import run_dialogue
from tombench.generators.persuasion.records import PersuasionRecord, Scenario, record_to_dict
from tombench.kit.calls import ModelLike

__all__ = ["ToMMAModels", "generate_record", "generate_dataset", "sample_scenarios", "done_ids"]


@dataclass(frozen=True)
class ToMMAModels:
    """The model of each ToMMA role; `mental_state` writes the persuadee's hidden state (GPT-4o in the paper)."""

    persuader: ModelLike
    persuadee: ModelLike
    observer: ModelLike | None
    mental_state: ModelLike

    def names(self) -> dict[str, str | None]:
        return {
            "persuader": str(self.persuader),
            "persuadee": str(self.persuadee),
            "observer": str(self.observer) if self.observer is not None else None,
            "mental_state": str(self.mental_state),
        }


def scenario_id(scenario: Scenario) -> str:
    return scenario.digest()[:16]


async def generate_record(
    scenario: Scenario, models: ToMMAModels, max_revisions: int = 2, cache: bool | CachePolicy = False
) -> PersuasionRecord:
    """One CToMPersu-style record for `scenario`."""
    mental_state = await generate_mental_state(scenario, models.mental_state, cache)
    dialogue = await run_dialogue(
        scenario,
        mental_state,
        Persuader(models.persuader, cache=cache),
        Persuadee(models.persuadee, mental_state, cache=cache),
        Observer(models.observer, cache=cache) if models.observer is not None else None,
        max_revisions=max_revisions,
    )
    extra = {
        "rounds": [log.to_dict() for log in dialogue.rounds],
        "guessed_mental_state": dialogue.guesses,
        "observer_revisions": dialogue.revisions,
        "models": models.names(),
    }
    return PersuasionRecord(scenario_id(scenario), scenario, mental_state, tuple(dialogue.turns), extra)


def done_ids(path: Path) -> set[str]:
    """Ids already written to `path` (a truncated last line from a crash is ignored, and regenerated)."""
    ids: set[str] = set()
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                ids.add(json.loads(line)["id"])
            except (json.JSONDecodeError, KeyError, TypeError):
                continue
    return ids


def sample_scenarios(scenarios: Sequence[Scenario], n: int | None, rng: random.Random) -> list[Scenario]:
    """Unique scenarios (by content), then `n` of them drawn with `rng` (all, in order, when `n` is None)."""
    unique = list({scenario_id(s): s for s in scenarios}.values())
    if n is None or n >= len(unique):
        return unique
    return rng.sample(unique, n)


@dataclass(frozen=True)
class GenerationSummary:
    written: int
    skipped: int
    failed: list[tuple[str, str]]  # (scenario id, error)


async def generate_dataset(
    scenarios: Sequence[Scenario],
    models: ToMMAModels,
    out: Path,
    *,
    max_revisions: int = 2,
    max_concurrent: int = 4,
    cache: bool | CachePolicy = False,
    on_progress: Callable[[], None] | None = None,
) -> GenerationSummary:
    """Generate a record per scenario into `out` (JSONL, appended), skipping ids already there.

    A scenario whose generation fails (e.g. unreadable mental state) is reported, not written, so a rerun retries
    it.
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    done = done_ids(out)
    todo = [s for s in scenarios if scenario_id(s) not in done]
    semaphore = asyncio.Semaphore(max_concurrent)
    failed: list[tuple[str, str]] = []
    written = 0

    async def one(scenario: Scenario) -> None:
        nonlocal written
        async with semaphore:
            try:
                record = await generate_record(scenario, models, max_revisions, cache)
            except ValueError as e:
                failed.append((scenario_id(scenario), str(e)))
            else:
                with out.open("a", encoding="utf-8") as f:
                    f.write(json.dumps(record_to_dict(record), ensure_ascii=False) + "\n")
                written += 1
            if on_progress is not None:
                on_progress()

    await asyncio.gather(*(one(s) for s in todo))
    return GenerationSummary(written, len(scenarios) - len(todo), failed)
