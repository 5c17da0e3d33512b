"""Every view of the leaderboard pinned byte for byte: Markdown, HTML, the terminal table (with and without
breakdowns) and the dataset card, for boards that exercise every cell kind (paired and unpaired tests, shared
ranks, rows without an interval, schema 1 rows, baselines, settings filled, differing configs, escaping, older
submissions) and for rows read from real Inspect logs (`golden/log_rows.jsonl`, made by `tiny_task.make_log`).

A change in any view fails with the first lines that differ; when the change is meant, rewrite the files with
`TOMBENCH_UPDATE_GOLDEN=1 pytest tests/leaderboard/test_render_golden.py` and review the diff.
"""

from __future__ import annotations

import difflib
import io
import os
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

from tombench.leaderboard import ResultRow, render
from tombench.leaderboard._site import dataset_card
from tombench.leaderboard.charts import plotly_js

from .rows_factory import clustered, config, items, row

GOLDEN = Path(__file__).parent / "golden"


def _log_rows() -> list[ResultRow]:
    return [ResultRow.from_json(line) for line in (GOLDEN / "log_rows.jsonl").read_text().splitlines() if line]


def _mixed() -> list[ResultRow]:
    a = row("a", 0.60, items=items([1.0] * 60 + [0.0] * 40))
    b = row("b", 0.53, items=items([0.0] * 9 + [1.0] * 53 + [0.0] * 38), open_weights=None, model_size_b=None,
            provider="vllm", settings_filled=0.25, settings_total=8, model_calls=40)
    c = row("c", 0.40, items=items([1.0] * 40 + [0.0] * 60), task_args='{"seed": 7}',
            run_config=config(task_args={"seed": 7}, limit=100), samples_errored=2)
    return [
        a, b, c,
        row("tombench/recency", 0.45, provider="tombench", open_weights=None, model_size_b=None,
            settings_filled=0.5, model_calls=12),
        row("no-interval", 0.2, ci_low=None, ci_high=None, ci_method=None),
        row("old-schema", 1.0, ci_low=1.0, ci_high=1.0, schema_version=1, samples_completed=40),
        row('<script>alert("x")</script> | *evil*', 0.3, submitter='"><img src=x>', notes="a `note` [x]"),
        row("a", 0.55, submission_id="older", created_at="2025-12-01T00:00:00+00:00"),
        row("a", 0.5, task_version="2"),
        row("z", 0.4, task="tombench/tomsynth", run_config=config(generate_config={"seed": 3})),
    ]


def _clustered_board() -> list[ResultRow]:
    return [clustered("vllm/Qwen/Qwen2.5-72B-Instruct-AWQ-with-a-long-name", {0: 3}),
            clustered("openai/gpt-4o-mini-2024-07-18", {0: 5, 1: 4}, provider="openai"),
            clustered("tombench/recency", {s: 3 for s in range(10)}, provider="tombench",
                      run_config=config(limit=400, task_args={"seed": 0})),
            clustered("tombench/primacy", {s: 6 for s in range(12)}, provider="tombench", settings_filled=0.5,
                      settings_total=8),
            replace(clustered("tombench/random", {s: 5 for s in range(18)}), submission_id="random")]


SCENARIOS = {"mixed": _mixed, "clustered": _clustered_board, "logs": _log_rows, "empty": list}


def _terminal(rows: list[ResultRow], width: int, breakdowns: bool) -> str:
    console = Console(record=True, width=width, force_terminal=True, color_system="truecolor", file=io.StringIO())
    console.print(render(rows, "terminal", breakdowns=breakdowns))
    return console.export_text(styles=True)


def _html(rows: list[ResultRow]) -> str:
    """The page with plotly.js (the installed Plotly's, 4.8 MB, embedded once) written as a placeholder."""
    page = render(rows, "html")
    js = plotly_js()
    assert page.count(js) == (1 if rows else 0)
    return page.replace(js, "/* plotly.js */")


VIEWS = {
    "md": lambda rows: render(rows, "markdown"),
    "history.md": lambda rows: render(rows, "markdown", history=True, dimensions=["order"], title="T | x"),
    "html": _html,
    "terminal.txt": lambda rows: _terminal(rows, 120, breakdowns=False),
    "breakdowns.txt": lambda rows: _terminal(rows, 250, breakdowns=True),
    "card.md": lambda rows: dataset_card(rows, "org/board"),
}


def _first_difference(expected: str, actual: str, name: str) -> str:
    diff = list(difflib.unified_diff(expected.splitlines(), actual.splitlines(), f"golden/{name}", "now",
                                     n=1, lineterm=""))
    return "\n".join(diff[:40]) + ("\n..." if len(diff) > 40 else "")


@pytest.mark.parametrize("view", sorted(VIEWS))
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_views_are_unchanged(scenario: str, view: str) -> None:
    name = f"{scenario}.{view}"
    actual = VIEWS[view](SCENARIOS[scenario]())
    path = GOLDEN / name
    if os.environ.get("TOMBENCH_UPDATE_GOLDEN"):
        path.write_text(actual, encoding="utf-8")
    expected = path.read_text(encoding="utf-8")
    assert actual == expected, f"{name} differs from its golden file:\n{_first_difference(expected, actual, name)}"
