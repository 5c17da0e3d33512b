"""`tombench report`: the paper's tables from Inspect logs, in the terminal, as Markdown or as one HTML page.

    tombench report logs/                       # Table 1, Table 6, accuracy by ToM order, by people and moves
    tombench report logs/ --md > report.md
    tombench report logs/ --plot fig3.png       # Figure 3 as a PNG (needs matplotlib)
    tombench report logs/ --html report.html    # one offline page: every figure, the numbers beneath
    tombench report transfer logs/              # generator x evaluator matrix (paper Table 2)
    tombench report transfer logs/ --html t.html

`tombench report LOGS` is `tombench report tables LOGS` (options may come first: `tombench report --html OUT LOGS`).

Each run (one log) is its own column, keyed A, B, ... with a legend beneath each table: runs of different tasks or
settings are different experiments, and repeats of one configuration are shown apart as run 1, run 2 (never pooled,
which would double n without adding a question); a note on stderr says when a folder holds several runs of a model
and task. Files that are not readable logs and unfinished runs are skipped with one line each on stderr; a progress
bar shows on stderr while reading when it is a terminal.
"""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console

from tombench.cli import UserError
from tombench.commands._common import output_file


def _load(paths: tuple[str, ...]):
    """The ExploreToM records of the logs; a one-line error when there are none (e.g. ToMi-only logs).

    Files that are not readable logs and unfinished runs are left out with one line each on stderr, and a note
    says when a model and task were run more than once (each run is its own column, never pooled)."""
    from tombench.commands._logs import progress, say
    from tombench.reports import exploretom_records, load_records, repeat_notes

    if not paths:
        raise UserError("give one or more Inspect logs or log directories")
    try:
        recs = load_records(paths, on_skip=say, progress=progress)
    except FileNotFoundError as e:
        raise UserError(str(e)) from None
    et = exploretom_records(recs)
    for note in repeat_notes(r.column for r in et):
        say(note)
    if not et:
        other = sorted({r.task for r in recs})
        raise UserError("no scored ExploreToM questions in those logs"
                        + (f" (only {', '.join(other)}, which have no action sets)" if other else "")
                        + "; run an exploretom task first, or `tombench report suites` for the ToM suites")
    return et


def _show(tables, md: bool) -> None:
    console = Console(width=max(Console().width, 120))
    for t in tables:
        if md:
            click.echo(t.markdown() + "\n")
            continue
        console.print(t.rich())


def _plot(recs, path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UserError("--plot needs matplotlib: pip install matplotlib") from None
    fo = [r for r in recs if r.order == 1]  # first-order questions, as Table 1 and Figure 3
    columns = sorted({r.column for r in fo})  # one line per run: tasks, settings and repeats are never pooled
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, attr in zip(axes, ("people", "moves"), strict=True):
        for run in columns:
            mine = [r for r in fo if r.column == run]
            xs = sorted({getattr(r, attr) for r in mine if getattr(r, attr) is not None})
            ys = []
            for x in xs:
                sel = [r.correct for r in mine if getattr(r, attr) == x]
                ys.append(sum(sel) / len(sel))
            ax.plot(xs, ys, marker="o", label=run.label)
            ax.set_xticks(xs)
        ax.set_xlabel(f"number of {attr}")
        ax.set_ylabel("first-order accuracy")
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.suptitle("Accuracy vs people and moves (ExploreToM Figure 3)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def _write_html(recs, path: Path, figures: tuple[str, ...]) -> None:
    """The HTML page of `figures` (`reports.FIGURES`) from the records, and one line on stderr naming it."""
    from tombench.reports import report_page

    try:
        path.write_text(report_page(recs, figures), encoding="utf-8")
    except OSError as e:
        raise UserError(f"cannot write {path}: {e.strerror or e}") from None
    click.echo(f"wrote {path}", err=True)


_HTML_HELP = "Also write the figures, drawn from the same numbers, as one self-contained HTML page (offline)."


class _ReportGroup(click.Group):
    """`tombench report LOGS...` runs the main report; `tombench report transfer LOGS...` the transfer matrix.

    The group has no options but --help, so the subcommands' options may come before the logs and the subcommand's
    name is then implied (`tombench report --html OUT LOGS` is `tombench report tables --html OUT LOGS`)."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("context_settings", {})["ignore_unknown_options"] = True
        super().__init__(*args, **kwargs)

    def resolve_command(self, ctx: click.Context, args: list[str]):
        if args and args[0] in self.commands:
            return super().resolve_command(ctx, args)
        return super().resolve_command(ctx, ["tables", *args])


@click.group(cls=_ReportGroup, invoke_without_command=False)
def report() -> None:
    """Paper-style tables from Inspect logs (Table 1, Table 6, Figure 3, transfer); --html draws them on one page."""


@report.command("tables")
@click.argument("logs", nargs=-1)
@click.option("--md", is_flag=True, help="Print Markdown instead of terminal tables.")
@click.option("--plot", type=click.Path(dir_okay=False, path_type=Path), default=None, callback=output_file,
              help="Also write accuracy vs people and moves as a PNG.")
@click.option("--html", type=click.Path(dir_okay=False, path_type=Path), default=None, callback=output_file,
              help=_HTML_HELP + " Holds the transfer matrix too when the logs have one.")
def tables(logs: tuple[str, ...], md: bool, plot: Path | None, html: Path | None) -> None:
    """Table 1 (action set x asymmetry), Table 6 (interesting), accuracy by ToM order and by people and moves."""
    from tombench.reports import (
        FIGURES,
        by_order_table,
        by_people_and_moves,
        interesting_table,
        per_action_set_table,
    )

    recs = _load(logs)
    tables_ = [t for t in (per_action_set_table(recs), interesting_table(recs), by_order_table(recs),
                           *by_people_and_moves(recs)) if t.rows]
    if not tables_:
        raise UserError("no first-order ExploreToM questions in those logs (Table 1, Table 6 and Figure 3 count "
                        "first-order questions only)")
    _show(tables_, md)
    if plot is not None:
        _plot(recs, plot)
        click.echo(f"wrote {plot}", err=True)
    if html is not None:
        _write_html(recs, html, FIGURES)


@report.command("transfer")
@click.argument("logs", nargs=-1)
@click.option("--md", is_flag=True, help="Print Markdown instead of a terminal table.")
@click.option("--html", type=click.Path(dir_okay=False, path_type=Path), default=None, callback=output_file,
              help=_HTML_HELP)
def transfer(logs: tuple[str, ...], md: bool, html: Path | None) -> None:
    """Accuracy of each evaluator on stories found against each generator model, per search method (Table 2)."""
    from tombench.reports import transfer_matrix

    recs = _load(logs)
    t = transfer_matrix(recs)
    if not t.rows:
        raise UserError("no belief questions with a generator model (run tombench/exploretom_transfer or the live "
                        "task)")
    _show([t], md)
    if html is not None:
        _write_html(recs, html, ("transfer",))


def _register_suites() -> None:
    from tombench.commands.report_suites import suites

    report.add_command(suites)


_register_suites()
