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
import time
import uuid
from dataclasses import replace
from pathlib import Path

import pytest

from tombench.leaderboard import HubTimeout, PublishError, ResultRow, fetch_rows, push_rows, row_from_log, site_files
from tombench.leaderboard._site import model_slug, read_index, result_path

from .hub_server import HubTestServer, SilentServer

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
    # rows alone (no evaluation items pushed): eval.yaml defines no task, so no Eval Results entry points at one
    assert b"tasks: []" in files["eval.yaml"] and not any(p.startswith("eval_results/") for p in files)

    table = _load_dataset(hub, tmp_path, repo)
    assert sorted(t["submission_id"] for t in table) == sorted(r.submission_id for r in rows)
    loaded = {t["submission_id"]: ResultRow.from_dict(t) for t in table}
    for r in rows:  # typed round trip, breakdowns included
        assert loaded[r.submission_id].to_dict() == r.to_dict()
    assert sorted(r.submission_id for r in fetch_rows(repo, token=TOKEN, endpoint=hub.url)) == sorted(loaded)


_EVIDENCE_SCRIPT = """
import datasets, json, sys
from inspect_ai._eval.task.hf import task_create_from_hf
repo = sys.argv[1]
details = datasets.load_dataset(repo, "details", split="train").to_list()
items = datasets.load_dataset(repo, "items", split="tiny_tom").to_list()
(task,) = task_create_from_hf(f"hf/{repo}/tiny_tom")  # Inspect's reader of the Hub's eval.yaml
samples = [{"input": s.input, "target": s.target} for s in task.dataset]
print(json.dumps({"details": details, "items": items, "samples": samples}))
"""


