"""Write tests/slow_tests.txt, the tests that `pytest -m "not slow"` (the fast lane) leaves out, from measured times.

Reads pytest's durations report (`--durations=0`: one "1.23s call tests/x.py::test_y" line per phase) and lists each
test whose setup, call and teardown together took at least THRESHOLD seconds. tests/conftest.py marks the listed
tests `slow`; `pytest` alone still runs every test (CI does).

    pytest -p no:cacheprovider --durations=0 --durations-min=0.2 | tee /tmp/durations.log
    python tests/slow_tests.py /tmp/durations.log                 # replace the list
    python tests/slow_tests.py /tmp/durations.log --keep          # add to it (e.g. from a fast-lane run)

A module's shared fixture is timed with the first test that uses it: when that test leaves the fast lane, the next
one pays the setup, and a fast-lane run measured with `--keep` lists it too.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

LIST = Path(__file__).with_name("slow_tests.txt")
#: seconds (setup + call + teardown) from which a test leaves the fast lane
THRESHOLD = 0.8
_LINE = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s+(setup|call|teardown)\s+(\S+)\s*$")
_HEADER = """\
# Tests marked `slow` by tests/conftest.py, so that `pytest -m "not slow"` (the fast lane) leaves them out; `pytest`
# runs them all. Each took at least {threshold} s (setup + call + teardown) in a measured run: written by
# `python tests/slow_tests.py DURATIONS_LOG` (see that script), not by hand.
"""


def durations(lines: list[str]) -> dict[str, float]:
    """Seconds per test, its phases added, from a pytest durations report."""
    total: dict[str, float] = defaultdict(float)
    for line in lines:
        if m := _LINE.match(line):
            total[m.group(3)] += float(m.group(1))
    return dict(total)


def listed(path: Path = LIST) -> set[str]:
    """The node ids in a slow list (comments and blank lines skipped); empty when there is no list."""
    if not path.is_file():
        return set()
    return {s for line in path.read_text(encoding="utf-8").splitlines() if (s := line.strip()) and s[0] != "#"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log", type=Path, help="a pytest run's output with --durations=0")
    ap.add_argument("--threshold", type=float, default=THRESHOLD, help=f"seconds (default {THRESHOLD})")
    ap.add_argument("--keep", action="store_true", help="keep the tests already listed")
    opts = ap.parse_args(argv)
    slow = {test for test, s in durations(opts.log.read_text(encoding="utf-8").splitlines()).items()
            if s >= opts.threshold}
    if opts.keep:
        slow |= listed()
    LIST.write_text(_HEADER.format(threshold=opts.threshold) + "".join(f"{t}\n" for t in sorted(slow)),
                    encoding="utf-8")
    print(f"{len(slow)} slow tests -> {LIST}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
