"""`tombench persuasion`: generate ToMMA dialogues and audit dialogue datasets with causal theory of mind.

    tombench persuasion generate --persuader openai/gpt-4o --observer openai/gpt-4o --limit 50 --out tomma.jsonl
    tombench persuasion generate --scenarios my_scenarios.json --persuader anthropic/claude-sonnet-4-5 \
        --persuadee openai/gpt-4o-mini --no-observer --out tomma.jsonl
    tombench persuasion evaluate tomma.jsonl --judge openai/gpt-4o-mini --out tomma.judged.jsonl
    tombench persuasion evaluate hub --judge openai/gpt-3.5-turbo --limit 200

Both commands append results as they finish; re-running the same command resumes.
"""

from __future__ import annotations

import random
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from tombench.cli import UserError
from tombench.commands._common import output_file, resolve_model
from tombench.kit import aio

T = TypeVar("T")
_console = Console(stderr=True)


def _first_line(e: BaseException) -> str:
    text = str(getattr(e, "message", None) or e).strip()
    return text.splitlines()[0][:200] if text else type(e).__name__


def _model(name: str, role: str, max_retries: int) -> Any:
    """An Inspect model bound to a ToMMA role (the role names its usage in Inspect's accounting)."""
    return resolve_model(name, role=role, max_retries=max_retries)


def _run(coro: Coroutine[Any, Any, T], what: str) -> T:
    try:
        return aio.run(coro)
    except UserError:
        raise
    except Exception as e:  # provider/network failures end the run; finished rows are already on disk
        raise UserError(
            f"{what} stopped ({type(e).__name__}: {_first_line(e)}); finished rows are saved, re-run to resume"
        ) from None


def _load(source: str | None, revision: str | None, data_file: str | None, limit: int | None = None,
          duplicates: str = "drop") -> list[Any]:
    from tombench.generators.persuasion.data import PersuasionDataError, load_records

    try:
        records = load_records(None if source in (None, "hub") else source, revision=revision, data_file=data_file,
                               duplicates=duplicates)  # type: ignore[arg-type]
    except PersuasionDataError as e:
        raise UserError(str(e)) from None
    prov = records.provenance
    release = prov["release_file"]
    _console.print(
        f"[dim]loaded {prov['records']} records ({prov['records_in_file']} in the file, {prov['duplicates']} exact "
        f"copies, {prov['duplicates_policy']}); sha256 {prov['sha256'][:16]}; "
        + (f"the authors' {release['file']} ({prov['license']})" if release else "not a file of the authors' release")
        + (f"; {prov['repo']}@{prov['resolved_revision'][:12]}" if prov.get("source") == "hub" else "")
        + "[/dim]"
    )
    return records.records[:limit] if limit is not None else records.records


def _progress() -> Progress:
    return Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=_console
    )


@click.group()
def persuasion() -> None:
    """ToMMA / CToMPersu persuasion: double-blind dialogue generation and causal-ToM dataset audit."""


_revision = click.option("--revision", default=None,
                         help="Hub branch, tag or commit (default: main, checked to be the authors' release file).")
_duplicates = click.option("--duplicates", type=click.Choice(["drop", "keep"]), default="drop", show_default=True,
                           help="Exact copies of a record: judge once, or keep (the paper's 525 records).")
_data_file = click.option("--data-file", default=None, help="File of the Hub dataset (default: its eval file).")
_retries = click.option("--max-retries", type=click.IntRange(0), default=3, show_default=True, help="Retries per model call.")
_concurrent = click.option("--max-concurrent", type=click.IntRange(1), default=4, show_default=True, help="Dialogues in flight at once.")
_cache = click.option("--cache/--no-cache", default=True, show_default=True, help="Use Inspect's model cache.")


@persuasion.command()
@click.option("--scenarios", "scenarios_file", type=click.Path(), default=None,
              help="JSON/JSONL of scenarios or CToMPersu records (default: the Hub evaluation split's scenarios).")
@_revision
@_data_file
@click.option("--persuader", required=True, help="Inspect model of the persuader, e.g. openai/gpt-4o.")
@click.option("--persuadee", default=None, help="Model of the persuadee (default: the persuader's).")
@click.option("--observer", default=None, help="Model of the observer (default: the persuader's).")
@click.option("--no-observer", is_flag=True, help="Generate without observer review.")
@click.option("--mental-state", "mental_state_model", default=None,
              help="Model that writes the persuadee's mental state (default: the persuadee's).")
@click.option("--out", type=click.Path(dir_okay=False), required=True, callback=output_file,
              help="Output JSONL (appended; resumable).")
