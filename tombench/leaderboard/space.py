"""The leaderboard as a Hub Space: a Gradio app that reads the results dataset, and re-reads it while it runs.

`tombench leaderboard space --repo ORG/RESULTS` writes a Space folder (README.md with the Space header,
requirements.txt, a three-line app.py, and a copy of the tombench source so the Space builds whether or not the
package index has this release) whose app imports this module, so the Space ranks with the same code as
`tombench leaderboard show`: `space_tables` lays out `build_view`'s boards (the same ranks, intervals and "vs next"
cells) and adds what a browser can do and a terminal cannot: a drawn interval, each task's chart (`charts.py`, the
figure the HTML page draws, in a `gr.Plot`), a link to the model's Hub page and a cross-task table (one row per model, one column per task, as `tombench report suites` prints for logs).
`build_app` wraps the tables in Gradio (imported only there: gradio is the optional `space` extra).
"""

from __future__ import annotations

import html
import math
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ._markdown import md_text
from ._ranking import interval
from ._row import ResultRow
from ._rowfile import RowSet
from ._site import hub_model_id
from ._text import clip, inert
from ._view import Board, Entry, board_legend, build_view
from .charts import board_figure

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
    figure: dict | None = None  # a task tab's chart (`charts.board_figure`: the numbers of its table, drawn)

    def select(self, columns: Sequence[str]) -> tuple[list[str], list[list[str]]]:
        """The table cut to `columns` (kept in the board's order; Rank and Model always stay)."""
        keep = [i for i, h in enumerate(self.headers) if h in columns or h in ("Rank", "Model")]
        return [self.headers[i] for i in keep], [[r[i] for i in keep] for r in self.rows]


def task_label(b: Board) -> str:
    return f"{b.task.removeprefix(b.benchmark + '/')} v{b.task_version}"


@dataclass(frozen=True)
class ModelFacts:
    """What the Hub says about a model: its card's license and its parameter count (blank: not said)."""

    license: str = ""
    params_b: float | None = None

    def cells(self) -> list[str]:
        return [inert(self.license), "" if self.params_b is None else f"{self.params_b:.3g}B"]


#: The model-fact columns (from the Hub, where the model is there) and the link to a row's per-sample details.
FACT_HEADERS = ["License", "Params (Hub)"]
DETAILS_HEADER = "Details"
_PLAIN_ID = re.compile(r"[A-Za-z0-9._-]{1,200}")


def hub_model_facts(models: Sequence[str], timeout: float = 10.0, endpoint: str | None = None
                    ) -> dict[str, ModelFacts]:
    """License and parameter count of each model whose name is a valid Hub repo id, read from the Hub (its card
    data and safetensors metadata); a model the Hub does not have, or any failed read, gets no entry (blank)."""
    from huggingface_hub import HfApi

    api = HfApi(endpoint=endpoint)
    out: dict[str, ModelFacts] = {}
    for model in models:
        repo = hub_model_id(model)
        if repo is None or not valid_repo_id(repo):
            continue
        try:
            info = api.model_info(repo, expand=["cardData", "safetensors"], timeout=timeout)
        except Exception:  # noqa: BLE001 - a fact the Hub cannot give is blank, never an error page
            continue
        card = info.card_data.to_dict() if info.card_data is not None else {}
        license_ = card.get("license") or ""
        total = getattr(info.safetensors, "total", None) if info.safetensors is not None else None
        out[model] = ModelFacts(str(license_ if not isinstance(license_, list) else ", ".join(license_)),
                                total / 1e9 if total else None)
    return out


def details_link(row: ResultRow, repo: str | None) -> str:
    """HTML link to the row's per-sample details file in the results dataset (blank when the id is not a plain
    file name, or no repo is known)."""
    if not repo or not _PLAIN_ID.fullmatch(row.submission_id) or row.submission_id in (".", ".."):
        return ""
    href = html.escape(f"{MODEL_PAGE}/datasets/{repo}/blob/main/data/details/{row.submission_id}.jsonl", quote=True)
    return f'<a href="{href}" target="_blank" rel="noopener noreferrer">details</a>'


