"""The one renderer: ranking with shared ranks, dedup, and the three formats (escaping included)."""

from __future__ import annotations

import html.parser

from rich.console import Console

from tombench.leaderboard import build_view, latest_rows, render, shared_ranks

from .rows_factory import row


def test_ranks_are_shared_where_intervals_overlap():
    rows = [row("a", 0.90, 0.03), row("b", 0.86, 0.03), row("c", 0.70, 0.03), row("d", 0.50, 0.03)]
    assert shared_ranks(rows) == [1, 1, 3, 4]
    wide = [row("a", 0.9, 0.45), row("b", 0.5, 0.04), row("c", 0.35, 0.04)]
    assert shared_ranks(wide) == [1, 1, 3]  # a's wide interval overlaps b's: not separable; both beat c


def test_view_orders_by_accuracy_and_marks_shared_ranks():
    board = build_view([row("b", 0.86, 0.03), row("c", 0.70, 0.03), row("a", 0.90, 0.03)]).boards[0]
    assert [e.row.model for e in board.entries] == ["a", "b", "c"]
    assert [e.cells["rank"].text for e in board.entries] == ["=1", "=1", "3"]
    assert [c.key for c in board.columns if c.breakdown] == ["action_set=tomi", "order=1"]


def test_newest_submission_per_configuration_is_shown_older_kept():
    old = row("a", 0.5, submission_id="old", created_at="2026-01-01T00:00:00+00:00")
    new = row("a", 0.6, submission_id="new", created_at="2026-02-01T00:00:00+00:00")
    other_config = row("a", 0.7, submission_id="hot", config_hash="other")
    shown, older = latest_rows([old, new, other_config, new])  # `new` twice: identical submissions count once
    assert {r.submission_id for r in shown} == {"new", "hot"} and [r.submission_id for r in older] == ["old"]
    board = build_view([old, new, other_config]).boards[0]
    assert board.hidden == 1 and len(board.entries) == 2
    assert len(build_view([old, new, other_config], history=True).boards[0].entries) == 3


def test_one_board_per_task_version():
    view = build_view([row("a", 0.5), row("a", 0.6, task_version="2"), row("a", 0.4, task="tomsynth")])
    assert [(b.task, b.task_version) for b in view.boards] == [("exploretom", "1"), ("exploretom", "2"),
                                                                ("tomsynth", "1")]


def test_terminal_table_shows_ranks_ci_and_breakdowns():
    console = Console(record=True, width=250)
    console.print(render([row("org/model-a", 0.9), row("org/model-b", 0.6, settings_filled=0.25, model_calls=40)],
                         "terminal"))
    text = console.export_text()
    assert "org/model-a" in text and "90.0 ±5.0" in text and "85.0–95.0" in text
    assert "action_set" in text and "tomi: 50.0 n=50" in text and "Settings filled" in text and "25.0" in text


def test_markdown_escapes_table_syntax():
    md = render([row("evil|model", 0.5, notes="x")], "markdown")
    assert "evil\\|model" in md and "| 1 |" in md.replace("| =1 |", "| 1 |")
    lines = [ln for ln in md.splitlines() if ln.startswith("|")]
    assert len({ln.count(" | ") for ln in lines[2:]}) == 1  # every data row has the same number of cells


class _Parser(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[str] = []
        self._in_script = False
        self.cells: list[str] = []

    def handle_starttag(self, tag, attrs):
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        (self.scripts if self._in_script else self.cells).append(data)


def test_html_is_self_contained_and_escaped():
    evil = '<script>alert("x")</script>'
    page = render([row(evil, 0.5, submitter='"><img src=x onerror=alert(1)>')], "html")
    assert evil not in page and "<img" not in page
    assert "http://" not in page and "https://" not in page and "<link" not in page  # nothing fetched
    parser = _Parser()
    parser.feed(page)
    assert len(parser.scripts) == 1 and "alert" not in parser.scripts[0]
    assert evil in parser.cells  # shown as text


def test_empty_leaderboard_renders():
    assert "No results yet" in render([], "markdown") and "No results yet" in render([], "html")
