"""Rows -> ranked views: a rich table, Markdown, and a self-contained HTML page, all from `build_view`.

`build_view` is the one place that decides what a leaderboard shows (dedup, ranking, columns, number formats);
the three formatters only lay its cells out. Ranks are shared where 95% intervals overlap: a model's rank is
1 + the number of models whose interval lies entirely above its own, so two models get different ranks only when
the data can tell them apart (a row without an interval overlaps every other). The "vs next" column adds the
paired test of each row against the next one when both answered the same items (`_stats.paired_comparison`), and
the "Config" column shows the settings that differ between the board's rows.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from tombench.kit.intervals import wilson_interval

from ._row import Breakdown, ResultRow
from ._stats import Paired, paired_comparison

#: Breakdown dimensions in the order the paper discusses them; others follow alphabetically.
DIMENSION_ORDER = ["action_set", "interesting", "order", "asymmetric", "people", "moves"]

Kind = Literal["text", "num"]


@dataclass(frozen=True)
class Cell:
    text: str
    sort: float | str | None = None  # the value a column sorts by (None sorts last)
    title: str = ""  # extra detail (HTML tooltip)


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    kind: Kind = "text"
    breakdown: bool = False


@dataclass(frozen=True)
class Entry:
    row: ResultRow
    rank: int
    shared: bool
    cells: dict[str, Cell]
    vs_next: Paired | None = None  # paired test against the next entry of the board, when they share items


@dataclass(frozen=True)
class Board:
    """One ranked table: one task (at one task version) of one benchmark."""

    benchmark: str
    task: str
    task_version: str
    columns: list[Column]
    entries: list[Entry]
    hidden: int = 0  # older submissions of a configuration shown here (kept in the history, not ranked)


@dataclass(frozen=True)
class View:
    boards: list[Board] = field(default_factory=list)


# --- selection and ranking ------------------------------------------------------------------------------------------
def latest_rows(rows: Iterable[ResultRow]) -> tuple[list[ResultRow], list[ResultRow]]:
    """Split rows into (newest per configuration, older ones). Identical submissions count once."""
    by_id = {r.submission_id: r for r in rows}
    newest: dict[tuple, ResultRow] = {}
    for r in sorted(by_id.values(), key=lambda r: (r.created_at, r.submission_id)):
        newest[r.dedup_key] = r
    kept = set(id(r) for r in newest.values())
    return list(newest.values()), [r for r in by_id.values() if id(r) not in kept]


def interval(row: ResultRow) -> tuple[float | None, float | None, str]:
    """The interval a view shows for a row, and how it was made.

    Rows of schema 1 carry a normal interval from the logged stderr (zero-width at 0% and 100%) and no per-item
    data: they are shown with the Wilson interval of their accuracy on their completed samples instead (no story
    adjustment is possible for them)."""
    if row.schema_version < 2 and row.samples_completed > 0:
        low, high = wilson_interval(row.accuracy * row.samples_completed, row.samples_completed)
        return low, high, "wilson (schema 1 row: no per-story data)"
    if row.ci_low is None or row.ci_high is None:
        return None, None, "no interval: the headline is not a mean of per-sample scores in [0, 1]"
    return row.ci_low, row.ci_high, row.ci_method or "?"


def _bounds(row: ResultRow) -> tuple[float, float]:
    """A row's interval; one without an interval spans everything (it can be told apart from nothing)."""
    low, high, _ = interval(row)
    return (low if low is not None else -math.inf), (high if high is not None else math.inf)


def shared_ranks(rows: Sequence[ResultRow]) -> list[int]:
    """Rank of each row: 1 + the number of rows whose 95% interval lies entirely above this row's."""
    bounds = [_bounds(r) for r in rows]
    return [1 + sum(1 for lo, _ in bounds if lo > high) for _, high in bounds]


def compare(a: ResultRow, b: ResultRow) -> Paired | None:
    """Paired test of row `a` against row `b` (difference a - b) on the items both answered; None when they did
    not answer the same task, arguments and dataset, or share no item (items are matched by content)."""
    if a.pairing_key != b.pairing_key or not a.items.key or not b.items.key:
        return None
    return paired_comparison(a.items.by_key(), b.items.by_key())


