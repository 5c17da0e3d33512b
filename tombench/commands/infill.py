"""`tombench infill`: turn story structures into natural narrations, one judged step at a time (ExploreToM §2.3).

    tombench infill --model openai/gpt-4o search.jsonl --out infilled.jsonl
    tombench infill --model openai/gpt-4o --judge-model anthropic/claude-sonnet-4-5 search.jsonl --out infilled.jsonl
    tombench infill --model openai/gpt-4o --style fantom --candidates 4 --step-attempts 2 stories.jsonl --out long.jsonl

STORIES is JSONL: `tombench search` output lines (`{"story": ...}`), several runs concatenated, or plain
`Story.to_dict()` lines. Stories are known by their content digest. The output is appended one whole-story round at a
time (failed rounds too, with what failed); running the same command again skips accepted stories and gives the
others their remaining rounds (`--story-attempts`), asked anew. See docs/how-to/infill-and-export.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from tombench.cli import UserError
from tombench.commands._common import output_file, percent, resolve_model, user_errors
from tombench.kit import aio

_console = Console(stderr=True)


def _model(name: str, max_connections: int | None) -> Any:
    return resolve_model(name, max_connections=max_connections)


def report_table(report: Any) -> Table:
    """The run's counts and the acceptance rates with their intervals (also what the tests read back)."""
    table = Table(title="tombench infill", show_header=False)
    rows = [
        ("stories this run (rounds)", f"{report.stories} ({report.rounds})"),
        ("already accepted in --out (skipped)", report.already_done),
        ("out of rounds (raise --story-attempts to retry)", report.exhausted),
        ("duplicate input stories (same digest)", report.duplicate_inputs),
        ("input lines without a story", report.no_story_lines),
        ("accepted at the first attempt", percent(report.first_round_ok, report.first_round_of)),
        ("accepted in the end", percent(report.final_ok, report.final_of)),
        ("step acceptance", percent(report.steps_accepted, report.steps)),
        ("steps accepted at the first candidate", report.steps_first_candidate),
        ("candidate acceptance (judged)", percent(report.candidates_accepted, report.candidates_judged)),
        ("candidates generated", report.candidates),
        ("pre-check rejections", report.precheck_rejections),
        ("judge rejections (of which not yes/no)", f"{report.judge_rejections} ({report.judge_unclear})"),
        ("final label checks passed", percent(report.final_passed, report.final_checks)),
        ("  contradicted / unclear", f"{report.final_contradicted} / {report.final_unclear}"),
        ("rounds failed at the final check", report.final_failures),
        (
            "narrations malformed / rejected by the judge",
            f"{report.malformed_narrations} / {report.narration_rejections}",
        ),
        ("malformed infills / goals", f"{report.malformed_infills} / {report.malformed_goals}"),
        ("model calls (of which the judge's)", f"{report.model_calls} ({report.judge_calls})"),
    ]
    for k, v in rows:
        table.add_row(k, str(v))
    return table


