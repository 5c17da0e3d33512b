"""What the commands that read many logs share: a progress bar while reading, and one line per file left out.

Both go to stderr, so `tombench report logs/ --md > report.md` writes only the report; the bar is shown only when
stderr is a terminal (no bar in CI logs or pipes), and is gone once reading is done.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["progress", "say"]


def _stderr() -> Any:
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def say(line: str) -> None:
    """One line on stderr (a skipped file, a note on repeats), printed as given (no markup)."""
    _stderr().print(line, markup=False, soft_wrap=True)


def progress(files: Sequence[Path], what: str) -> Iterable[Path]:
    """For `reports.load_*(progress=...)`: yields the files back while a rich bar counts them on stderr (only when
    stderr is a terminal and there is more than one file)."""
    console = _stderr()
    if not console.is_terminal or len(files) < 2:
        yield from files
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True) as bar:
        task = bar.add_task(f"reading {what}", total=len(files))
        for f in files:
            yield f
            bar.advance(task)
