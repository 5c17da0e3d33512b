"""Every command that reads logs takes the folders `inspect eval-set` writes (issue #40 point 4): the folder's own
bookkeeping (`eval-set.json`, `logs.json`) is skipped with one line, its logs are read."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from inspect_ai import eval_set

from tombench.cli import main
from tombench.tasks.exploretom.adversarial import exploretom_adversarial
from tombench.tasks.tomi.tomi import tomi


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two real eval-set folders, offline: the ToMi example items and a small live adversarial run."""
    out = []
    for name, task in (("tomi", tomi(split="example")),
                       ("adversarial", exploretom_adversarial(action_sets="tomi", asymmetric="plain", people=2,
                                                              moves=2, budget=8))):
        folder = tmp_path_factory.mktemp(name)
        ok, _ = eval_set(task, log_dir=str(folder), model="tombench/recency", limit=5 if name == "tomi" else None,
                         display="none")
        assert ok and (folder / "eval-set.json").is_file() and (folder / "logs.json").is_file()
        out.append(folder)
    return out


def _skipped(output: str, folders: list[Path]) -> None:
    for folder in folders:
        line = f"skipped eval-set.json, logs.json in {folder}: inspect eval-set's bookkeeping, not eval logs"
        assert output.count(line) == 1, output
    assert "not a readable Inspect eval log" not in output and "Traceback" not in output


@pytest.mark.timeout(300)
@pytest.mark.parametrize("command", [["report"], ["report", "transfer"]])
def test_reports_read_eval_set_folders(folders: list[Path], command: list[str]) -> None:
    r = CliRunner().invoke(main, [*command, *map(str, folders)])
    assert r.exit_code == 0, r.output
    _skipped(r.output, folders)
    assert "tombench/recency" in r.output


@pytest.mark.timeout(300)
def test_leaderboard_push_reads_eval_set_folders(folders: list[Path], tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["leaderboard", "push", *map(str, folders), "--local-dir", str(tmp_path / "lb")])
    assert r.exit_code == 0, r.output
    _skipped(r.output, folders)
    assert r.output.count("added ") == 2 and "2 row(s)" in r.output


@pytest.mark.timeout(300)
def test_export_training_reads_eval_set_folders(folders: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "train.jsonl"
    r = CliRunner().invoke(main, ["export-training", *map(str, folders), "-o", str(out)])
    assert r.exit_code == 0, r.output
    _skipped(r.output, folders)
    # the ToMi log holds no stories: skipped with one line as it came from a folder; named, it is an error
    assert r.output.count("not a live adversarial log") == 1
    assert out.read_text().count("\n") > 0
    (tomi_log,) = folders[0].glob("*.eval")
    r = CliRunner().invoke(main, ["export-training", str(tomi_log), "-o", str(tmp_path / "t.jsonl")])
    assert r.exit_code == 2 and "not a live adversarial log" in r.output
