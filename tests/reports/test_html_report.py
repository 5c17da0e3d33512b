"""`tombench report --html`: one offline page whose figures carry the text report's numbers, checked in headless
Chromium (skipped with the reason where Chromium or selenium is missing, as the leaderboard's browser tests).

The logs are real runs of the offline baselines: a small `exploretom_random` grid answered by `tombench/recency` and
`tombench/oracle`, and the transfer fixture's found stories answered by recency.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from inspect_ai import eval as inspect_eval

from tests.leaderboard.conftest import driver  # noqa: F401  (the one headless Chromium fixture)
from tombench.cli import main
from tombench.reports import Run, SampleRecord, load_records, report_page
from tombench.tasks.exploretom import exploretom_random, exploretom_transfer

FIXTURES = Path(__file__).parents[1] / "tasks" / "exploretom" / "fixtures"
BAR_FIGURES = {"fig-action-sets": "Table 1", "fig-interesting": "Table 6", "fig-order": "Accuracy by ToM order"}


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("logs")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("INSPECT_CACHE_DIR", str(folder / "cache"))
        tasks = [(exploretom_random(story_types="tomi,tomi+asymmetric", people=[2, 3], moves=2), "tombench/recency"),
                 (exploretom_random(story_types="tomi,tomi+asymmetric", people=[2, 3], moves=2), "tombench/oracle"),
                 (exploretom_transfer(stories=str(FIXTURES / "found_stories.jsonl")), "tombench/recency")]
        for task, model in tasks:
            (log,) = inspect_eval(task, model=model, log_dir=str(folder / "logs"), display="none")
            assert log.status == "success"
    return folder / "logs"


@pytest.fixture(scope="module")
def page(logs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("page") / "report.html"
    r = CliRunner().invoke(main, ["report", "--html", str(out), str(logs)])  # options before the logs
    assert r.exit_code == 0, r.output
    return out


def _md_tables(logs: Path) -> dict[str, tuple[list[str], list[list[str]]]]:
    """The text report's tables (`tombench report LOGS --md` and `report transfer`), by title: header and rows."""
    text = "".join(CliRunner().invoke(main, [*cmd, str(logs), "--md"]).output for cmd in (["report"],
                                                                                           ["report", "transfer"]))
    tables = {}
    for block in re.split(r"^\*\*", text, flags=re.M)[1:]:
        title, _, rest = block.partition("**")
        lines = [line for line in rest.splitlines() if line.startswith("|")]
        cells = [[c.strip() for c in line.strip("|").split(" | ")] for line in lines]
        tables[title] = (cells[0], cells[2:])
    return tables


def _table(tables: dict, start: str) -> tuple[list[str], list[list[str]]]:
    (found,) = [t for title, t in tables.items() if title.startswith(start)]
    return found


def _numbers(text: str) -> tuple[float, float, float]:
    mean, low, high = map(float, re.match(r"([\d.]+) \[([\d.]+), ([\d.]+)\] n=\d+", text).groups())
    return mean, low, high