def _task_table(b: Board, facts: dict[str, ModelFacts], repo: str | None) -> Table:
    """A board as a tab: `build_view`'s cells (the same text `show` prints), the drawn interval after the CI, then
    the model facts from the Hub and the link to the row's details."""
    headers, rows = [], []
    for col in b.columns:
        headers.append(col.title)
        if col.key == "ci":
            headers.append("Interval (0–100%)")
    headers += [*FACT_HEADERS, DETAILS_HEADER]
    for e in b.entries:
        rows.append([*_task_cells(b, e), *facts.get(e.row.model, ModelFacts()).cells(), details_link(e.row, repo)])
    shown = [h for h in headers if h in DEFAULT_COLUMNS]
    return Table(task_label(b), headers, rows, shown, {"Model", DETAILS_HEADER}, md_text(" ".join(board_legend(b))),
                 board_figure(b))


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


def cross_task_table(boards: Sequence[Board], facts: dict[str, ModelFacts] | None = None) -> Table:
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
    facts = facts or {}
    rows = [[model_link(rows_of[m]), *facts.get(m, ModelFacts()).cells(), *(cells[m].get(t, "–") for t in tasks)]
            for m in models]
    caption = ("Each cell: headline % [95% interval] (rank on that task's board, the same rule as the task tabs); "
               "– : not run. A model with several configurations on a task shows its best-ranked one. License and "
               "parameters come from the model's Hub page (blank: not on the Hub, or not said there).")
    headers = ["Model", *FACT_HEADERS, *tasks]
    return Table("All tasks", headers, rows, headers, {"Model"}, caption)


def space_tables(rows: Sequence[ResultRow], facts: dict[str, ModelFacts] | None = None,
                 repo: str | None = None) -> list[Table]:
    """The cross-task table, then one table per task board (the newest submission per configuration); `facts`:
    what the Hub says about the models (`hub_model_facts`), `repo`: the results dataset the details links open."""
    boards = build_view(rows).boards
    return [cross_task_table(boards, facts), *(_task_table(b, facts or {}, repo) for b in boards)]


def load_rows(repo: str, timeout: float = 30.0) -> RowSet:
    """The rows of the results dataset `repo` from the Hub (or of the local copy `$TOMBENCH_SPACE_LOCAL_DIR`),
    with one line per damaged row file left out."""
    local = os.environ.get(LOCAL_DIR_ENV)
    if local:
        from ._store import LocalStore

        return LocalStore(Path(local)).load()
    from ._publish import fetch_board

    board = fetch_board(repo, timeout=timeout)
    return RowSet(board.rows, board.skipped)


class LiveBoard:
    """The Space's tables, re-read from the results dataset when a reader asks and the last read is older than
    `max_age` seconds (a page load, the refresh button, the timer), so new rows show without a restart while a
    busy Space reads the Hub at most once a minute. A failed read keeps the last tables and says why."""

    def __init__(self, repo: str, rows: Sequence[ResultRow] | None = None, max_age: float = 60.0,
                 facts: Callable[[Sequence[str]], dict[str, ModelFacts]] | None = None) -> None:
        self.repo, self.fixed, self.max_age = repo, rows, max_age
        # model facts only where the rows come from the Hub (a local preview and given rows stay offline)
        reading_hub = rows is None and not os.environ.get(LOCAL_DIR_ENV)
        self.read_facts = facts or (hub_model_facts if reading_hub else None)
        self.facts: dict[str, ModelFacts] = {}
        self.tables: dict[str, Table] = {}
        self.order: list[str] = []
        self.problem = ""
        self.skipped: list[str] = []  # damaged row files of the last read
        self.read_at = -math.inf
        self.refresh(force=True)

    def refresh(self, force: bool = False) -> dict[str, Table]:
        """The tables by title, read again first when `force` or when the last read is older than `max_age`."""
        from tombench.kit.hub import HubError

        if not force and time.monotonic() - self.read_at < self.max_age:
            return self.tables
        self.read_at = time.monotonic()
        try:
            found = load_rows(self.repo) if self.fixed is None else RowSet(list(self.fixed))
        except HubError as e:  # the Space still starts (or keeps its last tables) and says why
            self.problem = f"**Could not read the results:** {md_text(str(e))}"
            return self.tables
        rows, self.skipped = found.rows, found.skipped
        new_models = sorted({r.model for r in rows} - set(self.facts))
        if self.read_facts is not None and new_models:  # each model asked once per start: facts rarely change
            found = self.read_facts(new_models)
            self.facts.update({m: found.get(m, ModelFacts()) for m in new_models})
        tables = space_tables(rows, self.facts, self.repo)
        self.problem = "" if tables[0].rows else f"**{self.repo} has no results yet.**"
        self.tables = {t.title: t for t in tables}
        self.order = [t.title for t in tables]
        return self.tables

    def status(self) -> str:
        """When the results were read, or why they could not be; then one line per damaged row file left out
        (escaped: a file name is data)."""
        when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
        text = self.problem or f"Read {when}; {len(self.order) - 1} task(s)."
        return "\n".join([text, *(f"- {md_text(line)}" for line in self.skipped)])


