"""The CLI without a Hub: rows kept in a local folder, shown from it, and the Eval Results files written."""

from __future__ import annotations

import yaml
from click.testing import CliRunner

from tombench.cli import main
from tombench.leaderboard import LocalStore, row_from_log
from tombench.leaderboard._site import model_slug


def test_local_push_show_and_eval_results(logs, tmp_path):
    runner = CliRunner()
    board = tmp_path / "board"
    res = runner.invoke(main, ["leaderboard", "push", str(logs["strong"]), str(logs["strong_rerun"]),
                               str(logs["weak"]), "--local-dir", str(board), "--open-weights", "--notes", "n"])
    assert res.exit_code == 0, res.output
    assert "not pushed: no --repo" in res.output
    rows = LocalStore(board).rows()
    assert len(rows) == 3 and all(r.open_weights and r.notes == "n" for r in rows)
    card = (board / "README.md").read_text()
    assert (board / "leaderboard.html").exists() and "configs:" in card and "dataset_info:" in card

    again = runner.invoke(main, ["leaderboard", "push", str(logs["weak"]), "--local-dir", str(board)])
    assert "already kept" in again.output and len(LocalStore(board).rows()) == 3  # immutable, no duplicate

    md = runner.invoke(main, ["leaderboard", "show", str(board), "--format", "markdown"])
    assert md.exit_code == 0
    # the re-run replaced the first run of the same configuration: two models ranked, one older submission kept
    assert "2 model(s); 1 older submission(s) in history" in md.output
    history = runner.invoke(main, ["leaderboard", "show", str(board), "--format", "markdown", "--history"])
    assert "3 model(s)" in history.output
    only = runner.invoke(main, ["leaderboard", "show", str(board), "--format", "markdown", "--dimension", "order"])
    assert "order: 2" in only.output and "action\\_set" not in only.output

    out = tmp_path / "eval_results"
    no_benchmark = runner.invoke(main, ["leaderboard", "eval-results", str(board), "--out", str(out)])
    assert no_benchmark.exit_code == 2 and "--benchmark ORG/NAME" in no_benchmark.output
    er = runner.invoke(main, ["leaderboard", "eval-results", str(board), "--out", str(out),
                              "--benchmark", "my-org/tombench-board"])
    assert er.exit_code == 0, er.output
    assert "2 entry file(s) for 2 model(s)" in er.output  # the re-run of strong (newest of its config), weak
    spec = yaml.safe_load((out / "eval.yaml").read_text())
    assert spec["evaluation_framework"] == "inspect-ai" and spec["tasks"][0]["id"] == "tiny_tom"
    assert spec["tasks"][0]["config"] == "items" and spec["tasks"][0]["split"] == "tiny_tom"
    rerun = row_from_log(logs["strong_rerun"])
    (path,) = (out / model_slug("mockllm/strong-7b") / ".eval_results").glob("*.yaml")
    assert path.name == f"tombench_tiny_tom_{rerun.config_hash[:8]}.yaml"
    entries = yaml.safe_load(path.read_text())
    assert entries == [{"dataset": {"id": "my-org/tombench-board", "task_id": "tiny_tom"},
                        "value": round(100 * rerun.accuracy, 2), "date": rerun.created_at,
                        "source": {"url": "https://huggingface.co/datasets/my-org/tombench-board/blob/main/"
                                          f"data/results/{rerun.submission_id}.json",
                                   "name": "tombench leaderboard row"},
                        "notes": entries[0]["notes"]}]
    assert "data tombench-test/tiny-tom@0123456789ab" in entries[0]["notes"]
    from huggingface_hub import parse_eval_result_entries

    assert parse_eval_result_entries(entries)[0].value == round(100 * rerun.accuracy, 2)


def test_show_reads_local_dir_and_fits_120_columns(logs, tmp_path):
    """Issue #32.6: `show --local-dir X` was refused though `push` has it; the table was 240 columns wide."""
    runner = CliRunner()
    board = tmp_path / "board"
    res = runner.invoke(main, ["leaderboard", "push", str(logs["strong"]), str(logs["middle"]), str(logs["weak"]),
                               "--local-dir", str(board)])
    assert res.exit_code == 0, res.output
    shown = runner.invoke(main, ["leaderboard", "show", "--local-dir", str(board)])
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert max(len(line) for line in lines) <= 120
    for model in ("mockllm/strong-7b", "mockllm/middle-1.5b", "mockllm/weak-135m"):
        assert len([ln for ln in lines if model in ln]) == 1  # one line a row
    assert "action_set" not in shown.output and "Rank: 1 + the number of rows significantly better" in shown.output
    detailed = runner.invoke(main, ["leaderboard", "show", "--local-dir", str(board), "--breakdowns"])
    assert detailed.exit_code == 0 and "breakdowns: value [95% CI] n" in detailed.output
    assert max(len(line) for line in detailed.output.splitlines()) <= 120
    assert runner.invoke(main, ["leaderboard", "show", str(board)]).output == shown.output
    both = runner.invoke(main, ["leaderboard", "show", str(tmp_path), "--local-dir", str(board)])
    assert both.exit_code != 0 and "not both" in both.output


def test_push_shows_progress_on_a_terminal_only(hub, logs, tmp_path, monkeypatch):
    """Issue #32.6: `push` read logs for half a minute with nothing shown. On a terminal (here forced with rich's
    TTY_COMPATIBLE) a progress bar is drawn on stderr while logs are read and a spinner while the Hub works;
    piped, stderr stays empty."""
    import huggingface_hub.constants as constants

    runner = CliRunner()
    args = ["leaderboard", "push", str(logs["strong"]), str(logs["weak"])]
    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    monkeypatch.setenv("HF_TOKEN", "hf_test_token")
    monkeypatch.setattr(constants, "ENDPOINT", hub.url)
    shown = runner.invoke(main, [*args, "--local-dir", str(tmp_path / "a"), "--repo", "tester/progress"])
    assert shown.exit_code == 0, shown.output
    assert "reading logs" in shown.stderr and "2/2" in shown.stderr
    assert "pushing 2 row(s) to tester/progress" in shown.stderr and "pushed 2 new" in shown.stdout
    monkeypatch.setenv("TTY_COMPATIBLE", "0")
    piped = runner.invoke(main, [*args, "--local-dir", str(tmp_path / "b")])
    assert piped.exit_code == 0 and piped.stderr == ""
    assert "not pushed: no --repo" in piped.stdout


def test_details_load_offline_from_a_local_copy_and_recompute_each_row(logs, tmp_path):
    """Issue #30.5: the local copy has the Hub repo's layout, so `load_dataset(folder, "details")` works offline."""
    import datasets

    board = tmp_path / "board"
    res = CliRunner().invoke(main, ["leaderboard", "push", str(logs["middle"]), str(logs["weak"]),
                                    "--local-dir", str(board)])
    assert res.exit_code == 0, res.output
    details = datasets.load_dataset(str(board), "details", split="train", cache_dir=str(tmp_path / "cache"))
    items = datasets.load_dataset(str(board), "items", split="tiny_tom", cache_dir=str(tmp_path / "cache"))
    assert len(items) == 6 and set(items["item_key"]) == set(details["item_key"])
    for r in LocalStore(board).rows():
        scores = [d["score"] for d in details if d["submission_id"] == r.submission_id]
        assert len(scores) == 6 and sum(scores) / len(scores) == r.accuracy
