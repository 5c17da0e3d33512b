"""No search process outlives its command (issue #40 point 5): SIGTERM, SIGHUP and SIGINT end `tombench search` and
every worker it started; a worker whose parent was killed (SIGKILL) exits by itself, and so does multiprocessing's
resource tracker; `SearchPool.close` is bounded whatever its workers do."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.terminal import terminal_popen
from tombench.generators.exploretom.search.pool import SearchPool

#: a grid long enough to be interrupted mid-search (the recency model answers at once; the search's CPU is the time)
SEARCH = ["-m", "tombench", "search", "--model", "tombench/recency", "--story-types", "tomi,fantom-private",
          "--people", "2,3", "--moves", "3,4", "--stories-per-setting", "3", "--budget", "400", "--workers", "2"]


def _children(pid: int) -> list[int]:
    """The live processes whose parent is `pid` (from /proc: psutil may not be installed)."""
    out = []
    for entry in Path("/proc").iterdir():
        stat = _stat(int(entry.name)) if entry.name.isdigit() else None
        if stat is not None and stat[1] == pid and stat[0] != "Z":
            out.append(int(entry.name))
    return out


def _stat(pid: int) -> tuple[str, int] | None:
    """(state, parent pid) of `pid`, or None when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields[0], int(fields[1])


def _alive(pid: int) -> bool:
    stat = _stat(pid)
    return stat is not None and stat[0] != "Z"  # a zombie has exited; only its parent has not read its status yet


def _wait_for(condition, seconds: float) -> bool:  # noqa: ANN001 - a predicate
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return condition()


def _start_search(tmp_path: Path, settle: float = 2.0) -> tuple[subprocess.Popen, list[int]]:
    """`tombench search --workers 2` in its own session (its own process group, as in a terminal) with a terminal's
    signal dispositions (`tests.terminal`: however pytest was started), `settle` seconds after its processes (both
    workers and the resource tracker) appeared."""
    proc = terminal_popen([sys.executable, *SEARCH, "--out", str(tmp_path / "run")], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, start_new_session=True)
    assert _wait_for(lambda: len(_children(proc.pid)) >= 2 or proc.poll() is not None, 120), "no workers started"
    assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
    time.sleep(settle)
    assert _wait_for(lambda: len(_children(proc.pid)) >= 3, 10)
    return proc, _children(proc.pid)


@pytest.mark.timeout(240)
@pytest.mark.parametrize(("sig", "group", "settle"), [
    (signal.SIGTERM, False, 2.0),  # `kill PID`, a job scheduler
    (signal.SIGHUP, True, 2.0),  # the terminal closed: the whole process group gets it
    (signal.SIGINT, True, 2.0),  # Ctrl-C mid-search: the whole process group gets it
    (signal.SIGINT, True, 0.0),  # Ctrl-C while the workers start
])
def test_a_signal_ends_the_search_and_every_process_it_started(tmp_path: Path, sig: signal.Signals, group: bool,
                                                                settle: float) -> None:
    proc, children = _start_search(tmp_path, settle)
    assert len(children) >= 2
    os.killpg(proc.pid, sig) if group else proc.send_signal(sig)
    try:
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    err = proc.stderr.read() if proc.stderr else ""
    # Ctrl-C is the command's own one-line "interrupted" (its exit code is the command's); the others unwind the same
    # way and exit as a shell expects of a process ended by that signal
    assert code != 0 if sig == signal.SIGINT else code == 128 + sig, err
    assert "Traceback" not in err and err.strip().count("\n") == 0, err
    assert _wait_for(lambda: not any(map(_alive, children)), 10), [c for c in children if _alive(c)]


@pytest.mark.timeout(240)
def test_workers_and_resource_tracker_exit_when_their_parent_is_killed(tmp_path: Path) -> None:
    proc, children = _start_search(tmp_path)
    proc.kill()  # SIGKILL: no clean-up of any kind in the parent
    proc.wait()
    try:
        assert _wait_for(lambda: not any(map(_alive, children)), 10), [c for c in children if _alive(c)]
    finally:
        for c in children:
            if _alive(c):
                os.kill(c, signal.SIGKILL)


async def _stuck(answer, emit) -> None:  # noqa: ANN001 - a pool job
    """A job that never yields to its worker's event loop: its worker reads no more messages."""
    while True:
        time.sleep(1)


@pytest.mark.timeout(60)
def test_close_is_bounded_with_a_stuck_and_a_dead_worker() -> None:
    import asyncio

    pool = SearchPool(2)

    async def start() -> None:
        task = asyncio.ensure_future(pool.run(_stuck, (), lambda prompts: asyncio.sleep(0)))
        await asyncio.sleep(3)  # the job has reached its worker
        task.cancel()

    asyncio.run(start())
    procs = list(pool._procs)
    os.kill(procs[1].pid, signal.SIGKILL)
    started = time.monotonic()
    pool.close(grace=1.0)
    assert time.monotonic() - started < 10
    assert not any(p.is_alive() for p in procs)


#: the live task with worker processes (their pool is the process-wide `shared_pool`, stopped at exit)
LIVE = ["-m", "inspect_ai", "eval", "tombench/exploretom_adversarial", "--model", "tombench/recency",
        "-T", "action_sets=tomi,fantom-private", "-T", "people=2,3", "-T", "moves=3,4", "-T", "budget=400",
        "-T", "mode=improved", "-T", "workers=2", "--display", "plain"]


