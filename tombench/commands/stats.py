"""`tombench stats random`: the paper's random-story statistics (§5, App. B.4, Tables 7-9)."""

from __future__ import annotations

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from tombench.commands._common import checked_ints


@click.group()
def stats() -> None:
    """Statistics of story distributions."""




@stats.command("random")
@click.option("-n", "--stories", type=click.IntRange(1), default=1000, show_default=True, help="Random stories per people x moves cell.")
@click.option("--people", default="2,3,4", show_default=True, help="Comma-separated numbers of people.")
@click.option("--moves", default="2,3,4", show_default=True, help="Comma-separated numbers of important actions.")
@click.option("--max-sentences", type=click.IntRange(1, 15), default=10, show_default=True, help="Maximum story length (the paper used 10).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed; per-story seeds are derived from it.")
def random_(stories: int, people: str, moves: str, max_sentences: int, seed: int) -> None:
    """Share of random ToMi stories that need theory of mind, beside the paper's Tables 7-9."""
    from tombench.generators.random_stats import random_story_stats

    # the built-in default context has 7 people and 6 containers
    ps, ms = checked_ints(people, "people", 1, 7), checked_ints(moves, "moves", 1, min(6, max_sentences))
    console = Console()
    total = len(ps) * len(ms) * stories
    with Progress(
        TextColumn("[bold]random stories"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=console, transient=True,
    ) as progress:
        task = progress.add_task("stories", total=total)
        cells = random_story_stats(
            ps, ms, n=stories, max_sentences=max_sentences, seed=seed,
            on_story=lambda: progress.advance(task),
        )

    _print_tables(console, cells)
    console.print(
        f"{stories} stories per cell, tomi action set, 1 room, at most {max_sentences} sentences, seed {seed}; "
        "95% Wilson intervals over the cell's stories (Tables 8-9: those with order-1/2 questions). Tables 8-9 are the paper's probabilities of a random (story, "
        "question) pair: a story, then one of its order-1/2 questions (docs/search.md, 'Random-story statistics'). "
        "Expected: every cell within about ±0.05 of the paper (the original code re-run differs from it as much)."
    )


def _print_tables(console: Console, cells: list) -> None:
    """One table per paper table: our value with its interval, the paper's value beside it, and the difference."""
    from tombench.intervals import wilson_interval

    titles = (
        ("Table 7: share of stories that require ToM", "requires_tom", 0),
        ("Table 8: P(a random (story, order-1/2 question) pair is interesting)", "interesting", 1),
        ("Table 9: P(a random (story, order-1/2 question) pair is a false belief)", "false_belief", 2),
    )
    for title, attr, k in titles:
        table = Table(title=title, title_justify="left")
        for col in ("people", "moves", "tombench [95% CI]", "paper", "difference"):
            table.add_column(col, justify="right")
        diffs = []
        for c in cells:
            ours = getattr(c, attr)
            n = c.stories if attr == "requires_tom" else c.stories_with_questions
            lo, hi = wilson_interval(ours * n, n) if n else (0.0, 1.0)
            paper = c.paper
            diff = None if paper is None else ours - paper[k]
            if diff is not None:
                diffs.append(diff)
            table.add_row(str(c.people), str(c.moves), f"{ours:.3f} [{lo:.3f}, {hi:.3f}]",
                          "–" if paper is None else f"{paper[k]:.3f}", "–" if diff is None else f"{diff:+.3f}")
        console.print(table)
        if diffs:
            console.print(f"  difference from the paper: {min(diffs):+.3f} to {max(diffs):+.3f}, "
                          f"mean {sum(diffs) / len(diffs):+.3f}")
