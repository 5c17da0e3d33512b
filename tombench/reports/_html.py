"""The report as one self-contained HTML page: the paper's figures drawn with Plotly, the tables' numbers beneath.

Every number on the page comes from the `Grid` the text tables are printed from (`_tables`), so a bar, its error
bar and a heatmap cell equal the text report's cell by construction; each point's hover text is that cell's text
(`0.67 [0.21, 1.00] n=3`). The page needs no network: plotly.js is embedded once, in the head, and each figure is
a `<div>` with its data. Strings from logs (model names, task arguments, file names) are escaped wherever they
appear, in the HTML and in Plotly's labels (which read a subset of HTML).

One colour per run in every bar chart (its key's colour in the table of runs at the top); heatmaps use one
sequential scale from 0 to 1 so that their cells compare across runs.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from tombench.reports._load import Run, SampleRecord
from tombench.reports._tables import (
    Grid,
    ReportTable,
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

_CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 1200px; padding: 0 1em; color: #222; }
table { border-collapse: collapse; font-size: 0.9em; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; }
th:first-child, td:first-child, table.runs th, table.runs td { text-align: left; }
table.runs td:first-child { white-space: nowrap; }
.swatch { display: inline-block; width: 1em; height: 1em; border-radius: 2px; vertical-align: middle; }
details { margin-bottom: 2em; } p.what { color: #555; max-width: 60em; }
"""


def _e(text: object) -> str:
    """Text from a log, escaped for HTML and for Plotly's labels (which read `<b>`, `<br>`, `&lt;`)."""
    return html.escape(str(text), quote=True)


def _colours(keys: dict[Run, str]) -> dict[Run, str]:
    from plotly.colors import qualitative

    palette = qualitative.Plotly + qualitative.D3 + qualitative.Dark24
    return {run: palette[i % len(palette)] for i, run in enumerate(sorted(keys, key=lambda r: keys[r]))}


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


def _table_html(t: ReportTable) -> str:
    head = "".join(f"<th>{_e(c)}</th>" for c in t.columns)
    body = "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in row) + "</tr>" for row in t.rows)
    legend = "".join(f"<li>{_e(line)}</li>" for line in t.legend)
    return (f"<p><b>{_e(t.title)}</b></p><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
            + (f"<ul>{legend}</ul>" if legend else ""))


def _section(fig_id: str, title: str, what: str, fig: Any, tables: Sequence[ReportTable]) -> str:
    import plotly.io as pio

    div = pio.to_html(fig, full_html=False, include_plotlyjs=False, div_id=f"fig-{fig_id}",
                      config={"displaylogo": False, "responsive": True})
    numbers = "".join(_table_html(t) for t in tables)
    return (f'<section id="{fig_id}"><h2>{_e(title)}</h2><p class="what">{_e(what)}</p>{div}'
            f"<details><summary>The numbers (as <code>tombench report</code> prints them)</summary>{numbers}"
            "</details></section>")


def _runs_table(keys: dict[Run, str], colours: dict[Run, str]) -> str:
    rows = []
    for run in sorted(keys, key=lambda r: keys[r]):
        logs = run.logs or (run.log,)
        rows.append(f'<tr><td><span class="swatch" style="background:{colours[run]}"></span> {_e(keys[run])}</td>'
                    f"<td>{_e(run.model)}</td><td>{_e(run.task)}</td><td>{_e(run.tag)}</td><td>{_e(run.args)}</td>"
                    f"<td>{'<br>'.join(_e(log) for log in logs if log)}</td></tr>")
    return ('<table class="runs"><thead><tr><th>run</th><th>model</th><th>task</th><th>sets it apart</th>'
            "<th>-T arguments</th><th>log</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def _sections(recs: Sequence[SampleRecord], keys: dict[Run, str], colours: dict[Run, str],
              figures: Sequence[str]) -> list[str]:
    out = []
    if "people-moves" in figures and (pm := people_moves_grids(recs)):
        out.append(_section("people-moves", "Accuracy by people and moves (Figure 3)",
                            "First-order questions; each cell is the accuracy and its number of questions.",
                            _people_moves(pm, keys), by_people_and_moves(recs)))
    if "action-sets" in figures and (grid := action_set_grid(recs)).rows:
        out.append(_section("action-sets", "Accuracy per action set, plain and asymmetric (Table 1)",
                            "First-order questions; error bars are 95% intervals clustered by story.",
                            _bars(grid, keys, colours, ["plain", "asymmetric"], "action set"),
                            [per_action_set_table(recs)]))
    if "interesting" in figures and (grid := interesting_grid(recs)[0]).rows:
        out.append(_section("interesting", "Interesting vs uninteresting questions (Table 6)",
                            "First-order questions per action set and asymmetry; error bars are 95% intervals "
                            "clustered by story.",
                            _bars(grid, keys, colours, ["interesting", "uninteresting"], "action set"),
                            [interesting_table(recs)]))
    if "order" in figures and (grid := order_grid(recs)).rows:
        out.append(_section("order", "Accuracy by ToM order",
                            "Every ExploreToM question: 0 = where things are, 1 = first-order belief, 2 = second-"
                            "order; error bars are 95% intervals clustered by story.",
                            _bars(grid, keys, colours, ["all questions"], "ToM order"), [by_order_table(recs)]))
    if "transfer" in figures and (grid := transfer_grid(recs)).rows:
        out.append(_section("transfer", "Transfer: stories found against one model, answered by another (Table 2)",
                            "Belief questions (orders 1-2) of the stories each search found.",
                            _transfer(grid, keys), [transfer_matrix(recs)]))
    return out


def report_page(recs: Sequence[SampleRecord], figures: Sequence[str] = FIGURES, title: str = "tombench report") -> str:
    """The page of the `figures` (names from `FIGURES`) that the records have data for; the runs at the top."""
    from plotly.offline import get_plotlyjs

    keys = run_keys(recs)
    colours = _colours(keys)
    sections = "".join(_sections(recs, keys, colours, figures))
    return (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>'
            f"<style>{_CSS}</style><script>{get_plotlyjs()}</script></head><body>"
            f"<h1>{_e(title)}</h1><h2>Runs</h2><p class=\"what\">One colour per run in every chart; a run is one log "
            "(or the shard logs of one run): runs are never pooled.</p>"
            f"{_runs_table(keys, colours)}{sections}</body></html>\n")
