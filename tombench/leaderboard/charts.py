"""The board drawn: each row's accuracy with its 95% interval, for the headline and per breakdown (Plotly).

Built from the same `Board` the tables are laid out from (`_view.build_view`), so a chart cannot show another
number than its table: a bar is the row's value, its error bar the interval the table prints (asymmetric, as Wilson
intervals are), and its hover text the table's own cell. One figure per board: the headline on top, then one panel
per breakdown dimension (action set, interesting, order, ...; the board's breakdown columns, so `--dimension`
applies), one colour per row across the panels and one legend entry per row (clicking it hides the row
everywhere).

`board_figure` is the figure as Plotly's JSON (a plain dict: no validation, cheap enough for every push);
`chart_html` puts it in the HTML page (which embeds `plotly_js` once: the page stays self-contained offline) and
`plotly_figure` makes the object the Space's `gr.Plot` draws.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from ._ranking import interval_of
from ._text import clip
from ._view import Board

#: One colour per row, in board order (Plotly's and D3's qualitative palettes; repeated past 20 rows).
PALETTE = ("#636EFA", "#EF553B", "#00CC96", "#AB63FA", "#FFA15A", "#19D3F3", "#FF6692", "#B6E880", "#FF97FF",
           "#FECB52", "#1F77B4", "#FF7F0E", "#2CA02C", "#D62728", "#9467BD", "#8C564B", "#E377C2", "#7F7F7F",
           "#BCBD22", "#17BECF")
#: Characters of a row's label on an axis or in the legend (the hover text has the whole name).
LABEL_CHARS = 40
#: Pixels: one panel's height, and the room for the legend and the panel titles.
PANEL_PX, FRAME_PX = 280, 120
#: Share of the figure's height between two panels.
PANEL_GAP = 0.1


@dataclass(frozen=True)
class Point:
    """One bar: the category it stands in, value and interval in percent (None: no interval), the table's text."""

    category: str
    value: float
    low: float | None
    high: float | None
    text: str


@dataclass(frozen=True)
class Series:
    """One row of the board (its index in `Board.entries`) across a panel's categories."""

    entry: int
    label: str
    points: list[Point]


@dataclass(frozen=True)
class Panel:
    """The headline (`key` "headline": one category per row) or one breakdown dimension (one category per group)."""

    key: str
    title: str
    series: list[Series]


def _pct(x: float | None) -> float | None:
    return None if x is None else 100 * x


def row_labels(b: Board) -> list[str]:
    """Each row's name in the charts: the model, with its place on the board where the board has it twice."""
    models = [e.row.model for e in b.entries]
    return [m if models.count(m) == 1 else f"{m} (row {i + 1})" for i, m in enumerate(models)]


def _headline(b: Board, labels: list[str]) -> Panel:
    series = []
    for i, (e, label) in enumerate(zip(b.entries, labels, strict=True)):
        low, high, _ = interval_of(e.shown)
        text = f"{e.cells['accuracy'].text} [{e.cells['ci'].text}]"
        series.append(Series(i, label, [Point(label, 100 * e.row.accuracy, _pct(low), _pct(high), text)]))
    metric = b.entries[0].row.metric if b.entries else ""
    return Panel("headline", f"{b.task} v{b.task_version}: {metric} (95% CI)", series)


def _dimension(b: Board, labels: list[str], dimension: str, keys: list[str]) -> Panel:
    """One dimension's groups (the board's columns of it, in their order), a bar per row that reports the group."""
    series = []
    for i, (e, label) in enumerate(zip(b.entries, labels, strict=True)):
        found = {f"{x.dimension}={x.group}": x for x in e.row.breakdowns}
        points = [Point(key.split("=", 1)[1], 100 * found[key].value, _pct(found[key].ci_low),
                        _pct(found[key].ci_high), e.cells[key].text) for key in keys if key in found]
        series.append(Series(i, label, points))
    return Panel(dimension, f"by {dimension.replace('_', ' ')}", series)


