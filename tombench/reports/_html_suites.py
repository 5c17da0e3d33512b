"""`tombench report suites --html`: the cross-suite table and each suite's groups as bar charts on one page.

A bar per row of the text table (a model, or one of its runs when it has several of a suite) and suite, its 95%
interval as an error bar and the suite's chance level as a black tick; with `groups`, a chart per suite of its own
groups (Hi-ToM's orders, ToMi's question types, ...). Values are drawn as fractions (0-1) on one axis; each bar's
hover text is the text table's cell (accuracy in percent, macro-F1 as a fraction), read from the same
`SuiteResult`, so the two agree by construction.
"""

from __future__ import annotations

from typing import Any

from tombench.reports._page import escape as _e
from tombench.reports._page import page, palette, section, swatch
from tombench.reports._suites import (
    SuiteResult,
    chance_levels,
    group_text,
    headline_text,
    suite_columns,
    suite_groups_tables,
    suites_table,
)

__all__ = ["suites_page"]


def _headline_bars(results: list[SuiteResult], colours: dict[str, str]) -> Any:
    """The cross-suite table as bars: suites across, a bar per row label; `meta` is the row label, each point's
    `customdata` its column title and cell text."""
    import plotly.graph_objects as go

    cols = suite_columns(results)
    by = {(r.row, r.suite): r for r in results}
    fig = go.Figure()
    for label, colour in colours.items():
        cells = [by.get((label, s)) for s, _ in cols]
        fig.add_trace(go.Bar(
            x=[_e(title) for _, title in cols], y=[r.value if r else None for r in cells], name=_e(label),
            marker_color=colour, meta=label,
            error_y={"type": "data", "symmetric": False, "array": [r.ci_high - r.value if r else None for r in cells],
                     "arrayminus": [r.value - r.ci_low if r else None for r in cells]},
            customdata=[[title, headline_text(r) if r else "–"] for (_, title), r in zip(cols, cells, strict=True)],
            hovertemplate="%{x}: %{customdata[1]}<extra>%{fullData.name}</extra>"))
    chance = chance_levels(results)
    if chance:
        titles = dict(cols)
        fig.add_trace(go.Scatter(x=[_e(titles[s]) for s in chance], y=list(chance.values()), mode="markers",
                                 name="chance", marker={"symbol": "line-ew-open", "size": 40, "color": "black",
                                                        "line": {"width": 2}},
                                 hovertemplate="chance %{y:.3f}<extra></extra>"))
    fig.update_yaxes(title_text="headline (0-1)", range=[0, 1.05])
    fig.update_layout(barmode="group", height=480, legend={"orientation": "h", "yanchor": "bottom", "y": 1.04, "x": 0})
    return fig


def _group_bars(suite: str, results: list[SuiteResult], colours: dict[str, str]) -> Any:
    """One suite's groups as bars: groups across (`dimension=group`, the columns of its text table), a bar per row."""
    import plotly.graph_objects as go

    rs = [r for r in results if r.suite == suite and r.groups]
    keys = sorted({(g.dimension, g.group) for r in rs for g in r.groups})
    fig = go.Figure()
    for r in rs:
        cells = {(g.dimension, g.group): g for g in r.groups}
        gs = [cells.get(k) for k in keys]
        fig.add_trace(go.Bar(
            x=[_e(f"{d}={g}") for d, g in keys], y=[g.value if g else None for g in gs], name=_e(r.row),
            marker_color=colours[r.row], meta=r.row,
            error_y={"type": "data", "symmetric": False, "array": [g.ci_high - g.value if g else None for g in gs],
                     "arrayminus": [g.value - g.ci_low if g else None for g in gs]},
            customdata=[[f"{d}={g}", group_text(c)] for (d, g), c in zip(keys, gs, strict=True)],
            hovertemplate="%{x}: %{customdata[1]}<extra>%{fullData.name}</extra>"))
    fig.update_yaxes(title_text="accuracy", range=[0, 1.05])
    fig.update_layout(barmode="group", height=420, legend={"orientation": "h", "yanchor": "bottom", "y": 1.04, "x": 0})
    return fig


def _runs_table(results: list[SuiteResult], colours: dict[str, str]) -> str:
    rows = [f"<tr><td>{swatch(colours[r.row])} {_e(r.row)}</td><td>{_e(r.model)}</td><td>{_e(r.suite)}</td>"
            f"<td>{_e(r.run.args if r.run else '')}</td><td>{_e(r.log)}</td></tr>"
            for r in sorted(results, key=lambda r: (r.row, r.suite))]
    return ('<table class="runs"><thead><tr><th>row</th><th>model</th><th>suite</th><th>-T arguments</th>'
            "<th>log</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def suites_page(results: list[SuiteResult], groups: bool = False, title: str = "tombench report: ToM suites") -> str:
    """The cross-suite chart (and, with `groups`, one chart per suite of its groups) with their tables beneath."""
    labels = sorted({r.row for r in results})
    colours = dict(zip(labels, palette(len(labels)), strict=True))
    sections = [section("suites", "Headline per suite (ExploreToM Table 3 shape)",
                        "Each suite's headline metric with its 95% interval; black ticks are chance levels.",
                        _headline_bars(results, colours), [suites_table(results)])]
    if groups:  # suite_groups_tables: a table per suite that has groups, in the columns' order
        with_groups = [s for s, _ in suite_columns(results) if any(r.suite == s and r.groups for r in results)]
        for suite, table in zip(with_groups, suite_groups_tables(results), strict=True):
            sections.append(section(f"groups-{suite}", table.title, "Accuracy per group with its 95% Wilson interval.",
                                    _group_bars(suite, results, colours), [table]))
    return page(title, "One colour per row of the table (a model, or one of its runs when it has several of a "
                "suite); runs are never pooled.", _runs_table(results, colours), sections)
