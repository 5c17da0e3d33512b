"""Start a child process as a terminal starts a command, whatever started the test run.

A test of a user's Ctrl-C (or closed terminal) sends the signal to a child and checks what the child does with it.
The child inherits its signal dispositions from pytest, and those depend on how pytest was started: a shell runs a
background job (`pytest &`, `nohup pytest &`, a CI step's shell script) with SIGINT and SIGQUIT ignored, `nohup`
ignores SIGHUP, and an ignored signal stays ignored across `exec` (Python then installs no Ctrl-C handler at all). A
terminal's foreground command has them all at their defaults, so that is what `terminal_popen` gives its child: the
same test passes whether pytest was started from a terminal, in the background or by a CI runner.
"""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Sequence
from typing import Any

__all__ = ["TERMINAL_SIGNALS", "at_terminal_defaults", "terminal_popen"]

#: the signals a terminal or a user sends a command, which a background start may leave ignored or blocked
TERMINAL_SIGNALS: tuple[signal.Signals, ...] = (signal.SIGINT, signal.SIGQUIT, signal.SIGHUP, signal.SIGTERM)


def at_terminal_defaults() -> None:
    """In the child, before it execs (a `preexec_fn`): every terminal signal at its default action and unblocked, as
    in a command started from a terminal (an ignored signal would stay ignored in the program it execs)."""
    for sig in TERMINAL_SIGNALS:
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, TERMINAL_SIGNALS)


def terminal_popen(args: Sequence[str], **kwargs: Any) -> subprocess.Popen:
    """`subprocess.Popen(args, **kwargs)` with the child's signals as a terminal leaves them (`at_terminal_defaults`).

    Every test that signals a child the way a user or a terminal does starts the child with this
    (`tests/test_terminal.py` checks that they do)."""
    if "preexec_fn" in kwargs:
        raise TypeError("terminal_popen sets preexec_fn itself")
    return subprocess.Popen(args, preexec_fn=at_terminal_defaults, **kwargs)
