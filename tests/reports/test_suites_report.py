"""`tombench report suites`: one row per model, one column per suite headline, intervals; leaderboard rows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from inspect_ai import eval as inspect_eval

from tests.leaderboard.conftest import driver  # noqa: F401  (the one headless Chromium fixture)
from tombench.cli import main
from tombench.kit.intervals import wilson_interval
from tombench.kit.suites import suite_label
from tombench.leaderboard._from_log import row_from_log
from tombench.reports import load_suite_results, suite_groups_tables, suites_table
from tombench.tasks.bigtom.bigtom import bigtom
from tombench.tasks.hitom.hitom import hitom
from tombench.tasks.opentom.opentom import opentom
from tombench.tasks.tomi.tomi import tomi

FIXTURES = Path(__file__).parents[1] / "tasks"


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("suite-logs")
    tasks = [
        tomi(data=str(FIXTURES / "tomi/fixtures/fb_all_test.txt")),
        hitom(data=str(FIXTURES / "hitom/fixtures/Hi-ToM_data.json"), order="0,1"),
        bigtom(data=str(FIXTURES / "bigtom/fixtures/bigtom.csv"), variable="forward_belief"),
        opentom(data=str(FIXTURES / "opentom/fixtures"), genre="attitude"),
    ]
    inspect_eval(tasks, model=["tombench/oracle", "tombench/primacy"], log_dir=str(out), display="none")
    return out


def test_table_rows_columns_intervals_and_chance(logs: Path) -> None:
    results = load_suite_results([logs])
    assert {(r.model, r.suite) for r in results} == {
        (m, s) for m in ("tombench/oracle", "tombench/primacy") for s in ("tomi", "hitom", "bigtom", "opentom")
    }
    tomi_oracle = next(r for r in results if r.suite == "tomi" and r.model == "tombench/oracle")
    assert tomi_oracle.value == pytest.approx(16 / 18) and tomi_oracle.n == 18
    assert (tomi_oracle.ci_low, tomi_oracle.ci_high) == pytest.approx(wilson_interval(16, 18))
    table = suites_table(results)
    assert table.columns == ["model", "ToMi (acc)", "Hi-ToM (acc)", "BigToM (acc)", "OpenToM (macro-F1)"]
    assert [r[0] for r in table.rows] == ["tombench/oracle", "tombench/primacy", "chance"]
    assert table.rows[0][1] == "88.9 [67.2, 96.9]"
    hitom_primacy = table.rows[1][2]
    assert hitom_primacy.startswith("0.0 [0.0, ") and not hitom_primacy.endswith("0.0]")  # honest at 0%
    assert table.rows[2][1:] == ["–", "6.7", "50.0", "–"]
    opentom_cell = table.rows[0][4]
    assert opentom_cell.count("[") == 1 and "." in opentom_cell  # macro-F1 with its bootstrap interval
    groups = {t.title.split(":")[0]: t for t in suite_groups_tables(results)}
    assert "order=0" in groups["Hi-ToM"].columns and "question_type=memory" in groups["ToMi"].columns


def test_command_prints_terminal_and_markdown(logs: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    md = runner.invoke(main, ["report", "suites", str(logs), "--md", "--groups"])
    assert md.exit_code == 0, md.output
    assert "| model | ToMi (acc) | Hi-ToM (acc) | BigToM (acc) | OpenToM (macro-F1) |" in md.output
    assert "**BigToM: accuracy per group" in md.output
    term = runner.invoke(main, ["report", "suites", str(logs)])
    assert term.exit_code == 0 and "ToMi" in term.output
    empty = runner.invoke(main, ["report", "suites", str(tmp_path)])
    assert empty.exit_code != 0 and "no finished suite logs" in empty.output
    missing = runner.invoke(main, ["report", "suites", str(tmp_path / "nope")])
    assert missing.exit_code != 0 and "no such log" in missing.output


def test_leaderboard_rows_carry_the_suite_headline(logs: Path) -> None:
    rows = [row_from_log(p) for p in sorted(logs.glob("*.eval"))]
    assert {r.benchmark for r in rows} == {"tomi", "hitom", "bigtom", "opentom"}
    hit = next(r for r in rows if r.benchmark == "hitom")
    assert hit.dataset_revision.startswith("sha256:") and hit.metric == "choice_answer/accuracy"
    assert any(b.dimension == "order" for b in hit.breakdowns)
    ot = next(r for r in rows if r.benchmark == "opentom")
    (head,) = [b for b in ot.breakdowns if b.dimension == "headline"]
    assert head.group == "macro_f1" and head.stderr is not None and head.n == ot.samples_completed


def test_tombench_cell_is_the_papers_avg_per_language(tmp_path: Path) -> None:
    from tombench.tasks.tom_bench.tom_bench import tom_bench

    inspect_eval(tom_bench(data=str(FIXTURES / "tom_bench/fixtures"), tries=1), model="tombench/primacy", log_dir=str(tmp_path),
                 display="none")
    (result,) = load_suite_results([tmp_path])
    assert result.headline == "avg" and set(result.parts) == {"avg_zh", "avg_en"}
    assert result.value == pytest.approx((result.parts["avg_zh"] + result.parts["avg_en"]) / 2)
    table = suites_table([result])
    assert table.columns == ["model", "ToMBench (AVG)"]
    cell = table.rows[0][1]
    zh, en = (f"{100 * result.parts[p]:.1f}" for p in ("avg_zh", "avg_en"))
    assert cell.endswith(f"(zh {zh}, en {en})") and cell.startswith(f"{100 * result.value:.1f} [")
    # chance of the AVG: the fixture's 8 paper tasks per language, each the mean 1/k of its items
    assert table.rows[1][0] == "chance" and table.rows[1][1] == f"{100 * result.chance:.1f}"
    groups = {t.title.split(":")[0]: t for t in suite_groups_tables([result])}
    assert "task_language=zh/False Belief Task" in groups["ToMBench"].columns


def test_chance_row_is_the_chance_of_the_samples_scored(tmp_path: Path) -> None:
    """Issue #31 point 4: the chance row reads the logged chance of the samples scored (Hi-ToM: a subset's, the full
    run's equal to the task's; the fixture's items all have 15 options, so `test_chance.py` checks a subset of mixed
    k on ToMBench's logged metric). ToMBench (headline AVG): a run of 4-option items only reads 25.0, not 26.0."""
    from tombench.tasks.tom_bench.tom_bench import tom_bench

    def hi() -> object:
        return hitom(data=str(FIXTURES / "hitom/fixtures/Hi-ToM_data.json"))

    ks = {s.id: len(s.metadata["options"]) for s in hi().dataset}  # type: ignore[attr-defined]
    widest = [sid for sid, k in ks.items() if k == max(ks.values())][:3]
    (full,) = inspect_eval(hi(), model="tombench/primacy", log_dir=str(tmp_path / "full"), display="none")
    inspect_eval(hi(), model="tombench/oracle", sample_id=widest, log_dir=str(tmp_path / "part"), display="none")
    (r_full,) = load_suite_results([tmp_path / "full"])
    (r_part,) = load_suite_results([tmp_path / "part"])
    assert r_full.chance == pytest.approx(full.eval.metadata["chance"])
    assert r_part.chance == pytest.approx(1 / max(ks.values()))
    assert suites_table([r_part]).rows[-1] == ["chance", f"{100 / max(ks.values()):.1f}"]
    task = tom_bench(data=str(FIXTURES / "tom_bench/fixtures"), tries=1, language="en")
    four = [s.id for s in task.dataset if s.metadata["k"] == 4]
    inspect_eval(task, model="tombench/oracle", sample_id=four, log_dir=str(tmp_path / "tb"), display="none")
    (r_tb,) = load_suite_results([tmp_path / "tb"])
    assert r_tb.chance == pytest.approx(0.25)


