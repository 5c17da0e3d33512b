"""Iterative story infilling with a per-step LLM judge (ExploreToM, Sclar et al. 2024, arXiv:2412.12175, §2.3, App. C.2).

A story structure (the DSL's one-sentence-per-action text) is turned into a natural narration one step at a time:

    SI(0) = c                                  (a two-sentence setting, Fig. 10; optional)
    SI(i) = infill(a_i, SI(i-1), d_i, g)       (Fig. 12: k candidate continuations in one call)

where `d_i` are the stylistic desiderata sampled per step (length and text type, uniformly as in Fig. 12) and `g`
the characters' goals (Fig. 11; optional). Infilling step by step keeps the order of the actions, which is what
keeps the tracked mental states valid. After each step a judge (temperature 0) checks each candidate against the
tracked state *after* that step (`judge_checks`); the first candidate that passes every check is kept. A step whose
candidates all fail (after `step_attempts` generations) marks the story `failed`: it is written with its failing
step and never silently kept as infilled text.

    import asyncio
    from tombench.generators.exploretom.infill import InfillConfig, infill_file
    report = asyncio.run(infill_file("openai/gpt-4o", "search.jsonl", "infilled.jsonl", config=InfillConfig()))
    print(report.summary())

Every story is known by its content digest (`tombench.generators.exploretom.identity`), never by a search id: merged inputs
infill each story once, and the output is resumable by digest. A story gets up to `story_attempts` whole-story
rounds (across runs); every call of round r carries r in its cache key, so a retry really asks the model again,
while re-running a finished command is served from Inspect's cache for free. The finished text is judged once more
against every label the export can use (`final_checks`), and the export labels an infilled text only with the
questions the judge confirmed.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tombench.dsl import Question, Story, derive_seed
from tombench.generators.exploretom.infill_checks import (
    Check,
    failed_checks,
    final_checks,
    final_judge_prompt,
    judge_checks,
    judge_prompt,
    narration_checks,
    narration_judge_prompt,
    precheck,
)
from tombench.generators.exploretom.infill_output import (
    InfillReport,
    read_infill_output,
    story_acceptance,
    story_progress,
)
from tombench.generators.exploretom.infill_prompts import (
    INFILL_SYSTEM_PROMPT,
    Desiderata,
    Style,
    goals_prompt,
    infill_prompt,
    names_in,
    narration_prompt,
    outsiders,
    people_with_personas,
    sample_desiderata,
)
from tombench.generators.exploretom.infill_replies import parse_candidates, parse_goals, parse_judge
from tombench.generators.exploretom.story_inputs import StoryInput, load_story_inputs
from tombench.kit.calls import Asker, MalformedOutput, make_asker

if TYPE_CHECKING:
    from inspect_ai.model import CachePolicy, Model

__all__ = ["InfillConfig", "infill_file", "infill_story"]

Ask = Callable[[str], Awaitable[str]]


@dataclass(frozen=True)
class InfillConfig:
    """How to infill; the defaults follow the paper (3 candidates in one call, narration and goals on)."""

    #: candidate continuations asked for in one call (Fig. 12's num_tries_completions)
    candidates: int = 3
    #: generations per step before the step (and this round of the story) fails; 1 is the paper's single attempt
    step_attempts: int = 1
    #: whole-story rounds per story, across runs (a failed round is retried from the start, with new cache keys);
    #: the report gives the first round's acceptance (the paper's "single attempt") and the final one
    story_attempts: int = 3
    #: "short" (Fig. 12) or "fantom" (long, conversational)
    style: Style = "short"
    narration: bool = True
    goals: bool = True
    #: first-order belief checks per step (see `judge_checks`); None: every first-order belief (the default: an
    #: infill that lets an absent person see the action must be caught at its step, whoever that person is)
    max_belief_checks: int | None = None
    #: checks per step judge call (a step has its own checks, the world state and the first-order beliefs); the
    #: batches of a candidate are asked in order and stop at the first one that rejects it
    step_batch: int = 12
    #: question orders judged on the finished text (`final_checks`); the export labels only these
    final_orders: tuple[int, ...] = (0, 1, 2)
    #: label checks per final judge call
    final_batch: int = 12
    temperature: float = 1.0
    seed: int = 0
    #: stories infilled at once (steps of one story are sequential by construction)
    concurrency: int = 4

    def __post_init__(self) -> None:
        sizes = (self.candidates, self.step_attempts, self.story_attempts, self.final_batch, self.step_batch)
        if min(*sizes, self.concurrency) < 1:
            raise ValueError(
                "candidates, step_attempts, story_attempts, final_batch, step_batch and concurrency must be >= 1"
            )
        if self.max_belief_checks is not None and self.max_belief_checks < 0:
            raise ValueError("max_belief_checks must be >= 0 (or None for all)")
        if self.style not in ("short", "fantom"):
            raise ValueError(f"Invalid style {self.style!r}. Must be one of: ['short', 'fantom']")
        if any(o not in (0, 1, 2) for o in self.final_orders):
            raise ValueError(f"final_orders must be a subset of (0, 1, 2), got {self.final_orders}")


def _join(parts: Sequence[str], style: Style) -> str:
    return ("\n" if style == "fantom" else " ").join(p for p in parts if p)


async def _judge_verdicts(judge: Asker, prompt: str, n: int, retry: dict[str, int]) -> list[bool | None]:
    try:
        return parse_judge(await judge(prompt, retry=retry), n)
    except MalformedOutput:  # a model error from the judge: no verdict
        return [None] * n


async def _narration(story: Story, writer: Asker, judge: Asker, report: InfillReport, retry: dict[str, int]) -> str:
    """Fig. 10's opening, kept only when the pre-check and the judge both pass it (it is optional: a bad one is
    dropped and counted, never fatal)."""
    try:
        text = (await writer(narration_prompt(story), retry=retry)).strip()
    except MalformedOutput:
        text = ""
    if not text or "{" in text or names_in(text, [*story.context.people, *outsiders(story)]):
        report.malformed_narrations += 1
        return ""
    checks = narration_checks(story)
    wrong, unclear = failed_checks(
        checks, await _judge_verdicts(judge, narration_judge_prompt(text, checks), len(checks), retry)
    )
    if wrong or unclear:
        report.narration_rejections += 1
        return ""
    return text


@dataclass
class _Round:
    """What every call of one whole-story round shares: the story, who writes and judges, the round's cache key
    (`base`), and the characters and goals every step prompt repeats."""

    story: Story
    writer: Asker
    judge: Asker
    config: InfillConfig
    report: InfillReport
    base: dict[str, int]
    characters: str
    goals: dict[str, str] | None


async def infill_story(
    item: StoryInput,
    writer: Asker,
    judge: Asker,
    config: InfillConfig,
    report: InfillReport,
    *,
    round: int = 0,
) -> dict[str, Any]:
    """Infill one story once (one whole-story `round`); the output record (status "ok" with `text`, or "failed"
    with `failed_stage` "step" and `failed_step`, or `failed_stage` "final").

    Desiderata come from `random.Random(derive_seed(seed, digest, round))`, so they do not depend on the order or
    the concurrency in which stories are processed, and a new round draws new ones. Every model call of round r
    carries r (and the step attempt) in its cache key, so a retry is asked anew, never replayed from the cache.
    """
    story = item.story
    rng = random.Random(derive_seed(config.seed, "infill", item.digest, *([round] if round else [])))
    base = {"round": round}
    narration = await _narration(story, writer, judge, report, base) if config.narration else ""
    goals = await _goals(story, writer, report, base) if config.goals else None
    rnd = _Round(story, writer, judge, config, report, base, people_with_personas(story), goals)
    record = _new_record(item, config, round, narration, goals)
    parts = [narration]
    for i, step in enumerate(story.steps):
        d = sample_desiderata(rng, config.style)
        entry: dict[str, Any] = {
            "index": i,
            "structure": " ".join(step.sentences),
            "desiderata": asdict(d),
            "infill": None,
            "attempts": 0,
            "rejections": [],
        }
        record["steps"].append(entry)
        report.steps += 1
        judged = await _write_step(rnd, i, _join(parts, config.style), d, entry)
        if entry["infill"] is None:
            record.update(status="failed", failed_stage="step", failed_step=i)
            return record
        report.steps_accepted += 1
        if judged == 1 and entry["attempts"] == 1:
            report.steps_first_candidate += 1
        parts.append(entry["infill"])
    return await _finish(rnd, record, _join(parts, config.style))


async def _goals(story: Story, writer: Asker, report: InfillReport, retry: dict[str, int]) -> dict[str, str] | None:
    """Fig. 11's character goals; optional, so a malformed answer is counted and the story goes on without them."""
    try:
        return parse_goals(await writer(goals_prompt(story), retry=retry), story.people)
    except MalformedOutput:
        report.malformed_goals += 1
        return None


