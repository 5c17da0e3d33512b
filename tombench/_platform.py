"""tombench runs on POSIX systems: what it uses that only they have, and the one line another system gets.

What: the signals a terminal sends (SIGHUP; SIGUSR1, by which a command ends itself from another thread) and a
thread's signal mask (search workers start with SIGINT and SIGHUP blocked), `fcntl` locks (one writer per output
folder), process groups (`os.killpg`: a local model server and its children). Windows has none of them (WSL has them
all). Without this check the first module that names one fails at import with an AttributeError that says nothing of
why; with it, the modules that need them raise `UnsupportedPlatform` (an ImportError) with one line, and the
`tombench` command prints that line.

Only the standard library is imported here: the check runs before anything heavy.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import sys

__all__ = ["UnsupportedPlatform", "require_posix", "unsupported"]

#: the signal-module names tombench uses
_SIGNAL_NAMES = ("SIGHUP", "SIGUSR1", "SIGBUS", "pthread_sigmask", "pthread_kill")


class UnsupportedPlatform(ImportError):
    """This system lacks what tombench needs (see the module's docstring); the message is the one line to show."""


def missing() -> list[str]:
    """What this Python lacks of what tombench uses, by name (empty on Linux and other POSIX systems)."""
    out = [f"signal.{name}" for name in _SIGNAL_NAMES if not hasattr(signal, name)]
    if not hasattr(os, "killpg"):
        out.append("os.killpg")
    if importlib.util.find_spec("fcntl") is None:
        out.append("fcntl")
    return out


def unsupported() -> str | None:
    """The one line for a system tombench cannot run on, or None where it can."""
    lacking = missing()
    if not lacking:
        return None
    return (f"tombench runs on POSIX systems only (Linux; on Windows, inside WSL): this Python ({sys.platform}) has "
            f"no {', '.join(lacking)}")


def require_posix() -> None:
    """Raise `UnsupportedPlatform` with the one line where tombench cannot run (called at the import of the modules
    that use a POSIX-only name at import)."""
    line = unsupported()
    if line is not None:
        raise UnsupportedPlatform(line)
