"""A child process that must not outlive its parent: the search's worker processes, the local model's server.

Why a watchdog thread: a parent killed with SIGKILL (an out-of-memory kill, a preempted machine) runs no clean-up,
so nothing stops its children, and they would run for hours with nobody to answer them. Linux's
`PR_SET_PDEATHSIG` fires when the *thread* that started the child ends, not the process, so it is wrong for a child
started from a worker thread. A child of `multiprocessing` has a better signal: its parent sentinel (a pipe whose
other end only the parent holds) becomes readable the moment the parent dies, so the watchdog waits on it and exits
at once. A child started by command line (the local model's server) polls `os.getppid()`, which is exact too (an
orphan is re-parented), twice a second.
"""

from __future__ import annotations

import os
import threading
from multiprocessing import connection
from typing import Any

__all__ = ["PARENT_ENV", "PARENT_POLL", "exit_when_orphaned"]

#: seconds between a child's checks that its parent is still alive
PARENT_POLL = 0.5

#: environment variable through which a parent passes its pid to a child started by command line
PARENT_ENV = "TOMBENCH_PARENT_PID"


def _watch(parent: int, poll: float, sentinel: Any) -> None:
    while True:
        if os.getppid() != parent:
            # `os._exit`: nothing of the child is worth saving without its parent, and a normal exit could wait on
            # threads (queue feeders, a server's workers) that never finish
            os._exit(1)
        if sentinel is None:
            threading.Event().wait(poll)
        elif connection.wait([sentinel], timeout=poll):
            os._exit(1)


def exit_when_orphaned(parent: int, poll: float = PARENT_POLL, sentinel: Any = None) -> threading.Thread:
    """Start a daemon thread that ends this process when its parent `parent` (a pid) dies, including before the
    call: within `poll` seconds, or at once with the parent's `sentinel` (`multiprocessing.parent_process().sentinel`
    in a child of multiprocessing: readable when the parent has died)."""
    thread = threading.Thread(target=_watch, args=(parent, poll, sentinel), daemon=True,
                              name="tombench-orphan-watch")
    thread.start()
    return thread
