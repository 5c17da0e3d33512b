"""Every task loader, given a corrupt, binary, key-less, empty or missing data file: one line naming the file (and
the line or record where there is one), never a traceback (issue #32 point 2).

Each case builds the task the way `inspect eval -T data=...` does (the task function raises a kit `OptionError`,
which Inspect prints as its message alone); `test_inspect_eval_prints_one_line` checks that end to end.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tombench.kit.errors import OptionError

FIXTURES = Path(__file__).parent
BINARY = b"\x89PNG\r\n\x1a\n\x00\xff\xfe" + bytes(range(256))


@dataclass(frozen=True)
class Loader:
    """How to build one task on a data path, and which file of a copied fixture the bad content goes into."""

    name: str
    build: Callable[[str], object]
    file: str  # the file (relative to the data path, "" for the data path itself) that gets the bad content
    fixture: str | None = None  # a fixture folder copied first (folder suites)
    layout: str = "jsonl"  # jsonl | json | text: what a "missing keys" and "corrupt" file look like


def _static(p: str) -> object:
    from tombench.tasks.exploretom.static import exploretom_static

    return exploretom_static(data=p)


def _transfer(p: str) -> object:
    from tombench.tasks.exploretom.transfer import exploretom_transfer

    return exploretom_transfer(stories=p)


def _tomsynth(p: str) -> object:
    from tombench.tasks.tomsynth.tomsynth import tomsynth

    return tomsynth(data=p)


def _suite(name: str) -> Callable[[str], object]:
    def build(p: str) -> object:
        import importlib

        module = importlib.import_module(f"tombench.tasks.{name}.{name}")
        return getattr(module, name)(data=p)

    return build


def _persuasion(p: str) -> object:
    from tombench.tasks.persuasion.persuasion import persuasion_fixed

    return persuasion_fixed(dataset=p)


LOADERS = [
    Loader("exploretom_static", _static, "data.jsonl"),
    Loader("exploretom_static-json", _static, "data.json", layout="json"),
    Loader("exploretom_transfer", _transfer, "stories.jsonl"),
    Loader("tomsynth", _tomsynth, "items.jsonl"),
    Loader("tomi", _suite("tomi"), "fb_all_test.txt", layout="text"),
    Loader("hitom", _suite("hitom"), "Hi-ToM_data.json", layout="json"),
    Loader("bigtom", _suite("bigtom"), "bigtom.csv", layout="text"),
    Loader("fantom", _suite("fantom"), "fantom_v1.json", layout="json"),
    Loader("opentom", _suite("opentom"), "attitude.json", fixture="opentom/fixtures", layout="json"),
    Loader("simpletom", _suite("simpletom"), "behavior-qa/test.jsonl", fixture="simpletom/fixtures"),
    Loader("tom_bench", _suite("tom_bench"), "False Belief Task.jsonl", fixture="tom_bench/fixtures"),
    Loader("persuasion_fixed", _persuasion, "dialogues.json", layout="json"),
]

BAD = {
    "corrupt": {"jsonl": '{"id": "x",\n', "json": '[{"id": "x",\n', "text": None},
    "missing_keys": {"jsonl": '{"unexpected": 1}\n', "json": '[{"unexpected": 1}]', "text": None},
    "empty": {"jsonl": "", "json": "", "text": ""},
}


def _data_path(loader: Loader, tmp_path: Path, content: str | bytes | None) -> tuple[str, str]:
    """The `data` value to pass and the file name the message must name."""
    if loader.fixture:
        folder = tmp_path / "data"
        shutil.copytree(FIXTURES / loader.fixture, folder)
        target = folder / loader.file
        data = str(folder)
    else:
        target = tmp_path / loader.file
        data = str(target)
    if content is not None:
        target.parent.mkdir(parents=True, exist_ok=True)
        (target.write_bytes if isinstance(content, bytes) else target.write_text)(content)  # type: ignore[operator]
    return data, target.name


def _one_line(build: Callable[[str], object], data: str) -> str:
    with pytest.raises(OptionError) as err:
        build(data)
    message = str(err.value)
    assert "\n" not in message and "Traceback" not in message
    return message


CASES = [(loader, kind) for loader in LOADERS for kind in ("corrupt", "binary", "missing_keys", "empty")
         if kind == "binary" or BAD[kind][loader.layout] is not None]


@pytest.mark.parametrize(("loader", "kind"), CASES, ids=[f"{lo.name}-{k}" for lo, k in CASES])
def test_bad_file_is_one_line_naming_file_and_place(loader: Loader, kind: str, tmp_path: Path) -> None:
    content = BINARY if kind == "binary" else BAD[kind][loader.layout]
    data, name = _data_path(loader, tmp_path, content)
    message = _one_line(loader.build, data)
    assert name in message, message
    if kind == "empty":
        assert "empty" in message, message
    elif kind == "missing_keys":
        if loader.name == "opentom":  # a genre file is one object keyed by story: a list is the wrong shape
            assert "a JSON list; expected an OpenToM genre file" in message, message
        else:
            assert "missing key" in message and re.search(r"(line|record|set|item) 1\b", message), message
    else:
        assert "line 1" in message or "line 2" in message, message
        assert "expected" in message, message


@pytest.mark.parametrize("loader", [lo for lo in LOADERS if not lo.fixture], ids=lambda lo: lo.name)
def test_missing_file_says_it_does_not_exist(loader: Loader, tmp_path: Path) -> None:
    data = str(tmp_path / "nowhere" / loader.file)
    message = _one_line(loader.build, data)
    assert ("does not exist" in message or "not found" in message or "no such file" in message), message
    assert "cannot load Hub dataset" not in message


@pytest.mark.parametrize("loader", [lo for lo in LOADERS if lo.fixture], ids=lambda lo: lo.name)
def test_folder_without_a_file_names_it(loader: Loader, tmp_path: Path) -> None:
    data, _ = _data_path(loader, tmp_path, None)
    (Path(data) / loader.file).unlink()
    message = _one_line(loader.build, data)
    assert Path(loader.file).name in message or loader.file in message, message


def test_transfer_nonexistent_absolute_path_is_not_a_hub_lookup() -> None:
    message = _one_line(_transfer, "/nonexistent")
    assert "no such file or folder" in message and "cannot load Hub dataset" not in message


def test_static_csv_row_that_does_not_read_names_the_row(tmp_path: Path) -> None:
    path = tmp_path / "data.csv"
    path.write_text("story_structure,question,expected_answer,qprop=nth_order,param=story_type\n"
                    "Anne entered the kitchen.,Where is Anne?,kitchen,first,tomi\n")
    message = _one_line(_static, str(path))
    assert "row 1" in message and "data.csv" in message


def _inspect_eval(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "inspect_ai", "eval", *args, "--log-dir", str(tmp_path / "logs")]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=tmp_path)


def test_inspect_eval_prints_one_line(tmp_path: Path) -> None:
    """The user's view: `inspect eval` with a corrupt file and with an unknown tombench model, no traceback."""
    (tmp_path / "corrupt.jsonl").write_text(json.dumps({"id": "x"}) + "\n{oops\n")
    res = _inspect_eval(tmp_path, "tombench/tomsynth", "-T", "data=corrupt.jsonl", "--model", "tombench/oracle")
    out = res.stdout + res.stderr
    assert res.returncode != 0 and "Traceback" not in out
    assert "corrupt.jsonl" in out and "line 1" in out and "missing key" in out
    res = _inspect_eval(tmp_path, "tombench/tomi", "-T", "split=example", "--model", "tombench/nosuch")
    out = res.stdout + res.stderr
    assert res.returncode != 0 and "Traceback" not in out
    assert "tombench/oracle" in out and "tombench/recency" in out and len(out.strip().splitlines()) <= 6


