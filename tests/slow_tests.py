"""Write tests/slow_tests.txt, the tests that `pytest -m "not slow"` (the fast lane) leaves out, from measured times.

Reads pytest's durations report (`--durations=0`: one "1.23s call tests/x.py::test_y" line per phase) and lists each
test whose setup, call and teardown together took at least THRESHOLD seconds, and the whole file of a test whose
setup alone did: a slow setup is a module's shared fixture (logs made once for the module), timed with whichever
test uses it first, so leaving out that one test would only hand the setup to the next. tests/conftest.py marks the
listed tests `slow`; `pytest` alone still runs every test (CI does).

    pytest -p no:cacheprovider --durations=0 --durations-min=0.2 | tee /tmp/durations.log
    python tests/slow_tests.py /tmp/durations.log                 # replace the list
    python tests/slow_tests.py /tmp/durations.log --keep          # add to it (e.g. from a fast-lane run)

THRESHOLD is for a run on a quiet machine; a run measured on a loaded one takes a threshold scaled by its slowdown
(CPU time / wall time of the run: at 26% of a core, `--threshold 3`).
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
# Tests (node ids) and whole files marked `slow` by tests/conftest.py, so that `pytest -m "not slow"` (the fast lane)
# leaves them out; `pytest` runs them all. Each took {threshold} s or more (setup + call + teardown; a file: a setup
# that long) in a measured run: written by `python tests/slow_tests.py DURATIONS_LOG` (see there), not by hand.
"""


def slow_entries(lines: list[str], threshold: float) -> set[str]:
    """The tests (node ids) and files (paths) of a pytest durations report that leave the fast lane."""
    total: dict[str, float] = defaultdict(float)
    files = set()
    for line in lines:
        if m := _LINE.match(line):
            seconds, phase, test = float(m.group(1)), m.group(2), m.group(3)
            total[test] += seconds
            if phase == "setup" and seconds >= threshold:
                files.add(test.split("::")[0])
    return files | {t for t, s in total.items() if s >= threshold and t.split("::")[0] not in files}


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
    slow = slow_entries(opts.log.read_text(encoding="utf-8").splitlines(), opts.threshold)
    if opts.keep:
        slow |= listed()
    slow = {s for s in slow if "::" not in s or s.split("::")[0] not in slow}
    LIST.write_text(_HEADER.format(threshold=THRESHOLD) + "".join(f"{t}\n" for t in sorted(slow)),
                    encoding="utf-8")
    print(f"{len(slow)} slow tests and files -> {LIST}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