def _new_record(
    item: StoryInput, config: InfillConfig, round: int, narration: str, goals: dict[str, str] | None
) -> dict[str, Any]:
    """The output line of one round before any step is written: "ok" until a step or the final check fails."""
    story = item.story
    return {
        "digest": item.digest,
        "id": item.id,
        "round": round,
        "status": "ok",
        "failed_stage": None,
        "failed_step": None,
        "story_type": item.story_type,
        "setting": item.setting,
        "style": config.style,
        "structure": story.text,
        "narration": narration,
        "goals": goals,
        "steps": [],
        "verified": None,
        "text": None,
        "story": story.to_dict(),
    }


async def _write_step(rnd: _Round, index: int, so_far: str, desiderata: Desiderata, entry: dict[str, Any]) -> int:
    """Up to `step_attempts` generations for step `index`, until a candidate passes (then `entry["infill"]` holds
    it); the number of candidates the judge saw, so a step accepted at its very first candidate can be counted."""
    config = rnd.config
    checks = judge_checks(rnd.story, index, max_beliefs=config.max_belief_checks, style=config.style)
    prompt = infill_prompt(
        entry["structure"], so_far, desiderata, characters=rnd.characters, goals=rnd.goals, k=config.candidates
    )
    judged = 0
    for attempt in range(config.step_attempts):
        entry["attempts"] += 1
        rnd.report.generations += 1
        retry = {**rnd.base, "attempt": attempt}
        candidates = await _candidates(rnd, prompt, retry, entry)
        accepted, n = await _first_passing(rnd, index, so_far, candidates, checks, retry, entry)
        judged += n
        if accepted is not None:
            entry["infill"] = accepted
            break
    return judged


