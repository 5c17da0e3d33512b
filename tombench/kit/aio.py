"""Running a command's coroutine: `asyncio.run`, and nothing left running when it ends.

When a command's search fails (a model that cannot be reached), the concurrent parts that did not fail yet are
still running: `asyncio.gather` hands on the first failure and leaves its siblings (and the tasks they started) to
go on. `asyncio.run` cancels whatever is left as it closes and prints each one that then ends in an error as an
"unhandled exception during asyncio.run() shutdown" traceback, under the command's one line. `run` cancels and
awaits them itself, so their errors are collected, not printed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["run"]

T = TypeVar("T")


async def _to_the_end(coro: Coroutine[Any, Any, T]) -> T:
    try:
        return await coro
    finally:
        me = asyncio.current_task()
        left = [t for t in asyncio.all_tasks() if t is not me]
        for t in left:
            t.cancel()
        await asyncio.gather(*left, return_exceptions=True)


def run(coro: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(coro)`, with every other task cancelled and awaited before the loop closes."""
    return asyncio.run(_to_the_end(coro))
