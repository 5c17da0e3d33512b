"""Every command that writes files says in one line (exit code 2, no traceback) that its output cannot be written,
before any work (issue #40 point 5)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tombench.cli import main

SEARCH = ["search", "--model", "tombench/recency", "--story-types", "tomi", "--people", "2", "--moves", "2",
          "--stories-per-setting", "1", "--budget", "5"]


@pytest.fixture
def blocker(tmp_path: Path) -> Path:
    """A file where a folder must be: unwritable for every user, root included."""
    path = tmp_path / "file"
    path.write_text("x")
    return path


def _commands(b: Path, tmp: Path) -> list[list[str]]:
    stories = tmp / "stories.jsonl"
    stories.write_text("")
    return [
        ["leaderboard", "push", str(tmp), "--local-dir", str(b / "lb")],
        ["leaderboard", "show", str(tmp), "-o", str(b / "board.md")],
        ["leaderboard", "eval-results", "--out", str(b / "er")],
        ["leaderboard", "space", "--repo", "a/b", "--out", str(b / "space")],
        ["export-training", str(stories), "-o", str(b / "train.jsonl")],
        ["export-training", str(stories), "-o", str(tmp / "t.jsonl"), "--hf-dir", str(b / "hf")],
        ["contexts", "--bank", "-o", str(b / "bank.jsonl")],
        ["infill", str(stories), "-o", str(b / "infilled.jsonl")],
        ["tomsynth", "generate", "--model", "x/y", "-o", str(b / "items.jsonl")],
        ["tomsynth", "qc", str(stories), "--no-verify", "-o", str(tmp / "v.jsonl"), "--report", str(b / "r.json")],
        ["tomsynth", "export-hf", str(stories), "--out-dir", str(b / "hf")],
        ["persuasion", "generate", "--persuader", "x/y", "--out", str(b / "d.jsonl")],
        ["persuasion", "evaluate", str(stories), "--judge", "x/y", "--out", str(b / "j.jsonl")],
        ["report", str(tmp), "--plot", str(b / "plot.png")],
        ["serve", "--log", str(b / "server.log")],
        ["demo", "--log-dir", str(b / "logs")],
        [*SEARCH, "--out", str(b / "run")],
    ]


def _without_inspects_hook_banner(output: str) -> str:
    """The output less the banner Inspect prints when it builds a model in a process where hooks are registered
    ("inspect_ai v... - hooks enabled: N ..."): here, by the live task other tests built in this process; a user's
    `tombench` command registers none."""
    if not output.startswith("inspect_ai v"):
        return output
    head, _, rest = output.partition("\n\n")
    assert "hooks enabled" in head, output
    return rest


@pytest.mark.timeout(300)
def test_an_unwritable_output_is_one_line(blocker: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    for args in _commands(blocker, tmp_path):
        r = runner.invoke(main, args)
        assert r.exit_code == 2, (args, r.output, r.exception)
        out = _without_inspects_hook_banner(r.output)
        assert out.startswith("error: ") and out.count("\n") == 1, (args, r.output)
        assert str(blocker) in out and ("not a folder" in out or "not a directory" in out), r.output