async def _candidates(rnd: _Round, prompt: str, retry: dict[str, int], entry: dict[str, Any]) -> list[str]:
    """One generation's candidate continuations; a malformed answer gives none and is kept as a rejection."""
    try:
        candidates = parse_candidates(await rnd.writer(prompt, retry=retry))
    except MalformedOutput as e:
        rnd.report.malformed_infills += 1
        entry["rejections"].append({"candidate": None, "reason": str(e)})
        return []
    rnd.report.candidates += len(candidates)
    return candidates


async def _first_passing(
    rnd: _Round,
    index: int,
    so_far: str,
    candidates: Sequence[str],
    checks: Sequence[Check],
    retry: dict[str, int],
    entry: dict[str, Any],
) -> tuple[str | None, int]:
    """The first candidate that passes the pre-check and the judge (None if none does), and how many the judge saw:
    the cheap pre-check goes first so the judge is paid only for plausible text, and judging stops at a pass."""
    judged = 0
    for cand in candidates:
        reason = precheck(cand, rnd.story, index, style=rnd.config.style)
        if reason is not None:
            rnd.report.precheck_rejections += 1
        else:
            judged += 1
            reason = await _judge_rejection(rnd, so_far, cand, checks, retry)
        if reason is None:
            rnd.report.candidates_accepted += 1
            return cand, judged
        entry["rejections"].append({"candidate": cand, "reason": reason})
    return None, judged


async def _judge_rejection(
    rnd: _Round, so_far: str, candidate: str, checks: Sequence[Check], retry: dict[str, int]
) -> str | None:
    """Why the judge rejects a candidate (a check failed, or a check got no yes/no), or None when it passes.

    The checks go in batches of `step_batch`, in order (the step's own checks first), and the first batch that
    rejects ends the judging: a rejected candidate costs only the calls up to its first failure."""
    rnd.report.candidates_judged += 1
    size = rnd.config.step_batch
    for start in range(0, len(checks), size):
        batch = checks[start : start + size]
        verdicts = await _judge_verdicts(rnd.judge, judge_prompt(so_far, candidate, batch), len(batch), retry)
        wrong, unclear = failed_checks(batch, verdicts)
        if wrong or unclear:
            rnd.report.judge_rejections += 1
            rnd.report.judge_unclear += 1 if unclear and not wrong else 0
            return f"judge: failed {wrong}" if wrong else f"judge: no yes/no for {unclear}"
    return None


