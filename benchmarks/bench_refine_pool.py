"""`bench_search.py` with improved A*'s refinement before its pool as an extra method (issue #28 point 2).

    python benchmarks/bench_refine_pool.py --per-setting --no-latency --no-transfer --targets random --seed 3 \
        --methods "over-generate, pooled,A* improved (per round),A* improved"

Takes `bench_search.py`'s options and adds methods that run improved A* with other pool constants
(`refinement.REFINE_TOPUP`, `REFINE_POOL_AGE`), on the same settings and run seeds as the others:

* "A* improved (per round)": a top-up of `screen` (16) per asked child and draws that live one round: the
  refinement as it was before the pool, draw for draw (the same kept stories on issue #28's grid);
* "A* improved (top-up 2)", "(top-up 3)", "(top-up 3.5)", "(top-up 4)": 2, 3, 3.5 or 4 new draws per asked child
  (issue #28 point 2: the top-up sets most of improved mode's CPU per call; 3.5 is the default, 4 was before).

`RUN_SEED_OFFSET=1000` in the environment shifts every run seed by that much (another run on the same settings
without re-running the first, as `--repeats` would). Prints bench_search's tables; asserts nothing.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_search as bs  # noqa: E402

import tombench.generators.exploretom.search.refinement as rf  # noqa: E402

DEFAULT = (rf.REFINE_TOPUP, rf.REFINE_POOL_AGE)
#: a method's `screen` field marks its pool constants (screen itself stays REFINE_SCREEN)
VARIANTS = {-1: (rf.REFINE_SCREEN, 1), -2: (2, DEFAULT[1]), -3: (3, DEFAULT[1]), -4: (4, DEFAULT[1]),
            -5: (3.5, DEFAULT[1])}
bs.METHODS["A* improved (per round)"] = ("astar", "improved", "setting", None, True, -1)
bs.METHODS["A* improved (top-up 2)"] = ("astar", "improved", "setting", None, True, -2)
bs.METHODS["A* improved (top-up 3)"] = ("astar", "improved", "setting", None, True, -3)
bs.METHODS["A* improved (top-up 4)"] = ("astar", "improved", "setting", None, True, -4)
bs.METHODS["A* improved (top-up 3.5)"] = ("astar", "improved", "setting", None, True, -5)
_run_one = bs.run_one


def run_one(*args: object) -> dict:
    """`bench_search.run_one` with the pool constants of the method (marked by its `screen`) and the run seed offset."""
    a = list(args)
    a[7] = int(a[7]) + int(os.environ.get("RUN_SEED_OFFSET", "0"))  # type: ignore[call-overload]
    rf.REFINE_TOPUP, rf.REFINE_POOL_AGE = VARIANTS.get(a[-1], DEFAULT)  # type: ignore[call-overload]
    if a[-1] in VARIANTS:
        a[-1] = rf.REFINE_SCREEN
    try:
        return _run_one(*a)
    finally:
        rf.REFINE_TOPUP, rf.REFINE_POOL_AGE = DEFAULT


bs.run_one = run_one

if __name__ == "__main__":
    bs.main()
