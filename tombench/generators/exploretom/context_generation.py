"""Story contexts written by an LLM and checked by a judge (ExploreToM, Sclar et al., 2024, §2.1, App. C.1).

The App. C.1 prompt family (`context_prompts`) is asked here, its JSON answers read (`context_replies`), each
context judged yes/no and checked (`context_checks`), and the accepted ones appended to the output
(`context_output`)."""

from __future__ import annotations

import asyncio
import functools
import random
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inspect_ai.model import CachePolicy, Model

from tombench.dsl.context import Context, ContextError, StateChange
from tombench.generators.exploretom.context_checks import context_problems
from tombench.generators.exploretom.context_output import GenerationReport, Rejected, Sink, dedup_key, last_attempt
from tombench.generators.exploretom.context_prompts import (
    NAMES_PROMPT,
    SETTINGS_PROMPT,
    context_prompt,
    judge_containers_prompt,
    judge_plausible_change_prompt,
    judge_rooms_prompt,
    judge_topics_prompt,
    judge_visible_change_prompt,
    state_changes_prompt,
)
from tombench.generators.exploretom.context_replies import (
    parse_context_answer,
    parse_list,
    parse_state_change_candidates,
)
from tombench.generators.exploretom.contexts import load_context_bank, load_contexts
from tombench.kit.calls import Asker, MalformedOutput, make_asker
from tombench.kit.replies import read_yes_no


@dataclass(frozen=True)
class ContextSpec:
    """How big each generated context is (the paper's num_people/num_containers/num_topics variables)."""

    people: int = 6
    containers: int = 6
    topics: int = 6
    state_candidates: int = 8
    min_visible: int = 2
    min_invisible: int = 2


def _with_retry(ask: Asker | Callable[[str], Awaitable[str]], k: int) -> Callable[[str], Awaitable[str]]:
    """Attempt k's calls carry k in their cache key: a re-run's new attempts are asked anew, never replayed."""

    async def call(prompt: str) -> str:
        return await ask(prompt, retry={"attempt": k})  # type: ignore[call-arg]

    return call


def _location(settings: Sequence[str], seed: int, k: int) -> str:
    """Attempt k's location: a seeded permutation of the whole list, so n attempts use min(n, len) distinct
    locations (independent draws would repeat some and miss others)."""
    order = random.Random(f"{seed}:locations").sample(range(len(settings)), len(settings))
    return settings[order[k % len(settings)]]


async def _judge(ask: Callable[[str], Awaitable[str]], prompt: str, what: str) -> None:
    verdict = read_yes_no(await ask(prompt))
    if verdict is None:
        raise Rejected("judge_unclear", f"judge gave no yes/no on {what}")
    if not verdict:
        raise Rejected("judge_rejections", f"judge rejected the {what}")


async def _state_changes(
    ask: Callable[[str], Awaitable[str]],
    judge: Callable[[str], Awaitable[str]],
    setting: str,
    obj: str,
    spec: ContextSpec,
    report: GenerationReport,
) -> list[StateChange]:
    """Candidate changes, each judged plausible (else dropped) and visible/invisible (else dropped)."""
    try:
        candidates = parse_state_change_candidates(
            await ask(state_changes_prompt(setting=setting, obj=obj, num_changes=spec.state_candidates)), obj
        )
    except MalformedOutput as e:
        raise Rejected("malformed", f"state changes: {e}") from None
    changes: list[StateChange] = []
    visibility: dict[str, bool] = {}
    for cand in candidates:
        sentence = cand["text"].replace("{object}", obj).replace("{person}", "Someone")
        plausible = read_yes_no(await judge(judge_plausible_change_prompt(setting, obj, sentence)))
        visible = read_yes_no(await judge(judge_visible_change_prompt(obj, sentence))) if plausible else None
        if not plausible or visible is None:
            report.state_change_rejections += 1
            continue
        if visibility.setdefault(cand["property"], visible) != visible:
            report.state_change_rejections += 1  # one property, one visibility class (semantics §1)
            continue
        if any((c.property, c.value) == (cand["property"], cand["value"]) for c in changes):
            continue
        changes.append(StateChange(visible=visible, **cand))
    n_visible = sum(c.visible for c in changes)
    if n_visible < spec.min_visible or len(changes) - n_visible < spec.min_invisible:
        raise Rejected(
            "too_few_state_changes", f"{n_visible} visible and {len(changes) - n_visible} invisible state changes"
        )
    return changes


async def _attempt(k: int, **kwargs: Any) -> Context:
    """One joint context call, its judges and its state changes; raises Rejected with the counter to bump."""
    try:
        return await _attempt_unsafe(k, **kwargs)
    except MalformedOutput as e:  # e.g. a refusal or a provider-side content error: counted, never fatal
        raise Rejected("malformed", str(e)) from None