@click.option("--limit", type=click.IntRange(1), default=None, help="Number of scenarios, drawn with --seed.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--max-revisions", type=click.IntRange(0), default=2, show_default=True, help="Observer send-backs per round.")
@_retries
@_concurrent
@_cache
def generate(
    scenarios_file: str | None,
    revision: str | None,
    data_file: str | None,
    persuader: str,
    persuadee: str | None,
    observer: str | None,
    no_observer: bool,
    mental_state_model: str | None,
    out: str,
    limit: int | None,
    seed: int,
    max_revisions: int,
    max_retries: int,
    max_concurrent: int,
    cache: bool,
) -> None:
    """Generate CToMPersu-style dialogues with ToMMA (mental state, double-blind agents, observer)."""
    from tombench.generators.persuasion.generate import ToMMAModels, generate_dataset, sample_scenarios

    if no_observer and observer:
        raise UserError("--observer and --no-observer exclude each other")
    if limit is not None and limit < 1:
        raise UserError("--limit must be at least 1")
    persuadee = persuadee or persuader
    models = ToMMAModels(  # models first: a missing key should fail before any download
        persuader=_model(persuader, "persuader", max_retries),
        persuadee=_model(persuadee, "persuadee", max_retries),
        observer=None if no_observer else _model(observer or persuader, "observer", max_retries),
        mental_state=_model(mental_state_model or persuadee, "mental_state", max_retries),
    )
    scenarios = sample_scenarios([r.scenario for r in _load(scenarios_file, revision, data_file)], limit,
                                 random.Random(seed))
    with _progress() as progress:
        bar = progress.add_task("dialogues", total=len(scenarios))
        summary = _run(
            generate_dataset(scenarios, models, Path(out), max_revisions=max_revisions, max_concurrent=max_concurrent,
                             cache=cache, on_progress=lambda: progress.advance(bar)),
            "generation",
        )
    table = Table(title=f"ToMMA generation -> {out}")
    for col in ("written", "already done", "failed"):
        table.add_column(col, justify="right")
    table.add_row(str(summary.written), str(summary.skipped), str(len(summary.failed)))
    Console().print(table)
    for sid, error in summary.failed[:5]:
        _console.print(f"[yellow]failed {sid}: {error}[/yellow]")


@persuasion.command()
@click.argument("file")
@_revision
@_data_file
@_duplicates
@click.option("--judge", required=True, help="Inspect model of the judge (the paper uses gpt-3.5-turbo).")
@click.option("--metrics", default="all", show_default=True,
              help="Comma-separated Table 1 metrics to judge: context_coherence, logical_coherence, helpfulness, "
                   "direct, ctom (or all).")
@click.option("--out", type=click.Path(dir_okay=False), default=None, callback=output_file,
              help="JSONL of per-dialogue judgements (appended; resumable).")
@click.option("--limit", type=click.IntRange(1), default=None, help="Judge only the first N dialogues.")
@_retries
@_concurrent
@_cache
def evaluate(
    file: str,
    revision: str | None,
    data_file: str | None,
    duplicates: str,
    judge: str,
    metrics: str,
    out: str | None,
    limit: int | None,
    max_retries: int,
    max_concurrent: int,
    cache: bool,
) -> None:
    """The five dataset metrics of the paper's Table 1: context coherence, logical coherence, helpfulness (1-5),
    direct prompting and causal-ToM success (%), each with a 95% interval.

    FILE is a JSON/JSONL file of CToMPersu-layout records, or `hub` for the released evaluation split.
    """
    from tombench.generators.persuasion.evaluate import choose_metrics, evaluate_dataset, summarise, with_dialogues

    try:
        chosen = choose_metrics(metrics)
    except ValueError as e:
        raise UserError(f"--metrics: {e}") from None
    if file != "hub" and not Path(file).is_file():
        raise UserError(f"no such file: {file} (or pass `hub` for the released evaluation split)")
    model = _model(judge, "grader", max_retries)
    records = with_dialogues(_load(file, revision, data_file, limit, duplicates))
    if not records:
        raise UserError(f"{file} holds no dialogues")
    with _progress() as progress:
        bar = progress.add_task("dialogues", total=len(records))
        judgements = _run(
            evaluate_dataset(records, model, Path(out) if out else None, metrics=chosen, name=judge,
                             max_concurrent=max_concurrent, cache=cache, on_progress=lambda: progress.advance(bar)),
            "evaluation",
        )
    _print_table_one(summarise(judgements, chosen), chosen, f"Table 1 audit of {file}", judge)


def _print_table_one(s: Any, metrics: list[str], title: str, judge: str) -> None:
    """Table 1 of one audit, then the gap the paper reads from it (direct prompting minus causal-ToM success)."""
    from tombench.generators.persuasion.evaluate import table_one_rows

    table = Table(title=f"{title}: {s.dialogues} dialogues, judge {judge}")
    for col in ("metric", "value", "95% interval", "judged"):
        table.add_column(col, justify="left" if col == "metric" else "right")
    for row in table_one_rows(s, metrics):
        table.add_row(*row)
    Console().print(table)
    if s.gap is not None:
        Console().print(f"direct prompting - causal ToM eval: {s.gap:.2f} points")
