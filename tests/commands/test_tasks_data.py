"""`tombench tasks`, `tombench data download` and instant `--help` (issue #32 point 5)."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from tombench.cli import main
from tombench.kit.pinning import TaskData, UrlFile

REGISTERED = ["exploretom_adversarial", "exploretom_random", "exploretom_static", "exploretom_transfer", "tomi",
              "hitom", "bigtom", "opentom", "fantom", "simpletom", "tom_bench", "tomsynth", "persuasion_fixed",
              "persuasion_dynamic"]


@pytest.fixture
def empty_caches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Fresh tombench and Hub caches, so nothing counts as cached unless the test puts it there."""
    monkeypatch.setenv("TOMBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf"))
    monkeypatch.delenv("TOMBENCH_OFFLINE", raising=False)
    return tmp_path


def test_catalog_declares_every_registered_task() -> None:
    from tombench.commands.tasks import catalog

    names = [entry.task for entry in catalog()]
    assert sorted(names) == sorted(REGISTERED)
    by_name = {entry.task: entry for entry in catalog()}
    # read from the tasks' own pinned sources, not a copy
    from tombench.tasks.hitom.hitom import SOURCE as HITOM
    from tombench.tasks.tom_bench.tom_bench import FILES as TOMBENCH

    assert by_name["hitom"].sources == {"data": HITOM}
    assert by_name["tom_bench"].sources == TOMBENCH
    assert not by_name["exploretom_random"].sources and by_name["exploretom_random"].offline == "always"


def test_tasks_lists_data_size_license_cache_and_offline_way(empty_caches: Path) -> None:
    res = CliRunner().invoke(main, ["tasks"])
    assert res.exit_code == 0, res.output
    for name in REGISTERED:
        assert name in res.output
    lines = res.output.splitlines()
    tomi = next(i for i, line in enumerate(lines) if line.startswith("tomi "))
    assert "cached: no" in lines[tomi] and "5,994" in lines[tomi] and "CC-BY-NC" in lines[tomi]
    assert lines[tomi + 2].strip().startswith("offline: -T split=example")
    assert "offline: -T dataset=sample" in res.output  # the packaged persuasion sample, from any folder
    assert next(line for line in lines if line.startswith("exploretom_random ")).split()[2] == "-"


def _fake(tmp_path: Path, content: bytes = b"released data\n", sha: str | None = None) -> TaskData:
    src = tmp_path / "release.txt"
    src.write_bytes(content)
    digest = sha or hashlib.sha256(content).hexdigest()
    return TaskData("fake", "a released file", {"release": UrlFile(src.as_uri(), digest)}, items=3, license="MIT",
                    offline="-T split=example")


def test_data_download_fetches_verifies_and_then_runs_offline(empty_caches: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tombench.commands.tasks as commands

    entry = _fake(empty_caches)
    monkeypatch.setattr(commands, "catalog", lambda: [entry])
    runner = CliRunner()
    assert "cached: no" in runner.invoke(main, ["tasks"]).output
    res = runner.invoke(main, ["data", "download", "fake"])
    assert res.exit_code == 0, res.output
    assert "fake: release ok" in res.output
    cached = list((empty_caches / "cache").rglob("release.txt"))
    assert len(cached) == 1 and cached[0].read_bytes() == b"released data\n"
    # later: offline, and the source gone: the cached copy is used, with no network
    (empty_caches / "release.txt").unlink()
    monkeypatch.setenv("TOMBENCH_OFFLINE", "1")
    res = runner.invoke(main, ["data", "download"])
    assert res.exit_code == 0 and "fake: release ok" in res.output
    assert "cached: yes" in runner.invoke(main, ["tasks"]).output


def test_data_download_offline_is_one_line_with_the_alternative(empty_caches: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import tombench.commands.tasks as commands

    monkeypatch.setattr(commands, "catalog", lambda: [_fake(empty_caches)])
    monkeypatch.setenv("TOMBENCH_OFFLINE", "1")
    res = CliRunner().invoke(main, ["data", "download", "fake"])
    assert res.exit_code == 2 and res.output.count("\n") == 1, res.output
    assert "offline mode" in res.output and "run offline with -T split=example" in res.output


def test_data_download_refuses_a_changed_file_and_unknown_tasks(empty_caches: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import tombench.commands.tasks as commands

    monkeypatch.setattr(commands, "catalog", lambda: [_fake(empty_caches, sha="0" * 64)])
    runner = CliRunner()
    res = runner.invoke(main, ["data", "download"])
    assert res.exit_code == 2 and "expected 000000000000" in res.output and res.output.count("\n") == 1
    assert not list((empty_caches / "cache").rglob("release.txt"))
    res = runner.invoke(main, ["data", "download", "nosuch"])
    assert res.exit_code == 2 and "unknown task(s) nosuch; known: fake" in res.output


def test_real_task_offline_names_its_offline_alternative(empty_caches: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOMBENCH_OFFLINE", "1")
    res = CliRunner().invoke(main, ["data", "download", "tomi"])
    assert res.exit_code == 2 and "-T split=example" in res.output and res.output.count("\n") == 1


HELP_SCRIPT = textwrap.dedent("""
    import sys
    import click
    from tombench.cli import main, _COMMANDS

    def paths(group_ctx_cmd, prefix):
        yield prefix
        if isinstance(group_ctx_cmd, click.Group):
            for name in group_ctx_cmd.list_commands(None):
                yield from paths(group_ctx_cmd.get_command(None, name), prefix + [name])

    heavy = ("inspect_ai", "datasets", "torch", "transformers", "pandas")
    for name in sorted(_COMMANDS):
        command = main.get_command(None, name)
        for path in paths(command, [name]):
            try:
                main(path + ["--help"], standalone_mode=False)
            except SystemExit:
                pass
            loaded = [m for m in heavy if m in sys.modules]
            if loaded:
                print("HEAVY", " ".join(path), loaded)
                sys.exit(1)
            print("ok", " ".join(path))
""")


def test_every_help_is_instant_no_inspect_ai() -> None:
    """`--help` of every command and sub-command imports none of inspect_ai (11 s on a busy machine before)."""
    res = subprocess.run([sys.executable, "-c", HELP_SCRIPT], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    assert "ok search" in res.stdout and "ok data download" in res.stdout and "ok tasks" in res.stdout
