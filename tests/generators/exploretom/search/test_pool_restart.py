"""A worker that dies is replaced and its job runs again; a job that keeps killing its worker fails alone; a job
that cannot be sent to or loaded in a worker fails at once with that error (`pool.SearchPool`)."""

from __future__ import annotations

import asyncio
import os
import pickle
import signal
import sys
import threading
import types
from pathlib import Path

import pytest

from tombench.generators.exploretom.search.pool import JOB_DEATHS, JobKilledWorker, SearchPool, WorkerError


async def _no_model(prompts):  # noqa: ANN001, ANN202 - an answerer
    return ["" for _ in prompts]


async def _dies_once(answer, emit, marker: str) -> list[int]:  # noqa: ANN001 - a pool job
    """Hands over two events, then kills its worker the first time it runs (`marker` not yet there)."""
    emit(1)
    emit(2)
    if not os.path.exists(marker):
        Path(marker).write_text("ran", encoding="utf-8")
        os.kill(os.getpid(), signal.SIGKILL)
    emit(3)
    return [os.getpid()]


async def _always_dies(answer, emit) -> None:  # noqa: ANN001 - a pool job
    os.kill(os.getpid(), signal.SIGKILL)


async def _works(answer, emit, seconds: float) -> str:  # noqa: ANN001 - a pool job
    await asyncio.sleep(seconds)
    return "done"


async def _unpicklable_result(answer, emit) -> object:  # noqa: ANN001 - a pool job
    return threading.Lock()


@pytest.mark.timeout(60)
def test_a_dead_workers_job_runs_again_in_its_replacement(tmp_path: Path) -> None:
    events: list[int] = []

    async def go() -> list[int]:
        with SearchPool(1) as pool:
            first = pool._procs[0].pid
            result = await pool.run(_dies_once, (str(tmp_path / "ran"),), _no_model, events.append)
            assert result != [first]  # it ran again, in another process
            assert await pool.run(_works, (0.0,), _no_model) == "done"  # the pool goes on
            return result

    asyncio.run(go())
    assert events == [1, 2, 3]  # the events the first run handed over are not handed over again


@pytest.mark.timeout(60)
def test_a_job_that_keeps_killing_its_worker_fails_alone() -> None:
    async def go() -> None:
        with SearchPool(2) as pool:
            killer = pool.run(_always_dies, (), _no_model)
            others = [pool.run(_works, (0.2,), _no_model) for _ in range(4)]
            results = await asyncio.gather(killer, *others, return_exceptions=True)
            assert isinstance(results[0], JobKilledWorker), results[0]
            assert f"died {JOB_DEATHS} times" in str(results[0]) and "SIGKILL" in str(results[0])
            assert "\n" not in str(results[0])
            assert results[1:] == ["done"] * 4
            assert await pool.run(_works, (0.0,), _no_model) == "done"

    asyncio.run(go())


@pytest.mark.timeout(60)
def test_a_job_that_cannot_be_sent_or_loaded_fails_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # a job of a module the workers cannot import (as a function defined in a script's `if __name__` block)
    here_only = types.ModuleType("tombench_test_module_only_here")
    exec("async def job(answer, emit):\n    return 1\n", here_only.__dict__)  # noqa: S102 - a test module
    here_only.job.__module__ = here_only.__name__
    monkeypatch.setitem(sys.modules, here_only.__name__, here_only)

    async def go() -> None:
        with SearchPool(1) as pool:
            with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
                await pool.run(_works, (lambda: 0,), _no_model)  # arguments that cannot be pickled
            with pytest.raises(ModuleNotFoundError, match="tombench_test_module_only_here"):
                await pool.run(here_only.job, (), _no_model)
            with pytest.raises((WorkerError, TypeError, pickle.PicklingError), match="pickle"):
                await pool.run(_unpicklable_result, (), _no_model)
            assert await pool.run(_works, (0.0,), _no_model) == "done"  # none of these stopped the worker

    asyncio.run(go())


@pytest.mark.timeout(60)
def test_close_fails_the_jobs_still_waiting() -> None:
    async def go() -> None:
        pool = SearchPool(1)
        task = asyncio.ensure_future(pool.run(_works, (30.0,), _no_model))
        await asyncio.sleep(0.5)
        pool.close(grace=0.5)
        with pytest.raises(WorkerError, match="closed"):
            await task

    asyncio.run(go())


