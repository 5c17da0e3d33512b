"""The leaderboard as a Hub Space: a Gradio app that reads the results dataset when it starts.

`tombench leaderboard space --repo ORG/RESULTS` writes a Space folder (README.md with the Space header, a pinned
requirements.txt, and a three-line app.py) whose app imports this module, so the Space ranks with the same code as
`tombench leaderboard show`: `space_tables` lays out `build_view`'s boards (the same ranks, intervals and "vs next"
cells) and adds what a browser can do and a terminal cannot: a drawn interval, a link to the model's Hub page and a
cross-task table (one row per model, one column per task, as `tombench report suites` prints for logs).
`build_app` wraps the tables in Gradio (imported only there: gradio is the optional `space` extra).
"""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ._markdown import md_text
from ._ranking import interval
from ._row import ResultRow
from ._site import hub_model_id
from ._text import clip, inert
from ._view import Board, Entry, board_legend, build_view

#: The Gradio release the generated Space runs on (`sdk_version`) and that tests/leaderboard/test_space.py uses.
GRADIO_VERSION = "6.31.0"
#: Set to a local copy of a leaderboard (as `push --local-dir` writes it) to preview the Space without the Hub.
LOCAL_DIR_ENV = "TOMBENCH_SPACE_LOCAL_DIR"
#: Characters of the drawn interval: the bar spans 0-100%.
BAR_WIDTH = 25
#: Columns a task tab shows until the reader picks others (the rest are in the column chooser).
DEFAULT_COLUMNS = ("Rank", "Model", "Accuracy %", "95% CI", "Interval (0–100%)", "vs next", "Samples", "Config")
MODEL_PAGE = "https://huggingface.co"
#: Characters of a model name shown in a cell (the tooltip has the whole name).
MODEL_CHARS = 48


def interval_bar(low: float | None, value: float, high: float | None, width: int = BAR_WIDTH) -> str:
    """The interval drawn in text on a 0-100% scale: `·` outside, `━` inside, `●` at the value (`|` ends).

    Text, not a picture, so it sorts, copies and reads the same in every browser and in a screen reader's title."""
    if low is None or high is None:
        return ""

    def at(x: float) -> int:
        return min(width - 1, max(0, round(x * (width - 1))))

    lo, hi, mid = at(low), at(high), at(value)
    chars = ["━" if lo <= i <= hi else "·" for i in range(width)]
    chars[mid] = "●"
    return "|" + "".join(chars) + "|"


def model_link(row: ResultRow, endpoint: str = MODEL_PAGE) -> str:
    """HTML for the model cell: the name html-escaped and cut to `MODEL_CHARS` (the whole name in the tooltip, so a
    long name never pushes the drawn interval off-screen), linked to its Hub page only where the name is a valid Hub
    repo id. The cell is HTML rather than Markdown so that nothing in a name (a URL, brackets, tags) becomes a link
    or markup."""
    name = inert(row.model)
    text, title = html.escape(clip(name, MODEL_CHARS)), html.escape(name, quote=True)
    repo = hub_model_id(row.model)
    if repo is None or not valid_repo_id(repo):
        return f'<span title="{title}">{text}</span>'
    href = html.escape(f"{endpoint}/{repo}", quote=True)
    return f'<a href="{href}" title="{title}" target="_blank" rel="noopener noreferrer">{text}</a>'


def valid_repo_id(repo: str) -> bool:
    """Whether `repo` is a Hub repo id by the Hub's own rules (huggingface_hub's validator)."""
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    try:
        validate_repo_id(repo)
    except HFValidationError:
        return False
    return True


@dataclass
class Table:
    """One tab: column headers, rows of cell strings, and the columns shown until the reader picks others."""

    title: str
    headers: list[str]
    rows: list[list[str]]
    shown: list[str]
    html: set[str] = field(default_factory=set)  # columns whose cells are HTML (the escaped model links)
    caption: str = ""

    def select(self, columns: Sequence[str]) -> tuple[list[str], list[list[str]]]:
        """The table cut to `columns` (kept in the board's order; Rank and Model always stay)."""
        keep = [i for i, h in enumerate(self.headers) if h in columns or h in ("Rank", "Model")]
        return [self.headers[i] for i in keep], [[r[i] for i in keep] for r in self.rows]


def task_label(b: Board) -> str:
    return f"{b.task.removeprefix(b.benchmark + '/')} v{b.task_version}"


def _task_table(b: Board) -> Table:
    """A board as a tab: `build_view`'s cells (the same text `show` prints), the drawn interval after the CI."""
    headers, rows = [], []
    for col in b.columns:
        headers.append(col.title)
        if col.key == "ci":
            headers.append("Interval (0–100%)")
    for e in b.entries:
        rows.append(_task_cells(b, e))
    shown = [h for h in headers if h in DEFAULT_COLUMNS]
    return Table(task_label(b), headers, rows, shown, {"Model"}, md_text(" ".join(board_legend(b))))


def _task_cells(b: Board, e: Entry) -> list[str]:
    out = []
    for col in b.columns:
        out.append(model_link(e.row) if col.key == "model" else e.cells[col.key].text)
        if col.key == "ci":
            low, high, _ = interval(e.row)
            out.append(interval_bar(low, e.row.accuracy, high))
    return out


def _cross_cell(e: Entry) -> str:
    low, high, _ = interval(e.row)
    ci = "" if low is None or high is None else f" [{100 * low:.1f}–{100 * high:.1f}]"  # as the breakdown cells
    return f"{100 * e.row.accuracy:.1f}{ci} ({e.cells['rank'].text})"