# --- what differs between rows: the config column -------------------------------------------------------------
#: Settings that are the board (task) or the model column already: never repeated in the config column.
_NOT_CONFIG = {"task", "task_version", "model", "scorers", "solver"}
_PREFIX = {"task_args": "T.", "generate_config": "", "model_params": "M.", "model_roles": "role."}


def _settings(row: ResultRow) -> dict[str, Any]:
    """A row's run-shaping settings, flattened to short names (`seed`, `T.seed`, `limit`, `M.device`)."""
    try:
        raw = json.loads(row.run_config or "{}")
    except ValueError:
        raw = {}
    if not raw:  # a row of schema 1: what it has
        raw = {"generate_config": {"temperature": row.temperature, "max_tokens": row.max_tokens, "seed": row.seed},
               "epochs": row.epochs, "task_args": json.loads(row.task_args or "{}")}
    flat: dict[str, Any] = {}
    for key, value in raw.items():
        if key in _NOT_CONFIG:
            continue
        if isinstance(value, dict) and key in _PREFIX:
            for k, v in value.items():
                flat[f"{_PREFIX[key]}{k}"] = v
        else:
            flat[key] = value
    return flat


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"), default=str)
    return text if len(text) <= 24 else text[:21] + "..."


def differing_settings(rows: Sequence[ResultRow]) -> list[str]:
    """The setting names whose values are not the same for every row (a missing setting counts as a value)."""
    flats = [_settings(r) for r in rows]
    keys = sorted({k for f in flats for k in f})
    missing = object()
    return [k for k in keys if len({json.dumps(f.get(k, missing), default=str, sort_keys=True) for f in flats}) > 1]


def _dim_key(dimension: str) -> tuple[int, str]:
    return (DIMENSION_ORDER.index(dimension) if dimension in DIMENSION_ORDER else len(DIMENSION_ORDER), dimension)


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def _bool(x: bool | None) -> Cell:
    return Cell({True: "yes", False: "no", None: "?"}[x], {True: 1, False: 0, None: None}[x])


def _ci_text(low: float | None, high: float | None) -> str:
    return "no CI" if low is None or high is None else f"{_pct(low)}–{_pct(high)}"


def _filled_cell(row: ResultRow) -> Cell:
    """Settings filled with a Wilson interval over the settings searched (rows before `settings_total`: no CI)."""
    calls = f"; model calls: {row.model_calls}" if row.model_calls is not None else ""
    if row.settings_filled is None:
        return Cell("–", None, calls.removeprefix("; "))
    if not row.settings_total:
        return Cell(_pct(row.settings_filled), row.settings_filled, f"no CI (number of settings not recorded){calls}")
    n = row.settings_total
    low, high = wilson_interval(row.settings_filled * n, n)
    return Cell(f"{_pct(row.settings_filled)} [{_ci_text(low, high)}] of {n}", row.settings_filled,
                f"{round(row.settings_filled * n)} of {n} settings filled (all requested stories found); "
                f"95% Wilson CI {_ci_text(low, high)}{calls}")


def _paired_cell(p: Paired | None, nxt: ResultRow | None) -> Cell:
    if nxt is None:
        return Cell("", None)
    if p is None:
        return Cell("–", None, f"not paired with {nxt.model}: it answered other items (task arguments or dataset "
                               "differ, or no item in common)")
    mark = " *" if p.significant() else ""
    detail = (f"against {nxt.model} ({p.method}): {p.n} shared items in {p.stories} stories; this row alone right "
              f"on {p.a_only:g}, the other alone on {p.b_only:g}; two-sided p={p.p_value:.3g}")
    if p.low is not None and p.high is not None:
        detail += f"; 95% CI of the difference {100 * p.low:+.1f} to {100 * p.high:+.1f} points"
    return Cell(f"{100 * p.diff:+.1f} p={p.p_value:.2g}{mark}", p.p_value, detail)


