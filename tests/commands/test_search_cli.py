"""`tombench search` end to end with an offline baseline model, resume, one-line errors, and --export-hf."""

from __future__ import annotations

import socket

import pytest
from click.testing import CliRunner
from inspect_ai.model import ModelAPI, ModelOutput, modelapi

from tombench.cli import main
from tombench.generators.exploretom.search.runner import read_jsonl

ARGS = ["search", "--model", "tombench/recency", "--story-types", "tomi", "--people", "2", "--moves", "2",
        "--stories-per-setting", "2", "--budget", "15"]
#: ARGS in one process, for the tests about the --out folder: workers change no story (test_workers.py) and each
#: run would pay their start-up; test_search_finds_stories_and_exports searches first with the default (every core)
ONE = [*ARGS, "--workers", "1"]


def test_search_finds_stories_and_exports(tmp_path):
    out, hf = tmp_path / "run", tmp_path / "hf"
    r = CliRunner().invoke(main, [*ARGS, "--out", str(out), "--export-hf", str(hf)])
    assert r.exit_code == 0, r.output
    assert "settings filled" in r.output
    stories = read_jsonl(out / "stories.jsonl")
    assert stories and all(s["model"] == "tombench/recency" and s["g"] < 1 for s in stories)
    from datasets import load_from_disk

    ds = load_from_disk(str(hf))
    assert len(ds) == len(stories)
    assert set(ds["setting_id"]) <= {"tomi|p2|m2|r1", "tomi+asymmetric|p2|m2|r1"}
    assert (hf / "README.md").read_text().startswith("---")
    # running again resumes (in one process: the worker count is not part of a run's identity): nothing new,
    # nothing duplicated
    r2 = CliRunner().invoke(main, [*ONE, "--out", str(out)])
    assert r2.exit_code == 0, r2.output
    assert len(read_jsonl(out / "stories.jsonl")) == len(stories)


def test_user_errors_are_one_line(tmp_path):
    runner = CliRunner()
    for args, msg in (
        (["search", "--story-types", "tomo", "--out", str(tmp_path / "a")], "Invalid story type"),
        (["search", "--model", "nosuch/model", "--out", str(tmp_path / "b")], "cannot use model"),
        (["search", "--people", "two", "--out", str(tmp_path / "c")], "--people must be"),
        (["search", "--contexts", str(tmp_path / "none.json"), "--out", str(tmp_path / "d")], "no such contexts file"),
    ):
        r = runner.invoke(main, args)
        assert r.exit_code == 2, r.output
        assert msg in r.output and "Traceback" not in r.output


def test_a_model_typo_leaves_the_out_folder_free_for_the_corrected_command(tmp_path):
    out = tmp_path / "run"
    typo = [a if a != "tombench/recency" else "tombench/recencyy" for a in ONE]
    r = CliRunner().invoke(main, [*typo, "--out", str(out)])
    assert r.exit_code != 0 and "cannot use model 'tombench/recencyy'" in r.output
    assert not out.exists()  # no run.json recorded for a run that never started
    fixed = CliRunner().invoke(main, [*ONE, "--out", str(out)])
    assert fixed.exit_code == 0, fixed.output
    assert read_jsonl(out / "stories.jsonl")


def test_a_second_search_on_the_same_out_is_refused_in_one_line(tmp_path):
    """Two writers on one --out would write every story twice: the second is refused while the first holds it."""
    from tombench.kit.outputs import exclusive_lock

    out = tmp_path / "run"
    with exclusive_lock(out):  # as a first `tombench search` running on it holds it
        r = CliRunner().invoke(main, [*ONE, "--out", str(out)])
    assert r.exit_code == 2 and "another tombench search is writing to" in r.output and "Traceback" not in r.output
    assert not (out / "stories.jsonl").exists()
    r = CliRunner().invoke(main, [*ONE, "--out", str(out)])  # once it is done, the folder is free again
    assert r.exit_code == 0, r.output


class _RefusingAPI(ModelAPI):
    """A provider whose every call raises ConnectionError, as a client does against a closed port."""

    async def generate(self, input, tools, tool_choice, config) -> ModelOutput:  # noqa: A002 - Inspect's signature
        raise ConnectionError("[Errno 111] Connection refused")


@modelapi(name="refusing-test")
def _refusing() -> type[ModelAPI]:
    return _RefusingAPI


@pytest.mark.timeout(60)
def test_a_model_that_refuses_every_call_is_one_line(tmp_path):
    """The calls of a batch run in a task group: the ConnectionError reaches the command inside an ExceptionGroup."""
    args = [a if a != "tombench/recency" else "refusing-test/x" for a in ARGS]
    r = CliRunner().invoke(main, [*args, "--workers", "1", "--max-retries", "1", "--out", str(tmp_path / "run")])
    assert r.exit_code == 2, r.output
    assert r.output.strip().splitlines()[-1] == ("error: cannot reach model refusing-test/x: ConnectionError: "
                                                 "[Errno 111] Connection refused")
    assert "Traceback" not in r.output


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again when this returns: a connection to it is refused


@pytest.mark.timeout(120)
@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_closed_port_ends_the_search_in_one_line_within_its_timeout(tmp_path, monkeypatch, workers):
    """Against a server that is not there the client retries for as long as Inspect lets it: --timeout bounds it.
    With worker processes the calls are made in them: the same one line (the model's own error, not the workers')."""
    monkeypatch.setenv("LOCAL_BASE_URL", f"http://127.0.0.1:{_closed_port()}/v1")
    monkeypatch.setenv("LOCAL_API_KEY", "x")
    args = [a if a != "tombench/recency" else "openai-api/local/nosuch" for a in ARGS]
    r = CliRunner().invoke(main, [*args, "--workers", workers, "--timeout", "2", "--out", str(tmp_path / "run")])
    assert r.exit_code == 2, r.output
    assert r.output.strip().splitlines()[-1] == ("error: cannot reach model openai-api/local/nosuch: "
                                                 "APIConnectionError: Connection error.")
    assert "Traceback" not in r.output
