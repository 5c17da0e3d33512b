"""tombench.kit.orphans: a child exits by itself when its parent dies, even by SIGKILL (issue #40 point 5)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

#: a parent that starts a child watching it, prints the child's pid, then waits to be killed
PARENT = """
import subprocess, sys, os, time
child = subprocess.Popen([sys.executable, "-c",
    "import os, sys, time; from tombench.kit.orphans import exit_when_orphaned; "
    "exit_when_orphaned(int(sys.argv[1])); print('watching', flush=True); time.sleep(60)", str(os.getpid())],
    stdout=subprocess.PIPE, text=True)
assert child.stdout.readline().strip() == "watching"
print(child.pid, flush=True)
time.sleep(60)
"""


def _gone(pid: int) -> bool:
    try:
        state = open(f"/proc/{pid}/stat", encoding="utf-8").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"


@pytest.mark.timeout(60)
def test_a_child_exits_within_seconds_of_its_parents_sigkill() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    assert not _gone(child)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while not _gone(child) and time.monotonic() < deadline:
        time.sleep(0.1)
    try:
        assert _gone(child)
    finally:
        if not _gone(child):
            os.kill(child, signal.SIGKILL)
