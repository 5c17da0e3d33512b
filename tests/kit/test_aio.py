"""`kit.aio.run`: a command's coroutine that fails leaves no task running for asyncio to print as it closes."""

from __future__ import annotations

import asyncio
import logging

import pytest

from tombench.kit import aio


async def _sibling() -> None:
    try:
        await asyncio.sleep(10)
    finally:
        raise ConnectionError("the sibling's own failure, raised as it is cancelled")


async def _fails_first() -> None:
    await asyncio.sleep(0.01)
    raise ConnectionError("the first failure")


async def _command() -> None:
    await asyncio.gather(_fails_first(), _sibling())  # gather hands on the first failure, the sibling runs on


def test_the_first_failure_is_raised_and_nothing_is_printed_for_the_rest(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.ERROR, logger="asyncio"), pytest.raises(ConnectionError, match="the first failure"):
        aio.run(_command())
    assert not [r for r in caplog.records if r.name == "asyncio"]


def test_plain_asyncio_run_prints_the_sibling(caplog: pytest.LogCaptureFixture) -> None:
    """What `aio.run` is for: `asyncio.run` logs the sibling's failure as an unhandled exception at shutdown."""
    with caplog.at_level(logging.ERROR, logger="asyncio"), pytest.raises(ConnectionError):
        asyncio.run(_command())
    assert any("unhandled exception during asyncio.run() shutdown" in r.getMessage() for r in caplog.records)


def test_a_result_is_returned() -> None:
    async def value() -> int:
        return 7

    assert aio.run(value()) == 7
