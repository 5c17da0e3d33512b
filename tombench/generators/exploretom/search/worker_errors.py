"""How a job's failure crosses from a search worker to the parent: so that it reads as the same failure would in one
process.

Why: a job's model calls run in an `asyncio.TaskGroup`, so a failed call leaves the job as an `ExceptionGroup`, and a
provider's error often does not pickle (openai's take keyword-only arguments, tenacity's `RetryError` holds a lock).
Sent as a traceback's text, it became the sample's error message: a 14 KB exception group where the same failure in
one process reads `RetryError(...)` (Inspect reports a group's first exception). So the worker sends the group's first
real cause (`first_cause`): the exception itself where it pickles, else a `RemoteError` whose message is what Inspect
would show for it; either way with the worker's traceback as its `__cause__` (`RemoteTraceback`, as
`concurrent.futures` does for its process pool), which also keeps the names and messages of the exceptions behind it
(`causes`: e.g. the connection error behind a `RetryError`, which the parent cannot unpickle).
"""

from __future__ import annotations

import asyncio
import pickle
import traceback
from collections.abc import Iterator

__all__ = ["RemoteError", "RemoteTraceback", "WorkerError", "causes", "first_cause", "transportable"]


class WorkerError(RuntimeError):
    """A job failed in a worker process with an exception that cannot be sent as it is, or the worker died."""


class RemoteError(WorkerError):
    """A job's exception that does not pickle, as the parent raises it: `message` is what Inspect shows for the
    original (its `message`, else its repr), so the sample's error reads the same as in one process."""

    def __init__(self, message: str, type_name: str) -> None:
        super().__init__(message)
        self.message = message
        self.type_name = type_name

    def __reduce__(self) -> tuple:
        return (RemoteError, (self.message, self.type_name))


class RemoteTraceback(Exception):
    """The worker's traceback of a job's failure (the `__cause__` of what the parent raises) and the (type name,
    first line) of every exception behind it there."""

    def __init__(self, text: str, chain: tuple[tuple[str, str], ...] = ()) -> None:
        super().__init__(text)
        self.text, self.chain = text, chain

    def __str__(self) -> str:
        return f"\n\"\"\"\n{self.text}\"\"\""

    def __reduce__(self) -> tuple:
        return (RemoteTraceback, (self.text, self.chain))


def first_cause(e: BaseException) -> BaseException:
    """`e`, or for an exception group its first exception that is not a cancellation (the first one if all are),
    recursively: what Inspect reports for a group raised in one process."""
    while isinstance(e, BaseExceptionGroup):
        real = [x for x in e.exceptions if not isinstance(x, asyncio.CancelledError)]
        e = (real or list(e.exceptions))[0]
    return e


def causes(e: BaseException) -> Iterator[tuple[str, str]]:
    """(type name, first line of its message) of `e` and of every exception behind it: a group's exceptions, each
    one's cause and context, and what a `RemoteTraceback` recorded in the worker; each once, `e` first."""
    seen: set[int] = set()
    todo = [e]
    while todo:
        x = todo.pop(0)
        if id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, RemoteTraceback):
            yield from x.chain
            continue
        yield (getattr(x, "type_name", type(x).__name__), _first_line(x))
        children = list(x.exceptions) if isinstance(x, BaseExceptionGroup) else []
        todo.extend(c for c in (*children, x.__cause__, x.__context__) if c is not None)


def transportable(e: BaseException) -> object:
    """What to send the parent for a job that raised `e` in a worker (see the module's docstring): it always pickles,
    and unpickles as the exception to raise, with the worker's traceback as its `__cause__`."""
    cause = first_cause(e)
    remote = RemoteTraceback("".join(traceback.format_exception(cause)), tuple(causes(cause)))
    try:
        pickle.loads(pickle.dumps(cause))
    except Exception:  # noqa: BLE001 - whatever stops it from pickling, it is sent by name
        message = getattr(cause, "message", None)
        cause = RemoteError(message if isinstance(message, str) else repr(cause), type(cause).__name__)
    return _Carried(cause, remote)


class _Carried:
    """`exc` on its way to the parent, which unpickles it with `remote` as its cause (pickle drops `__cause__`)."""

    def __init__(self, exc: BaseException, remote: RemoteTraceback) -> None:
        self.exc, self.remote = exc, remote

    def __reduce__(self) -> tuple:
        return (_arrived, (self.exc, self.remote))


def _arrived(exc: BaseException, remote: RemoteTraceback) -> BaseException:
    exc.__cause__ = remote
    return exc


def _first_line(e: BaseException) -> str:
    message = getattr(e, "message", None)
    try:
        text = (message if isinstance(message, str) else str(e)).strip()
    except Exception:  # noqa: BLE001 - an exception whose __str__ fails still has a name
        return ""
    return text.splitlines()[0] if text else ""