async def _finish(rnd: _Round, record: dict[str, Any], text: str) -> dict[str, Any]:
    """Judge the finished text against every exportable label; a contradicted label fails the round, since the
    export could not trust that text for any label."""
    record["verified"] = verified = await _final_check(rnd.story, text, rnd.judge, rnd.config, rnd.report, rnd.base)
    if any(v["verdict"] is False for v in verified):
        rnd.report.final_failures += 1
        record.update(status="failed", failed_stage="final")
        return record
    record["text"] = text
    return record


async def _final_check(
    story: Story, text: str, judge: Asker, config: InfillConfig, report: InfillReport, retry: dict[str, int]
) -> list[dict[str, Any]]:
    """Judge the finished text against every label the export can use, in batches; one entry per question."""
    pairs: list[tuple[Question, Check]] = final_checks(story, config.final_orders)
    out: list[dict[str, Any]] = []
    for start in range(0, len(pairs), config.final_batch):
        batch = pairs[start : start + config.final_batch]
        checks = [c for _, c in batch]
        verdicts = await _judge_verdicts(
            judge, final_judge_prompt(text, checks), len(checks), {**retry, "final": start + 1}
        )
        for (q, _), v in zip(batch, verdicts, strict=True):
            report.final_checks += 1
            report.final_passed += v is True
            report.final_contradicted += v is False
            report.final_unclear += v is None
            out.append({"question": q.text, "answer": q.answer, "order": q.order, "kind": q.kind, "verdict": v})
    return out


async def infill_file(
    model: Model | str | Ask,
    stories: str | Path,
    out: str | Path,
    *,
    judge: Model | str | Ask | None = None,
    config: InfillConfig = InfillConfig(),
    cache: bool | CachePolicy = True,
    limit: int | None = None,
    on_progress: Callable[[InfillReport], None] | None = None,
) -> InfillReport:
    """Infill every story of `stories` (JSONL) into `out` (JSONL, appended one round at a time, resumable).

    Stories are known by their content digest: an input listing the same story twice (two merged runs) infills it
    once, and the resume check is by digest, never by a search id. A story is done once it has an accepted round in
    `out`; otherwise it gets rounds `rounds used .. story_attempts - 1`, each written as it ends (failed rounds too,
    with their rejections). Raising `story_attempts` and re-running retries the stories that used up their rounds,
    with new cache keys, so the model is really asked again. The judge defaults to the writer, at temperature 0.
    """
    from inspect_ai.model import GenerateConfig

    items, empty = load_story_inputs(stories)
    out = Path(out)
    prog = story_progress(read_infill_output(out))
    report = InfillReport(no_story_lines=empty)
    todo: list[tuple[StoryInput, int]] = []
    seen: set[str] = set()
    for it in items:
        if it.digest in seen:
            report.duplicate_inputs += 1
            continue
        seen.add(it.digest)
        p = prog.get(it.digest)
        if p is not None and p.ok:
            report.already_done += 1
        elif p is not None and p.rounds >= config.story_attempts:
            report.exhausted += 1
        else:
            todo.append((it, 0 if p is None else p.rounds))
    if limit is not None:
        todo = todo[:limit]
    report.stories = len(todo)

    def count() -> None:
        report.model_calls += 1

    def count_judge() -> None:
        report.model_calls += 1
        report.judge_calls += 1

    writer = make_asker(
        model, config=GenerateConfig(temperature=config.temperature), cache=cache, system=INFILL_SYSTEM_PROMPT,
        on_call=count,
    )
    judge_ask = make_asker(
        judge if judge is not None else model, config=GenerateConfig(temperature=0.0), cache=cache,
        system=INFILL_SYSTEM_PROMPT, on_call=count_judge,
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    sem = asyncio.Semaphore(config.concurrency)

    async def one(it: StoryInput, start: int) -> None:
        async with sem:
            for r in range(start, config.story_attempts):
                report.rounds += 1
                record = await infill_story(it, writer, judge_ask, config, report, round=r)
                with out.open("a", encoding="utf-8") as f:
                    f.write(json.dumps(record, ensure_ascii=False) + "\n")
                if record["status"] == "ok":
                    report.ok += 1
                    break
            else:
                report.failed += 1
            if on_progress is not None:
                on_progress(report)

    await asyncio.gather(*(one(it, start) for it, start in todo))
    acc = story_acceptance(out, seen)
    report.first_round_ok, report.first_round_of, report.final_ok, report.final_of = acc
    return report