def _samples_text(row: ResultRow) -> str:
    """Completed of total samples, the errored ones, and the stories when questions share them (fewer stories than
    items: the interval is wider than the sample count suggests)."""
    text = f"{row.samples_completed}/{row.samples_total}"
    if row.samples_errored:
        text += f" ({row.samples_errored} err)"
    if row.stories is not None and row.stories < len(row.items.key):
        text += f", {row.stories} stories"
    return text


def _headline_cells(row: ResultRow, rank: int, shared: bool) -> dict[str, Cell]:
    """The ranking columns: rank, model, headline with its interval, samples, weights and size."""
    deff = f"; design effect {row.design_effect:.2f}" if row.design_effect is not None else ""
    low, high, method = interval(row)
    return {
        "rank": Cell(f"={rank}" if shared else str(rank), rank),
        "model": Cell(row.model, row.model.lower(),
                      f"provider {row.provider}; revision {row.model_revision or 'unknown'}; params {row.model_params}"),
        "accuracy": Cell(_pct(row.accuracy), row.accuracy, f"metric {row.metric}; logged stderr {_pct(row.stderr)}"),
        "ci": Cell(_ci_text(low, high), low, f"{method}{deff}"),
        "n": Cell(_samples_text(row), row.samples_completed),
        "open_weights": _bool(row.open_weights),
        "size": Cell("?" if row.model_size_b is None else f"{row.model_size_b:g}B", row.model_size_b),
    }


def _breakdown_cell(b: Breakdown | None) -> Cell:
    """One group's value with its interval and n (a dash where the row does not report the group)."""
    if b is None:
        return Cell("–", None)
    n = "" if b.n is None else f" n={b.n}"
    ci = "" if b.ci_low is None or b.ci_high is None else f" [{_ci_text(b.ci_low, b.ci_high)}]"
    stories = f"; {b.stories} stories" if b.stories is not None else ""
    return Cell(f"{_pct(b.value)}{ci}{n}", b.value,
                f"95% CI {_ci_text(b.ci_low, b.ci_high)}; logged stderr {_pct(b.stderr)}{n}{stories}")


def _config_cell(row: ResultRow, config_keys: Sequence[str]) -> Cell:
    """The settings that tell this row apart from the board's others (temperature and epochs when none differ);
    the tooltip lists every setting."""
    settings = _settings(row)
    if config_keys:
        text = " ".join(f"{k}={_short(settings[k]) if k in settings else '–'}" for k in config_keys)
    else:
        text = f"T={row.temperature if row.temperature is not None else '?'} ep={row.epochs}"
    return Cell(text, text, f"config {row.config_hash}; " + "; ".join(
        f"{k}={_short(v)}" for k, v in sorted(settings.items())))


def _provenance_cells(row: ResultRow) -> dict[str, Cell]:
    """Where the number comes from: package and harness versions, dataset, eval, and who submitted it when."""
    return {
        "versions": Cell(
            f"{row.benchmark} {row.package_version or '?'} / {row.harness} {row.harness_version or '?'}",
            row.harness_version or "",
            f"dataset {row.dataset_id} @ {row.dataset_revision or 'unpinned'}; eval {row.eval_id}; run {row.run_id}"),
        "submitted": Cell(row.created_at[:10], row.created_at,
                          f"{row.submission_id} by {row.submitter or 'unknown'}"
                          + (f"; {row.notes}" if row.notes else "")),
    }


def _cells(row: ResultRow, rank: int, shared: bool, breakdown_cols: list[Column],
           config_keys: Sequence[str] = ()) -> dict[str, Cell]:
    cells = _headline_cells(row, rank, shared)
    groups = {f"{b.dimension}={b.group}": b for b in row.breakdowns}
    for col in breakdown_cols:
        cells[col.key] = _breakdown_cell(groups.get(col.key))
    cells["filled"] = _filled_cell(row)
    cells["tokens"] = Cell(f"{row.total_tokens:,}", row.total_tokens,
                           f"input {row.input_tokens:,}; output {row.output_tokens:,}")
    cells["config"] = _config_cell(row, config_keys)
    cells.update(_provenance_cells(row))
    return cells


