"""The HTML format: one self-contained page (no fetches) with every board as a sortable, filterable table and its
chart (`charts.py`: Plotly, its library inlined once).

The page's style and script are package data (`static/board.css`, `static/board.js`) inlined into the page. The
script sorts and filters with no dependencies: rows carry `data-open` / `data-size`, cells `data-sort`, and each
table `data-pairs`, every pair's "vs" cell, so that "vs next" follows the rows after a re-sort or a filter.
"""

from __future__ import annotations

import html
import json
from importlib import resources

from ._view import Board, View, board_legend
from .charts import chart_html, plotly_js


def static_text(name: str) -> str:
    """A file of the page's `static/` folder (`board.css`, `board.js`)."""
    return (resources.files(__package__) / "static" / name).read_text(encoding="utf-8")


def _attr(x: object) -> str:
    return html.escape("" if x is None else str(x), quote=True)


def _pairs_json(b: Board) -> str:
    """Every pair's "vs" cell, for the page's script: {"i": {"j": [text, tooltip, sort value]}}."""
    out: dict[str, dict[str, list]] = {}
    for (i, j), cell in b.pairs.items():
        out.setdefault(str(i), {})[str(j)] = [cell.text, cell.title, cell.sort]
    return json.dumps(out, ensure_ascii=False, separators=(",", ":"))


def _html_board(i: int, b: Board) -> list[str]:
    """One board: heading, the table in its own scrolling box (wide boards scroll there, the page does not), and
    the legend below it as wrapping text."""
    parts = [f'<section><h2>{_attr(b.task)} <small>v{_attr(b.task_version)}</small></h2>',
             f'<div class="scroll"><table class="board" id="board-{i}" data-pairs="{_attr(_pairs_json(b))}">'
             "<thead><tr>"]
    for c in b.columns:
        cls = ' class="breakdown"' if c.breakdown else ""
        parts.append(f'<th data-key="{_attr(c.key)}" data-kind="{c.kind}"{cls}>{_attr(c.title)}</th>')
    parts.append("</tr></thead><tbody>")
    for idx, e in enumerate(b.entries):
        r = e.row
        size = e.cells["size"].sort
        parts.append(f'<tr data-idx="{idx}" data-model="{_attr(r.model.lower())}" '
                     f'data-open="{_attr(e.cells["open_weights"].text)}" data-size="{_attr(size)}">')
        for c in b.columns:
            cell = e.cells[c.key]
            cls = ' class="num"' if c.kind == "num" else ' class="model"' if c.key == "model" else ""
            tip = f' title="{_attr(cell.title)}"' if cell.title else ""
            parts.append(f'<td{cls} data-sort="{_attr(cell.sort)}"{tip}>{_attr(cell.text)}</td>')
        parts.append("</tr>")
    parts.append("</tbody></table></div>")
    parts.append(f'<div class="charts">{chart_html(b, f"chart-{i}")}</div>')
    parts.append('<ul class="legend">')
    parts += [f"<li>{_attr(line)}</li>" for line in board_legend(b)]
    parts.append("</ul></section>")
    return parts


def html_page(view: View, title: str) -> str:
    """The page: title, the filters, then every board (or a line saying there are none), then the script."""
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_attr(title)}</title><style>\n{static_text('board.css')}</style></head><body>",
        f"<h1>{_attr(title)}</h1>",
        '<div class="filters">'
        '<label><input type="checkbox" id="f-open"> open weights only</label>'
        '<label>max size (B params) <input type="number" id="f-size" min="0" step="any" style="width:6em"></label>'
        '<label>model <input type="search" id="f-text" placeholder="filter"></label></div>',
    ]
    if view.skipped:  # damaged row files: named (escaped: a file name from the Hub is user data), one line each
        parts.append('<ul class="skipped">' + "".join(f"<li>{_attr(line)}</li>" for line in view.skipped) + "</ul>")
    if not view.boards:
        parts.append("<p>No results yet.</p>")
    else:  # the charts' library, once, inline: the page draws offline
        parts.append(f"<script>{plotly_js()}</script>")
    for i, b in enumerate(view.boards):
        parts += _html_board(i, b)
    parts.append(f"<script>\n{static_text('board.js')}</script></body></html>")
    return "\n".join(parts)
