"""The report as one self-contained HTML page: the paper's figures drawn with Plotly, the tables' numbers beneath.

Every number on the page comes from the `Grid` the text tables are printed from (`_tables`), so a bar, its error
bar and a heatmap cell equal the text report's cell by construction; each point's hover text is that cell's text
(`0.67 [0.21, 1.00] n=3`). The page itself (offline, plotly.js embedded once, every string from a log escaped) is
`_page`'s.

One colour per run in every bar chart (its key's colour in the table of runs at the top); heatmaps use one
sequential scale from 0 to 1 so that their cells compare across runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tombench.reports._load import Run, SampleRecord
from tombench.reports._page import escape as _e
from tombench.reports._page import page, palette, section, swatch
from tombench.reports._tables import (
    Grid,
    action_set_grid,
    by_order_table,
    by_people_and_moves,
    interesting_grid,
    interesting_table,
    order_grid,
    people_moves_grids,
    per_action_set_table,
    run_keys,
    transfer_grid,
    transfer_matrix,
)

__all__ = ["FIGURES", "report_page"]

#: The figures a page can hold, in page order (`report_page(..., figures=...)`).
FIGURES = ("people-moves", "action-sets", "interesting", "order", "transfer")

def _colours(keys: dict[Run, str]) -> dict[Run, str]:
    ordered = sorted(keys, key=lambda r: keys[r])
    return dict(zip(ordered, palette(len(ordered)), strict=True))


def _name(run: Run, keys: dict[Run, str]) -> str:
    label = run.label if len(run.label) <= 70 else run.label[:69] + "…"
    return _e(f"{keys[run]}: {label}")


def _row_label(row: tuple[str, ...]) -> str:
    """A row's label on an axis: Table 6's (action set, ✓/✗) as `tomi +asym.`, others as they are."""
    if len(row) == 2 and row[1] in ("✓", "✗"):
        return row[0] + (" +asym." if row[1] == "✓" else "")
    return row[0]


def _bars(grid: Grid, keys: dict[Run, str], colours: dict[Run, str], titles: Sequence[str], xtitle: str) -> Any:
    """A bar per run and row with its 95% interval as an error bar, one stacked panel per grid panel.

    Each trace's `meta` is its column's header in the text table ("A plain") and each point's `customdata` its row's
    label cells and the cell's text, so a reader of the page (or a test) can find every bar's number in the table."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=len(grid.panels), cols=1, shared_xaxes=True, vertical_spacing=0.12,
                        subplot_titles=[_e(t) for t in titles])
    x = [_e(_row_label(row)) for row in grid.rows]
    for i, panel in enumerate(grid.panels, start=1):
        for run in grid.runs:
            cells = [grid.get(row, panel, run) for row in grid.rows]
            fig.add_trace(go.Bar(
                x=x, y=[c.mean if c else None for c in cells], name=_name(run, keys), legendgroup=keys[run],
                showlegend=i == 1, marker_color=colours[run], meta=f"{keys[run]} {panel}".strip(),
                error_y={"type": "data", "symmetric": False, "array": [c.high - c.mean if c else None for c in cells],
                         "arrayminus": [c.mean - c.low if c else None for c in cells]},
                customdata=[[" | ".join(row), c.text() if c else "–"] for row, c in zip(grid.rows, cells, strict=True)],
                hovertemplate="%{x}: %{customdata[1]}<extra>%{fullData.name}</extra>"), row=i, col=1)
        fig.update_yaxes(title_text="accuracy", range=[0, 1.05], row=i, col=1)
    fig.update_xaxes(title_text=_e(xtitle), row=len(grid.panels), col=1)
    fig.update_layout(barmode="group", height=300 * len(grid.panels) + 140, margin={"t": 90},
                      legend={"orientation": "h", "yanchor": "bottom", "y": 1.06, "x": 0})
    return fig


def _heatmap_trace(grid: Grid, panels: Sequence[str], run: Run | None, **kw: Any) -> Any:
    """A heatmap of a grid: rows down, panels (or runs, when `run` is None) across, each cell's value, n and (on
    hover, and in `customdata`) its text table cell in it; `meta` (given by the caller) names its table."""
    import plotly.graph_objects as go

    cols = [(p, run) for p in panels] if run is not None else [("", r) for r in grid.runs]
    cells = [[grid.get(row, p, r) for p, r in cols] for row in grid.rows]
    return go.Heatmap(
        z=[[c.mean if c else None for c in line] for line in cells], zmin=0, zmax=1, colorscale="Viridis",
        y=[_e(row[0]) for row in grid.rows],
        text=[[f"{c.mean:.2f}<br>n={c.n}" if c else "" for c in line] for line in cells], texttemplate="%{text}",
        customdata=[[c.text() if c else "no questions" for c in line] for line in cells],
        hovertemplate="%{y}, %{x}: %{customdata}<extra></extra>", **kw)