def _breakdown_columns(rows: Sequence[ResultRow], dimensions: Sequence[str] | None) -> list[Column]:
    """One column per (dimension, group) any row reports, dimensions in the paper's order (or only those asked)."""
    keys = sorted({(b.dimension, b.group) for r in rows for b in r.breakdowns
                   if dimensions is None or b.dimension in dimensions},
                  key=lambda k: (_dim_key(k[0]), k[1]))
    return [Column(f"{d}={g}", f"{d}: {g}", "num", breakdown=True) for d, g in keys]


def _columns(rows: Sequence[ResultRow], breakdown_cols: list[Column]) -> list[Column]:
    """The board's columns: ranking first, then the breakdowns, the search's columns only where a row has them,
    then cost and provenance."""
    columns = [Column("rank", "Rank", "num"), Column("model", "Model"), Column("accuracy", "Accuracy %", "num"),
               Column("ci", "95% CI", "num"), Column("vs_next", "vs next", "num"), Column("n", "Samples", "num"),
               Column("config", "Config"), Column("open_weights", "Open", "text"), Column("size", "Size", "num"),
               *breakdown_cols]
    if any(r.settings_filled is not None or r.model_calls is not None for r in rows):
        columns.append(Column("filled", "Settings filled %", "num"))
    return columns + [Column("tokens", "Tokens", "num"), Column("versions", "Versions"),
                      Column("submitted", "Submitted")]


def _entries(rows: Sequence[ResultRow], breakdown_cols: list[Column]) -> list[Entry]:
    """The ranked rows (sorted best first) with their cells, each paired against the next row."""
    ranks = shared_ranks(rows)
    config_keys = differing_settings(rows)
    entries = []
    for i, (r, k) in enumerate(zip(rows, ranks, strict=True)):
        nxt = rows[i + 1] if i + 1 < len(rows) else None
        paired = compare(r, nxt) if nxt is not None else None
        cells = _cells(r, k, ranks.count(k) > 1, breakdown_cols, config_keys)
        cells["vs_next"] = _paired_cell(paired, nxt)
        entries.append(Entry(r, k, ranks.count(k) > 1, cells, paired))
    return entries


def build_view(rows: Iterable[ResultRow], *, history: bool = False,
               dimensions: Sequence[str] | None = None) -> View:
    """Group rows into one ranked board per (benchmark, task, task version), newest per configuration.

    `history=True` ranks every submission, not only the newest per configuration. `dimensions` restricts the
    breakdown columns (default: every dimension any row reports).
    """
    rows = list(rows)
    shown, older = (list({r.submission_id: r for r in rows}.values()), []) if history else latest_rows(rows)
    tasks: dict[tuple[str, str, str], list[ResultRow]] = {}
    for r in shown:
        tasks.setdefault((r.benchmark, r.task, r.task_version), []).append(r)
    boards = []
    for (bench, task, version), task_rows in sorted(tasks.items()):
        task_rows.sort(key=lambda r: (-r.accuracy, -_bounds(r)[0], r.model, r.submission_id))
        bcols = _breakdown_columns(task_rows, dimensions)
        hidden = sum(1 for o in older if (o.benchmark, o.task, o.task_version) == (bench, task, version))
        boards.append(Board(bench, task, version, _columns(task_rows, bcols), _entries(task_rows, bcols), hidden))
    return View(boards)


# --- formatters -------------------------------------------------------------------------------------------------
def render(rows: Iterable[ResultRow], fmt: Literal["terminal", "markdown", "html"], *, history: bool = False,
           dimensions: Sequence[str] | None = None, title: str = "tombench leaderboard"):
    """The one renderer: a rich renderable (`terminal`), or the text of a Markdown or HTML page."""
    view = build_view(rows, history=history, dimensions=dimensions)
    if fmt == "terminal":
        return _terminal(view, title)
    if fmt == "markdown":
        return _markdown(view, title)
    if fmt == "html":
        return _html(view, title)
    raise ValueError(f"unknown format {fmt!r}: use terminal, markdown or html")