def panels(b: Board) -> list[Panel]:
    """The headline panel, then one panel per breakdown dimension of the board (in its columns' order)."""
    labels = row_labels(b)
    dims: dict[str, list[str]] = {}
    for c in b.columns:
        if c.breakdown:
            dims.setdefault(c.key.split("=", 1)[0], []).append(c.key)
    return [_headline(b, labels), *(_dimension(b, labels, d, keys) for d, keys in dims.items())]


def _shown(text: str, width: int | None = None) -> str:
    """Text for Plotly, which reads a few HTML tags in labels: escaped, so a name is drawn as typed."""
    return html.escape(clip(text, width) if width else text, quote=False)


def _trace(panel: Panel, s: Series, axis: str, first: bool) -> dict[str, Any]:
    pts = s.points
    return {
        "type": "bar", "name": _shown(s.label, LABEL_CHARS), "legendgroup": f"row-{s.entry}", "showlegend": first,
        "x": [_shown(p.category, LABEL_CHARS) for p in pts], "y": [p.value for p in pts],
        "error_y": {"type": "data", "symmetric": False, "visible": True, "color": "#333", "thickness": 1.2,
                    "array": [None if p.high is None else p.high - p.value for p in pts],
                    "arrayminus": [None if p.low is None else p.value - p.low for p in pts]},
        "marker": {"color": PALETTE[s.entry % len(PALETTE)]},
        "hovertext": [_shown(f"{s.label}: {p.text}") for p in pts], "hoverinfo": "text",
        "customdata": [p.text for p in pts], "meta": {"entry": s.entry, "panel": panel.key},
        "xaxis": "x" + axis, "yaxis": "y" + axis,
        # the headline has one bar per category: one offset group keeps each bar centred and full width
        **({"offsetgroup": "headline"} if panel.key == "headline" else {}),
    }


def board_figure(b: Board) -> dict[str, Any]:
    """The board's figure as Plotly JSON: the panels stacked, each with its own axes on a 0-100% scale."""
    ps = panels(b)
    n = len(ps)
    height = (1 - PANEL_GAP * (n - 1)) / n
    data, layout = [], {
        "barmode": "group", "bargap": 0.3, "bargroupgap": 0.05, "height": FRAME_PX + PANEL_PX * n, "margin": {"t": 70, "b": 40, "l": 60, "r": 20},
        "legend": {"orientation": "h", "yanchor": "bottom", "y": 1.0 + 40 / (FRAME_PX + PANEL_PX * n)},
        "plot_bgcolor": "#fff", "font": {"size": 12}, "annotations": [],
        "hoverlabel": {"align": "left"},
    }
    for k, panel in enumerate(ps):
        axis = "" if k == 0 else str(k + 1)
        top = 1 - k * (height + PANEL_GAP)
        layout[f"xaxis{axis}"] = {"anchor": "y" + axis, "domain": [0, 1], "type": "category", "automargin": True}
        layout[f"yaxis{axis}"] = {"anchor": "x" + axis, "domain": [max(0.0, top - height), top], "range": [0, 100],
                                  "title": {"text": "%"}, "gridcolor": "#e5e5e5", "zeroline": True}
        layout["annotations"].append({"text": f"<b>{_shown(panel.title)}</b>", "xref": "paper", "yref": "paper",
                                      "x": 0, "y": top, "xanchor": "left", "yanchor": "bottom",
                                      "showarrow": False})
        data += [_trace(panel, s, axis, k == 0) for s in panel.series if s.points]
    return {"data": data, "layout": layout}


def plotly_js() -> str:
    """The plotly.js library the installed Plotly ships (embedded once per page: no CDN, works offline)."""
    from plotly.offline import get_plotlyjs

    return get_plotlyjs()


def chart_html(b: Board, div_id: str) -> str:
    """The board's figure as an HTML fragment (a div and the script that draws it with the page's plotly.js)."""
    import plotly.io as pio

    return pio.to_html(board_figure(b), full_html=False, include_plotlyjs=False, div_id=div_id, validate=False,
                       config={"displaylogo": False, "responsive": True})


def plotly_figure(b: Board) -> Any:
    """The board's figure as a `plotly.graph_objects.Figure` (what gradio's `gr.Plot` draws)."""
    import plotly.graph_objects as go

    return go.Figure(board_figure(b))