def about_text(repo: str) -> str:
    """The About tab: what the board measures, how to submit a run, how the ranks are made, how to cite it."""
    url = f"{MODEL_PAGE}/datasets/{repo}"
    return f"""## About

The ranked results of the tombench theory-of-mind tasks (Inspect AI) kept in the dataset [{repo}]({url}): one
immutable row per submission, with its per-sample details and the questions asked.

### How to submit

```bash
pip install tombench
inspect eval tombench/exploretom_random --model <provider>/<model>    # any tombench task
tombench leaderboard push logs/ --repo {repo} --submitter <you>       # needs write access (HF_TOKEN)
```

Or open a pull request on [{repo}]({url}) with the files `tombench leaderboard push --local-dir board/` writes.

### How to read it

Each row's 95% interval is clustered by story (questions of one story are correlated). Each pair of rows is tested
on its own (paired on identical questions); a row's rank is 1 + the number of rows significantly better than it.
The legend under each table has the details; the per-sample details of a row are one click away (Details).

### How to cite

Cite the dataset and the commit you read: `{repo}` ({url}), with its revision, and the tombench package version
each row names.
"""


#: Seconds between the app's own re-reads while a page is open (the refresh button reads at once).
REFRESH_EVERY_S = 300.0


def build_app(repo: str, rows: Sequence[ResultRow] | None = None, *, max_age: float = 60.0):  # noqa: ANN201
    """The Gradio Blocks app: one tab for all tasks, one per task, each with a column chooser; a refresh button,
    a re-read on every page load and on a timer (new tasks get their tab at the next restart)."""
    import gradio as gr

    live = LiveBoard(repo, rows, max_age)
    with gr.Blocks(title="tombench leaderboard") as demo:
        gr.Markdown(f"# tombench leaderboard\nResults from the dataset [{repo}]({MODEL_PAGE}/datasets/{repo}): "
                    "95% intervals clustered by story, ranks from each pair's own test (see each tab's note).")
        with gr.Row():
            status = gr.Markdown(live.status())
            button = gr.Button("Refresh", size="sm", scale=0)
        blocks = []
        with gr.Tabs():
            for title in live.order:
                with gr.Tab(title):
                    blocks.append((title, *_table_block(gr, live, title)))
            with gr.Tab("About"):
                gr.Markdown(about_text(repo))
        choosers, frames = [c for _, c, _, _ in blocks], [f for _, _, f, _ in blocks]
        plots = [(title, p) for title, _, _, p in blocks if p is not None]

        def update(force: bool, *columns: list[str]):  # noqa: ANN202
            tables = live.refresh(force)
            out = [gr.Markdown(live.status())]
            for (title, _, _, _), chosen in zip(blocks, columns, strict=True):
                t = tables.get(title)
                h, b = t.select(chosen) if t is not None else ([], [])
                out.append(gr.Dataframe(value=b, headers=h, datatype=_types(t, h) if t is not None else "str"))
            for title, _ in plots:  # the charts follow the tables they draw
                t = tables.get(title)
                out.append(gr.Plot(value=_figure(t)))
            return out

        outputs = [status, *frames, *(p for _, p in plots)]
        button.click(lambda *c: update(True, *c), choosers, outputs)
        demo.load(lambda *c: update(False, *c), choosers, outputs)
        gr.Timer(REFRESH_EVERY_S).tick(lambda *c: update(False, *c), choosers, outputs)
    return demo


def _figure(t: Table | None):  # noqa: ANN202 - a plotly Figure (plotly is imported only here)
    """The Plotly figure of a task tab (None: no chart)."""
    if t is None or t.figure is None:
        return None
    import plotly.graph_objects as go

    return go.Figure(t.figure)


