"""The terminal format: a board as a rich table that fits `TERMINAL_WIDTH` columns, one line a row.

Every string reaches rich as a `Text`, never as markup: a model name like `org/[/]bad[bold]x` is printed as typed
(a markup string would crash rich or lose its `[...]` parts)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._cells import Column
from ._text import inert
from ._view import Board, View, board_legend

#: The terminal's columns (a 120-column terminal holds them); the rest is in the Markdown and HTML views.
_TERMINAL_KEYS = ("rank", "model", "accuracy", "ci", "vs_next", "n", "filled", "config")
#: Columns that may be cut short to fit the terminal (narrowest, widest; longer text ends in an ellipsis), in the
#: order they get the room left; the others always show their whole text. Every row stays one line tall.
_TERMINAL_FLEX = {"model": (16, 34), "n": (7, 19), "filled": (8, 24), "config": (8, 40)}
#: The width the terminal table is laid out for (`leaderboard show` prints to at least this many columns).
TERMINAL_WIDTH = 120
_TERMINAL_TITLES = {"accuracy": "Acc %", "n": "Samples", "filled": "Filled %"}


def terminal(view: View, title: str, breakdowns: bool):
    """A rich renderable: one table per board (and its breakdowns when asked), each followed by its legend."""
    from rich.console import Group
    from rich.text import Text

    if not view.boards:
        return Text("no results yet")
    return Group(*(_terminal_table(b, title, breakdowns) for b in view.boards))


def _terminal_table(b: Board, title: str, breakdowns: bool):
    """One board as a rich table that fits a 120-column terminal, one line per row: the ranking columns, the config
    column only where settings differ; then (with `breakdowns`) a second table, one column per breakdown dimension,
    one group a line. The legend follows."""
    from rich import box
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    t = Table(title=Text(f"{title}: {b.task} v{b.task_version}", style="table.title"), box=box.SIMPLE_HEAD,
              title_justify="left", pad_edge=False)
    cols = [c for c in b.columns if c.key in _TERMINAL_KEYS and (c.key != "config" or _config_differs(b))]
    for c, width in zip(cols, _terminal_widths(b, cols), strict=True):
        t.add_column(Text(_TERMINAL_TITLES.get(c.key, c.title)), justify="right" if c.kind == "num" else "left",
                     no_wrap=True, overflow="ellipsis", width=width)
    for e in b.entries:
        t.add_row(*(Text(e.cells[c.key].text) for c in cols))
    parts: list[Any] = [t]
    if breakdowns and any(c.breakdown for c in b.columns):
        parts.append(_terminal_breakdowns(b))
    parts += [Text("\n".join(board_legend(b)), style="dim"), Text("")]
    return Group(*parts)


def _terminal_widths(b: Board, cols: Sequence[Column], total: int = TERMINAL_WIDTH) -> list[int]:
    """Column widths that fit `total` characters: fixed columns get their widest text, then the flexible ones
    (`_TERMINAL_FLEX`, in order) share what is left, each at least its narrowest."""
    widest = {c.key: max([len(_TERMINAL_TITLES.get(c.key, c.title))] + [len(e.cells[c.key].text) for e in b.entries])
              for c in cols}
    room = total - 3 * len(cols) - 1 - sum(w for k, w in widest.items() if k not in _TERMINAL_FLEX)  # padding, rules
    flex = [k for k in _TERMINAL_FLEX if k in widest]
    room -= sum(min(_TERMINAL_FLEX[k][0], widest[k]) for k in flex)
    widths = dict(widest)
    for k in flex:
        low, high = _TERMINAL_FLEX[k]
        base = min(low, widest[k])
        widths[k] = base + max(0, min(min(high, widest[k]) - base, room))
        room -= widths[k] - base
    return [widths[c.key] for c in cols]


def _terminal_breakdowns(b: Board):
    """The breakdowns of a board: one column per dimension, each group of it on its own line."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    dims: dict[str, list[Column]] = {}
    for c in b.columns:
        if c.breakdown:
            dims.setdefault(c.key.split("=", 1)[0], []).append(c)
    t = Table(title="breakdowns: value [95% CI] n", box=box.SIMPLE_HEAD, show_lines=True, title_justify="left",
              pad_edge=False)
    t.add_column("Rank", justify="right", no_wrap=True)
    t.add_column("Model", no_wrap=True, overflow="ellipsis", max_width=_TERMINAL_FLEX["model"][1])
    for dim in dims:
        t.add_column(Text(inert(dim)), justify="right", style="cyan", overflow="fold")
    for e in b.entries:
        t.add_row(Text(e.cells["rank"].text), Text(e.cells["model"].text),
                  *(Text("\n".join(f"{inert(c.key.split('=', 1)[1])}: {e.cells[c.key].text}" for c in cols))
                    for cols in dims.values()))
    return t


def _config_differs(b: Board) -> bool:
    """Whether the board's rows differ in a setting (otherwise the config column says the same on every row)."""
    return len({e.cells["config"].text for e in b.entries}) > 1