def _board_caption(b: Board) -> str:
    older = f"; {b.hidden} older submission(s) in history" if b.hidden else ""
    return (f"{b.benchmark} / {b.task} (v{b.task_version}): {len(b.entries)} model(s){older}. "
            "Rank =k: shared, 95% intervals overlap (Wilson, story design effect). "
            "vs next: paired difference in points against the next row on the items both answered, two-sided p "
            "(exact McNemar; bootstrap over shared stories when questions share a story); * p < 0.05. "
            "Config: the settings that differ between rows.")


#: Minimum widths of the ranking columns in the terminal (wider content folds within them).
_TERMINAL_MIN = {"rank": 4, "model": 24, "accuracy": 8, "ci": 11, "vs_next": 17, "n": 12, "config": 16, "open": 4,
                 "size": 5}


def _terminal(view: View, title: str):
    from rich.console import Group
    from rich.text import Text

    if not view.boards:
        return Text("no results yet")
    return Group(*(_terminal_table(b, title) for b in view.boards))


def _terminal_table(b: Board, title: str):
    """One board as a rich table. A terminal is narrow: one column per breakdown *dimension*, one line per group
    inside the cell."""
    from rich.table import Table
    from rich.text import Text

    t = Table(title=f"{title}: {b.task} v{b.task_version}", caption=_board_caption(b), show_lines=True)
    layout = _terminal_layout(b, t)
    for e in b.entries:
        cells = []
        for cols in layout:
            if len(cols) == 1 and not cols[0].breakdown:
                cells.append(Text(e.cells[cols[0].key].text))
            else:
                cells.append(Text("\n".join(f"{c.key.split('=', 1)[1]}: {e.cells[c.key].text}" for c in cols)))
        t.add_row(*cells)
    return t


def _terminal_layout(b: Board, t: Any) -> list[list[Column]]:
    """Add the board's terminal columns to table `t`; returns the board's columns each of them shows (one ranking
    column, or every group of one breakdown dimension)."""
    dims: dict[str, list[Column]] = {}
    for c in b.columns:
        if c.breakdown:
            dims.setdefault(c.key.split("=", 1)[0], []).append(c)
    layout: list[list[Column]] = []
    for c in b.columns:
        if not c.breakdown:
            layout.append([c])
            # the ranking columns keep their width; the breakdowns wrap instead of squeezing them out of sight
            widest = max([len(c.title)] + [len(e.cells[c.key].text) for e in b.entries])
            t.add_column(c.title, justify="right" if c.kind == "num" else "left", overflow="fold",
                         min_width=min(widest, _TERMINAL_MIN.get(c.key, 8)))
        elif c is dims[c.key.split("=", 1)[0]][0]:
            dim = c.key.split("=", 1)[0]
            layout.append(dims[dim])
            t.add_column(dim, justify="right", style="cyan", overflow="fold", min_width=12)
    return layout


_MD_SPECIAL = str.maketrans({c: f"\\{c}" for c in "\\|*_`<>[]#"})


def _md(text: str) -> str:
    return " ".join(text.split()).translate(_MD_SPECIAL)


def _markdown(view: View, title: str) -> str:
    out = [f"# {_md(title)}", ""]
    if not view.boards:
        out.append("No results yet.")
    for b in view.boards:
        out += [f"## {_md(b.task)} (v{_md(b.task_version)})", "", _md(_board_caption(b)), ""]
        out.append("| " + " | ".join(_md(c.title) for c in b.columns) + " |")
        out.append("|" + "|".join("---:" if c.kind == "num" else "---" for c in b.columns) + "|")
        for e in b.entries:
            out.append("| " + " | ".join(_md(e.cells[c.key].text) for c in b.columns) + " |")
        out.append("")
    return "\n".join(out)


