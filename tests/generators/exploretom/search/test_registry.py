"""The search methods' one registry: every list of methods is read from it, and a method registered there (a dummy
one here) is offered by `tombench search`, the live task, the runner and the benchmarks with no other change."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from inspect_ai import eval as inspect_eval

from tombench.cli import main
from tombench.generators.exploretom.search import registry
from tombench.generators.exploretom.search.astar import AStar
from tombench.generators.exploretom.search.method import SearchMethod
from tombench.generators.exploretom.search.run_options import run_config
from tombench.generators.exploretom.search.runner import RunConfig, read_jsonl

ROOT = Path(__file__).resolve().parents[4]


@pytest.fixture
def dummy(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setitem(registry.METHODS, "dummy", "tests.generators.exploretom.search.dummy_method:Dummy")
    return "dummy"


def _bench(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_registered_method_is_a_search_method() -> None:
    for name in registry.method_names():
        method = registry.build_method(name)
        assert isinstance(method, SearchMethod) and method.name == name
        assert method.scopes() and set(method.scopes()) <= {"setting", "story"}


def test_build_method_keeps_the_knobs_the_method_has() -> None:
    og = registry.build_method("over-generate", mode="improved", k=7, budget_unit="calls")
    assert og.budget_unit == "calls" and not hasattr(og, "mode") and not hasattr(og, "k")
    assert registry.build_method("astar", mode="improved", k=7) == AStar(mode="improved", k=7)
    with pytest.raises(ValueError, match="Invalid method 'nope'"):
        registry.build_method("nope")
    with pytest.raises(ValueError, match="Invalid mode"):
        registry.build_method("astar", mode="fast")


def test_the_mode_decides_the_scope_through_the_method() -> None:
    assert run_config(method="astar", stories_per_setting=2, budget=5, mode="improved").setting_scoped
    assert not run_config(method="astar", stories_per_setting=2, budget=5, mode="paper").setting_scoped
    assert not run_config(method="over-generate", stories_per_setting=2, budget=5).setting_scoped
    assert run_config(method="over-generate", stories_per_setting=2, budget=5, scope="setting").setting_scoped
    with pytest.raises(ValueError, match="scope='setting' needs"):
        run_config(method="random", stories_per_setting=2, budget=5, scope="setting")


def test_an_old_run_json_with_every_methods_knobs_still_resumes(tmp_path: Path) -> None:
    """Older versions wrote A*'s knobs into an over-generation run's run.json: a knob the method does not read
    never changed the run, so the same command resumes it."""
    from tombench.generators.exploretom.search.runner import prepare_out_dir

    run = run_config(method="over-generate", stories_per_setting=2, budget=5)
    old = run.to_dict()
    old["search"] = {**old["search"], "k": 3, "weights": "weight-goal4", "max_pops": 5000, "mode": "paper"}
    (tmp_path / "run.json").write_text(json.dumps(old))
    prepare_out_dir(tmp_path, run)  # no mismatch
    (tmp_path / "run.json").write_text(json.dumps({**old, "search": {**old["search"], "lookahead": 7}}))
    with pytest.raises(ValueError, match="different configuration"):
        prepare_out_dir(tmp_path, run)


def test_a_registered_method_shows_in_the_cli_and_runs(dummy: str, tmp_path: Path) -> None:
    help_text = CliRunner().invoke(main, ["search", "--help"]).output
    assert "dummy" in help_text and "over-generate" in help_text
    out = tmp_path / "run"
    r = CliRunner().invoke(main, ["search", "--model", "tombench/recency", "--story-types", "tomi", "--people", "2",
                                  "--moves", "2", "--stories-per-setting", "1", "--budget", "3", "--workers", "1",
                                  "--method", dummy, "--out", str(out)])
    assert r.exit_code == 0, r.output
    meta = json.loads((out / "run.json").read_text())
    assert meta["method"] == "dummy" and meta["search"]["tries"] == 2
    assert all(rec["method"] == "dummy" for rec in read_jsonl(out / "stories.jsonl"))
    bad = CliRunner().invoke(main, ["search", "--method", "dummyy", "--out", str(tmp_path / "x")])
    assert bad.exit_code == 2 and "dummy" in bad.output


def test_a_registered_method_shows_in_the_benchmarks(dummy: str) -> None:
    assert _bench("bench_throughput").methods()["dummy"] == ["--method", "dummy"]
    assert set(_bench("bench_throughput").methods()) >= {"paper", "improved", "over-generate", "random"}


def test_a_registered_method_drives_the_live_task(dummy: str, tmp_path: Path) -> None:
    from tombench.tasks.exploretom.adversarial import exploretom_adversarial

    task = exploretom_adversarial(action_sets="tomi", asymmetric="plain", people=2, moves=2, budget=4,
                                  method=dummy, question_orders="1")
    (log,) = inspect_eval(task, model="tombench/recency", log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    (search,) = [s for s in log.samples if s.metadata.get("tombench_kind") == "search"]
    assert search.metadata["search"]["method"] == "dummy"
    assert search.metadata["search"]["model_calls"] > 0


def test_a_method_of_the_registry_runs_in_the_runner(dummy: str, tmp_path: Path) -> None:
    import asyncio

    from tombench.dsl import DEFAULT_CONTEXT, Setting
    from tombench.generators.exploretom.search.runner import run_searches
    from tombench.models import answer

    async def recency(prompts):
        return [answer("recency", p.user) for p in prompts]

    run: RunConfig = run_config(method=dummy, stories_per_setting=1, budget=2, tries=3)
    (p,) = asyncio.run(run_searches([Setting.make("tomi", 2, 2)], [DEFAULT_CONTEXT], recency, run, tmp_path))
    assert p.done and p.searches >= 1
