"""DSL throughput: isDesired random stories per second, including all their order-1 and order-2 questions.

    python benchmarks/bench_dsl.py --story-type tomi --people 3 --moves 3 -n 1000 [--seed S]
    python benchmarks/bench_dsl.py --all-defaults      # the two rows the core issue asks for

Stories use the built-in default context (names sampled per story). Prints a table; asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import time

from rich.console import Console
from rich.table import Table

from tombench.dsl import DEFAULT_CONTEXT, Setting, derive_seed, random_story


def bench(story_type: str, people: int, moves: int, n: int, seed: int) -> dict[str, float]:
    setting = Setting.make(story_type, people, moves)
    questions = 0
    sentences = 0
    t0 = time.perf_counter()
    c0 = time.process_time()
    for i in range(n):
        rng = random.Random(derive_seed(seed, story_type, people, moves, i))
        s = random_story(DEFAULT_CONTEXT, setting, rng)
        if s is None:
            raise SystemExit(f"no desired story for {setting.id} with the default context")
        questions += len(s.questions(orders=(1, 2)))
        sentences += len(s)
    dt = time.perf_counter() - t0
    cpu = time.process_time() - c0
    # rates use CPU time: on a shared machine wall time measures the neighbours, not this code
    return {"stories/s": n / cpu, "questions/s": questions / cpu, "q/story": questions / n,
            "sentences/story": sentences / n, "seconds": dt, "cpu": cpu}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--story-type", default="tomi")
    ap.add_argument("--people", type=int, default=3)
    ap.add_argument("--moves", type=int, default=3)
    ap.add_argument("-n", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--all-defaults", action="store_true", help="tomi and all+asymmetric at p3 m3")
    args = ap.parse_args()
    rows = [(args.story_type, args.people, args.moves)]
    if args.all_defaults:
        rows = [("tomi", 3, 3), ("all+asymmetric", 3, 3)]
    table = Table(title=f"DSL throughput (n={args.n}, seed={args.seed}, built-in default context)")
    for col in ("story type", "p", "m", "stories/s (CPU)", "questions/s (CPU)", "questions/story", "sentences/story",
                "CPU s", "wall s"):
        table.add_column(col, justify="right")
    for t, p, m in rows:
        r = bench(t, p, m, args.n, args.seed)
        table.add_row(t, str(p), str(m), f"{r['stories/s']:,.0f}", f"{r['questions/s']:,.0f}", f"{r['q/story']:.1f}",
                      f"{r['sentences/story']:.1f}", f"{r['cpu']:.2f}", f"{r['seconds']:.2f}")
    Console(width=130).print(table)


if __name__ == "__main__":
    main()
