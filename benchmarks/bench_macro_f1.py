"""OpenToM's macro-F1 bootstrap: the per-label definition vs `macro_f1_interval` (same draws, same interval).

    python benchmarks/bench_macro_f1.py                 # 13,708 pairs (OpenToM's size), 100 resamples timed per row
    python benchmarks/bench_macro_f1.py -n 2300 --resamples 50

The reference is the scorer as first written: `bootstrap_interval` over the pairs with a macro-F1 that makes three
passes over the pairs per label. Both rows draw the same indices (seed 0), so they must print the same interval.
Times are CPU seconds (on a shared machine wall time measures the neighbours); the last column extrapolates to the
1,000 resamples the metric runs. Prints a table; asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from tombench.kit.intervals import bootstrap_interval
from tombench.scorers.suites.opentom import macro_f1_interval

LABELS = ("yes", "no", "initial", "new", "more full", "equally full", "less full", "more accessible",
          "equally accessible", "less accessible", "positive", "neutral", "negative")


def reference_macro_f1(pairs: Sequence[tuple[str, str | None]]) -> float:
    """Macro-F1 label by label, three passes over the pairs per label (the first implementation)."""
    labels = sorted({g for g, _ in pairs})
    f1s = []
    for lab in labels:
        tp = sum(1 for g, p in pairs if g == lab and p == lab)
        fp = sum(1 for g, p in pairs if g != lab and p == lab)
        fn = sum(1 for g, p in pairs if g == lab and p != lab)
        f1s.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    return sum(f1s) / len(f1s)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=13708, help="pairs (default: OpenToM's 13,708 questions)")
    parser.add_argument("--resamples", type=int, default=100, help="resamples timed per row")
    args = parser.parse_args()
    rng = random.Random(1)
    gold = [rng.choice(LABELS) for _ in range(args.n)]
    predicted: list[str | None] = [g if rng.random() < 0.5 else rng.choice([*LABELS, None]) for g in gold]
    pairs = list(zip(gold, predicted, strict=True))

    rows = []
    start = time.process_time()
    ref = bootstrap_interval(pairs, reference_macro_f1, resamples=args.resamples)  # type: ignore[arg-type]
    rows.append(("bootstrap_interval + per-label macro-F1", time.process_time() - start, ref))
    start = time.process_time()
    new = macro_f1_interval(gold, predicted, resamples=args.resamples)
    rows.append(("macro_f1_interval (pair-kind counts)", time.process_time() - start, new))

    table = Table(title=f"macro-F1 bootstrap, {args.n:,} pairs, {args.resamples} resamples (seed 0)")
    for col in ("implementation", "CPU s", "s per 1,000 resamples", "95% interval"):
        table.add_column(col, justify="left" if col in ("implementation", "95% interval") else "right")
    for name, seconds, (lo, hi) in rows:
        per = seconds / args.resamples
        table.add_row(name, f"{seconds:.2f}", f"{per * 1000:.1f}", f"[{lo:.6f}, {hi:.6f}]")
    Console(width=120).print(table)
    print(f"speed-up {rows[0][1] / rows[1][1]:.0f}x; same interval: {ref == new}")


if __name__ == "__main__":
    main()