def test_the_page_is_one_offline_file_with_every_figure(page: Path, logs: Path, tmp_path: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert text.count("plotly.js v") == 1  # the library embedded once, in the page
    assert not re.search(r"<(script|link)[^>]+(src|href)=", text)  # nothing loaded from elsewhere
    for fig in ("people-moves", "action-sets", "interesting", "order", "transfer"):
        assert f'id="fig-{fig}"' in text
    assert "stories=" in text and "tombench/oracle" in text  # the runs table: model and -T arguments
    r = CliRunner().invoke(main, ["report", "transfer", str(logs), "--html", str(tmp_path / "t.html")])
    assert r.exit_code == 0, r.output
    only = (tmp_path / "t.html").read_text(encoding="utf-8")
    assert 'id="fig-transfer"' in only and 'id="fig-action-sets"' not in only


def test_order_table_counts_every_exploretom_question(logs: Path) -> None:
    recs = [r for r in load_records([logs]) if r.action_set]
    header, rows = _table(_md_tables(logs), "Accuracy by ToM order")
    assert [r[0] for r in rows] == ["0", "1", "2"]
    assert header[1:] == ["A", "B", "C"]
    for j, run in enumerate(sorted({r.column for r in recs}), start=1):
        for row in rows:
            mine = [r.correct for r in recs if r.column == run and r.order == int(row[0])]
            assert row[j].endswith(f"n={len(mine)}") and abs(_numbers(row[j])[0] - sum(mine) / len(mine)) < 0.005
    assert {r.column.args for r in recs} >= {"moves=2, people=[2, 3], story_types=tomi,tomi+asymmetric"}


_DATA = "return Array.from(document.querySelectorAll('.js-plotly-plot')).map(d => [d.id, d.data.map(t => " \
        "({type: t.type, meta: t.meta, x: t.x, y: t.y, z: t.z, customdata: t.customdata, err: t.error_y}))])"


@pytest.mark.browser
@pytest.mark.timeout(120)
def test_figures_render_with_the_text_reports_numbers(driver, page: Path, logs: Path) -> None:  # noqa: F811
    driver.get(page.as_uri())
    figures = dict(driver.execute_script(_DATA))
    assert set(figures) == {"fig-people-moves", *BAR_FIGURES, "fig-transfer"}
    tables = _md_tables(logs)
    for fig, title in BAR_FIGURES.items():
        header, rows = _table(tables, title)
        drawn = driver.execute_script(f"return Array.from(document.querySelectorAll('#{fig} g.point path'))"
                                      ".filter(p => p.getBBox().height > 0).length")  # a bar drawn per number > 0
        assert drawn == sum(1 for t in figures[fig] for y in t["y"] if y) > 0
        for t in figures[fig]:
            col = header.index(t["meta"])
            for i, (labels, cell) in enumerate(t["customdata"]):
                (row,) = [r for r in rows if " | ".join(r[: len(labels.split(" | "))]) == labels]
                assert row[col] == cell
                if t["y"][i] is not None:
                    mean, low, high = _numbers(cell)
                    y, plus, minus = t["y"][i], t["err"]["array"][i], t["err"]["arrayminus"][i]
                    assert abs(y - mean) < 0.005 and abs(y - minus - low) < 0.005 and abs(y + plus - high) < 0.005
    heatmaps = [*figures["fig-people-moves"], *figures["fig-transfer"]]
    assert driver.execute_script("return document.querySelectorAll('g.hm image').length") == len(heatmaps)
    for t in figures["fig-people-moves"]:
        header, rows = _table(tables, f"First-order accuracy by people and moves: {t['meta']}")
        assert t["x"] == header[1:] and t["y"] == [r[0] for r in rows]
        assert t["customdata"] == [[c if c != "–" else "no questions" for c in r[1:]] for r in rows]
    (t,) = figures["fig-transfer"]
    header, rows = _table(tables, "Transfer")
    assert t["meta"] == header[1:] and [html.unescape(y) for y in t["y"]] == [r[0] for r in rows]
    assert t["customdata"] == [r[1:] for r in rows]
    assert abs(t["z"][0][0] - _numbers(rows[0][1])[0]) < 0.005


@pytest.mark.browser
@pytest.mark.timeout(120)
def test_strings_from_logs_are_shown_not_run(driver, tmp_path: Path) -> None:  # noqa: F811
    run = Run("org/<b>tiny</b>", "exploretom_random", args='x=<img src=x onerror="window.pwned=1">')
    recs = [SampleRecord(run.model, run.task, float(i % 2), "tomi", False, True, 1, 2, 2, run=run, story=str(i))
            for i in range(4)]
    path = tmp_path / "escaped.html"
    path.write_text(report_page(recs), encoding="utf-8")
    driver.get(path.as_uri())
    assert not driver.execute_script("return Array.from(document.querySelectorAll('b')).some(b => b.textContent"
                                     " === 'tiny') || document.querySelectorAll('img').length || window.pwned")
    assert "org/<b>tiny</b>" in driver.execute_script("return document.querySelector('table.runs').innerText")
    legend = driver.execute_script("return document.querySelector('#fig-action-sets .legendtext').textContent")
    assert legend == "A: org/<b>tiny</b> on exploretom_random"
