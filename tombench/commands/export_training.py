"""`tombench export-training`: (story, question, answer) training data from search and infill outputs (ExploreToM §4).

    tombench export-training astar/stories.jsonl random/stories.jsonl infilled.jsonl --out train.jsonl
    tombench export-training runs/*.jsonl infilled.jsonl --size 85000 --tom-share 0.5 --balance --chat -o sft.jsonl
    tombench export-training search.jsonl --size 2000 --max-tokens 300 --tokenizer meta-llama/Llama-3.1-8B-Instruct -o t.jsonl

Inputs are JSONL: `tombench search` outputs (any number of runs), `tombench infill` outputs or plain
`Story.to_dict()` lines; or `tombench search --out` folders, or live adversarial task logs (files or folders), e.g.
the N shards of one run. Stories are joined by content digest: a story in several files is exported once (raw text,
plus each accepted infill with the labels its final judge confirmed). See docs/how-to/infill-and-export.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.table import Table

from tombench.cli import UserError
from tombench.commands._common import output_dir, output_file, user_errors
from tombench.commands._logs import say

if TYPE_CHECKING:
    from tombench.generators.exploretom.export import ExportStats

_console = Console(stderr=True)


def _orders(value: str) -> tuple[int, ...]:
    try:
        orders = tuple(sorted({int(x) for x in value.split(",") if x.strip()}))
    except ValueError:
        orders = ()
    if not orders or any(o not in (0, 1, 2) for o in orders):
        raise UserError(f"--orders must be a comma-separated subset of 0,1,2 (got {value!r})")
    return orders


@click.command()
@click.argument("inputs", nargs=-1, type=click.Path(path_type=Path))
@click.option("--out", "-o", type=click.Path(dir_okay=False, path_type=Path), required=True, callback=output_file,
              help="Output JSONL.")
@click.option(
    "--hf-dir", type=click.Path(file_okay=False, path_type=Path), default=None, callback=output_dir,
    help="Also save a HF dataset."
)
@click.option(
    "--text",
    type=click.Choice(["raw", "infilled", "both"]),
    default="both",
    show_default=True,
    help="Story structures, accepted infills, or both.",
)
@click.option("--size", type=click.IntRange(1), default=None, help="Exactly this many records [default: all possible].")
@click.option(
    "--tom-share",
    type=click.FloatRange(0.0, 1.0),
    default=None,
    help="Share of records from stories requiring ToM, and so of stories (Fig. 5: 0, 0.25, 0.5, 0.75, 1) "
    "[default: as in the inputs].",
)
@click.option("--balance", is_flag=True, help="The same number of records per story type (the share kept in each).")
@click.option("--questions-per-type", type=click.IntRange(1), default=None, help="Cap when balancing without --size.")
@click.option("--orders", default="0,1,2", show_default=True, help="Question orders (0 = state tracking).")
@click.option("--exclude-asymmetric", is_flag=True, help="Drop the +asymmetric story types (as the paper's training).")
@click.option("--max-stories", type=click.IntRange(1), default=None, help="Draw at most this many stories first.")
@click.option("--max-tokens", type=click.IntRange(1), default=None, help="Drop records longer than this (the paper: 300).")
@click.option(
    "--tokenizer",
    default=None,
    help="The target model's tokenizer for --max-tokens: a Hub name or tokenizer.json (tokenizers), "
    "'tiktoken:<encoding>', a .gguf file or 'smollm2'.",
)
@click.option("--chat", is_flag=True, help='Write {"messages": [system, user, assistant]} records for SFT.')
@click.option("--seed", type=int, default=0, show_default=True)
def export_training(
    inputs: tuple[Path, ...],
    out: Path,
    hf_dir: Path | None,
    text: str,
    size: int | None,
    tom_share: float | None,
    balance: bool,
    questions_per_type: int | None,
    orders: str,
    exclude_asymmetric: bool,
    max_stories: int | None,
    max_tokens: int | None,
    tokenizer: str | None,
    chat: bool,
    seed: int,
) -> None:
    """Export (story, question, answer) records as JSONL (and a Hugging Face dataset with --hf-dir)."""
    from tombench.generators.exploretom.export import (
        ExportConfig,
        ExportError,
        export_files,
        save_dataset,
        write_jsonl,
    )
    from tombench.generators.exploretom.story_inputs import InfillError
    from tombench.generators.exploretom.tokens import TokenizerError

    _check_options(inputs, balance=balance, size=size, questions_per_type=questions_per_type,
                   max_tokens=max_tokens, tokenizer=tokenizer)
    config = ExportConfig(
        text=text,  # type: ignore[arg-type]
        tom_share=tom_share,
        balance=balance,
        size=size,
        questions_per_type=questions_per_type,
        orders=_orders(orders),
        exclude_asymmetric=exclude_asymmetric,
        max_stories=max_stories,
        max_tokens=max_tokens,
        tokenizer=tokenizer,
        seed=seed,
    )
    with user_errors(InfillError, TokenizerError, ExportError):
        records, stats = export_files(inputs, config, say)
    if not records:
        raise UserError(
            f"nothing to export from {stats.stories_in} stories ({stats.with_infill} with an accepted infill): "
            "check --text, --tom-share, --max-tokens and --exclude-asymmetric against your inputs"
        )
    write_jsonl(records, out, chat=chat)
    if hf_dir is not None:
        save_dataset(records, hf_dir, stats=stats, chat=chat)
    _console.print(_summary_table(stats, max_tokens))
    where = f"{out}" + (f" and {hf_dir}" if hf_dir else "")
    click.echo(
        f"wrote {stats.records} {'chat ' if chat else ''}records from {stats.stories_selected} stories to {where}"
    )


def _check_options(
    inputs: tuple[Path, ...],
    *,
    balance: bool,
    size: int | None,
    questions_per_type: int | None,
    max_tokens: int | None,
    tokenizer: str | None,
) -> None:
    """Option combinations that click cannot check, refused before any file is read."""
    if not inputs:
        raise UserError("give at least one input: a JSONL (tombench search or tombench infill output), a search "
                        "--out folder or a live adversarial log")
    if questions_per_type is not None and (not balance or size is not None):
        raise UserError("--questions-per-type only applies with --balance and without --size")
    if max_tokens is not None and tokenizer is None:
        raise UserError(
            "--max-tokens counts the target model's tokens: give --tokenizer (a Hub name or tokenizer.json, "
            "'tiktoken:<encoding>', a .gguf file or 'smollm2')"
        )


def _summary_table(stats: ExportStats, max_tokens: int | None) -> Table:
    """What the export read, dropped and made (the ExportStats), one row each."""
    table = Table(title="tombench export-training", show_header=False)
    for k, v in [
        ("stories read (with an accepted infill)", f"{stats.stories_in} ({stats.with_infill})"),
        ("infills without a final label check (not used)", stats.unverified_infills),
        ("infilled labels the final judge did not confirm (not used)", stats.unconfirmed_labels),
        (f"records over {max_tokens} tokens (dropped)" if max_tokens else "token limit", stats.too_long if max_tokens else "none"),
        ("records", stats.records),
        ("from stories requiring ToM: records", f"{stats.tom_records} of {stats.records}"),
        ("from stories requiring ToM: stories", f"{stats.tom_stories_selected} of {stats.stories_selected}"),
        ("at most records per story", stats.max_records_per_story),
        *((f"  {t}", n) for t, n in stats.by_type.items()),
        ("by order", ", ".join(f"{k}: {v}" for k, v in stats.by_order.items())),
        ("by source", ", ".join(f"{k}: {v}" for k, v in stats.by_source.items())),
        ("types left out by --balance", ", ".join(stats.types_left_out) or "none"),
    ]:
        table.add_row(k, str(v))
    return table
