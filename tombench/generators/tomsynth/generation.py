"""Synthesis of ToM-Synth items: K entries per social unit (paper §3.2; the paper uses K = 4 with Claude Opus 4.5).

Every item is independent, so all of them are awaited together and Inspect's per-model connection limit
(`GenerateConfig.max_connections`) sets the real concurrency. Each finished item is appended to the output jsonl at
once; a restart skips the ids already there. Items whose every attempt failed to parse are listed in
`<out>.failures.jsonl` (one line per item: the number of runs that failed on it, the error counts and the last raw
output, for debugging the prompt) and are tried again on the next run with fresh model calls: the number of failed
runs is part of the cache scope, so the default cache never replays the failure. An item that then succeeds leaves
the failures file.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from inspect_ai.model import CachePolicy, GenerateConfig, Model, get_model

from tombench.generators.tomsynth._calls import attempt_caches
from tombench.generators.tomsynth.items import Item, append_jsonl, read_jsonl, read_jsonl_ids, write_jsonl
from tombench.generators.tomsynth.parsing import ParsedEntry, parse_entry
from tombench.generators.tomsynth.prompts import synthesis_prompt
from tombench.generators.tomsynth.units import Unit, draw_characters, item_id
from tombench.kit.calls import ask_until_parsed

__all__ = ["GenerationStats", "generate_items", "failures_path", "plan_items", "read_failures"]


@dataclass
class GenerationStats:
    """What a generation run did; `parse_errors` counts every failed attempt by kind (retried ones included)."""

    planned: int = 0
    already_done: int = 0
    generated: int = 0
    failed: int = 0
    calls: int = 0
    retried: int = 0  # items that had failed in an earlier run and were asked again
    recovered: int = 0  # of those, generated this time
    parse_errors: Counter[str] = field(default_factory=Counter)

    def to_dict(self) -> dict[str, object]:
        return {
            "planned": self.planned,
            "already_done": self.already_done,
            "generated": self.generated,
            "failed": self.failed,
            "calls": self.calls,
            "retried": self.retried,
            "recovered": self.recovered,
            "parse_errors": dict(self.parse_errors),
        }


def failures_path(out: str | Path) -> Path:
    p = Path(out)
    return p.with_name(p.name + ".failures.jsonl") if p.suffix != ".jsonl" else p.with_suffix(".failures.jsonl")


def read_failures(path: str | Path) -> dict[str, dict[str, object]]:
    """{item id: failure row} of a failures file; `runs` counts the runs that failed on the item. Files written by
    earlier versions (one appended line per failed run, no `runs`) are read as one run per line."""
    p = Path(path)
    rows: dict[str, dict[str, object]] = {}
    if not p.exists():
        return rows
    for row in read_jsonl(p):
        if "id" not in row:
            continue
        iid = str(row["id"])
        runs = int(row.get("runs") or 0) or int(rows.get(iid, {}).get("runs", 0)) + 1  # type: ignore[call-overload]
        rows[iid] = {**row, "runs": runs}
    return rows


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
    failures = read_failures(fail_file)
    stale = [iid for iid in failures if iid in done]  # generated after all (e.g. by a run of an older version)
    for iid in stale:
        del failures[iid]
    if stale:
        write_jsonl(fail_file, failures.values())

    async def one(unit: Unit, k: int) -> None:
        iid = item_id(unit, k)
        characters = draw_characters(random.Random(f"{seed}:{iid}"))
        retry_round = int(failures.get(iid, {}).get("runs", 0))  # type: ignore[call-overload]

        def parse(text: str) -> ParsedEntry:
            return parse_entry(text, unit.format)

        res = await ask_until_parsed(
            model,
            synthesis_prompt(unit, characters),
            parse,
            cache=attempt_caches(cache, iid, retry_round),
            max_retries=max_retries,
            config=config,
        )
        stats.calls += res.attempts
        stats.retried += retry_round > 0
        stats.parse_errors.update(res.errors)
        if res.value is None:
            stats.failed += 1
            failures[iid] = {
                "id": iid, "runs": retry_round + 1, "errors": dict(res.errors), "last_output": res.last_output[:4000],
            }
            write_jsonl(fail_file, failures.values())
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
            if iid in failures:
                stats.recovered += 1
                del failures[iid]
                write_jsonl(fail_file, failures.values())
        if on_item is not None:
            on_item(iid, res.value is not None)

    await asyncio.gather(*(one(u, k) for u, k in todo))
    return stats
