"""`tombench contexts`: write story contexts with an LLM and a judge (ExploreToM §2.1, App. C.1), or export the bank.

    tombench contexts --model openai/gpt-4o -n 50 --out contexts.jsonl
    tombench contexts --model anthropic/claude-sonnet-4-5 --judge-model openai/gpt-4o -n 50 --out contexts.jsonl
    tombench contexts --bank --out bank.jsonl          # the built-in contexts, no model needed
    tombench search --contexts contexts.jsonl ...      # or: inspect eval tombench/<task> -T contexts=contexts.jsonl

The output is appended as contexts are accepted; running the same command again keeps what is there and generates
only what is missing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from tombench.cli import UserError
from tombench.commands._common import output_file, resolve_model, user_errors
from tombench.kit import aio

_console = Console(stderr=True)


def _model(name: str, max_connections: int | None) -> Any:
    return resolve_model(name, max_connections=max_connections)


def _report_table(report: Any) -> Table:
    table = Table(title="tombench contexts", show_header=False)
    rows = [
        ("contexts in file", f"{report.total} / {report.requested}"),
        ("new this run", report.generated),
        ("attempts (budget)", f"{report.attempts} ({report.budget})"),
        ("malformed answers", report.malformed),
        ("judge rejections", report.judge_rejections),
        ("  of which not yes/no", report.judge_unclear),
        ("duplicates", report.duplicates),
        ("too few state changes", report.too_few_state_changes),
        ("failed quality checks", report.quality_rejections),
        ("state changes dropped", report.state_change_rejections),
        ("name/setting lists replaced by the bank's", report.list_fallbacks),
    ]
    for k, v in rows:
        table.add_row(k, str(v))
    return table


@click.command()
@click.option("--model", "-m", default=None, help="Inspect model that writes contexts, e.g. openai/gpt-4o.")
@click.option("--judge-model", default=None, help="Inspect model for the yes/no judge (default: --model).")
@click.option("-n", "n", type=click.IntRange(1), default=20, show_default=True, help="Contexts wanted in --out.")
@click.option(
    "--out",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    callback=output_file,
    default=None,
    help="Output JSONL (appended; a re-run generates only what is missing).",
)
@click.option("--bank", is_flag=True, help="Write the built-in contexts to --out instead of generating any.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for the sampled settings and names.")
@click.option(
    "--max-attempts", type=click.IntRange(1), default=None, help="Budget of attempts [default: 4 per context]."
)
@click.option("--people", type=click.IntRange(2), default=6, show_default=True)
@click.option("--containers", type=click.IntRange(2), default=6, show_default=True)
@click.option("--topics", type=click.IntRange(1), default=6, show_default=True)
@click.option("--concurrency", type=click.IntRange(1), default=4, show_default=True, help="Attempts run at once.")
@click.option("--max-connections", type=click.IntRange(1), default=None, help="Concurrent requests to the model.")
@click.option("--temperature", type=click.FloatRange(0), default=1.0, show_default=True, help="For writing (the judge uses 0).")
@click.option("--no-cache", is_flag=True, help="Do not use Inspect's model-response cache.")
def contexts(
    model: str | None,
    judge_model: str | None,
    n: int,
    out: Path | None,
    bank: bool,
    seed: int,
    max_attempts: int | None,
    people: int,
    containers: int,
    topics: int,
    concurrency: int,
    max_connections: int | None,
    temperature: float,
    no_cache: bool,
) -> None:
    """Generate story contexts with an LLM and a yes/no judge, or export the built-in bank (--bank)."""
    from tombench.generators.exploretom.context_generation import ContextSpec, generate_contexts
    from tombench.generators.exploretom.contexts import ContextError, load_context_bank, save_contexts

    if bank:
        if out is None:
            raise UserError("--bank needs --out FILE (.jsonl or .json)")
        save_contexts(out, load_context_bank())
        click.echo(f"wrote {len(load_context_bank())} built-in contexts to {out}")
        return
    if model is None:
        raise UserError(
            f"writing new contexts needs a model (--model openai/gpt-4o, say); without one, use the "
            f"{len(load_context_bank())} built-in contexts (export them with `tombench contexts --bank --out FILE`)"
        )
    if out is None:
        raise UserError("--out FILE is required (JSONL; a re-run resumes it)")
    writer = _model(model, max_connections)
    judge = _model(judge_model, max_connections) if judge_model else None
    spec = ContextSpec(people=people, containers=containers, topics=topics)

    with Progress(
        TextColumn("contexts"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[info]}"),
        TimeElapsedColumn(),
        console=_console,
    ) as progress:
        task = progress.add_task("contexts", total=n, completed=0, info="")

        def on_progress(r: Any) -> None:
            progress.update(
                task,
                completed=r.total,
                info=f"attempt {r.attempts}/{r.budget}, {r.malformed} malformed, {r.judge_rejections} rejected",
            )

        with user_errors(stopped="context generation", saved=f"accepted contexts are saved in {out}"):
            try:
                report = aio.run(
                    generate_contexts(
                        writer,
                        n,
                        out,
                        judge=judge,
                        spec=spec,
                        seed=seed,
                        max_attempts=max_attempts,
                        concurrency=concurrency,
                        cache=not no_cache,
                        temperature=temperature,
                        on_progress=on_progress,
                    )
                )
            except ContextError as e:
                raise UserError(f"{e} (fix or move the file; a re-run appends to it)") from None
    _console.print(_report_table(report))
    for reason, count in report.reasons.most_common(5):
        _console.print(f"  {count} x {reason}")
    if not report.complete:
        raise UserError(
            f"the budget of {report.budget} attempts ran out with {report.total} of {n} contexts in {out}: "
            f"{report.summary()}; re-run to continue, or raise --max-attempts"
        )
    click.echo(f"{report.total} contexts in {out}")
