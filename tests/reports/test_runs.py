"""`tombench report` and `report suites` on real log folders (issue #32 point 3): files that are not readable logs and
unfinished runs are skipped with one line each, and runs are never pooled (repeats and different -T settings each
get their own column or row, labelled). The logs are written by `inspect_ai.eval` with the offline baselines."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log, write_eval_log

from tombench.cli import main
from tombench.kit.intervals import wilson_interval
from tombench.reports import load_records, load_suite_results, per_action_set_table, repeat_notes, suites_table
from tombench.tasks.exploretom.random import exploretom_random
from tombench.tasks.tomi.tomi import tomi

TOMI_FIXTURE = Path(__file__).parents[1] / "tasks" / "tomi" / "fixtures" / "fb_all_test.txt"


def _random(folder: Path, people: int = 2) -> Path:
    """One small exploretom_random run (two story types, one setting each) by the recency baseline."""
    (log,) = inspect_eval(exploretom_random(story_types="tomi,tomi+asymmetric", people=people, moves=2),
                          model="tombench/recency", log_dir=str(folder), display="none")
    assert log.status == "success"
    return Path(log.location)


def _spoil(folder: Path, good: Path) -> None:
    """What a working log folder also holds: a log cut short while writing, notes, a binary file."""
    (folder / "cut.eval").write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    (folder / "notes.json").write_text('{"notes": "rerun with people=3 tomorrow"}\n', encoding="utf-8")
    (folder / "image.json").write_bytes(bytes(range(256)))


@pytest.fixture(scope="module")
def repeats(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two runs of the same eval, one with different -T settings, and three files that are not logs."""
    folder = tmp_path_factory.mktemp("repeats")
    first = _random(folder)
    _random(folder)
    _random(folder, people=3)
    _spoil(folder, first)
    return folder


def test_repeats_are_shown_apart_and_never_pooled(repeats: Path) -> None:
    skipped: list[str] = []
    recs = load_records([repeats], on_skip=skipped.append)
    runs = sorted({r.column for r in recs})
    assert [(r.variant, r.repeat, r.repeats) for r in runs] == [("people=2", 1, 2), ("people=2", 2, 2),
                                                                ("people=3", 1, 1)]
    one = [r for r in recs if r.column == runs[0]]
    assert len([r for r in recs if r.column == runs[1]]) == len(one)  # each repeat keeps its own n
    table = per_action_set_table(recs)
    assert table.columns == ["action set", "A plain", "A asym.", "B plain", "B asym.", "C plain", "C asym."]
    assert table.legend[0].startswith("A = tombench/recency on exploretom_random [people=2, run 1 of 2, started ")
    assert table.legend[2] == "C = tombench/recency on exploretom_random [people=3]"
    overall = dict(zip(table.columns, next(r for r in table.rows if r[0] == "overall"), strict=True))
    first_order_plain = [r for r in one if r.order == 1 and not r.asymmetric]
    k, n = sum(r.correct for r in first_order_plain), len(first_order_plain)
    lo, hi = wilson_interval(k, n)
    assert overall["A plain"] == overall["B plain"] == f"{k / n:.2f} [{lo:.2f}, {hi:.2f}] n={n}"  # not 2n
    (note,) = repeat_notes(runs)
    assert note.startswith("note: 3 runs of tombench/recency on exploretom_random (2 are repeats of the same "
                           "settings; 2 different settings)") and "never pooled" in note


def test_files_that_are_not_logs_are_skipped_with_one_line_each(repeats: Path) -> None:
    skipped: list[str] = []
    load_records([repeats], on_skip=skipped.append)
    assert sorted(Path(line.split(":")[0].removeprefix("skipped ")).name for line in skipped) == [
        "cut.eval", "image.json", "notes.json"]
    why = {Path(line.split(":")[0].removeprefix("skipped ")).name: line for line in skipped}
    assert "a damaged or truncated .eval file" in why["cut.eval"]
    assert "JSON without the fields of an eval log" in why["notes.json"]
    assert "a binary file" in why["image.json"]


def test_the_command_reports_the_good_logs_and_says_what_it_skipped(repeats: Path) -> None:
    r = CliRunner().invoke(main, ["report", str(repeats), "--md"])
    assert r.exit_code == 0, r.output
    assert "Traceback" not in r.output and "EOCD" not in r.output and "validation error" not in r.output
    assert r.stderr.count("skipped ") == 3 and r.stderr.count("\n") == 4  # three skips and the note on repeats
    assert "never pooled" in r.stderr
    assert "| action set | A plain | A asym. | B plain | B asym. | C plain | C asym. |" in r.stdout
    assert "- A = tombench/recency on exploretom_random [people=2, run 1 of 2, started" in r.stdout
    assert "skipped" not in r.stdout  # stdout is the report alone, fit for `> report.md`


def test_an_unfinished_run_is_skipped_not_reported(tmp_path: Path) -> None:
    good = _random(tmp_path / "logs")
    log = read_eval_log(str(good))
    log.status = "error"
    write_eval_log(log, str(tmp_path / "logs" / "crashed.eval"))
    skipped: list[str] = []
    recs = load_records([tmp_path / "logs"], on_skip=skipped.append)
    assert len({r.column for r in recs}) == 1
    (line,) = skipped
    assert "crashed.eval: the run did not finish (status 'error')" in line


def test_a_folder_of_nothing_readable_is_one_line(tmp_path: Path, repeats: Path) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    shutil.copy(repeats / "notes.json", folder)
    r = CliRunner().invoke(main, ["report", str(folder)])
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert "skipped" in r.stderr and "no scored ExploreToM questions" in r.output


@pytest.fixture(scope="module")
def suite_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ToMi twice with the same settings and once with another answer check, by the primacy baseline."""
    folder = tmp_path_factory.mktemp("suite-repeats")
    for task in (tomi(data=str(TOMI_FIXTURE)), tomi(data=str(TOMI_FIXTURE)),
                 tomi(data=str(TOMI_FIXTURE), check="substring")):
        (log,) = inspect_eval(task, model="tombench/primacy", log_dir=str(folder), display="none")
    _spoil(folder, Path(log.location))
    return folder


def test_suite_repeats_are_rows_of_their_own(suite_logs: Path) -> None:
    skipped: list[str] = []
    results = load_suite_results([suite_logs], on_skip=skipped.append)
    assert len(skipped) == 3 and len(results) == 3
    table = suites_table(results)
    labels = [row[0] for row in table.rows if row[0] != "chance"]
    assert len(labels) == 3 and all(label.startswith("tombench/primacy [tomi: ") for label in labels)
    assert sum("run 1 of 2" in label for label in labels) == 1 and sum("run 2 of 2" in label for label in labels) == 1
    assert any("check=substring" in label for label in labels)
    assert len(table.legend) == 3 and all(line.endswith(".eval") for line in table.legend)
    r = CliRunner().invoke(main, ["report", "suites", str(suite_logs), "--md"])
    assert r.exit_code == 0, r.output
    assert r.stderr.count("skipped ") == 3 and "never pooled" in r.stderr and "Traceback" not in r.output
