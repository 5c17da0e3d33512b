"""Every core (issue #28 point 3): the search's CPU in worker processes gives the one-process output, for the
runner, the CLI (paper and improved mode) and the live task; a bad worker count is one line."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest
from click.testing import CliRunner
from inspect_ai import eval

import tombench._registry  # noqa: F401  (registers the tombench/<name> models)
from tests.records import assert_same_records
from tombench.cli import main
from tombench.dsl import settings_grid
from tombench.generators.exploretom.contexts import load_context_bank
from tombench.generators.exploretom.search.astar import AStar
from tombench.generators.exploretom.search.pool import SearchPool
from tombench.generators.exploretom.search.runner import RunConfig, read_jsonl, run_searches
from tombench.kit.errors import OptionError
from tombench.kit.options import available_cores, check_workers
from tombench.models._baselines import answer
from tombench.tasks.exploretom.adversarial import exploretom_adversarial

GRID = settings_grid(["tomi", "tomi+asymmetric", "fantom-private"], [2, 3], [2])


async def _recency(prompts):
    return [answer("recency", p.user) for p in prompts]


def _by_setting(path) -> dict[str, list[dict]]:
    """A file's lines per setting, in order: what a run must reproduce (lines of different settings interleave as
    the settings finish, in one process as in several)."""
    out: dict[str, list[dict]] = {}
    for rec in read_jsonl(path):
        out.setdefault(rec["setting_id"], []).append(rec)
    return out


def _same_output(a, b) -> None:
    for name in ("stories.jsonl", "attempts.jsonl"):
        got, want = _by_setting(a / name), _by_setting(b / name)
        assert sorted(got) == sorted(want), name
        for setting, records in want.items():
            assert_same_records(got[setting], records, name=lambda i, r, n=name: f"{n}, {r.get('id', r['setting_id'])}")
    assert read_jsonl(a / "stories.jsonl")  # not two empty runs


@pytest.mark.parametrize("mode", ["paper", "improved"])
def test_runner_with_workers_is_the_one_process_run(tmp_path, mode):
    run = RunConfig(stories_per_setting=2, budget_per_story=8, seed=5, model="recency",
                    search=AStar(budget=8, mode=mode, budget_unit="calls"))
    bank = load_context_bank()
    seen: dict[str, tuple[int, int]] = {}

    def on_update(p):
        seen[p.setting.id] = (p.searches, p.model_calls)

    one = asyncio.run(run_searches(GRID, bank, _recency, run, tmp_path / "one"))
    two = asyncio.run(run_searches(GRID, bank, _recency, run, tmp_path / "two", workers=2, on_update=on_update))
    _same_output(tmp_path / "one", tmp_path / "two")
    assert [(p.searches, p.found, p.done) for p in one] == [(p.searches, p.found, p.done) for p in two]
    assert seen == {p.setting.id: (p.searches, p.model_calls) for p in two}  # the parent saw the workers' progress


def test_resume_with_workers_after_a_partial_run(tmp_path):
    """A run cut short (some settings' attempts written) resumed with workers ends as the uninterrupted run."""
    run = RunConfig(stories_per_setting=2, budget_per_story=8, seed=1, model="recency",
                    search=AStar(budget=8, mode="paper", budget_unit="calls"))
    bank = load_context_bank()
    asyncio.run(run_searches(GRID, bank, _recency, run, tmp_path / "whole"))
    part = tmp_path / "part"
    asyncio.run(run_searches(GRID[:2], bank, _recency, run, part))
    lines = (part / "attempts.jsonl").read_text().splitlines(keepends=True)
    (part / "attempts.jsonl").write_text("".join(lines[:-1]) + lines[-1][:20])  # a torn last line
    asyncio.run(run_searches(GRID, bank, _recency, run, part, workers=2))
    _same_output(tmp_path / "whole", part)


@pytest.mark.parametrize("mode", ["paper", "improved"])
def test_cli_workers_is_the_one_process_run(tmp_path, mode):
    args = ["search", "--model", "tombench/recency", "--story-types", "tomi,fantom-private", "--people", "2,3",
            "--moves", "2", "--stories-per-setting", "2", "--budget", "10", "--budget-unit", "calls", "--seed", "2",
            "--mode", mode]
    for w in ("1", "2"):
        r = CliRunner().invoke(main, [*args, "--workers", w, "--out", str(tmp_path / w)])
        assert r.exit_code == 0, r.output
    _same_output(tmp_path / "1", tmp_path / "2")


@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5"])
def test_bad_worker_counts_are_one_line(tmp_path, value):
    r = CliRunner().invoke(main, ["search", "--story-types", "tomi", "--people", "2", "--moves", "2",
                                  "--workers", value, "--out", str(tmp_path / "x")])
    assert r.exit_code != 0 and "Invalid --workers value" in r.output and "Traceback" not in r.output
    assert not (tmp_path / "x").exists()  # refused before anything is written
    with pytest.raises(OptionError, match=r"^Invalid workers value: .* Must be an integer >= 1") as err:
        exploretom_adversarial(action_sets="tomi", people=2, moves=2, workers=value)
    assert "\n" not in str(err.value)


def test_worker_count_defaults_to_every_core():
    assert check_workers("workers", None) == check_workers("workers", "all") == available_cores() >= 1
    assert check_workers("workers", "3") == check_workers("workers", 3) == 3


@pytest.mark.parametrize(("mode", "workers"), [("paper", 2), ("improved", 3)])
def test_task_with_workers_is_the_one_process_run(tmp_path, monkeypatch, mode, workers):
    """The live task's samples, search summaries and scores with the searches (and their model calls) in 2 or 3
    processes are those of 1, and so are the searches' calls, each run on a cold cache. (Each mode against one
    worker count: the settings are spread over the workers alike whatever the mode, and each worker's start-up
    costs seconds of CPU.)"""
    def run(workers):
        monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / f"cache{workers}"))
        task = exploretom_adversarial(action_sets="tomi", asymmetric="both", people="2,3", moves=2, budget=8,
                                      mode=mode, stories_per_setting=2, question_orders="1", workers=workers)
        (log,) = eval(task, model="tombench/recency", log_dir=str(tmp_path / str(workers)), display="none")
        assert log.status == "success", log.error
        rows, calls = set(), []
        for s in log.samples:
            search = dict(s.metadata.get("search") or {})
            if search:
                calls.append(search.pop("calls"))
            rows.add((s.id, json.dumps(search, sort_keys=True),
                      json.dumps({k: v.value for k, v in (s.scores or {}).items()}, sort_keys=True)))
        return rows, log, calls

    one, log1, calls1 = run(1)
    assert {c["where"] for c in calls1} == {"main"}
    other, log2, calls2 = run(workers)
    assert one == other and any(i.startswith("tomi") for i, _, _ in one)  # question samples too
    assert log1.results.scores == log2.results.scores
    assert {c["where"] for c in calls2} == {"workers"}
    assert sorted(c["calls"] for c in calls1) == sorted(c["calls"] for c in calls2)
    # tokens: the server's count of what it answered (tests/tasks/exploretom/test_worker_calls.py); here they
    # differ by the prompts two concurrent searches happened to ask at once (both miss the cache)