def _table_block(gr, live: LiveBoard, title: str):  # noqa: ANN001, ANN202 - the gradio module and its blocks
    """A table with its column chooser (a checkbox per column), its chart (task tabs) and its legend; the chooser
    lays out the latest read of the table. Returns (chooser, frame, plot or None)."""
    t = live.tables[title]
    chooser = gr.CheckboxGroup(t.headers, value=t.shown, label="Columns", elem_classes=["columns"])
    headers, body = t.select(t.shown)
    frame = gr.Dataframe(value=body, headers=headers, datatype=_types(t, headers), interactive=False,
                         wrap=False, elem_classes=["board"], show_search="filter")
    plot = gr.Plot(value=_figure(t), show_label=False, elem_classes=["chart"]) if t.figure else None
    gr.Markdown(t.caption)

    def pick(columns: list[str]):  # noqa: ANN202
        latest = live.tables.get(title, t)
        h, b = latest.select(columns)
        return gr.Dataframe(value=b, headers=h, datatype=_types(latest, h))

    chooser.change(pick, chooser, frame)
    return chooser, frame, plot


def _types(t: Table, headers: Sequence[str]) -> list[str]:
    return ["html" if h in t.html else "str" for h in headers]


# --- the Space folder -----------------------------------------------------------------------------------------------
#: The file that marks the Space folder's `tombench/` as a copy `write_space` made (and may replace).
COPY_MARKER = ".space-copy"
#: What the Space needs when tombench is not on the package index, if the installed metadata cannot say.
_FALLBACK_REQUIREMENTS = ("inspect-ai>=0.3.285", "datasets>=3.0", "huggingface-hub>=1.4", "rich>=13", "click>=8.1",
                          "openai>=1.60", "anthropic>=0.50", "numpy>=1.24", "plotly>=6,<8")


def runtime_requirements() -> list[str]:
    """tombench's own dependencies (no extras), as the installed package declares them: what a Space that carries
    the tombench source beside app.py installs from the package index."""
    from importlib.metadata import PackageNotFoundError, requires

    try:
        declared = requires("tombench") or []
    except PackageNotFoundError:
        return list(_FALLBACK_REQUIREMENTS)
    return [r for r in declared if "extra ==" not in r] or list(_FALLBACK_REQUIREMENTS)


def space_files(repo: str, requirement: str | None = None) -> dict[str, str]:
    """README.md (the Space's YAML header), requirements.txt and app.py of a Space that shows `repo`.

    `requirement`: how the Space installs tombench (a requirements line, e.g. `tombench @ git+https://...`); None:
    the Space carries tombench's source beside app.py (`write_space` copies it) and installs only its dependencies
    from the package index, so it builds whether or not tombench is published there."""
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

The ranked results of [{repo}](https://huggingface.co/datasets/{repo}), re-read on each visit (at most once a
minute), on a timer and with the Refresh button: one tab per task, a cross-task table, 95% intervals clustered by story, ranks from each pair's own test. Written by
`tombench leaderboard space`; the numbers are computed by the same code as `tombench leaderboard show`.
"""
    app = f'''"""tombench leaderboard Space (written by `tombench leaderboard space`): the board of {repo}."""

from tombench.leaderboard.space import build_app

demo = build_app({repo!r})

if __name__ == "__main__":
    demo.launch()
'''
    lines = [requirement] if requirement else runtime_requirements()
    requirements = "\n".join([*lines, f"gradio=={GRADIO_VERSION}"]) + "\n"
    return {"README.md": readme, "requirements.txt": requirements, "app.py": app}


def write_space(repo: str, out: str | Path, requirement: str | None = None) -> Path:
    """Write the Space folder for `repo` into `out` (with `requirement` None, also a copy of the running tombench
    package's source and data, `tombench/`, which app.py imports first); returns the folder."""
    import shutil

    import tombench

    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    vendored = root / "tombench"
    if vendored.exists() and not (vendored / COPY_MARKER).exists():  # e.g. --out at a checkout's root
        raise ValueError(f"{vendored} exists and is not a copy this command made: give another --out")
    for name, text in space_files(repo, requirement).items():
        (root / name).write_text(text, encoding="utf-8")
    if vendored.exists():
        shutil.rmtree(vendored)
    if requirement is None:
        shutil.copytree(Path(tombench.__file__).parent, vendored,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
        (vendored / COPY_MARKER).write_text("copied by `tombench leaderboard space`; rewritten by every run\n",
                                            encoding="utf-8")
    return root


def push_space(folder: str | Path, space: str, *, timeout: float | None = 30.0, token: str | None = None,
               endpoint: str | None = None) -> str:
    """Commit the Space folder to the Hub Space `space` (created as a Gradio Space if needed) through the one Hub
    writer; returns the commit id."""
    from tombench.kit.hub import HubRepo

    hub = HubRepo(space, repo_type="space", space_sdk="gradio", token=token, endpoint=endpoint, timeout=timeout)
    return hub.upload_folder(folder, "tombench leaderboard Space (tombench leaderboard space)")
