"""One self-contained HTML page of Plotly figures: what every report page shares.

The page needs no network: plotly.js is embedded once, in the head, and each figure is a `<div>` with its data.
Strings from logs (model names, task arguments, file names) are escaped wherever they appear, in the HTML and in
Plotly's labels (which read a subset of HTML: `<b>`, `<br>`, and entities such as `&lt;`). Each figure is followed
by the tables its numbers come from, as the text report prints them.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from tombench.reports._tables import ReportTable

__all__ = ["escape", "page", "palette", "section", "swatch", "table_html"]

_CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 1200px; padding: 0 1em; color: #222; }
table { border-collapse: collapse; font-size: 0.9em; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; }
th:first-child, td:first-child, table.runs th, table.runs td { text-align: left; }
table.runs td:first-child { white-space: nowrap; }
.swatch { display: inline-block; width: 1em; height: 1em; border-radius: 2px; vertical-align: middle; }
details { margin-bottom: 2em; } p.what { color: #555; max-width: 60em; }
"""


def escape(text: object) -> str:
    """Text from a log, escaped for HTML and for Plotly's labels (which show `&lt;b&gt;` as `<b>`, not bold)."""
    return html.escape(str(text), quote=True)


def palette(n: int) -> list[str]:
    """`n` distinct colours, one per run (Plotly's qualitative scales, repeated past 44 runs)."""
    from plotly.colors import qualitative

    colours = qualitative.Plotly + qualitative.D3 + qualitative.Dark24
    return [colours[i % len(colours)] for i in range(n)]


def swatch(colour: str) -> str:
    return f'<span class="swatch" style="background:{escape(colour)}"></span>'


def table_html(t: ReportTable) -> str:
    """A report table as HTML: its title, header, rows and legend, every string escaped."""
    head = "".join(f"<th>{escape(c)}</th>" for c in t.columns)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in t.rows)
    legend = "".join(f"<li>{escape(line)}</li>" for line in t.legend)
    return (f"<p><b>{escape(t.title)}</b></p><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
            + (f"<ul>{legend}</ul>" if legend else ""))


def section(fig_id: str, title: str, what: str, fig: Any, tables: Sequence[ReportTable]) -> str:
    """A figure (its `<div>` is `fig-{fig_id}`) under a heading and a line on what it counts, its tables beneath."""
    import plotly.io as pio

    div = pio.to_html(fig, full_html=False, include_plotlyjs=False, div_id=f"fig-{fig_id}",
                      config={"displaylogo": False, "responsive": True})
    numbers = "".join(table_html(t) for t in tables)
    return (f'<section id="{escape(fig_id)}"><h2>{escape(title)}</h2><p class="what">{escape(what)}</p>{div}'
            f"<details><summary>The numbers (as <code>tombench report</code> prints them)</summary>{numbers}"
            "</details></section>")


def page(title: str, intro: str, runs: str, sections: Sequence[str]) -> str:
    """The whole page: plotly.js once in the head, then the runs (`runs`: HTML, already escaped) and the sections."""
    from plotly.offline import get_plotlyjs

    return (f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
            f"<style>{_CSS}</style><script>{get_plotlyjs()}</script></head><body>"
            f'<h1>{escape(title)}</h1><h2>Runs</h2><p class="what">{escape(intro)}</p>{runs}'
            f"{''.join(sections)}</body></html>\n")
