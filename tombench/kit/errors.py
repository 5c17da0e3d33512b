"""User errors raised while building a task: one line in `inspect eval`, a ValueError in Python.

Inspect prints a `PrerequisiteError` as its message alone, without a traceback; that class lives in a private module
of inspect-ai, so it comes from the one module that holds Inspect's internals (`kit.inspect_internals`), which stands
in a plain exception for it if it ever moves (errors then show with a traceback).
"""

from __future__ import annotations

from tombench.kit.inspect_internals import PrerequisiteError

__all__ = ["OptionError"]


class OptionError(PrerequisiteError, ValueError):
    """A bad task option or input (message says what to do)."""

    def __init__(self, message: str) -> None:
        PrerequisiteError.__init__(self, message)
        ValueError.__init__(self, message)

    def __str__(self) -> str:
        return str(self.message)