# ---- the commands that read files: `error: ...`, one line, exit 2 (tombench's main function, as the shell runs it)
COMMANDS = {
    "infill": lambda f, tmp: ["infill", f, "--out", str(tmp / "o.jsonl"), "-m", "tombench/oracle"],
    "export-training": lambda f, tmp: ["export-training", f, "--out", str(tmp / "o.jsonl")],
    "persuasion evaluate": lambda f, tmp: ["persuasion", "evaluate", f, "--judge", "tombench/oracle"],
    "tomsynth qc": lambda f, tmp: ["tomsynth", "qc", f, "--no-verify", "--out", str(tmp / "o.jsonl")],
}
FILES = {"binary": BINARY, "empty": b"", "corrupt": b'{"story": \n'}


@pytest.mark.parametrize("kind", sorted(FILES))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_commands_reading_a_bad_file_fail_in_one_line(command: str, kind: str, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from tombench.cli import main

    path = tmp_path / "input.jsonl"
    path.write_bytes(FILES[kind])
    res = CliRunner().invoke(main, COMMANDS[command](str(path), tmp_path))
    assert res.exit_code == 2, res.output
    assert res.output.startswith("error: ") and res.output.strip().count("\n") == 0, res.output
    assert "input.jsonl" in res.output
    if command == "tomsynth qc" and kind == "corrupt":  # a torn line is skipped, as generate does on resume
        assert "holds no items (1 line(s), none valid JSON" in res.output
    elif kind != "empty":
        assert "line 1" in res.output or ":1:" in res.output, res.output