#: a small grid: long enough (tens of seconds on a loaded machine) for a worker to be killed in the middle
SMALL = ["search", "--model", "tombench/recency", "--story-types", "tomi,fantom-private", "--people", "2", "--moves",
         "3", "--stories-per-setting", "2", "--budget", "30", "--seed", "3"]


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines()) if path.exists() else 0


@pytest.mark.timeout(300)
def test_a_search_with_a_worker_killed_ends_as_the_undisturbed_one(tmp_path: Path) -> None:
    """`tombench search --workers 2` with one worker SIGKILLed after the first attempt is written: exit 0, and the
    same stories and attempts as the run nobody disturbed."""
    import subprocess
    import time

    from click.testing import CliRunner

    from tests.generators.exploretom.search.test_pool_signals import _children, _wait_for
    from tests.generators.exploretom.search.test_workers import _same_output
    from tests.terminal import terminal_popen
    from tombench.cli import main

    r = CliRunner().invoke(main, [*SMALL, "--workers", "1", "--out", str(tmp_path / "ref")])
    assert r.exit_code == 0, r.output
    out = tmp_path / "killed"
    proc = terminal_popen([sys.executable, "-m", "tombench", *SMALL, "--workers", "2", "--out", str(out)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert _wait_for(lambda: _lines(out / "attempts.jsonl") >= 1 or proc.poll() is not None, 200)
        workers = [c for c in _children(proc.pid) if "resource_tracker" not in Path(f"/proc/{c}/cmdline").read_text(
            encoding="utf-8", errors="replace")]
        assert proc.poll() is None and workers, "the search ended before a worker could be killed"
        os.kill(workers[0], signal.SIGKILL)
        code = proc.wait(timeout=240)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    err = proc.stderr.read() if proc.stderr else ""
    assert code == 0, err
    assert "Traceback" not in err, err
    time.sleep(0)  # the outputs are complete: the command has ended
    _same_output(tmp_path / "ref", out)


@pytest.mark.timeout(300)
def test_the_live_task_with_a_worker_killed_scores_as_the_undisturbed_one(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The live task with 2 workers, one SIGKILLed while the searches run: the same samples, search summaries and
    scores as with the searches in this process."""
    import time

    from inspect_ai import eval as inspect_eval

    import tombench._registry  # noqa: F401  (the tombench/<name> models)
    from tombench.generators.exploretom.search.pool import running_pool
    from tombench.tasks.exploretom.adversarial import exploretom_adversarial

    killed: list[int] = []

    def killer() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not killed:
            pool = running_pool(2)
            if pool is not None and pool._jobs:
                time.sleep(0.5)  # the job has reached its worker
                proc = pool._procs[0]
                os.kill(proc.pid, signal.SIGKILL)
                killed.append(proc.pid)
            time.sleep(0.05)

    def run(workers: int) -> tuple[set, object]:
        monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / f"cache{workers}"))
        task = exploretom_adversarial(action_sets="tomi", asymmetric="both", people="2", moves=3, budget=20,
                                      mode="improved", stories_per_setting=2, question_orders="1", workers=workers)
        (log,) = inspect_eval(task, model="tombench/recency", log_dir=str(tmp_path / str(workers)), display="none")
        assert log.status == "success", log.error
        rows = set()
        for s in log.samples:
            search = {k: v for k, v in (s.metadata.get("search") or {}).items() if k != "calls"}
            rows.add((s.id, repr(sorted(search.items())), repr(sorted((s.scores or {}).items()))))
        return rows, log.results.scores

    one = run(1)
    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    two = run(2)
    thread.join()
    assert killed, "no worker was killed"
    assert one == two


def test_a_setting_whose_job_kills_its_worker_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`tombench search` ends in the runner's one line naming the setting (the others' results are written)."""
    from click.testing import CliRunner

    import tombench.generators.exploretom.search.runner as runner
    from tombench.cli import main

    async def killed(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - run_searches' signature
        raise JobKilledWorker("the search of setting tomi-2p-3m failed (its worker process died 3 times while "
                              "running it (exit code -9, SIGKILL)); the other settings' results are written in x")

    monkeypatch.setattr(runner, "run_searches", killed)
    r = CliRunner().invoke(main, [*SMALL, "--workers", "2", "--out", str(tmp_path / "x")])
    assert r.exit_code != 0 and "setting tomi-2p-3m failed" in r.output, r.output
    assert "Traceback" not in r.output, r.output
    assert r.output.strip().splitlines()[-1].startswith("error: the search of setting tomi-2p-3m failed"), r.output
