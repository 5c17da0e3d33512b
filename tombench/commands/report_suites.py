"""`tombench report suites LOGS`: one row per model, one column per suite headline, with 95% intervals.

    tombench report suites logs/                 # the cross-suite table (ExploreToM Table 3 / ToM-Synth Table 1)
    tombench report suites logs/ --groups        # and each suite's own table (per order, per condition, ...)
    tombench report suites logs/ --md > suites.md
    tombench report suites logs/ --groups --html suites.html   # the same as charts on one offline page
"""

from __future__ import annotations

from pathlib import Path

import click

from tombench.cli import UserError
from tombench.commands._common import output_file
from tombench.kit.suites import suites as registered_suites


def _help() -> str:
    return f"Headline of every established ToM suite per model ({', '.join(s.name for s in registered_suites())})."


class _SuitesCommand(click.Command):
    """Its help names the suites registered when it is shown, not those registered when this module was imported."""

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self.help = _help()
        super().format_help_text(ctx, formatter)

    def get_short_help_str(self, limit: int = 45) -> str:
        self.help = _help()
        return super().get_short_help_str(limit)


@click.command("suites", cls=_SuitesCommand, help=_help())
@click.argument("logs", nargs=-1)
@click.option("--md", is_flag=True, help="Print Markdown instead of terminal tables.")
@click.option("--groups", is_flag=True, help="Also print each suite's own table (its headline groups).")
@click.option("--html", type=click.Path(dir_okay=False, path_type=Path), default=None, callback=output_file,
              help="Also write the tables as charts with their intervals, on one self-contained HTML page (offline).")
def suites(logs: tuple[str, ...], md: bool, groups: bool, html: Path | None) -> None:
    from rich.console import Console

    from tombench.commands._logs import progress, say
    from tombench.reports import load_suite_results, repeat_notes, suite_groups_tables, suites_page, suites_table

    if not logs:
        raise UserError("give one or more Inspect logs or log directories")
    try:
        results = load_suite_results(logs, on_skip=say, progress=progress)
    except FileNotFoundError as e:
        raise UserError(str(e)) from None
    if not results:
        first = [f"tombench/{s.task}" for s in registered_suites()[:2]]
        raise UserError(f"no finished suite logs there (run e.g. inspect eval {' or '.join(first)} first)")
    for note in repeat_notes(r.run for r in results if r.run is not None):
        say(note)
    tables = [suites_table(results), *(suite_groups_tables(results) if groups else [])]
    console = Console(width=max(Console().width, 120))
    for t in tables:
        if md:
            click.echo(t.markdown() + "\n")
        else:
            console.print(t.rich())
    if html is not None:
        try:
            html.write_text(suites_page(results, groups), encoding="utf-8")
        except OSError as e:
            raise UserError(f"cannot write {html}: {e.strerror or e}") from None
        click.echo(f"wrote {html}", err=True)
