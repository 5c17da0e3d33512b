"""The kit's one Hub writer (`tombench.kit.hub`) against the local Hub look-alike, driven by the real client.

The leaderboard's push path (conflict retries, truthful claims, request counts) is tested in
tests/leaderboard/test_publish.py; here: the writer's own guarantees, and the other two writers that use it (the
ToM-Synth export and the Eval Results pull requests).
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest

from tests.leaderboard.hub_server import HubTestServer, SilentServer
from tombench.kit.hub import HubConflict, HubError, HubRepo, HubTimeout, folder_files

TOKEN = "hf_test_token"


@pytest.fixture(autouse=True)
def _isolated(isolated_hf: None) -> None:
    """Every test here on a throwaway Hugging Face home (tests/conftest.py)."""


def _repo(hub: HubTestServer, **kw: object) -> HubRepo:
    return HubRepo(f"tester/kit-{uuid.uuid4().hex[:8]}", token=TOKEN, endpoint=hub.url, **kw)


def test_commit_on_the_head_read_and_read_back(hub: HubTestServer) -> None:
    repo = _repo(hub)
    head = repo.head(create=True)
    commit = repo.commit({"a.txt": b"one\n"}, "add a", parent=head.sha, new={"a.txt"})
    assert commit is not None and hub.files(repo.repo_id)["a.txt"] == b"one\n"
    assert repo.read_text("a.txt", commit.oid) == "one\n"
    assert repo.head().sha == commit.oid


def test_a_stale_parent_is_a_conflict_never_an_overwrite(hub: HubTestServer) -> None:
    repo = _repo(hub)
    stale = repo.head(create=True).sha
    repo.commit({"theirs.txt": b"theirs"}, "another writer", parent=stale)
    with pytest.raises(HubConflict, match="changed while committing") as err:
        repo.commit({"mine.txt": b"mine"}, "ours", parent=stale)
    assert "\n" not in str(err.value)
    files = hub.files(repo.repo_id)
    assert "mine.txt" not in files and files["theirs.txt"] == b"theirs"


def test_upload_folder_creates_the_repo_and_skips_hidden_files(hub: HubTestServer, tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "train.jsonl").write_text("{}\n")
    (tmp_path / "README.md").write_text("# card\n")
    (tmp_path / ".cache").mkdir()
    (tmp_path / ".cache" / "lock").write_text("x")
    assert list(folder_files(tmp_path)) == ["README.md", "data/train.jsonl"]
    repo = _repo(hub)
    sha = repo.upload_folder(tmp_path, "upload")
    files = hub.files(repo.repo_id)
    assert files["data/train.jsonl"] == b"{}\n" and ".cache/lock" not in files
    assert repo.head().sha == sha


def test_tomsynth_export_pushes_through_the_writer(hub: HubTestServer, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub.constants as constants

    from tests.generators.tomsynth.test_qc import make_item
    from tombench.generators.tomsynth.hub import export_dataset, push_to_hub

    monkeypatch.setattr(constants, "ENDPOINT", hub.url)
    folder = export_dataset([make_item(i) for i in range(3)], tmp_path / "hf")
    repo_id = f"tester/tomsynth-{uuid.uuid4().hex[:8]}"
    try:
        sha = push_to_hub(folder, repo_id, token=TOKEN)
    except HubError as e:  # the test server does not emulate LFS uploads (parquet may go as LFS)
        pytest.skip(f"not emulated: {e}")
    assert len(sha) == 40 and b"ToM-Synth" in hub.files(repo_id)["README.md"]


def test_missing_token_unreachable_and_refused_are_one_line(hub: HubTestServer,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    import huggingface_hub

    monkeypatch.setattr(huggingface_hub, "get_token", lambda: None)
    with pytest.raises(HubError, match="no Hugging Face token"):
        HubRepo("tester/x", endpoint=hub.url)
    HubRepo("tester/x", endpoint=hub.url, writing=False)  # reading needs no token
    with pytest.raises(HubError, match="could not reach the Hub to push to tester/x") as err:
        HubRepo("tester/x", token=TOKEN, endpoint="http://127.0.0.1:9").head(create=True)
    assert "\n" not in str(err.value)
    with pytest.raises(HubError, match=r"could not read tester/absent from the Hub \(HTTP 404\)$"):
        HubRepo("tester/absent", endpoint=hub.url, writing=False).head()


def test_a_hub_that_never_answers_times_out_with_one_line() -> None:
    with SilentServer() as url:
        start = time.monotonic()
        with pytest.raises(HubTimeout, match=r"did not answer within 1 s$"):
            HubRepo("tester/x", token=TOKEN, endpoint=url, timeout=1).head(create=True)
        assert time.monotonic() - start < 10


def test_eval_result_prs_say_one_line_per_model(hub: HubTestServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The test server does not emulate pull requests: each model's failure is one line, the loop goes on."""
    import huggingface_hub.constants as constants

    from tombench.leaderboard import open_eval_result_prs

    monkeypatch.setattr(constants, "ENDPOINT", hub.url)
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    hub.state.create("model", "org/model-a")
    lines = list(open_eval_result_prs({"mockllm/model": {}, "hf/org/model-a": {"tombench_t_c.yaml": [{"x": 1}]}}))
    assert lines[0] == "skipped mockllm/model: not a Hub model id"
    assert lines[1].startswith("could not open a PR on org/model-a: ") and "HTTP 501" in lines[1]


def test_an_upload_gets_more_time_than_a_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """The deadline meant for a silent Hub must not cut off a large export: one more second per MB sent."""
    import tombench.kit.hub as hub_module

    seen: list[float | None] = []
    monkeypatch.setattr(hub_module, "bounded", lambda call, seconds, on_timeout: seen.append(seconds) or call())
    repo = HubRepo("tester/x", token=TOKEN, endpoint="http://127.0.0.1:9", timeout=2)
    monkeypatch.setattr(repo.api, "create_commit", lambda *a, **k: "committed")
    assert repo.commit({"big.bin": b"x" * 3_000_000}, "m") == "committed"
    assert seen == [pytest.approx(2 + 3_000_000 / hub_module.UPLOAD_RATE)]