async def _fails(answer, emit):
    raise ValueError("boom")


async def _asks(answer, emit):
    return await answer(["q"])


def test_pool_reports_a_failed_job_and_the_model_error():
    async def broken_model(prompts):
        raise ConnectionError("model unreachable")

    async def go():
        with SearchPool(1) as pool:
            with pytest.raises(ValueError, match="boom"):  # the job's own exception, as in one process
                await pool.run(_fails, (), _recency)
            with pytest.raises(ConnectionError, match="unreachable"):  # the model's own error, for the CLI's message
                await pool.run(_asks, (), broken_model)

    asyncio.run(go())


def test_worker_count_is_not_part_of_a_runs_identity(tmp_path):
    """Logs of one run made with different worker counts are repeats of one run for report and leaderboard."""
    from tombench.kit.logs import settings_key

    logs = []
    for workers in (1, 2):  # two counts that differ on any machine (the default is every core: 2 on 2 cores)
        task = exploretom_adversarial(action_sets="tomi", asymmetric="plain", people=2, moves=2, budget=4,
                                      workers=workers)
        logs += eval(task, model="tombench/recency", log_dir=str(tmp_path), display="none")
    assert logs[1].eval.task_args["workers"] == 2
    assert settings_key(logs[0]) == settings_key(logs[1])


def test_a_script_read_from_stdin_searches_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """`python - <<EOF` has no main script for `spawn` to re-run: the search runs in this process (same output)
    instead of every worker dying at start; modules, `python -c` and real scripts keep their workers."""
    import types

    from tombench.generators.exploretom.search.pool import can_spawn, usable_workers

    stdin_main = types.ModuleType("__main__")
    stdin_main.__file__ = "<stdin>"
    monkeypatch.setitem(sys.modules, "__main__", stdin_main)
    assert not can_spawn() and usable_workers(4) == 1
    monkeypatch.setitem(sys.modules, "__main__", types.ModuleType("__main__"))  # python -c: no file at all
    assert can_spawn() and usable_workers(4) == 4
    script = types.ModuleType("__main__")
    script.__file__ = __file__
    monkeypatch.setitem(sys.modules, "__main__", script)
    assert can_spawn() and usable_workers(1) == 1
