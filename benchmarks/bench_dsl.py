"""DSL throughput: isDesired random stories per second, including all their order-1 and order-2 questions.

    python benchmarks/bench_dsl.py --story-type tomi --people 3 --moves 3 -n 1000 [--seed S]
    python benchmarks/bench_dsl.py --all-defaults      # the two rows the core issue asks for
    python benchmarks/bench_dsl.py --all-defaults --workers 2   # adds a 2-process row per story type

Stories use the built-in default context (names sampled per story). Prints a table; asserts nothing.
Rates divide by CPU time: on a shared machine wall time measures the neighbours, not this code. A multi-process row
(`--workers N`) generates the same stories (per-story seeds do not depend on who generates them), split into N
contiguous chunks; its CPU rate is per core, its wall rate is the throughput (first start to last end of the timed
parts). Each process first generates 200 untimed warm-up stories on other seeds (caches).
"""

from __future__ import annotations

import argparse
import random
import time
from concurrent.futures import ProcessPoolExecutor

from rich.console import Console
from rich.table import Table

from tombench.dsl import DEFAULT_CONTEXT, Setting, derive_seed, random_story

#: stories generated before the clock starts, in each process
WARMUP = 200


def _generate(
    story_type: str, people: int, moves: int, start: int, stop: int, seed: int
) -> tuple[int, int, float, float, float]:
    """Stories start..stop-1 of a row, with their questions: (questions, sentences, CPU seconds, and the wall clock
    (`time.monotonic`, one clock for all processes on Linux) when the timed part started and ended)."""
    setting = Setting.make(story_type, people, moves)
    # untimed warm-up on other seeds: the first stories fill the per-setting and per-name caches (action kinds,
    # modifier sentences, candidate lists), which a long generation run pays once; a short -n would otherwise
    # mostly measure that
    for i in range(WARMUP):
        warm = random_story(DEFAULT_CONTEXT, setting, random.Random(derive_seed(seed, "warm-up", story_type, i)))
        if warm is not None:  # a setting with no desired story is reported by the timed loop below
            warm.questions()
    questions = 0
    sentences = 0
    w0, c0 = time.monotonic(), time.process_time()
    for i in range(start, stop):
        rng = random.Random(derive_seed(seed, story_type, people, moves, i))
        s = random_story(DEFAULT_CONTEXT, setting, rng)
        if s is None:
            raise SystemExit(f"no desired story for {setting.id} with the default context")
        questions += len(s.questions(orders=(1, 2)))
        sentences += len(s)
    return questions, sentences, time.process_time() - c0, w0, time.monotonic()


def bench(story_type: str, people: int, moves: int, n: int, seed: int, workers: int = 1) -> dict[str, float]:
    if workers == 1:
        parts = [_generate(story_type, people, moves, 0, n, seed)]
    else:
        bounds = [n * k // workers for k in range(workers + 1)]
        with ProcessPoolExecutor(workers) as pool:
            futures = [pool.submit(_generate, story_type, people, moves, bounds[k], bounds[k + 1], seed)
                       for k in range(workers)]
            parts = [f.result() for f in futures]
    dt = max(p[4] for p in parts) - min(p[3] for p in parts)  # timed parts only: no warm-up, no pool start
    questions = sum(p[0] for p in parts)
    sentences = sum(p[1] for p in parts)
    cpu = sum(p[2] for p in parts)
    return {"stories/s": n / cpu, "questions/s": questions / cpu, "q/story": questions / n,
            "sentences/story": sentences / n, "seconds": dt, "cpu": cpu, "wall stories/s": n / dt}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--story-type", default="tomi")
    ap.add_argument("--people", type=int, default=3)
    ap.add_argument("--moves", type=int, default=3)
    ap.add_argument("-n", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--all-defaults", action="store_true", help="tomi and all+asymmetric at p3 m3")
    ap.add_argument("--workers", type=int, default=1,
                    help="also time each row split over this many processes (a separate row)")
    args = ap.parse_args()
    if args.workers < 1:
        raise SystemExit("--workers must be at least 1")
    rows = [(args.story_type, args.people, args.moves)]
    if args.all_defaults:
        rows = [("tomi", 3, 3), ("all+asymmetric", 3, 3)]
    table = Table(title=f"DSL throughput (n={args.n}, seed={args.seed}, built-in default context)")
    for col in ("story type", "p", "m", "processes", "stories/s (CPU)", "questions/s (CPU)", "questions/story",
                "sentences/story", "CPU s", "wall s", "stories/s (wall)"):
        table.add_column(col, justify="right")
    for t, p, m in rows:
        for workers in sorted({1, args.workers}):
            r = bench(t, p, m, args.n, args.seed, workers)
            table.add_row(t, str(p), str(m), str(workers), f"{r['stories/s']:,.0f}", f"{r['questions/s']:,.0f}",
                          f"{r['q/story']:.1f}", f"{r['sentences/story']:.1f}", f"{r['cpu']:.2f}",
                          f"{r['seconds']:.2f}", f"{r['wall stories/s']:,.0f}")
    Console(width=160).print(table)


if __name__ == "__main__":
    main()
