"""The suite registry (`tombench.kit.suites`): every list that names the suites reads it (issue #38 point 4).

A dummy suite (tests/kit/dummy_suite.py), registered in-process, shows up in `tombench tasks`, in
`tombench report suites` on a log of it, and in the benchmarks' run list; the registry's own records match the task
modules and the docs.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from click.testing import CliRunner
from inspect_ai import eval as inspect_eval

import tombench._registry as registry
from tombench.cli import main
from tombench.kit import suites as registry_of_suites
from tombench.kit.suites import SuiteInfo, register_suite, suite_info, suite_label, suites

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "tasks"


def _task_scores() -> ModuleType:
    spec = importlib.util.spec_from_file_location("task_scores", ROOT / "benchmarks" / "task_scores.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("task_scores", module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def dummy(monkeypatch: pytest.MonkeyPatch) -> Iterator[SuiteInfo]:
    """The dummy suite registered as a new suite is: its record in the registry, its task in the entry point."""
    from tests.kit import dummy_suite

    monkeypatch.setattr(registry_of_suites, "_REGISTRY", dict(registry_of_suites._REGISTRY))
    register_suite(dummy_suite.INFO)
    monkeypatch.setattr(registry, "dummy_suite", dummy_suite.dummy_suite, raising=False)
    yield dummy_suite.INFO


def test_the_records_are_the_papers_columns_in_order() -> None:
    assert [s.name for s in suites()] == ["tomi", "hitom", "bigtom", "opentom", "fantom", "simpletom", "tombench"]
    assert suite_info("tombench").task == "tom_bench" and suite_label("fantom") == "FANToM"
    assert suite_label("not_registered") == "not_registered"
    with pytest.raises(ValueError, match="unknown suite 'nope'"):
        suite_info("nope")


def test_a_name_or_task_registered_twice_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry_of_suites, "_REGISTRY", dict(registry_of_suites._REGISTRY))
    with pytest.raises(ValueError, match="clashes"):
        register_suite(SuiteInfo("hitom", task="hitom2", label="x", fixture="x"))
    with pytest.raises(ValueError, match="clashes"):
        register_suite(SuiteInfo("tombench2", task="tom_bench", label="x", fixture="x"))


def test_every_record_is_a_registered_task_with_a_fixture_and_in_the_docs() -> None:
    suite_evals = ("tomi", "hitom", "bigtom", "opentom", "fantom", "simpletom", "tom_bench")
    tasks = {name for name, fn in vars(registry).items()
             if getattr(fn, "__module__", "").startswith(tuple(f"tombench.tasks.{e}." for e in suite_evals))}
    assert {s.task for s in suites()} == tasks
    table = (ROOT / "docs" / "how-to" / "suites.md").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for s in suites():
        assert (FIXTURES / s.fixture).exists(), s
        assert re.search(rf"^\| {re.escape(s.label)} \| `tombench/{s.task}` \|", table, re.M), s
        assert f"`{s.task}`" in readme, s


def test_a_dummy_suite_appears_in_tombench_tasks(dummy: SuiteInfo) -> None:
    out = CliRunner().invoke(main, ["tasks"])
    assert out.exit_code == 0, out.output
    assert any(line.startswith("dummy_suite ") for line in out.output.splitlines())


def test_a_suite_missing_from_the_entry_point_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry_of_suites, "_REGISTRY", dict(registry_of_suites._REGISTRY))
    register_suite(SuiteInfo("ghost", task="ghost_suite", label="Ghost", fixture="x"))
    out = CliRunner().invoke(main, ["tasks"])
    assert out.exit_code != 0 and "ghost (task ghost_suite)" in out.output and "Traceback" not in out.output


def test_a_dummy_suite_appears_in_the_report_on_a_log_of_it(dummy: SuiteInfo, tmp_path: Path) -> None:
    from tests.kit.dummy_suite import dummy_suite

    inspect_eval(dummy_suite(data=str(FIXTURES / dummy.fixture)), model="tombench/recency", log_dir=str(tmp_path),
                 display="none")
    out = CliRunner().invoke(main, ["report", "suites", str(tmp_path), "--md", "--groups"])
    assert out.exit_code == 0, out.output
    assert "| model | Dummy-ToM (acc) |" in out.output
    assert "**Dummy-ToM: accuracy per group" in out.output and "kind=belief" in out.output
    assert "dummy" in CliRunner().invoke(main, ["report", "suites", "--help"]).output


def test_a_dummy_suite_appears_in_the_benchmarks(dummy: SuiteInfo, tmp_path: Path) -> None:
    bench = _task_scores()
    cases = bench._cases(tmp_path)
    assert ("tombench/dummy_suite", {"data": str(FIXTURES / dummy.fixture)}, {}) in cases
    rows = bench.run(only=["tombench/dummy_suite"])
    assert len(rows) == 3 and all(r["status"] == "success" and r["samples"] == 3 for r in rows.values())