_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5rem;color:#222}
table{border-collapse:collapse;font-size:.85rem;margin-bottom:.5rem}
th,td{border:1px solid #ddd;padding:.25rem .45rem;white-space:nowrap}
th{background:#f4f4f4;cursor:pointer;user-select:none;position:sticky;top:0}
th.breakdown{background:#eef5ff}
th[aria-sort=ascending]::after{content:" \\25B2"}th[aria-sort=descending]::after{content:" \\25BC"}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.filters{margin:.5rem 0 1rem}.filters label{margin-right:1rem}
caption{caption-side:bottom;text-align:left;color:#666;padding-top:.3rem}
"""

# Sorting and filtering, no dependencies. Rows carry data-open / data-size; cells carry data-sort.
_JS = """
// Missing values sort last in both directions; two missing values are equal (the sort is stable, so they keep
// their order instead of being reshuffled).
function compareCells(x, y, num, asc){
  var xm = (x === undefined || x === ''), ym = (y === undefined || y === '');
  if (xm && ym) return 0;
  if (xm) return 1;
  if (ym) return -1;
  var c = num ? parseFloat(x) - parseFloat(y) : x.localeCompare(y);
  return asc ? c : -c;
}
document.querySelectorAll('table.board').forEach(function(table){
  table.querySelectorAll('th').forEach(function(th, col){
    th.addEventListener('click', function(){
      var asc = th.getAttribute('aria-sort') !== 'ascending';
      table.querySelectorAll('th').forEach(function(h){h.removeAttribute('aria-sort');});
      th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
      var num = th.dataset.kind === 'num';
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function(a, b){
        return compareCells(a.cells[col].dataset.sort, b.cells[col].dataset.sort, num, asc);
      });
      rows.forEach(function(r){body.appendChild(r);});
    });
  });
});
function applyFilters(){
  var open = document.getElementById('f-open').checked;
  var maxSize = parseFloat(document.getElementById('f-size').value);
  var text = document.getElementById('f-text').value.toLowerCase();
  document.querySelectorAll('table.board tbody tr').forEach(function(tr){
    var ok = true;
    if (open && tr.dataset.open !== 'yes') ok = false;
    if (!isNaN(maxSize)) { var s = parseFloat(tr.dataset.size); if (isNaN(s) || s > maxSize) ok = false; }
    if (text && tr.dataset.model.indexOf(text) < 0) ok = false;
    tr.hidden = !ok;
  });
}
['f-open','f-size','f-text'].forEach(function(id){
  var el = document.getElementById(id); el.addEventListener('input', applyFilters);
  el.addEventListener('change', applyFilters);
});
"""


def _attr(x: object) -> str:
    return html.escape("" if x is None else str(x), quote=True)


def _html(view: View, title: str) -> str:
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_attr(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_attr(title)}</h1>",
        '<div class="filters">'
        '<label><input type="checkbox" id="f-open"> open weights only</label>'
        '<label>max size (B params) <input type="number" id="f-size" min="0" step="any" style="width:6em"></label>'
        '<label>model <input type="search" id="f-text" placeholder="filter"></label></div>',
    ]
    if not view.boards:
        parts.append("<p>No results yet.</p>")
    for i, b in enumerate(view.boards):
        parts.append(f'<section><h2>{_attr(b.task)} <small>v{_attr(b.task_version)}</small></h2>')
        parts.append(f'<table class="board" id="board-{i}"><caption>{_attr(_board_caption(b))}</caption><thead><tr>')
        for c in b.columns:
            cls = ' class="breakdown"' if c.breakdown else ""
            parts.append(f'<th data-key="{_attr(c.key)}" data-kind="{c.kind}"{cls}>{_attr(c.title)}</th>')
        parts.append("</tr></thead><tbody>")
        for e in b.entries:
            r = e.row
            parts.append(f'<tr data-model="{_attr(r.model.lower())}" data-open="{_attr(e.cells["open_weights"].text)}"'
                         f' data-size="{_attr(r.model_size_b)}">')
            for c in b.columns:
                cell = e.cells[c.key]
                cls = ' class="num"' if c.kind == "num" else ""
                tip = f' title="{_attr(cell.title)}"' if cell.title else ""
                parts.append(f'<td{cls} data-sort="{_attr(cell.sort)}"{tip}>{_attr(cell.text)}</td>')
            parts.append("</tr>")
        parts.append("</tbody></table></section>")
    parts.append(f"<script>{_JS}</script></body></html>")
    return "\n".join(parts)
