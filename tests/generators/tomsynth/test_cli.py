"""`tombench tomsynth` end to end offline: generate -> qc -> export-hf -> the task reads the exported folder."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.generators.tomsynth.test_generation import STORY, _fmt, _names, entry_json, scripted_model
from tombench.cli import main
from tombench.commands import tomsynth as cmd
from tombench.generators.tomsynth.items import read_items
from tombench.tasks.tomsynth.tomsynth import tomsynth


def _script(prompt: str, n: int) -> str:
    if "expert evaluator" in prompt:  # the verification prompt
        # judge one in four items AMBIGUOUS (by the first offered name's length, a fixed property of the item)
        first = re.search(r"\(([A-Z][a-z]+), ", prompt)
        ambiguous = first is not None and len(first.group(1)) == 5
        return json.dumps({"judgment": "AMBIGUOUS" if ambiguous else "PASS", "correct_answer": None, "reason": "r"})
    if n == 1 and "Hidden Emotions" in prompt:
        return "not json"  # counted and retried
    names = _names(prompt)
    return entry_json(_fmt(prompt), STORY + f" ({names})", answer="B", tag=f" ({names})")


@pytest.fixture
def mock_models(monkeypatch: pytest.MonkeyPatch) -> None:
    model = scripted_model(_script)
    monkeypatch.setattr(cmd, "_model", lambda name, max_connections: model)


def test_generate_qc_export_then_eval_dataset(tmp_path: Path, mock_models: None) -> None:
    runner = CliRunner()
    out = tmp_path / "ts.jsonl"
    r = runner.invoke(main, ["tomsynth", "generate", "-m", "mockllm/model", "-k", "2", "--units", "6", "--seed", "3",
                             "--out", str(out), "--no-cache"])
    assert r.exit_code == 0, r.output
    assert "generated" in r.output and len(read_items(out)) == 12

    # resume: nothing left to do
    r = runner.invoke(main, ["tomsynth", "generate", "-m", "mockllm/model", "-k", "2", "--units", "6", "--seed", "3",
                             "--out", str(out), "--no-cache"])
    assert r.exit_code == 0 and len(read_items(out)) == 12

    qc_out = tmp_path / "ts.qc.jsonl"
    r = runner.invoke(main, ["tomsynth", "qc", str(out), "--verifier", "mockllm/model", "--out", str(qc_out),
                             "--no-cache"])
    assert r.exit_code == 0, r.output
    report = json.loads((tmp_path / "ts.qc.jsonl.report.json").read_text())
    kept = read_items(qc_out)
    assert report["input"] == 12 and report["stage1"]["removed"] == 0
    assert report["stage2"]["answers_before"]["B"] == 12
    assert sorted(report["stage2"]["answers_after"].values()) == [3, 3, 3, 3]
    assert report["stage3"]["removed"] == report["stage3"]["judgments"]["AMBIGUOUS"] == 12 - len(kept)
    assert 0 < report["stage3"]["removed"] < 12 and report["output"] == len(kept)
    assert "cross-model verification" in r.output

    hf = tmp_path / "hf"
    r = runner.invoke(main, ["tomsynth", "export-hf", str(qc_out), "--out-dir", str(hf), "--license", "cc-by-4.0"])
    assert r.exit_code == 0, r.output
    card = (hf / "README.md").read_text()
    assert f"units covered (full space): **{len({i.unit_id for i in kept})} / 6912**" in card
    assert "\nlicense: cc-by-4.0\n" in card and "https://github.com/)" not in card
    assert "[Inspect AI](https://inspect.aisi.org.uk/)" in card
    assert "| Emotion |" in card and "| Narrative |" in card and "stage 3 (cross-model verification)" in card
    task = tomsynth(data=str(hf))
    assert len(task.dataset) == len(kept)
    assert {s.target for s in task.dataset} == {i.answer for i in kept}


def test_user_errors_are_one_line(tmp_path: Path, mock_models: None) -> None:
    runner = CliRunner()
    r = runner.invoke(main, ["tomsynth", "generate", "-m", "x", "--units", "nope", "--out", str(tmp_path / "o.jsonl")])
    assert r.exit_code == 2 and r.output.count("\n") == 1 and "unknown ToM-Synth unit id" in r.output
    (tmp_path / "in.jsonl").write_text("")
    r = runner.invoke(main, ["tomsynth", "qc", str(tmp_path / "in.jsonl"), "--out", str(tmp_path / "o.jsonl")])
    assert r.exit_code == 2 and "--verifier" in r.output
    r = runner.invoke(main, ["tomsynth", "qc", str(tmp_path / "in.jsonl"), "--no-verify", "--out", "o.jsonl"])
    assert r.exit_code == 2 and "is empty" in r.output


def test_unknown_model_is_a_user_error(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["tomsynth", "generate", "-m", "nope/model", "--units", "1",
                                  "--out", str(tmp_path / "o.jsonl")])
    assert r.exit_code == 2 and r.output.startswith("error: cannot use model 'nope/model'")


def test_units_summary() -> None:
    r = CliRunner().invoke(main, ["tomsynth", "units"])
    assert r.exit_code == 0 and "6912 units" in r.output and "Non-literal Communication" in r.output
    r = CliRunner().invoke(main, ["tomsynth", "units", "--space", "contrast"])
    assert r.exit_code == 0 and "2304 units" in r.output


def test_contrast_space_generation_and_card(tmp_path: Path, mock_models: None) -> None:
    runner = CliRunner()
    out = tmp_path / "contrast.jsonl"
    r = runner.invoke(main, ["tomsynth", "generate", "-m", "mockllm/model", "--space", "contrast", "-k", "3",
                             "--units", "2", "--seed", "1", "--out", str(out), "--no-cache"])
    assert r.exit_code == 0, r.output
    items = read_items(out)
    assert len(items) == 6 and all(i.space == "contrast" and i.id.startswith("contrast:") for i in items)
    hf = tmp_path / "hf"
    assert runner.invoke(main, ["tomsynth", "export-hf", str(out), "--out-dir", str(hf)]).exit_code == 0
    card = (hf / "README.md").read_text()
    assert "units covered (contrast space): **2 / 2304**" in card and "license: unknown" in card
