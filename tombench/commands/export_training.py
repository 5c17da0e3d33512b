"""`tombench export-training`: (story, question, answer) training data from search and infill outputs (ExploreToM §4).

    tombench export-training search.jsonl infilled.jsonl --out train.jsonl
    tombench export-training search.jsonl infilled.jsonl --out train.jsonl --tom-share 0.5 --balance --chat
    tombench export-training search.jsonl --text raw --orders 1,2 --exclude-asymmetric --out t.jsonl --hf-dir train_ds

Inputs are JSONL: `tombench search` outputs, `tombench infill` outputs or plain `Story.to_dict()` lines; a story that
appears in several files is exported once (raw text, plus its infilled text when an infill of it was accepted).
See docs/infill-and-export.md.
"""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from tombench.cli import UserError

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
@click.argument("inputs", nargs=-1, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--out", "-o", type=click.Path(dir_okay=False, path_type=Path), required=True, help="Output JSONL.")
@click.option(
    "--hf-dir", type=click.Path(file_okay=False, path_type=Path), default=None, help="Also save a HF dataset."
)
@click.option(
    "--text",
    type=click.Choice(["raw", "infilled", "both"]),
    default="both",
    show_default=True,
    help="Story structures, accepted infills, or both.",
)
@click.option(
    "--tom-share",
    type=click.FloatRange(0.0, 1.0),
    default=None,
    help="Share of stories requiring ToM (Fig. 5: 0, 0.25, 0.5, 0.75, 1) [default: as in the inputs].",
)
@click.option("--balance", is_flag=True, help="The same number of questions per story type.")
@click.option("--questions-per-type", type=click.IntRange(1), default=None, help="Cap when balancing.")
@click.option("--orders", default="0,1,2", show_default=True, help="Question orders (0 = state tracking).")
@click.option("--exclude-asymmetric", is_flag=True, help="Drop the +asymmetric story types (as the paper's training).")
@click.option("--max-stories", type=click.IntRange(1), default=None, help="At most this many stories.")
@click.option("--chat", is_flag=True, help='Write {"messages": [system, user, assistant]} records for SFT.')
@click.option("--seed", type=int, default=0, show_default=True)
def export_training(
    inputs: tuple[Path, ...],
    out: Path,
    hf_dir: Path | None,
    text: str,
    tom_share: float | None,
    balance: bool,
    questions_per_type: int | None,
    orders: str,
    exclude_asymmetric: bool,
    max_stories: int | None,
    chat: bool,
    seed: int,
) -> None:
    """Export (story, question, answer) records as JSONL (and a Hugging Face dataset with --hf-dir)."""
    from tombench.generators.export import ExportConfig, collect_units, export_records, save_dataset, write_jsonl
    from tombench.generators.infill import InfillError

    if not inputs:
        raise UserError("give at least one input JSONL (tombench search or tombench infill output)")
    if questions_per_type is not None and not balance:
        raise UserError("--questions-per-type only applies with --balance")
    config = ExportConfig(
        text=text,  # type: ignore[arg-type]
        tom_share=tom_share,
        balance=balance,
        questions_per_type=questions_per_type,
        orders=_orders(orders),
        exclude_asymmetric=exclude_asymmetric,
        max_stories=max_stories,
        seed=seed,
    )
    try:
        units, digests = collect_units(inputs)
    except InfillError as e:
        raise UserError(str(e)) from None
    records, stats = export_records(units, config)
    stats.inputs = digests
    if not records:
        raise UserError(
            f"nothing to export from {stats.stories_in} stories ({stats.with_infill} with an accepted infill): "
            "check --text, --tom-share and --exclude-asymmetric against your inputs"
        )
    write_jsonl(records, out, chat=chat)
    if hf_dir is not None:
        save_dataset(records, hf_dir, stats=stats, chat=chat)
    table = Table(title="tombench export-training", show_header=False)
    share = "n/a" if stats.tom_story_share is None else f"{100 * stats.tom_story_share:.1f}%"
    rshare = "n/a" if stats.tom_record_share is None else f"{100 * stats.tom_record_share:.1f}%"
    for k, v in [
        ("stories read (with accepted infill)", f"{stats.stories_in} ({stats.with_infill})"),
        ("stories exported", stats.stories_selected),
        ("requiring ToM: stories / records", f"{share} / {rshare}"),
        ("records", stats.records),
        *((f"  {t}", n) for t, n in stats.by_type.items()),
        ("by order", ", ".join(f"{k}: {v}" for k, v in stats.by_order.items())),
        ("by source", ", ".join(f"{k}: {v}" for k, v in stats.by_source.items())),
        ("types left out by --balance", ", ".join(stats.types_left_out) or "none"),
    ]:
        table.add_row(k, str(v))
    _console.print(table)
    where = f"{out}" + (f" and {hf_dir}" if hf_dir else "")
    click.echo(
        f"wrote {stats.records} {'chat ' if chat else ''}records from {stats.stories_selected} stories to {where}"
    )