@pytest.mark.timeout(240)
@pytest.mark.parametrize("settle", [0.0, 3.0])
def test_ctrl_c_ends_a_live_eval_with_workers(tmp_path: Path, settle: float) -> None:
    """Ctrl-C (SIGINT to the process group) while the workers start, and mid-search: `inspect eval` ends within
    30 s and leaves no process behind."""
    # run from tmp_path, as a user runs `inspect eval` from a project: in the repository root, a `tombench.egg-info`
    # left by `pip install -e .` makes Inspect read "tombench/..." as a path to task files, not a registry name
    proc = terminal_popen([sys.executable, *LIVE, "--log-dir", str(tmp_path)], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, start_new_session=True, cwd=tmp_path)
    assert _wait_for(lambda: len(_children(proc.pid)) >= 2 or proc.poll() is not None, 120), "no workers started"
    assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
    time.sleep(settle)
    children = _children(proc.pid)
    os.killpg(proc.pid, signal.SIGINT)
    try:
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert _wait_for(lambda: not any(map(_alive, children)), 10), [c for c in children if _alive(c)]


#: a small search and a small live task: each ends in seconds once started, so that a Ctrl-C at a random delay
#: after the workers appear lands anywhere: their start-up, the searches, the pool's close, the final scoring
STRESS = {
    "search": ["-m", "tombench", "search", "--model", "tombench/recency", "--story-types", "tomi", "--people", "2",
               "--moves", "2,3", "--stories-per-setting", "1", "--budget", "20", "--workers", "2"],
    "eval": ["-m", "inspect_ai", "eval", "tombench/exploretom_adversarial", "--model", "tombench/recency",
             "-T", "action_sets=tomi", "-T", "people=2", "-T", "moves=2,3", "-T", "budget=20", "-T", "workers=2",
             "--display", "plain"],
}


def _interrupt(tmp_path: Path, kind: str, delay: float) -> tuple[int | None, str, str, list[int]]:
    """Start `kind` (with a terminal's signals), Ctrl-C its process group `delay` s after its workers appear (or
    as it ends); its exit code (None: still running 30 s later, then killed), stdout, stderr and the processes it
    started."""
    out = tmp_path / f"{kind}-{delay:.2f}"
    where = ["--out", str(out)] if kind == "search" else ["--log-dir", str(out)]
    proc = terminal_popen([sys.executable, *STRESS[kind], *where], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, start_new_session=True, cwd=tmp_path)
    _wait_for(lambda: len(_children(proc.pid)) >= 2 or proc.poll() is not None, 120)
    children = _children(proc.pid)
    time.sleep(delay)
    children += [c for c in _children(proc.pid) if c not in children]
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=30)  # read as it runs: a full pipe would stall the run
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        code = None
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
    return code, out, err, children


@pytest.mark.timeout(400)
def test_ctrl_c_at_random_points_always_ends(tmp_path: Path) -> None:
    """Ctrl-C at random points of `tombench search --workers 2` and of the live task with 2 workers, for about 30 s
    of runs (at least one of each): every run ends (no hang), leaves no process behind, and ends as a Ctrl-C
    should: the command's one line with the resume hint; the eval's log `cancelled` (or `success` where the run
    was over first) and Inspect's `inspect eval-retry` hint, or its word that no sample was logged yet (the hint
    comes once one is: the live task's searches are its first samples)."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    seed = int(os.environ.get("TOMBENCH_STRESS_SEED", time.time_ns() % 100_000))
    rng = random.Random(seed)
    deadline = time.monotonic() + 30
    runs = 0
    while runs < 2 or time.monotonic() + 10 < deadline:  # a run takes about 10 s here
        kind = ("search", "eval")[runs % 2]
        delay = rng.uniform(0.0, 6.0)
        code, out, err, children = _interrupt(tmp_path, kind, delay)
        what = f"{kind}, Ctrl-C {delay:.2f} s after the workers appeared (TOMBENCH_STRESS_SEED={seed})"
        assert code is not None, f"hung: {what}\n{err}"
        assert _wait_for(lambda c=children: not any(map(_alive, c)), 10), f"processes left: {what}"
        assert "Traceback" not in err, f"{what}\n{err}"
        if kind == "search":
            assert code == 0 or ("interrupted" in err and "resume" in err), f"{what}\n{err}"
        else:
            logs = list_eval_logs(str(tmp_path / f"{kind}-{delay:.2f}"))
            statuses = [read_eval_log(x, header_only=True).status for x in logs]
            assert statuses in (["cancelled"], ["success"]), f"{what}: {statuses}\n{err}"  # the log exists by then
            if statuses == ["cancelled"]:  # Inspect's own resume hint, or its word that there is nothing to resume
                said = " ".join(out.split())
                assert "inspect eval-retry" in said or "no samples completed before interruption" in said, (
                    f"{what}\n{out}")
        runs += 1


def test_a_ctrl_c_while_the_pool_closes_waits_for_the_close() -> None:
    """A Ctrl-C during `close` is held until the workers are stopped, then raised (`close`) or dropped (the exit
    clean-up, where it would only print a traceback)."""
    from tombench.generators.exploretom.search.pool import _sigint_deferred

    done = []
    old = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal, however pytest was started
    try:
        with pytest.raises(KeyboardInterrupt):
            with _sigint_deferred():
                signal.raise_signal(signal.SIGINT)
                done.append("the block went on")
        with _sigint_deferred(reraise=False):
            signal.raise_signal(signal.SIGINT)
            done.append("and again")
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, old)
    assert done == ["the block went on", "and again"]
