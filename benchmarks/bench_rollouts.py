"""Rollout cost of the A* search: µs per rollout of the search's two rollout patterns (issue #28 point 2).

    python benchmarks/bench_rollouts.py                  # a few seconds
    python benchmarks/bench_rollouts.py --profile        # also cProfile the rollouts (top by tottime)

Why: paper A* spends about 45 rollouts per model call (50 lookahead rollouts per evaluated node, 50n neighbour
rollouts per expansion), so the cost of one rollout sets most of its CPU per call. What that gives end to end (CPU
per model call of issue #28's grid, a digest of the kept stories) is `benchmarks/bench_throughput.py --methods paper
--targets instant`.

For each setting (tomi and all+asymmetric, p3 m3, bank contexts), `--stories` partial stories (a desired random
story cut at a random point, as the search's frontier holds them), each with the search's two patterns: `lookahead`
(50 rollouts stopping at S, `Evaluator.lookahead`) and `neighbours` (150 rollouts of at most 3 actions, each story's
text read, `astar._neighbours`), drawn as the search draws them (`tombench.dsl.Rollouts`, one batch per story) or
with `--plain` one `rollout` call each. Printed: µs per rollout (CPU), and a digest of every rollout's actions and of
the random generator's state after each story, which must not change when the sampler gets faster (nor with
`--plain`).

Rates divide by CPU time: on a shared machine wall time measures the neighbours. Asserts nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import resource
import time

SETTINGS = (("tomi", 3, 3), ("all+asymmetric", 3, 3))


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _partial_stories(story_type: str, people: int, moves: int, n: int, seed: int) -> list:
    """n partial stories: desired random stories over bank contexts, each cut at a random number of actions."""
    from tombench.dsl import Setting, Story, derive_seed, random_story
    from tombench.generators.exploretom.contexts import load_context_bank

    bank = load_context_bank()
    setting = Setting.make(story_type, people, moves)
    out = []
    for i in range(n):
        rng = random.Random(derive_seed(seed, "bench-rollouts", story_type, i))
        full = random_story(bank[i % len(bank)], setting, rng)
        if full is None:
            raise SystemExit(f"no desired story for {setting.id}")
        cut = rng.randrange(len(full.steps))
        out.append(Story(full.context, full.actions[:cut]))
    return out


def _rollouts(story_type: str, people: int, moves: int, stories: list, seed: int, plain: bool = False) -> dict:
    """The two patterns over `stories`: CPU µs per rollout and a digest of what they drew.

    As the search draws them (`Rollouts`: one batch per story; the lookahead's never-desired rollouts cut short and
    counted by their length), or with `plain` one `rollout` call each: the digests must be the same."""
    from tombench.dsl import Conditions, Rollouts, Setting, derive_seed, rollout

    cond = Conditions.of(Setting.make(story_type, people, moves))
    row = {}
    for pattern, count, limit in (("lookahead", 50, None), ("neighbours", 150, 3)):
        digest = hashlib.sha256()
        n = 0
        t0 = _cpu()
        for i, story in enumerate(stories):
            rng = random.Random(derive_seed(seed, pattern, story_type, i))
            # (the neighbours' digest reads every rollout's text, never-desired ones too: none is cut short here)
            batch = Rollouts(story, cond, max_actions=limit, skip_doomed=limit is None)
            for _ in range(count):
                s = rollout(story, cond, rng, stop=cond.structural, max_actions=limit) if plain else batch.draw(rng)
                if limit is None:
                    digest.update(b"%d %d|" % ((0, s) if type(s) is int else (cond.is_desired(s), len(s))))
                else:
                    digest.update(s.text.encode())
                n += 1
            digest.update(repr(rng.getstate()[1][:4]).encode())
        cpu = _cpu() - t0
        row[pattern] = {"rollouts": n, "us": 1e6 * cpu / n, "digest": digest.hexdigest()[:16]}
    return row


def bench_rollouts(n: int, seed: int, repeat: int, plain: bool = False) -> list[dict]:
    rows = []
    for story_type, people, moves in SETTINGS:
        stories = _partial_stories(story_type, people, moves, n, seed)
        _rollouts(story_type, people, moves, stories[: max(1, n // 10)], seed + 1, plain)  # warm-up: caches
        best = None
        for _ in range(repeat):  # the fastest of `repeat`: the least disturbed by the machine's other users
            r = _rollouts(story_type, people, moves, stories, seed, plain)
            if best is not None:
                assert {k: v["digest"] for k, v in r.items()} == {k: v["digest"] for k, v in best.items()}
                r = {k: min(r[k], best[k], key=lambda x: x["us"]) for k in r}
            best = r
        rows.append({"setting": f"{story_type} p{people} m{moves}", **best})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", "--stories", type=int, default=40, help="partial stories per setting")
    ap.add_argument("--repeat", type=int, default=3, help="timed passes over the rollouts (the fastest is shown)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--profile", action="store_true", help="cProfile one pass of the rollouts")
    ap.add_argument("--plain", action="store_true", help="one `rollout` call per rollout, not the search's batches")
    args = ap.parse_args()
    if args.profile:
        import cProfile
        import pstats

        with cProfile.Profile() as prof:
            bench_rollouts(args.stories, args.seed, 1, args.plain)
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
    t = time.perf_counter()
    for r in bench_rollouts(args.stories, args.seed, args.repeat, args.plain):
        print(f"{r['setting']:>20}: " + "  ".join(
            f"{p} {r[p]['rollouts']} rollouts {r[p]['us']:6.1f} µs/rollout digest {r[p]['digest']}"
            for p in ("lookahead", "neighbours")))
    print(f"(rollout part: {time.perf_counter() - t:.1f} s wall)")


if __name__ == "__main__":
    main()
