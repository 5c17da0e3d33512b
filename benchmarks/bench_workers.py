"""`tombench search --workers N`: wall time and total CPU against one process, same output (issue #28 point 3).

    python benchmarks/bench_workers.py                          # issue #28's grid, paper mode, workers 1 and 2
    python benchmarks/bench_workers.py --mode improved --workers 1,2 --repeats 3

Each run is a fresh `tombench search` process on issue #28's grid against the instant in-process `tombench/recency`
baseline, so nothing but the harness's CPU sets the pace. Runs alternate between the worker counts (a shared
machine's load then hits them alike). Per run: wall time, and CPU as user + system time of the process and every
worker it started and waited for (`resource.getrusage(RUSAGE_CHILDREN)` around the child: the workers are the
child's children, joined before it exits). Printed: each run, then per worker count the median wall, its speed-up
against the first count, and the median CPU and its ratio (the price of the processes: start-up, the queues). Every
run's stories and attempts must equal the first run's, setting by setting in order; a difference stops the benchmark.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GRID = ["--model", "tombench/recency", "--story-types", "tomi,all", "--asymmetric", "both", "--people", "3",
        "--moves", "3", "--stories-per-setting", "5", "--budget", "200", "--budget-unit", "calls", "--seed", "0",
        "--no-cache"]


def _by_setting(path: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        out.setdefault(rec["setting_id"], []).append(line)
    return out


def _run(mode: str, workers: int, out: Path) -> tuple[float, float]:
    """Wall seconds and CPU seconds (process and workers) of one search."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "from tombench.cli import main; main()", "search", *GRID, "--mode", mode, "--workers",
                    str(workers), "--out", str(out)], check=True, stdout=subprocess.DEVNULL,
                   env={**os.environ, "COLUMNS": "120"})
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=["paper", "improved"], default="paper")
    ap.add_argument("--workers", default="1,2", help="comma-separated worker counts (the first is the reference)")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    counts = [int(x) for x in args.workers.split(",")]
    results: dict[int, list[tuple[float, float]]] = {n: [] for n in counts}
    reference = None
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.repeats):
            for n in counts:
                out = Path(tmp) / f"w{n}-{r}"
                wall, cpu = _run(args.mode, n, out)
                results[n].append((wall, cpu))
                got = {name: _by_setting(out / name) for name in ("stories.jsonl", "attempts.jsonl")}
                reference = reference or got
                if got != reference:
                    sys.exit(f"workers={n} run {r + 1}: output differs from the first run")
                print(f"run {r + 1} workers={n}: wall {wall:.1f} s, CPU {cpu:.1f} s", flush=True)
    base_wall = statistics.median(w for w, _ in results[counts[0]])
    base_cpu = statistics.median(c for _, c in results[counts[0]])
    print(f"\nmode {args.mode}, {args.repeats} runs each, medians; output identical in every run")
    print("| workers | wall s | speed-up | CPU s | CPU ratio |\n|---|---|---|---|---|")
    for n in counts:
        wall = statistics.median(w for w, _ in results[n])
        cpu = statistics.median(c for _, c in results[n])
        print(f"| {n} | {wall:.1f} | {base_wall / wall:.2f}x | {cpu:.1f} | {cpu / base_cpu:.2f} |")


if __name__ == "__main__":
    main()
