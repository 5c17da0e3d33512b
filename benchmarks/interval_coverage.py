"""Coverage of the leaderboard's 95% interval when questions are clustered in stories (issue #30 point 3).

    python benchmarks/interval_coverage.py [--reps 4000] [--seed 0] [--markdown]

Each cell draws `reps` boards of k stories x 22 questions: story s answers each question right with probability
p_s ~ Beta with mean p and intra-story correlation rho (beta-binomial: rho = 1 / (a + b + 1)), rho = 0 meaning
independent questions. It reports how often the interval contains the true p, and the mean width in points:

* `now`: `tombench.kit.intervals.clustered_interval` (the one interval the leaderboard and reports use): Wilson
  on n / deff, deff shrunk towards a prior that does not vanish at 0% and 100%, Student t on k - 1 df;
* `old`: the rule before issue #30 (deff forced to 1 at 0% and 100%, never below 1, z = 1.96).

Then the paired tests under the null (two models of the same skill answering the same stories, story effects
shared, rho as above): the type-I error at 5% of the sign-flip test over stories (now) and of the shifted story
bootstrap it replaced. Seeded: the same arguments print the same table. Asserts nothing.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from tombench.kit.intervals import Z95, clustered_interval, wilson_interval
from tombench.leaderboard._stats import sign_flip_test

PER_STORY = 22
TRUE_P = (0.5, 0.85, 0.95, 0.97, 0.99)
ICC = (0.0, 0.05, 0.1, 0.2)
STORIES = (6, 18, 40)


def _old_interval(totals: list[tuple[float, float]]) -> tuple[float, float]:
    """The pre-#30 rule, kept here only to measure what changed."""
    n = sum(m for _, m in totals)
    k = len(totals)
    p = sum(s for s, _ in totals) / n
    deff = 1.0
    if 0 < p < 1 and 1 < k < n:
        v = k / (k - 1) * sum((s - m * p) ** 2 for s, m in totals) / n**2
        deff = max(1.0, v / (p * (1 - p) / n))
    return wilson_interval(p * n / deff, n / deff, z=Z95)


def _old_story_bootstrap(diffs: list[float], clusters: list[str], draws: int, seed: int) -> float:
    """The pre-#30 paired test: shifted bootstrap over stories, p = (1 + #{|D* - D| >= |D|}) / (draws + 1)."""
    sums: dict[str, list[float]] = {}
    for d, c in zip(diffs, clusters, strict=True):
        sums.setdefault(c, [0.0, 0.0])
        sums[c][0] += d
        sums[c][1] += 1
    totals = np.array([s for s, _ in sums.values()])
    sizes = np.array([m for _, m in sums.values()])
    observed = totals.sum() / sizes.sum()
    if not totals.any():
        return 1.0
    idx = np.random.default_rng(seed).integers(0, len(totals), size=(draws, len(totals)))
    stats = totals[idx].sum(axis=1) / sizes[idx].sum(axis=1)
    return (1 + np.count_nonzero(np.abs(stats - observed) >= abs(observed) - 1e-12)) / (draws + 1)


def _story_probs(rng: np.random.Generator, p: float, rho: float, size: tuple[int, ...]) -> np.ndarray:
    if rho == 0:
        return np.full(size, p)
    ab = (1 - rho) / rho
    return rng.beta(p * ab, (1 - p) * ab, size=size)


def coverage(p: float, rho: float, k: int, reps: int, rng: np.random.Generator) -> dict[str, float]:
    hits = np.stack([rng.binomial(PER_STORY, _story_probs(rng, p, rho, (k,))) for _ in range(reps)])
    out = {"now": 0.0, "old": 0.0, "now_w": 0.0, "old_w": 0.0}
    for row in hits:
        totals = [(float(s), float(PER_STORY)) for s in row]
        ci = clustered_interval(totals)
        lo, hi = _old_interval(totals)
        out["now"] += ci.low <= p <= ci.high
        out["old"] += lo <= p <= hi
        out["now_w"] += ci.high - ci.low
        out["old_w"] += hi - lo
    return {key: v / reps for key, v in out.items()}


def type_one_error(p: float, rho: float, k: int, reps: int, rng: np.random.Generator) -> tuple[float, float]:
    """Two models of equal skill on the same k stories (each story's difficulty shared): how often p < 0.05."""
    flips = boots = 0
    clusters = [f"s{c}" for c in range(k) for _ in range(PER_STORY)]
    for r in range(reps):
        probs = np.repeat(_story_probs(rng, p, rho, (k,)), PER_STORY)
        a = rng.random(probs.size) < probs
        b = rng.random(probs.size) < probs
        diffs = (a.astype(float) - b.astype(float)).tolist()
        flips += sign_flip_test(diffs, clusters, seed=r)[0] < 0.05
        boots += _old_story_bootstrap(diffs, clusters, 2000, r) < 0.05
    return flips / reps, boots / reps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=4000)
    parser.add_argument("--null-reps", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--stories", type=int, nargs="+", default=list(STORIES))
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"95% interval coverage, % (mean width, points); {args.reps} boards per cell, {PER_STORY} questions a story")
    print("| stories | ICC | " + " | ".join(f"p={p:g} now | old" for p in TRUE_P) + " |")
    print("|---:|---:|" + "---:|---:|" * len(TRUE_P))
    worst = 100.0
    for k in args.stories:
        for rho in ICC:
            cells = []
            for p in TRUE_P:
                c = coverage(p, rho, k, args.reps, rng)
                if rho >= 0.1 and k == 18:
                    worst = min(worst, 100 * c["now"])
                cells.append(f"{100 * c['now']:.1f} ({100 * c['now_w']:.1f}) | {100 * c['old']:.1f} "
                             f"({100 * c['old_w']:.1f})")
            print(f"| {k} | {rho:g} | " + " | ".join(cells) + " |")
    print(f"\nlowest coverage now, 18 stories, ICC 0.1-0.2: {worst:.1f}%")
    print(f"\npaired tests under the null, stories x {PER_STORY}: share of p < 0.05 ({args.null_reps} pairs a cell)")
    print("| stories | true p | ICC | sign-flip (now) | story bootstrap (before) |")
    print("|---:|---:|---:|---:|---:|")
    for k in (18, 40, 150):
        for p in (0.5, 0.85):
            for rho in (0.1, 0.2):
                flip, boot = type_one_error(p, rho, k, args.null_reps, rng)
                print(f"| {k} | {p:g} | {rho:g} | {100 * flip:.1f}% | {100 * boot:.1f}% |")
    se = math.sqrt(0.05 * 0.95 / args.null_reps)
    print(f"(binomial standard error of a 5% rate over {args.null_reps} pairs: {100 * se:.1f} points)")


if __name__ == "__main__":
    main()
