"""User errors raised while building a task: one line in `inspect eval`, a ValueError in Python.

Inspect prints a `PrerequisiteError` as its message alone, without a traceback; that class lives in a private module
of inspect-ai, so this is the one place that imports it (and falls back to a plain ValueError if it ever moves).
"""

from __future__ import annotations

try:
    from inspect_ai._util.error import PrerequisiteError as _Prerequisite
except ImportError:  # pragma: no cover - inspect-ai moved it; errors then show with a traceback
    class _Prerequisite(Exception):  # type: ignore[no-redef]
        def __init__(self, message: str) -> None:
            self.message = message

__all__ = ["OptionError"]


class OptionError(_Prerequisite, ValueError):
    """A bad task option or input (message says what to do)."""

    def __init__(self, message: str) -> None:
        _Prerequisite.__init__(self, message)
        ValueError.__init__(self, message)

    def __str__(self) -> str:
        return str(self.message)
