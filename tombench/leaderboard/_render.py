"""Rows -> a ranked view in one of three formats: a rich table, Markdown, or a self-contained HTML page.

Every format is laid out from the same `build_view` (`_view.py`), so they show the same boards, ranks and numbers;
each format's module only arranges the cells.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from ._html import html_page
from ._markdown import markdown
from ._row import ResultRow
from ._terminal import terminal
from ._view import build_view


def render(rows: Iterable[ResultRow], fmt: Literal["terminal", "markdown", "html"], *, history: bool = False,
           dimensions: Sequence[str] | None = None, title: str = "tombench leaderboard", breakdowns: bool = True,
           skipped: Sequence[str] = ()):
    """The one renderer: a rich renderable (`terminal`), or the text of a Markdown or HTML page.

    `skipped`: one line per damaged row file left out (`RowSet.skipped`); the pages list them above the boards
    (the terminal leaves them to the command, which prints them on stderr).

    `breakdowns=False` leaves the breakdown columns out of the terminal table (`leaderboard show` does unless asked:
    they do not fit 120 columns); Markdown and HTML always have them."""
    view = build_view(rows, history=history, dimensions=dimensions, skipped=skipped)
    if fmt == "terminal":
        return terminal(view, title, breakdowns)
    if fmt == "markdown":
        return markdown(view, title)
    if fmt == "html":
        return html_page(view, title)
    raise ValueError(f"unknown format {fmt!r}: use terminal, markdown or html")