async def _attempt_unsafe(
    k: int,
    *,
    ask: Callable[[str], Awaitable[str]],
    judge: Callable[[str], Awaitable[str]],
    names: Sequence[str],
    settings: Sequence[str],
    spec: ContextSpec,
    seed: int,
    id_prefix: str,
    taken: set[tuple[str, frozenset[str]]],
    report: GenerationReport,
) -> Context:
    rng = random.Random(f"{seed}:{k}")
    ask, judge = _with_retry(ask, k), _with_retry(judge, k)
    location = _location(settings, seed, k)
    suggested = rng.sample(list(names), min(spec.people, len(names)))
    prompt = context_prompt(
        num_people=spec.people,
        num_containers=spec.containers,
        num_topics=spec.topics,
        location=location,
        names=suggested,
    )
    try:
        d = parse_context_answer(await ask(prompt))
    except MalformedOutput as e:
        raise Rejected("malformed", f"context: {e}") from None
    if dedup_key(d) in taken:
        raise Rejected("duplicates", f"duplicate of an earlier context ({d['objects'][0]})")
    await _judge(judge, judge_containers_prompt(d["setting"], d["objects"][0], d["containers"]), "containers")
    await _judge(judge, judge_rooms_prompt(d["setting"], d["rooms"]), "rooms")
    await _judge(judge, judge_topics_prompt(d["setting"], d["topics"]), "topics")
    changes = await _state_changes(ask, judge, d["setting"], d["objects"][0], spec, report)
    try:
        ctx = Context.from_dict(
            {
                **d,
                "id": f"{id_prefix}-{k:04d}",
                "state_changes": [c.to_dict() for c in changes],
                "metadata": {
                    "attempt": k,
                    "location": location,
                    "source": "llm",
                    **({"personas": d["personas"]} if d["personas"] else {}),
                },
            }
        )
    except ContextError as e:
        raise Rejected("quality_rejections", str(e)) from None
    problems = context_problems(
        ctx,
        min_people=spec.people,
        min_containers=spec.containers,
        min_topics=spec.topics,
        min_visible=spec.min_visible,
        min_invisible=spec.min_invisible,
    )
    if problems:
        raise Rejected("quality_rejections", problems[0])
    return ctx


async def _sample_lists(ask: Callable[[str], Awaitable[str]], report: GenerationReport) -> tuple[list[str], list[str]]:
    """Fig. 8: the names and settings lists, sampled once per run. A bad list falls back to the bank's."""

    async def items(prompt: str) -> list[str]:
        try:
            return parse_list(await ask(prompt))
        except MalformedOutput:
            return []

    names = [n for n in await items(NAMES_PROMPT) if re.fullmatch(r"[A-Z][A-Za-z'\-]*", n)]
    settings = [s for s in await items(SETTINGS_PROMPT) if "{" not in s and "}" not in s]
    bank = load_context_bank()
    if len(set(names)) < 20:
        report.list_fallbacks += 1
        names = sorted({p for c in bank for p in c.people})
    if len(set(settings)) < 10:
        report.list_fallbacks += 1
        settings = [c.setting.rstrip(".") for c in bank]
    return sorted(set(names)), list(dict.fromkeys(settings))


async def generate_contexts(
    model: Model | str | Callable[[str], Awaitable[str]],
    n: int,
    out: str | Path,
    *,
    judge: Model | str | Callable[[str], Awaitable[str]] | None = None,
    spec: ContextSpec = ContextSpec(),
    seed: int = 0,
    max_attempts: int | None = None,
    concurrency: int = 4,
    cache: bool | CachePolicy = True,
    temperature: float | None = 1.0,
    id_prefix: str = "llm",
    on_progress: Callable[[GenerationReport], None] | None = None,
) -> GenerationReport:
    """Generate contexts with an LLM until `out` (JSONL) holds `n`, within a budget of `max_attempts` attempts.

    Resumable: contexts already in `out` are kept, and attempt numbering continues after the last attempt made
    (`attempts_log(out)` records every one, accepted or not), so a re-run only generates what is missing and asks
    the model anew: attempt k carries k in its cache key, so a rejected attempt is never replayed from the cache. Each accepted context is appended as soon as it is
    accepted. Malformed answers, judge rejections (any verdict other than "yes"), duplicates and contexts with too
    few usable state changes are counted in the report and the next attempt is made, until the budget (default
    4 attempts per missing context) is spent.

    `model` and `judge` are Inspect models, model names, or `async (prompt) -> text` callables; the judge defaults
    to the model and is asked at temperature 0.
    """
    from inspect_ai.model import GenerateConfig

    out = Path(out)
    existing = load_contexts(out) if out.exists() else []
    report = GenerationReport(requested=n, existing=len(existing))
    missing = max(0, n - len(existing))
    report.budget = max_attempts if max_attempts is not None else 4 * missing
    if missing == 0:
        return report
    ask = make_asker(model, config=GenerateConfig(temperature=temperature), cache=cache)
    judge_ask = make_asker(judge if judge is not None else model, config=GenerateConfig(temperature=0.0), cache=cache)
    names, settings = await _sample_lists(ask, report)
    sink = Sink(out, missing, report, {dedup_key(c) for c in existing}, {c.id for c in existing})
    k = 1 + last_attempt(out, existing, id_prefix)
    out.parent.mkdir(parents=True, exist_ok=True)
    attempt = functools.partial(
        _attempt,
        ask=ask,
        judge=judge_ask,
        names=names,
        settings=settings,
        spec=spec,
        seed=seed,
        id_prefix=id_prefix,
        taken=sink.taken,
        report=report,
    )
    while report.generated < missing and report.attempts < report.budget:
        batch = range(k, k + min(concurrency, report.budget - report.attempts, missing - report.generated))
        results = await asyncio.gather(*(attempt(i) for i in batch), return_exceptions=True)
        for i, result in zip(batch, results, strict=True):  # commit in attempt order, whatever the concurrency
            sink.commit(i, result)
            if on_progress is not None:
                on_progress(report)
        k = batch.stop
    return report
