"""tombench.kit.logs: one line for a file that is not a readable log, and run settings that tell repeats from other
experiments (issue #32 point 3)."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.scorer import match

from tombench.kit.logs import UnreadableLog, log_paths, read_log, read_sample_summaries, run_settings, settings_key
from tombench.leaderboard import LogError, read_row


def _task(letters: str = "ab") -> Task:
    return Task(dataset=[Sample(input=f"Say {c}", target=c) for c in letters], scorer=match(), name="echo")


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("logs")
    out = []
    for task, temperature in ((_task(), None), (_task(), None), (_task(), 0.5), (_task("abc"), None)):
        (log,) = eval(task, model="mockllm/model", log_dir=str(folder), display="none", temperature=temperature)
        out.append(Path(log.location))
    return out


def test_repeats_share_their_settings_and_other_experiments_do_not(logs: list[Path]) -> None:
    keys = [settings_key(read_log(p, header_only=True)) for p in logs]
    assert keys[0] == keys[1]  # the same eval run twice
    assert len(set(keys)) == 3  # another temperature, another dataset: different experiments
    settings = run_settings(read_log(logs[2], header_only=True))
    assert settings["generate_config"]["temperature"] == 0.5 and settings["model"] == "mockllm/model"


@pytest.mark.parametrize(("content", "why"), [
    (b'{"notes": "to do"}', "JSON without the fields of an eval log"),
    (b"hello", "not JSON"),
    (bytes(range(256)), "a binary file, not JSON"),
])
def test_a_json_file_that_is_not_a_log_is_one_line(tmp_path: Path, content: bytes, why: str) -> None:
    path = tmp_path / "notes.json"
    path.write_bytes(content)
    with pytest.raises(UnreadableLog) as err:
        read_log(path, header_only=True)
    assert str(err.value) == f"{path}: not a readable Inspect eval log ({why})"


def test_a_truncated_eval_file_is_one_line_for_every_reader(tmp_path: Path, logs: list[Path]) -> None:
    cut = tmp_path / "cut.eval"
    cut.write_bytes(logs[0].read_bytes()[:1000])
    for read in (lambda p: read_log(p, header_only=True), read_sample_summaries):
        with pytest.raises(UnreadableLog, match="a damaged or truncated .eval file") as err:
            read(cut)
        assert "\n" not in str(err.value) and err.value.path == cut
    with pytest.raises(LogError, match="not a readable Inspect eval log \\(a damaged or truncated"):
        read_row(cut)  # the leaderboard reads logs through the same helper


def test_log_paths_finds_logs_in_folders_and_names_a_missing_path(tmp_path: Path, logs: list[Path]) -> None:
    assert log_paths([logs[0].parent]) == sorted(logs)
    with pytest.raises(FileNotFoundError, match="no such log file or folder"):
        log_paths([tmp_path / "nope"])


def test_log_paths_leaves_out_eval_set_bookkeeping_with_one_line(tmp_path: Path, logs: list[Path]) -> None:
    folder = tmp_path / "set"
    folder.mkdir()
    log = folder / logs[0].name
    log.write_bytes(logs[0].read_bytes())
    for name in ("eval-set.json", "logs.json", "listing.json"):
        (folder / name).write_text("{}")
    (folder / ".eval-set-id").write_text("x")
    lines: list[str] = []
    assert log_paths([folder], lines.append) == [log]
    assert lines == [f"skipped eval-set.json, listing.json, logs.json in {folder}: inspect eval-set's bookkeeping, "
                     "not eval logs"]
    lines.clear()
    assert log_paths([folder / "logs.json"], lines.append) == [] and len(lines) == 1  # named, still not a log