@click.command()
@click.argument("stories", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--model", "-m", default=None, help="Inspect model that writes the infills, e.g. openai/gpt-4o.")
@click.option("--judge-model", default=None, help="Inspect model for the per-step judge (default: --model).")
@click.option("--out", "-o", type=click.Path(dir_okay=False, path_type=Path), required=True, callback=output_file,
              help="Output JSONL.")
@click.option("--candidates", "-k", type=click.IntRange(1, 10), default=3, show_default=True, help="Per call.")
@click.option(
    "--step-attempts", type=click.IntRange(1), default=1, show_default=True, help="Calls per step before it fails."
)
@click.option(
    "--story-attempts",
    type=click.IntRange(1),
    default=3,
    show_default=True,
    help="Whole-story rounds per story, across runs (a failed round starts over, asked anew).",
)
@click.option(
    "--style",
    type=click.Choice(["short", "fantom"]),
    default="short",
    show_default=True,
    help="short: Fig. 12 desiderata; fantom: long conversational infills.",
)
@click.option("--no-narration", is_flag=True, help="Skip the initial setting paragraph (Fig. 10).")
@click.option("--no-goals", is_flag=True, help="Skip the character goals (Fig. 11).")
@click.option(
    "--belief-checks",
    type=click.IntRange(0),
    default=None,
    help="Cap on the first-order beliefs judged per step (default: all of them, with the whole world state).",
)
@click.option(
    "--step-batch", type=click.IntRange(1), default=12, show_default=True, help="Checks per step judge call."
)
@click.option(
    "--final-batch", type=click.IntRange(1), default=12, show_default=True, help="Label checks per final judge call."
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for the sampled desiderata.")
@click.option("--limit", type=click.IntRange(1), default=None, help="Infill at most this many new stories.")
@click.option("--concurrency", type=click.IntRange(1), default=4, show_default=True, help="Stories at once.")
@click.option("--max-connections", type=click.IntRange(1), default=None, help="Concurrent requests to the model.")
@click.option("--temperature", type=click.FloatRange(0), default=1.0, show_default=True, help="For writing (the judge uses 0).")
@click.option("--no-cache", is_flag=True, help="Do not use Inspect's model-response cache.")
def infill(
    stories: Path,
    model: str | None,
    judge_model: str | None,
    out: Path,
    candidates: int,
    step_attempts: int,
    story_attempts: int,
    style: str,
    no_narration: bool,
    no_goals: bool,
    belief_checks: int | None,
    step_batch: int,
    final_batch: int,
    seed: int,
    limit: int | None,
    concurrency: int,
    max_connections: int | None,
    temperature: float,
    no_cache: bool,
) -> None:
    """Infill story structures (STORIES, JSONL) into natural text with a per-step LLM judge."""
    from tombench.generators.exploretom.infill import InfillConfig, infill_file
    from tombench.generators.exploretom.story_inputs import InfillError, load_story_inputs

    if model is None:
        raise UserError("infilling needs a model: --model openai/gpt-4o, say (the judge defaults to it)")
    with user_errors(InfillError):
        items, _ = load_story_inputs(stories)  # fail on a bad file before any model is built
    writer = _model(model, max_connections)
    judge = _model(judge_model, max_connections) if judge_model else None
    config = InfillConfig(
        candidates=candidates,
        step_attempts=step_attempts,
        story_attempts=story_attempts,
        style=style,  # type: ignore[arg-type]
        narration=not no_narration,
        goals=not no_goals,
        max_belief_checks=belief_checks,
        step_batch=step_batch,
        final_batch=final_batch,
        temperature=temperature,
        seed=seed,
        concurrency=concurrency,
    )
    with Progress(
        TextColumn("infill"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[info]}"),
        TimeElapsedColumn(),
        console=_console,
    ) as progress:
        task = progress.add_task("infill", total=None, info="")

        def on_progress(r: Any) -> None:
            progress.update(
                task,
                total=r.stories,
                completed=r.ok + r.failed,
                info=f"{r.ok} ok, {r.failed} failed, {r.rounds} rounds",
            )

        with user_errors(InfillError, stopped="infilling", saved=f"finished rounds are saved in {out}"):
            report = aio.run(
                infill_file(
                    writer,
                    stories,
                    out,
                    judge=judge,
                    config=config,
                    cache=not no_cache,
                    limit=limit,
                    on_progress=on_progress,
                )
            )
    _console.print(report_table(report))
    click.echo(
        f"{percent(report.first_round_ok, report.first_round_of)} of stories infilled at the first attempt, "
        f"{percent(report.final_ok, report.final_of)} after up to {story_attempts} attempts; "
        f"{len(items)} story lines in {stories}, output in {out}"
    )
    if report.exhausted:
        click.echo(f"{report.exhausted} stories used all {story_attempts} attempts: raise --story-attempts to retry")
