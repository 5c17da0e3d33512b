"""A child process that must not outlive its parent: the search's worker processes, the local model's server.

Why a watchdog thread: a parent killed with SIGKILL (an out-of-memory kill, a preempted machine) runs no clean-up,
so nothing stops its children, and they would run for hours with nobody to answer them. Linux's
`PR_SET_PDEATHSIG` fires when the *thread* that started the child ends, not the process, so it is wrong for a child
started from a worker thread; polling `os.getppid()` is exact (an orphan is re-parented) and costs nothing.
"""

from __future__ import annotations

import os
import threading
import time

__all__ = ["PARENT_ENV", "PARENT_POLL", "exit_when_orphaned"]

#: seconds between a child's checks that its parent is still alive
PARENT_POLL = 0.5

#: environment variable through which a parent passes its pid to a child started by command line
PARENT_ENV = "TOMBENCH_PARENT_PID"


def _watch(parent: int, poll: float) -> None:
    while True:
        if os.getppid() != parent:
            # `os._exit`: nothing of the child is worth saving without its parent, and a normal exit could wait on
            # threads (queue feeders, a server's workers) that never finish
            os._exit(1)
        time.sleep(poll)


def exit_when_orphaned(parent: int, poll: float = PARENT_POLL) -> threading.Thread:
    """Start a daemon thread that ends this process within `poll` seconds of its parent `parent` (a pid) dying,
    including before the call: a parent that died already ends it at the first check."""
    thread = threading.Thread(target=_watch, args=(parent, poll), daemon=True, name="tombench-orphan-watch")
    thread.start()
    return thread
