"""The push path against the local Hub look-alike, driven by the real `huggingface_hub` and `datasets` clients.

The test server (hub_server.py) emulates repo creation, preupload, NDJSON commits with the parent-commit check
(412), repo info, tree, paths-info and resolve. It does not cover large-file (LFS/Xet) uploads, pull requests, auth
scopes or the Hub's metadata validation; test_live.py pushes to the real Hub when a token and a test repo are set.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import uuid
from dataclasses import replace
from pathlib import Path

import pytest

from tombench.leaderboard import PublishError, ResultRow, fetch_rows, push_rows, row_from_log
from tombench.leaderboard._site import result_path

TOKEN = "hf_test_token"
ROOT = Path(__file__).resolve().parents[2]


def _repo() -> str:
    return f"tester/board-{uuid.uuid4().hex[:8]}"


def _env(hub, tmp_path: Path) -> dict[str, str]:
    """A client process pointed at the test server: module-level constants read HF_ENDPOINT at import."""
    env = dict(os.environ, HF_ENDPOINT=hub.url, HF_HOME=str(tmp_path / "hf-sub"), HF_TOKEN=TOKEN,
               HF_HUB_DISABLE_TELEMETRY="1", TOMBENCH_LEADERBOARD_HOME=str(tmp_path / "boards-sub"))
    env.pop("HF_HUB_OFFLINE", None)
    env.pop("HF_DATASETS_OFFLINE", None)
    return env


def _load_dataset(hub, tmp_path: Path, repo: str) -> list[dict]:
    code = ("import datasets, json, sys; d = datasets.load_dataset(sys.argv[1], split='train'); "
            "print(json.dumps(d.to_list(), default=lambda o: o.isoformat()))")
    out = subprocess.run([sys.executable, "-c", code, repo], env=_env(hub, tmp_path), capture_output=True,
                         text=True, timeout=180)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_push_then_load_dataset_returns_the_rows(hub, logs, tmp_path):
    repo = _repo()
    rows = [row_from_log(logs[k]) for k in ("strong", "middle", "weak")]
    result = push_rows(rows, repo, token=TOKEN, endpoint=hub.url)
    assert sorted(result.added) == sorted(r.submission_id for r in rows) and result.attempts == 1
    files = hub.files(repo)
    assert {result_path(r.submission_id) for r in rows} <= set(files)
    assert {"README.md", "leaderboard.md", "leaderboard.html", "eval.yaml"} <= set(files)
    assert b"evaluation_framework: inspect-ai" in files["eval.yaml"]
    assert any(p.startswith("eval_results/") for p in files)

    table = _load_dataset(hub, tmp_path, repo)
    assert sorted(t["submission_id"] for t in table) == sorted(r.submission_id for r in rows)
    loaded = {t["submission_id"]: ResultRow.from_dict(t) for t in table}
    for r in rows:  # typed round trip, breakdowns included
        assert loaded[r.submission_id].to_dict() == r.to_dict()
    assert sorted(r.submission_id for r in fetch_rows(repo, token=TOKEN, endpoint=hub.url)) == sorted(loaded)


def test_repushing_the_same_log_adds_nothing(hub, logs):
    repo = _repo()
    row = row_from_log(logs["weak"])
    push_rows([row], repo, token=TOKEN, endpoint=hub.url)
    commits = hub.commit_count(repo)
    again = push_rows([row_from_log(logs["weak"])], repo, token=TOKEN, endpoint=hub.url)
    assert again.added == [] and again.already == [row.submission_id]
    assert hub.commit_count(repo) == commits
    assert len(fetch_rows(repo, token=TOKEN, endpoint=hub.url)) == 1


def test_stale_parent_commit_is_retried_without_losing_either_update(hub, logs):
    repo = _repo()
    mine, theirs = row_from_log(logs["strong"]), row_from_log(logs["middle"])
    push_rows([], repo, token=TOKEN, endpoint=hub.url)  # creates the repo

    def competing_push(r) -> None:  # another client commits between our read and our commit
        hub.state.add_commit(r, {result_path(theirs.submission_id): (theirs.to_json() + "\n").encode()})

    hub.state.interpose = competing_push
    rejected = hub.state.rejected_commits
    retries: list[int] = []
    result = push_rows([mine], repo, token=TOKEN, endpoint=hub.url, seed=0, on_retry=lambda n, _: retries.append(n))
    assert hub.state.rejected_commits == rejected + 1 and retries == [1] and result.attempts == 2
    assert result.added == [mine.submission_id]
    files = hub.files(repo)
    assert result_path(mine.submission_id) in files and result_path(theirs.submission_id) in files
    # the views were regenerated from the new head: both models are on the board
    assert mine.model.encode() in files["leaderboard.md"] and theirs.model.encode() in files["leaderboard.md"]


def test_twelve_concurrent_pushes_give_twelve_rows(hub, logs, tmp_path):
    repo = _repo()
    base = row_from_log(logs["middle"])
    push_rows([], repo, token=TOKEN, endpoint=hub.url)
    rows = [replace(base, submission_id=f"concurrent-{i:02d}", model=f"mockllm/model-{i:02d}") for i in range(12)]
    errors: list[BaseException] = []
    barrier = threading.Barrier(12)

    def one(r: ResultRow) -> None:
        try:
            barrier.wait(timeout=30)
            push_rows([r], repo, token=TOKEN, endpoint=hub.url, seed=hash(r.submission_id))
        except BaseException as e:  # surfaced below
            errors.append(e)

    threads = [threading.Thread(target=one, args=(r,)) for r in rows]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not errors, errors
    table = _load_dataset(hub, tmp_path, repo)
    assert sorted(t["submission_id"] for t in table) == [r.submission_id for r in rows]
    md = hub.files(repo)["leaderboard.md"].decode()
    assert all(r.model in md for r in rows)  # the last commit's views include every row: no lost update


def test_missing_token_and_unreachable_hub_are_one_line_errors(hub, logs, monkeypatch):
    import huggingface_hub

    row = row_from_log(logs["weak"])
    monkeypatch.setattr(huggingface_hub, "get_token", lambda: None)
    with pytest.raises(PublishError, match="no Hugging Face token"):
        push_rows([row], _repo(), endpoint=hub.url)
    with pytest.raises(PublishError, match="could not reach the Hub") as err:
        push_rows([row], _repo(), token=TOKEN, endpoint="http://127.0.0.1:9")  # discard port: refused
    assert "\n" not in str(err.value)


def _cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tombench", "leaderboard", *args], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_cli_push_show_and_offline_keeps_rows(hub, logs, tmp_path):
    repo, env = _repo(), _env(hub, tmp_path)
    pushed = _cli(["push", str(logs["strong"]), str(logs["middle"]), str(logs["weak"]), "--repo", repo,
                   "--submitter", "ci", "--with-logs"], env)
    assert pushed.returncode == 0, pushed.stderr
    assert "pushed 3 new submission(s)" in pushed.stdout
    assert sum(p.startswith("logs/") for p in hub.files(repo)) == 3

    shown = _cli(["show", "--repo", repo], env)
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    assert out.index("mockllm/strong-7b") < out.index("mockllm/middle-1.5b") < out.index("mockllm/weak-135m")
    assert "action_set" in out and "tomi+info" in out and "interesting" in out and "95% CI" in out

    html_out = tmp_path / "board.html"
    assert _cli(["show", "--repo", repo, "--format", "html", "-o", str(html_out)], env).returncode == 0
    assert "<table" in html_out.read_text()

    offline = dict(env, HF_ENDPOINT="http://127.0.0.1:9")
    failed = _cli(["push", str(logs["strong_hot"]), "--repo", repo], offline)
    assert failed.returncode == 2 and failed.stderr.count("\n") == 1 and "Traceback" not in failed.stderr
    assert "push them later" in failed.stderr
    # the row was kept locally; once the Hub is back, pushing with no logs sends it
    later = _cli(["push", "--repo", repo], env)
    assert later.returncode == 0 and "pushed 1 new submission(s)" in later.stdout, later.stderr
    assert len(fetch_rows(repo, token=TOKEN, endpoint=hub.url)) == 4


def test_cli_user_errors_are_one_line(tmp_path):
    env = dict(os.environ, TOMBENCH_LEADERBOARD_HOME=str(tmp_path))
    for args in (["push"], ["push", str(tmp_path / "missing.eval")], ["show", str(tmp_path / "nothing")],
                 ["push", "--repo", "not-a-repo-id"]):
        res = _cli(args, env)
        assert res.returncode == 2 and res.stderr.startswith("error: ") and res.stderr.count("\n") == 1, args
