"""Synthesis of ToM-Synth items: K entries per social unit (paper §3.2; the paper uses K = 4 with Claude Opus 4.5).

Every item is independent, so all of them are awaited together and Inspect's per-model connection limit
(`GenerateConfig.max_connections`) sets the real concurrency. Each finished item is appended to the output jsonl at
once; a restart skips the ids already there. Items whose every attempt failed to parse go to `<out>.failures.jsonl`
(with the last raw output, for debugging the prompt) and are tried again on the next run.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from inspect_ai.model import CachePolicy, GenerateConfig, Model, get_model

from tombench.generators.tomsynth._calls import generate_parsed
from tombench.generators.tomsynth.items import Item, append_jsonl, read_jsonl_ids
from tombench.generators.tomsynth.parsing import ParsedEntry, parse_entry
from tombench.generators.tomsynth.prompts import synthesis_prompt
from tombench.generators.tomsynth.units import Unit, draw_characters, item_id

__all__ = ["GenerationStats", "generate_items", "failures_path", "plan_items"]


@dataclass
class GenerationStats:
    """What a generation run did; `parse_errors` counts every failed attempt by kind (retried ones included)."""

    planned: int = 0
    already_done: int = 0
    generated: int = 0
    failed: int = 0
    calls: int = 0
    parse_errors: Counter[str] = field(default_factory=Counter)

    def to_dict(self) -> dict[str, object]:
        return {
            "planned": self.planned,
            "already_done": self.already_done,
            "generated": self.generated,
            "failed": self.failed,
            "calls": self.calls,
            "parse_errors": dict(self.parse_errors),
        }


def failures_path(out: str | Path) -> Path:
    p = Path(out)
    return p.with_name(p.name + ".failures.jsonl") if p.suffix != ".jsonl" else p.with_suffix(".failures.jsonl")


def plan_items(units: Sequence[Unit], entries_per_unit: int) -> list[tuple[Unit, int]]:
    return [(u, k) for u in units for k in range(entries_per_unit)]


async def generate_items(
    model: Model | str,
    units: Sequence[Unit],
    entries_per_unit: int,
    out: str | Path,
    *,
    seed: int = 0,
    max_retries: int = 2,
    config: GenerateConfig | None = None,
    cache: bool | CachePolicy = True,
    on_item: Callable[[str, bool], None] | None = None,
) -> GenerationStats:
    """Generate `entries_per_unit` items for each unit into `out` (jsonl, appended, resumable).

    The names offered to the model are drawn with `random.Random(f"{seed}:{item_id}")`, so an item's prompt depends
    only on the seed and its id, never on which other items are in the run or in what order they finish.
    `on_item(item_id, ok)` is called as each item completes (the CLI drives its progress bar with it).
    """
    model = get_model(model) if isinstance(model, str) else model
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = read_jsonl_ids(out)
    plan = plan_items(units, entries_per_unit)
    stats = GenerationStats(planned=len(plan))
    todo = [(u, k) for u, k in plan if item_id(u, k) not in done]
    stats.already_done = len(plan) - len(todo)
    fail_file = failures_path(out)

    async def one(unit: Unit, k: int) -> None:
        iid = item_id(unit, k)
        characters = draw_characters(random.Random(f"{seed}:{iid}"))

        def parse(text: str) -> ParsedEntry:
            return parse_entry(text, unit.format)

        res = await generate_parsed(
            model,
            synthesis_prompt(unit, characters),
            parse,
            scope=iid,
            max_retries=max_retries,
            config=config,
            cache=cache,
        )
        stats.calls += res.attempts
        stats.parse_errors.update(res.errors)
        if res.value is None:
            stats.failed += 1
            append_jsonl(
                fail_file,
                [{"id": iid, "errors": dict(res.errors), "last_output": res.last_output[:4000]}],
            )
        else:
            e = res.value
            item = Item(
                id=iid,
                **unit.metadata(),
                text=e.text,
                question=e.question,
                options=e.options,
                answer=e.answer,
                analysis=e.analysis,
                characters=characters,
                generator=str(model),
            )
            append_jsonl(out, [item.to_row()])
            stats.generated += 1
        if on_item is not None:
            on_item(iid, res.value is not None)

    await asyncio.gather(*(one(u, k) for u, k in todo))
    return stats
