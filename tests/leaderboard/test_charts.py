"""The board's charts without a browser: what each panel draws, that it is the table's numbers, that the figure is
valid Plotly, and that names are drawn as typed (test_browser.py and test_space.py check the drawn page)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tombench.leaderboard import Breakdown, build_view, render
from tombench.leaderboard.charts import board_figure, panels, plotly_figure, plotly_js, row_labels

from .rows_factory import clustered, config, row


def _rows():
    groups = [Breakdown("interesting", "true", 0.41, None, 50, 0.3, 0.55, 10),
              Breakdown("interesting", "false", 0.8, None, 50, 0.62, 0.9, 10),
              Breakdown("action_set", "tomi", 0.7, None, 60, 0.58, 0.8, 12)]
    return [replace(clustered("org/a-7b", {0: 3}), breakdowns=groups),
            clustered("org/a-7b", {0: 9, 1: 2}, submission_id="again", run_config=config(task_args={"seed": 2})),
            row("<img src=x onerror=alert(1)>", 0.2, ci_low=None, ci_high=None, ci_method=None)]


def test_panels_are_the_headline_then_each_dimension_in_the_tables_order():
    (b,) = build_view(_rows()).boards
    assert len(b.entries) == 3
    ps = panels(b)
    assert [p.key for p in ps] == ["headline", "action_set", "interesting", "order"]
    assert [p.title for p in ps][1:] == ["by action set", "by interesting", "by order"]
    head = ps[0]
    for s, e in zip(head.series, b.entries, strict=True):
        (p,) = s.points
        assert f"{p.value:.1f}" == e.cells["accuracy"].text and p.text.startswith(e.cells["accuracy"].text)
        if e.shown is None:
            assert p.low is None and p.high is None and "no CI" in p.text
        else:  # the interval the table prints (the story-clustered one, asymmetric), not the row's stored one
            assert f"{p.low:.1f}–{p.high:.1f}" == e.cells["ci"].text
            assert p.high - p.value != pytest.approx(p.value - p.low)
    interesting = ps[2].series[b.entries.index(next(e for e in b.entries if e.row.breakdowns[0].group == "true"))]
    assert [(p.category, p.text) for p in interesting.points] == [("false", "80.0 [62.0–90.0] n=50"),
                                                                   ("true", "41.0 [30.0–55.0] n=50")]


def test_a_model_on_the_board_twice_gets_two_labels():
    (b,) = build_view(_rows()).boards
    labels = row_labels(b)
    assert len(set(labels)) == 3 and labels.count("org/a-7b") == 0
    assert {label for label in labels if label.startswith("org/a-7b")} == {"org/a-7b (row 1)", "org/a-7b (row 2)"}


def test_the_figure_is_valid_plotly_with_asymmetric_error_bars():
    (b,) = build_view(_rows()).boards
    fig = board_figure(b)
    checked = plotly_figure(b)  # plotly's own validation of every property
    assert len(checked.data) == len(fig["data"])
    head = [t for t in fig["data"] if t["meta"]["panel"] == "headline"]
    assert [t["meta"]["entry"] for t in head] == [0, 1, 2] and all(t["showlegend"] for t in head)
    assert not any(t["showlegend"] for t in fig["data"] if t["meta"]["panel"] != "headline")
    for t in head:
        e = b.entries[t["meta"]["entry"]]
        if e.shown is not None:
            assert t["error_y"]["arrayminus"][0] == pytest.approx(100 * (e.row.accuracy - e.shown.low))
            assert t["error_y"]["array"][0] == pytest.approx(100 * (e.shown.high - e.row.accuracy))
        else:
            assert t["error_y"]["array"] == [None]
    assert all(fig["layout"][f"yaxis{k}"]["range"] == [0, 100] for k in ("", "2", "3", "4"))


def test_names_are_drawn_as_typed_and_the_page_is_self_contained():
    (b,) = build_view(_rows()).boards
    fig = board_figure(b)
    names = [t["name"] for t in fig["data"] if t["meta"]["panel"] == "headline"]
    assert "&lt;img src=x onerror=alert(1)&gt;" in names  # Plotly reads tags in labels: escaped, drawn as typed
    page = render(_rows(), "html")
    assert page.count(plotly_js()) == 1 and "<script src" not in page and "<img" not in page
    assert 'id="chart-0"' in page and page.index('id="board-0"') < page.index('id="chart-0"')
    assert plotly_js() not in render([], "html")  # no board, no library