def _people_moves(grids: list[Grid], keys: dict[Run, str]) -> Any:
    """Figure 3 as a grid of heatmaps: people down, moves across, one panel per run."""
    from plotly.subplots import make_subplots

    cols = min(len(grids), 3)
    rows = -(-len(grids) // cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[_name(g.runs[0], keys) for g in grids],
                        horizontal_spacing=0.08, vertical_spacing=0.25 / rows)
    for i, grid in enumerate(grids):
        fig.add_trace(_heatmap_trace(grid, grid.panels, grid.runs[0], x=[_e(p) for p in grid.panels],
                                     showscale=i == 0, colorbar={"title": {"text": "accuracy"}},
                                     meta=keys[grid.runs[0]]),
                      row=i // cols + 1, col=i % cols + 1)
        fig.update_xaxes(title_text="moves", type="category", row=i // cols + 1, col=i % cols + 1)
        fig.update_yaxes(title_text="people", type="category", row=i // cols + 1, col=i % cols + 1)
    fig.update_annotations(font_size=11)
    fig.update_layout(height=300 * rows + 60, margin={"t": 50})
    return fig


def _transfer(grid: Grid, keys: dict[Run, str]) -> Any:
    """Table 2 as a heatmap: the stories' generator and search method down, the run that answered across."""
    import plotly.graph_objects as go

    fig = go.Figure(_heatmap_trace(grid, [""], None, x=[_name(r, keys) for r in grid.runs],
                                   colorbar={"title": {"text": "accuracy"}}, meta=[keys[r] for r in grid.runs]))
    fig.update_xaxes(title_text="answered by", type="category")
    fig.update_yaxes(title_text="stories found against / search method", type="category", autorange="reversed")
    fig.update_layout(height=max(300, 60 * len(grid.rows) + 200))
    return fig


def _runs_table(keys: dict[Run, str], colours: dict[Run, str]) -> str:
    """Each run's key and colour, model, task, what sets it apart, its -T arguments and its logs."""
    rows = []
    for run in sorted(keys, key=lambda r: keys[r]):
        logs = run.logs or (run.log,)
        rows.append(f"<tr><td>{swatch(colours[run])} {_e(keys[run])}</td><td>{_e(run.model)}</td>"
                    f"<td>{_e(run.task)}</td><td>{_e(run.tag)}</td><td>{_e(run.args)}</td><td>{'<br>'.join(_e(log) for log in logs if log)}</td></tr>")
    return ('<table class="runs"><thead><tr><th>run</th><th>model</th><th>task</th><th>sets it apart</th>'
            "<th>-T arguments</th><th>log</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def _sections(recs: Sequence[SampleRecord], keys: dict[Run, str], colours: dict[Run, str],
              figures: Sequence[str]) -> list[str]:
    out = []
    if "people-moves" in figures and (pm := people_moves_grids(recs)):
        out.append(section("people-moves", "Accuracy by people and moves (Figure 3)",
                            "First-order questions; each cell is the accuracy and its number of questions.",
                            _people_moves(pm, keys), by_people_and_moves(recs)))
    if "action-sets" in figures and (grid := action_set_grid(recs)).rows:
        out.append(section("action-sets", "Accuracy per action set, plain and asymmetric (Table 1)",
                            "First-order questions; error bars are 95% intervals clustered by story.",
                            _bars(grid, keys, colours, ["plain", "asymmetric"], "action set"),
                            [per_action_set_table(recs)]))
    if "interesting" in figures and (grid := interesting_grid(recs)[0]).rows:
        out.append(section("interesting", "Interesting vs uninteresting questions (Table 6)",
                            "First-order questions per action set and asymmetry; error bars are 95% intervals "
                            "clustered by story.",
                            _bars(grid, keys, colours, ["interesting", "uninteresting"], "action set"),
                            [interesting_table(recs)]))
    if "order" in figures and (grid := order_grid(recs)).rows:
        out.append(section("order", "Accuracy by ToM order",
                            "Every ExploreToM question: 0 = where things are, 1 = first-order belief, 2 = second-"
                            "order; error bars are 95% intervals clustered by story.",
                            _bars(grid, keys, colours, ["all questions"], "ToM order"), [by_order_table(recs)]))
    if "transfer" in figures and (grid := transfer_grid(recs)).rows:
        out.append(section("transfer", "Transfer: stories found against one model, answered by another (Table 2)",
                            "Belief questions (orders 1-2) of the stories each search found.",
                            _transfer(grid, keys), [transfer_matrix(recs)]))
    return out


def report_page(recs: Sequence[SampleRecord], figures: Sequence[str] = FIGURES, title: str = "tombench report") -> str:
    """The page of the `figures` (names from `FIGURES`) that the records have data for; the runs at the top."""
    keys = run_keys(recs)
    run_colours = _colours(keys)
    return page(title, "One colour per run in every chart; a run is one log (or the shard logs of one run): runs are "
                "never pooled.", _runs_table(keys, run_colours), _sections(recs, keys, run_colours, figures))
