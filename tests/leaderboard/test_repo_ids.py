"""Repo ids are checked once, by the Hub's own rules, before anything is read or written: one line, exit 2."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from tombench.cli import main

BAD = ["../etc", "tester/tom board", "results", "a/b--c", "org/" + "n" * 100, "a/b/c"]


@pytest.mark.parametrize("repo", BAD)
def test_bad_repo_ids_give_one_line_and_write_nothing(repo, logs, tmp_path, monkeypatch):
    monkeypatch.setenv("TOMBENCH_LEADERBOARD_HOME", str(tmp_path / "home"))
    commands = [["push", str(logs["strong"]), "--repo", repo],
                ["show", "--repo", repo],
                ["eval-results", "--repo", repo, "--out", str(tmp_path / "er")],
                ["space", "--repo", repo, "--out", str(tmp_path / "space")],
                ["space", "--repo", "org/fine", "--space", repo, "--out", str(tmp_path / "space")]]
    for args in commands:
        res = CliRunner().invoke(main, ["leaderboard", *args])
        assert res.exit_code == 2, (args, res.output)
        assert res.output.count("\n") == 1 and "is not a Hub repo id" in res.output, res.output
        assert "Traceback" not in res.output
    assert not (tmp_path / "home").exists() and not (tmp_path / "space").exists()