def test_details_and_items_are_published_beside_the_table(hub, logs, tmp_path):
    """Issue #30.5 and #30.4: `load_dataset(repo, "details")` recomputes every row and pairs two models item by item;
    eval.yaml's task is built by Inspect's own `hf/` reader from the published items."""
    from tombench.leaderboard import LocalStore, add_logs

    store = LocalStore(tmp_path / "board")
    add_logs(store, [logs[k] for k in ("strong", "middle", "weak")])
    rows = store.rows()
    repo = _repo()
    details = {r.submission_id: store.details_path(r) for r in rows}
    push_rows(rows, repo, token=TOKEN, endpoint=hub.url, details=details, items=store.item_files())
    files = hub.files(repo)
    assert sum(p.startswith("data/details/") for p in files) == 3
    assert sum(p.startswith("data/items/tiny_tom/") for p in files) == 1  # the same six questions, stored once
    assert sum(p.startswith("eval_results/") for p in files) == 3  # one variant of each model

    out = subprocess.run([sys.executable, "-c", _EVIDENCE_SCRIPT, repo], env=_env(hub, tmp_path),
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    by_row: dict[str, list[dict]] = {}
    for d in got["details"]:
        by_row.setdefault(d["submission_id"], []).append(d)
    for r in rows:  # every row recomputed from its details
        scores = [d["score"] for d in by_row[r.submission_id]]
        assert len(scores) == r.samples_completed and sum(scores) / len(scores) == pytest.approx(r.accuracy)
    strong, middle = (next(r for r in rows if r.model == m) for m in ("mockllm/strong-7b", "mockllm/middle-1.5b"))
    pairs = {}
    for d in got["details"]:
        pairs.setdefault(d["item_key"], {})[d["model"]] = d["score"]
    only_strong = sum(p[strong.model] > p[middle.model] for p in pairs.values())
    only_middle = sum(p[middle.model] > p[strong.model] for p in pairs.values())
    assert (only_strong, only_middle) == (3, 0)  # strong alone right on the 3 questions middle missed
    for r in rows:  # the same item keys and scores the row's paired tests use
        mine = {d["item_key"]: d["score"] for d in by_row[r.submission_id]}
        assert mine == {k: v for k, (_, v) in r.items.by_key().items()}
    miss = next(d for d in by_row[middle.submission_id] if d["score"] == 0)  # a matcher decision, auditable
    assert miss["target"] and miss["completion"] and miss["answer"] is not None and miss["story_id"]
    assert {g["dimension"] for g in miss["breakdown"]} >= {"action_set", "order"}
    assert len(got["samples"]) == 6  # the task Inspect built asks exactly the published items
    assert sorted((i["input"], i["target"]) for i in got["items"]) == sorted(
        (s["input"], s["target"]) for s in got["samples"])


def test_a_row_file_written_before_a_new_field_still_loads(hub, logs, tmp_path, monkeypatch):
    """Fields are added at the end with defaults (`settings_total`): a Hub file written without one loads as null
    beside new rows, through the card's declared features and through fetch_rows."""
    repo = _repo()
    new = row_from_log(logs["strong"])
    old = replace(row_from_log(logs["weak"]), submission_id="old-row")
    to_dict = ResultRow.to_dict
    monkeypatch.setattr(ResultRow, "to_dict", lambda self: {k: v for k, v in to_dict(self).items()
                                                            if k != "settings_total"})
    push_rows([old], repo, token=TOKEN, endpoint=hub.url)
    assert b"settings_total" not in hub.files(repo)[result_path("old-row")]
    monkeypatch.setattr(ResultRow, "to_dict", to_dict)
    push_rows([new], repo, token=TOKEN, endpoint=hub.url)
    table = {t["submission_id"]: t for t in _load_dataset(hub, tmp_path, repo)}
    assert set(table) == {"old-row", new.submission_id} and table["old-row"]["settings_total"] is None
    assert {r.submission_id for r in fetch_rows(repo, token=TOKEN, endpoint=hub.url)} == set(table)


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


def _push_in_process(url: str, repo: str, rows: list[ResultRow], barrier, out) -> None:  # noqa: ANN001
    try:
        barrier.wait(timeout=60)
        result = push_rows(rows, repo, token=TOKEN, endpoint=url, seed=hash(rows[0].submission_id))
        out.put((rows[0].submission_id, result.added, result.already))
    except BaseException as e:  # surfaced in the parent
        out.put((rows[0].submission_id, None, repr(e)))


def test_twelve_concurrent_processes_give_twelve_rows_and_truthful_claims(hub, logs, tmp_path):
    """12 processes push at once; like CLI runs sharing one local copy, each also re-sends rows other processes
    kept locally. Every row lands once, and the claims ("pushed N new") add up to exactly 12 (they summed to 44)."""
    import multiprocessing

    repo = _repo()
    base = row_from_log(logs["middle"])
    push_rows([], repo, token=TOKEN, endpoint=hub.url)
    rows = [replace(base, submission_id=f"concurrent-{i:02d}", model=f"mockllm/model-{i:02d}") for i in range(12)]
    ctx = multiprocessing.get_context("fork")  # children inherit the imports: 12 real processes in seconds
    barrier, out = ctx.Barrier(12), ctx.Queue()
    procs = [ctx.Process(target=_push_in_process, args=(hub.url, repo, [r] + rows[:i:3], barrier, out))
             for i, r in enumerate(rows)]
    for p in procs:
        p.start()
    results = [out.get(timeout=300) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    assert all(added is not None for _, added, _ in results), results
    claimed = [sid for _, added, _ in results for sid in added]
    assert sorted(claimed) == [r.submission_id for r in rows]  # each row claimed by exactly one process
    for own, added, already in results:
        assert own in added or own in already
    table = _load_dataset(hub, tmp_path, repo)
    assert sorted(t["submission_id"] for t in table) == [r.submission_id for r in rows]
    md = hub.files(repo)["leaderboard.md"].decode()
    assert all(r.model in md for r in rows)  # the last commit's views include every row: no lost update
    index = hub.files(repo)["data/index.jsonl"].decode()
    assert sorted(read_index(index)) == [r.submission_id for r in rows]


@pytest.mark.parametrize("branches_only", [False, True])
def test_identical_files_committed_meanwhile_are_not_claimed(hub, logs, branches_only, monkeypatch):
    """Issue #18.6: another process commits exactly our files between our read and our upload. huggingface_hub
    drops unchanged files from a commit, so the push used to make no commit and still say "pushed". Also where
    the Hub takes no commit id for the preupload (the publisher then compares with the branch)."""
    monkeypatch.setattr(hub.state, "preupload_branches_only", branches_only)
    repo = _repo()
    mine = row_from_log(logs["strong"])
    push_rows([], repo, token=TOKEN, endpoint=hub.url)
    commits = hub.commit_count(repo)

    def same_push_elsewhere(r) -> None:
        files = {result_path(mine.submission_id): (mine.to_json() + "\n").encode(),
                 **site_files([mine], repo, hub.url)}
        hub.state.add_commit(r, files)

    hub.state.interpose_preupload = same_push_elsewhere
    start = len(hub.state.requests)
    result = push_rows([mine], repo, token=TOKEN, endpoint=hub.url, seed=0)
    assert result.added == [] and result.already == [mine.submission_id] and result.commit is None
    commits_sent = sum(m == "POST" and "/commit/" in p for m, p in hub.state.requests[start:])
    assert commits_sent == (0 if branches_only else 1)  # sent and refused (412), or never sent
    assert hub.commit_count(repo) == commits + 1  # only the other process's commit
    assert result_path(mine.submission_id) in hub.files(repo)


def test_push_cost_does_not_grow_with_the_repo(hub, logs):
    """Issue #18.10: a push listed the tree and fetched every result file (requests grew with the repo)."""
    base = row_from_log(logs["weak"])
    counts = {}
    for size in (3, 30):
        repo = _repo()
        rows = [replace(base, submission_id=f"r{i:03d}", model=f"mockllm/m{i}") for i in range(size)]
        push_rows(rows, repo, token=TOKEN, endpoint=hub.url)
        for known in ("none", "all"):
            new = replace(base, submission_id=f"new-{known}", model=f"mockllm/new-{known}")
            start = len(hub.state.requests)
            push_rows([new], repo, token=TOKEN, endpoint=hub.url, known=rows if known == "all" else ())
            reqs = hub.state.requests[start:]
            counts[(size, known)] = len(reqs)
            assert not any("/tree/" in p for _, p in reqs)  # no listing
            assert sum("/resolve/" in p for _, p in reqs) <= 2  # at most the index (HEAD + GET)
            rows.append(new)
    assert counts == {(3, "none"): 6, (3, "all"): 4, (30, "none"): 6, (30, "all"): 4}
    start = len(hub.state.requests)
    assert len(fetch_rows(repo, token=TOKEN, endpoint=hub.url)) == 32
    assert len(hub.state.requests) - start == 3  # info, index HEAD + GET


def test_missing_token_and_unreachable_hub_are_one_line_errors(hub, logs, monkeypatch):
    import huggingface_hub

    row = row_from_log(logs["weak"])
    monkeypatch.setattr(huggingface_hub, "get_token", lambda: None)
    with pytest.raises(PublishError, match="no Hugging Face token"):
        push_rows([row], _repo(), endpoint=hub.url)
    with pytest.raises(PublishError, match="could not reach the Hub") as err:
        push_rows([row], _repo(), token=TOKEN, endpoint="http://127.0.0.1:9")  # discard port: refused
    assert "\n" not in str(err.value)


def test_a_hub_that_never_answers_ends_the_push_with_one_line(logs):
    """Issue #18.7: a Hub that accepts connections but never answers used to hang the push forever."""
    row = row_from_log(logs["weak"])
    with SilentServer() as url:
        start = time.monotonic()
        with pytest.raises(HubTimeout, match=r"did not answer within 1 s$") as err:
            push_rows([row], _repo(), token=TOKEN, endpoint=url, timeout=1)
        assert time.monotonic() - start < 10 and "\n" not in str(err.value)
        with pytest.raises(HubTimeout):
            fetch_rows(_repo(), token=TOKEN, endpoint=url, timeout=1)


def test_a_download_that_never_returns_ends_within_the_deadline(logs):
    """Issue #30.7: huggingface_hub retries a timed-out download (5 times, with backoff), so `--timeout 2` took
    10 s; the deadline now covers the whole operation. (A loose bound, not a speed goal.)"""
    with HubTestServer() as own:
        repo = _repo()
        push_rows([row_from_log(logs["weak"])], repo, token=TOKEN, endpoint=own.url)
        own.state.stall("GET", r"/resolve/")
        own.state.stall("HEAD", r"/resolve/")
        start = time.monotonic()
        with pytest.raises(HubTimeout, match=r"did not answer within 1 s$"):
            fetch_rows(repo, token=TOKEN, endpoint=own.url, timeout=1)  # a fresh reader needs the index
        assert time.monotonic() - start < 1 + 5


def test_a_commit_that_never_returns_times_out_and_says_it_may_have_landed(logs):
    row = row_from_log(logs["weak"])
    with HubTestServer() as own:  # its own server: the stall lasts until it stops
        repo = _repo()
        push_rows([], repo, token=TOKEN, endpoint=own.url)
        own.state.stall("POST", r"/commit/")
        start = time.monotonic()
        with pytest.raises(HubTimeout, match="may have landed") as err:
            push_rows([row], repo, token=TOKEN, endpoint=own.url, timeout=1)
        assert time.monotonic() - start < 10 and "\n" not in str(err.value)


def _cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tombench", "leaderboard", *args], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_cli_push_show_and_offline_keeps_rows(hub, logs, tmp_path):
    repo, env = _repo(), _env(hub, tmp_path)
    pushed = _cli(["push", str(logs["strong"]), str(logs["middle"]), str(logs["weak"]), "--repo", repo,
                   "--submitter", "ci", "--with-logs"], env)
    assert pushed.returncode == 0, pushed.stderr
    assert "pushed 3 new submission(s)" in pushed.stdout
    assert pushed.stderr == ""  # no terminal: no progress drawn, nothing but the result lines
    assert sum(p.startswith("logs/") for p in hub.files(repo)) == 3
    assert sum(p.startswith("data/details/") for p in hub.files(repo)) == 3  # the evidence went with the rows
    assert b"config_name: details" in hub.files(repo)["README.md"]

    shown = _cli(["show", "--repo", repo, "--format", "markdown"], env)
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    assert out.index("mockllm/strong-7b") < out.index("mockllm/middle-1.5b") < out.index("mockllm/weak-135m")
    assert "action\\_set" in out and "tomi+info" in out and "interesting" in out and "95% CI" in out
    assert "vs next" in out and "p=" in out  # same task and items: paired tests between neighbours

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


def test_cli_exit_codes_say_what_happened(hub, logs, tmp_path, monkeypatch):
    """Issue #18.6: when every given log was skipped, the push exited 0. (In-process: the endpoint is patched.)"""
    import huggingface_hub.constants as constants
    from click.testing import CliRunner

    from tombench.cli import main

    from .tiny_task import make_hello_log

    monkeypatch.setattr(constants, "ENDPOINT", hub.url)
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    repo, hello = _repo(), make_hello_log(tmp_path / "hello")

    def push(*args: str):
        return CliRunner().invoke(main, ["leaderboard", "push", *args, "--repo", repo])

    assert push(str(logs["weak"])).exit_code == 0
    refused = push(str(hello))  # the only log given is refused: nothing to do
    assert refused.exit_code == 2 and "error: none of the 1 given log(s) could be added" in refused.output
    assert "is not a tombench task" in refused.output and "Traceback" not in refused.output
    partial = push(str(hello), str(logs["middle"]))  # one refused, one pushed
    assert partial.exit_code == 1 and "pushed 1 new submission(s)" in partial.output
    assert "error: 1 of 2 log(s) refused" in partial.output
    again = push(str(logs["middle"]))  # nothing new, nothing refused
    assert again.exit_code == 0 and "nothing new to push" in again.output
    with SilentServer() as url:  # a Hub that never answers: one line after --timeout, the rows kept
        monkeypatch.setattr(constants, "ENDPOINT", url)
        start = time.monotonic()
        hung = push(str(logs["strong"]), "--timeout", "1")
        assert time.monotonic() - start < 10
    assert hung.exit_code == 2 and "did not answer within 1 s" in hung.output and "push them later" in hung.output
    assert hung.output.strip().splitlines()[-1].startswith("error: the Hub at http://127.0.0.1:")


def test_every_hub_command_takes_timeout_and_ends_with_one_line(logs, tmp_path, monkeypatch):
    """Issue #30.7: `show` and `eval-results` had no --timeout (39 s against a silent Hub). Each now ends within
    its --timeout (plus generous slack: a bound, not a speed goal) with one line."""
    import huggingface_hub.constants as constants
    from click.testing import CliRunner

    from tombench.cli import main

    monkeypatch.setenv("HF_TOKEN", TOKEN)
    commands = [["show", "--repo", "o/board"], ["eval-results", "--repo", "o/board", "--out", str(tmp_path / "er")],
                ["push", str(logs["weak"]), "--repo", "o/board"]]
    with SilentServer() as url:
        monkeypatch.setattr(constants, "ENDPOINT", url)
        for args in commands:
            start = time.monotonic()
            res = CliRunner().invoke(main, ["leaderboard", *args, "--timeout", "1"])
            assert time.monotonic() - start < 1 + 5, args
            assert res.exit_code == 2 and "Traceback" not in res.output, (args, res.output)
            last = res.output.strip().splitlines()[-1]
            assert last.startswith(f"error: the Hub at {url} did not answer within 1 s"), (args, res.output)


def test_cli_user_errors_are_one_line(tmp_path):
    env = dict(os.environ, TOMBENCH_LEADERBOARD_HOME=str(tmp_path))
    for args in (["push"], ["push", str(tmp_path / "missing.eval")], ["show", str(tmp_path / "nothing")],
                 ["push", "--repo", "not-a-repo-id"]):
        res = _cli(args, env)
        assert res.returncode == 2 and res.stderr.startswith("error: ") and res.stderr.count("\n") == 1, args


def test_eval_results_from_the_hub_pin_the_commit_and_link_the_endpoint(hub, logs, tmp_path, monkeypatch):
    """Issue #30.4: `eval-results --repo` ignored HF_ENDPOINT in `source.url` and never set `dataset.revision`."""
    import huggingface_hub.constants as constants
    import yaml
    from click.testing import CliRunner

    from tombench.cli import main

    monkeypatch.setattr(constants, "ENDPOINT", hub.url)  # what HF_ENDPOINT sets when huggingface_hub is imported
    monkeypatch.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE", hub.url + "/{repo_id}/resolve/{revision}/{filename}")
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    repo, out = _repo(), tmp_path / "er"
    pushed = CliRunner().invoke(main, ["leaderboard", "push", str(logs["strong"]), str(logs["strong_hot"]),
                                       "--repo", repo, "--local-dir", str(tmp_path / "board")])
    assert pushed.exit_code == 0, pushed.output
    head = hub.state.repos[("dataset", repo)].head.oid
    res = CliRunner().invoke(main, ["leaderboard", "eval-results", "--repo", repo, "--out", str(out)])
    assert res.exit_code == 0 and "2 entry file(s) for 1 model(s)" in res.output, res.output
    files = sorted((out / model_slug("mockllm/strong-7b") / ".eval_results").glob("*.yaml"))
    assert len(files) == 2  # two temperatures of one model: two variants, two files
    for path in files:
        (entry,) = yaml.safe_load(path.read_text())
        assert entry["dataset"] == {"id": repo, "task_id": "tiny_tom", "revision": head}
        assert entry["source"]["url"].startswith(f"{hub.url}/datasets/{repo}/blob/{head}/data/results/")
    assert yaml.safe_load((out / "eval.yaml").read_text())["tasks"][0]["split"] == "tiny_tom"