def cross_task_table(boards: Sequence[Board]) -> Table:
    """One row per model, one column per task: the headline with its 95% interval and the task board's rank.

    A model with several configurations on a task shows its best-ranked one there (the task tab lists them all).
    Models that ran more tasks come first, then by name: ranks across tasks are not comparable."""
    tasks = [task_label(b) for b in boards]
    cells: dict[str, dict[str, str]] = {}
    rows_of: dict[str, ResultRow] = {}
    for label, b in zip(tasks, boards, strict=True):
        for e in b.entries:  # best first: the first entry of a model is its best-ranked configuration
            rows_of.setdefault(e.row.model, e.row)
            cells.setdefault(e.row.model, {}).setdefault(label, _cross_cell(e))
    models = sorted(cells, key=lambda m: (-len(cells[m]), m.lower()))
    rows = [[model_link(rows_of[m]), *(cells[m].get(t, "–") for t in tasks)] for m in models]
    caption = ("Each cell: headline % [95% interval] (rank on that task's board, the same rule as the task tabs); "
               "– : not run. A model with several configurations on a task shows its best-ranked one.")
    return Table("All tasks", ["Model", *tasks], rows, ["Model", *tasks], {"Model"}, caption)


def space_tables(rows: Sequence[ResultRow]) -> list[Table]:
    """The cross-task table, then one table per task board (the newest submission per configuration)."""
    boards = build_view(rows).boards
    return [cross_task_table(boards), *(_task_table(b) for b in boards)]


def load_rows(repo: str, timeout: float = 30.0) -> list[ResultRow]:
    """The rows of the results dataset `repo` from the Hub (or of the local copy `$TOMBENCH_SPACE_LOCAL_DIR`)."""
    local = os.environ.get(LOCAL_DIR_ENV)
    if local:
        from ._store import LocalStore

        return LocalStore(Path(local)).rows()
    from ._publish import fetch_rows

    return fetch_rows(repo, timeout=timeout)


def build_app(repo: str, rows: Sequence[ResultRow] | None = None):  # noqa: ANN201 - gradio is optional
    """The Gradio Blocks app: one tab for all tasks, one per task, each with a column chooser."""
    import gradio as gr

    from tombench.kit.hub import HubError

    try:
        tables = space_tables(load_rows(repo) if rows is None else rows)
        problem = "" if tables[0].rows else f"\n\n**{repo} has no results yet.**"
    except HubError as e:  # the Space still starts and says why it is empty (restart it to read again)
        tables, problem = [], f"\n\n**Could not read the results:** {e}"
    with gr.Blocks(title="tombench leaderboard") as demo:
        gr.Markdown(f"# tombench leaderboard\nResults from the dataset [{repo}]({MODEL_PAGE}/datasets/{repo}): "
                    f"95% intervals clustered by story, ranks from each pair's own test (see each tab's note).{problem}")
        with gr.Tabs():
            for t in tables:
                with gr.Tab(t.title):
                    _table_block(gr, t)
    return demo


def _table_block(gr, t: Table) -> None:  # noqa: ANN001 - the gradio module
    """A table with its column chooser (a checkbox per column) and its legend."""
    chooser = gr.CheckboxGroup(t.headers, value=t.shown, label="Columns", elem_classes=["columns"])
    headers, body = t.select(t.shown)
    frame = gr.Dataframe(value=body, headers=headers, datatype=_types(t, headers), interactive=False,
                         wrap=False, elem_classes=["board"])
    gr.Markdown(t.caption)

    def pick(columns: list[str]):  # noqa: ANN202
        h, b = t.select(columns)
        return gr.Dataframe(value=b, headers=h, datatype=_types(t, h))

    chooser.change(pick, chooser, frame)


def _types(t: Table, headers: Sequence[str]) -> list[str]:
    return ["html" if h in t.html else "str" for h in headers]


# --- the Space folder -----------------------------------------------------------------------------------------------
def space_files(repo: str, requirement: str) -> dict[str, str]:
    """README.md (the Space's YAML header), requirements.txt and app.py of a Space that shows `repo`."""
    readme = f"""---
title: tombench leaderboard
emoji: 🧠
colorFrom: indigo
colorTo: blue
sdk: gradio
sdk_version: {GRADIO_VERSION}
app_file: app.py
pinned: false
license: apache-2.0
datasets:
  - {repo}
tags:
  - leaderboard
  - theory-of-mind
short_description: tombench results with 95% intervals and test-based ranks
---

# tombench leaderboard

The ranked results of [{repo}](https://huggingface.co/datasets/{repo}), read when the Space starts: one tab per
task, a cross-task table, 95% intervals clustered by story, ranks from each pair's own test. Written by
`tombench leaderboard space`; the numbers are computed by the same code as `tombench leaderboard show`.
"""
    app = f'''"""tombench leaderboard Space (written by `tombench leaderboard space`): the board of {repo}."""

from tombench.leaderboard.space import build_app

demo = build_app({repo!r})

if __name__ == "__main__":
    demo.launch()
'''
    requirements = f"{requirement}\ngradio=={GRADIO_VERSION}\n"
    return {"README.md": readme, "requirements.txt": requirements, "app.py": app}


def write_space(repo: str, out: str | Path, requirement: str) -> Path:
    """Write the Space folder for `repo` into `out`; returns the folder."""
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    for name, text in space_files(repo, requirement).items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def push_space(folder: str | Path, space: str, *, timeout: float | None = 30.0, token: str | None = None,
               endpoint: str | None = None) -> str:
    """Commit the Space folder to the Hub Space `space` (created as a Gradio Space if needed) through the one Hub
    writer; returns the commit id."""
    from tombench.kit.hub import HubRepo

    hub = HubRepo(space, repo_type="space", space_sdk="gradio", token=token, endpoint=endpoint, timeout=timeout)
    return hub.upload_folder(folder, "tombench leaderboard Space (tombench leaderboard space)")
