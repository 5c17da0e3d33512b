"""benchmarks/bench_throughput.py: its options, the live task's target, and its run against a real GPU server."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_throughput.py"


def _run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(BENCH), *args], capture_output=True, text=True, timeout=timeout,
                          check=False)


def test_the_vllm_target_needs_its_server_and_model_named() -> None:
    out = _run("--targets", "vllm", "--methods", "paper")
    assert out.returncode == 2 and "needs --base-url and --served-model" in out.stderr


def test_an_unknown_target_is_one_line() -> None:
    out = _run("--targets", "instnat")
    assert out.returncode == 2 and "unknown targets ['instnat']" in out.stderr


def test_repeats_must_be_positive() -> None:
    out = _run("--repeats", "0")
    assert out.returncode == 2 and "--repeats must be at least 1" in out.stderr


def _bench():
    spec = importlib.util.spec_from_file_location("bench_throughput", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_bad_worker_counts_are_one_line() -> None:
    out = _run("--workers", "0,2")
    assert out.returncode == 2 and "--workers '0,2': give worker counts >= 1" in out.stderr


def test_worker_counts_sweep_up_to_the_cores_present() -> None:
    import argparse

    from tombench.kit.options import available_cores

    bench, ap = _bench(), argparse.ArgumentParser()
    assert bench._worker_counts(ap, "sweep") == list(range(1, available_cores() + 1))
    assert bench._worker_counts(ap, "all") == [available_cores()]
    assert bench._worker_counts(ap, "1, 2") == [1, 2]


@pytest.mark.timeout(600)
def test_the_live_target_runs_the_live_task_against_the_stand_in_server(tmp_path: Path) -> None:
    """The live task over HTTP, with 1 and 2 workers: the server answered its calls, and the CPU is split into the
    main process's and the workers' (a worker's share only where there are workers)."""
    rows = tmp_path / "rows.json"
    out = _run("--targets", "live", "--methods", "improved", "--story-types", "tomi", "--people", "2", "--moves",
               "2", "--stories-per-setting", "1", "--budget", "10", "--workers", "1,2", "--latency", "0.01",
               "--json", str(rows), timeout=550)
    assert out.returncode == 0, out.stderr[-3000:]
    one, two = json.loads(rows.read_text())
    assert (one["target"], one["workers"], two["workers"]) == ("live", 1, 2)
    assert one["calls"] == two["calls"] > 0 and one["samples"] == two["samples"] > 0
    assert one["cpu_main"] > 0 and two["cpu_workers"] > 0.1 > one["cpu_workers"]
    assert "live" in out.stdout and "workers'" in out.stdout


def test_the_goal_is_judged_on_the_median_run_of_the_instant_target_on_the_grid() -> None:
    bench = _bench()
    runs = [{"method": "paper", "target": "instant", "cpu": cpu, "calls": 1000} for cpu in (2.4, 2.6, 2.45)]
    assert bench._goal(runs, on_grid=True) == "≤ 2.5: met"  # median 2.45 ms
    assert bench._goal(runs[1:2], on_grid=True) == "≤ 2.5: not met"
    assert bench._goal(runs, on_grid=False) == "–"  # another grid: the goals do not apply
    assert bench._goal([{**runs[0], "target": "server"}], on_grid=True) == "–"


def test_the_live_goals_are_judged_against_the_cli_with_and_without_its_cache() -> None:
    """Issue #39 point 1: per live row with workers, start-ups out, against the CLI's row of the same method and
    workers; no line for one process (nothing is off its main process) and no verdict off the issue's grid."""
    bench = _bench()

    def row(target: str, cpu: float, main: float, startup: float = 0.0) -> dict:
        return {"method": "improved", "target": target, "calls": 1000, "cpu": cpu, "cpu_main": main,
                "workers_startup": startup}

    runs = {("improved", "server", 2): [row("server", 6.0, 0.1, 1.0)],  # 5.0 ms start-ups out
            ("improved", "server-cache", 2): [row("server-cache", 7.0, 0.1, 1.0)],  # 6.0
            ("improved", "live", 2): [row("live", 8.0, 0.8, 1.0)],  # 7.0, main 0.8
            ("improved", "live", 1): [row("live", 9.0, 9.0)]}
    no_cache, cached = bench._live_goals(runs, on_grid=True)
    assert "= 1.40x (goal ≤ 1.3x: not met)" in no_cache and "main 0.80 ms = 0.16x (goal ≤ 0.15x: not met)" in no_cache
    assert "with its cache (6.00 ms)" in cached and "= 1.17x (goal ≤ 1.3x: met)" in cached
    assert "= 0.13x (goal ≤ 0.15x: met)" in cached
    assert all("not the issue's grid" in x for x in bench._live_goals(runs, on_grid=False))


@pytest.mark.gpu
@pytest.mark.timeout(1800)
def test_live_search_against_a_vllm_server(tmp_path: Path) -> None:
    """Where a vLLM server runs (`vllm serve <model>` on a GPU), the search's calls reach it and the table is
    printed: TOMBENCH_VLLM_BASE_URL and TOMBENCH_VLLM_MODEL name the server (docs/design-notes/scale.md, "A real GPU server")."""
    url, model = os.environ.get("TOMBENCH_VLLM_BASE_URL"), os.environ.get("TOMBENCH_VLLM_MODEL")
    if not (url and model):
        pytest.skip("set TOMBENCH_VLLM_BASE_URL and TOMBENCH_VLLM_MODEL to a running vLLM server")
    rows = tmp_path / "rows.json"
    out = _run("--targets", "vllm", "--base-url", url, "--served-model", model, "--methods", "over-generate",
               "--story-types", "tomi", "--budget", "20", "--max-connections", "256", "--json", str(rows),
               timeout=1700)
    assert out.returncode == 0, out.stderr[-2000:]
    (row,) = json.loads(rows.read_text())
    assert row["target"] == "vllm" and row["calls"] > 0 and row["cpu"] > 0