def _md_tables(output: str) -> dict[str, tuple[list[str], list[list[str]]]]:
    """The Markdown tables of a report's output, by title: header and rows."""
    tables = {}
    for block in re.split(r"^\*\*", output, flags=re.M)[1:]:
        title, _, rest = block.partition("**")
        cells = [[c.strip() for c in line.strip("|").split(" | ")] for line in rest.splitlines() if line.startswith("|")]
        tables[title.split(":")[0]] = (cells[0], cells[2:])
    return tables


@pytest.mark.browser
@pytest.mark.timeout(120)
def test_html_page_draws_the_tables_numbers(driver, logs: Path, tmp_path: Path) -> None:  # noqa: F811
    """`report suites --groups --html`: a bar per table cell, its hover text the cell, its height and interval the
    cell's numbers (percent, or macro-F1 as a fraction), the chance ticks the chance row; checked in Chromium."""
    out = tmp_path / "suites.html"
    r = CliRunner().invoke(main, ["report", "suites", str(logs), "--groups", "--md", "--html", str(out)])
    assert r.exit_code == 0, r.output
    tables = _md_tables(r.output)
    driver.get(out.as_uri())
    figures = dict(driver.execute_script(
        "return Array.from(document.querySelectorAll('.js-plotly-plot')).map(d => [d.id, d.data.map(t => "
        "({type: t.type, name: t.name, meta: t.meta, x: t.x, y: t.y, customdata: t.customdata, err: t.error_y}))])"))
    titles = {"fig-suites": "Established ToM suites"}
    titles |= {f"fig-groups-{s}": suite_label(s) for s in ("tomi", "hitom", "bigtom", "opentom")}
    assert sorted(titles[fig] for fig in figures) == sorted(tables)  # a chart per table
    for fig, traces in figures.items():
        header, rows = tables[titles[fig]]
        for t in traces:
            if t["type"] == "scatter":  # chance: the table's chance row
                (chance,) = [row for row in rows if row[0] == "chance"]
                for x, y in zip(t["x"], t["y"], strict=True):
                    assert f"{100 * y:.1f}" == chance[header.index(x)]
                continue
            (row,) = [row for row in rows if row[0] == t["meta"]]
            for i, (column, text) in enumerate(t["customdata"]):
                assert row[header.index(column)] == text
                if t["y"][i] is not None:
                    scale = 1 if "macro-F1" in column else 100
                    mean, low, high = (float(v) / scale for v in re.findall(r"[\d.]+", text)[:3])
                    y, plus, minus = t["y"][i], t["err"]["array"][i], t["err"]["arrayminus"][i]
                    assert abs(y - mean) < 0.006 and abs(y - minus - low) < 0.006 and abs(y + plus - high) < 0.006
    drawn = driver.execute_script("return document.querySelectorAll('#fig-suites g.point path').length")
    assert drawn == sum(len(t["x"]) for t in figures["fig-suites"] if t["type"] == "bar")
