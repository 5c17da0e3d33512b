"""A job's failure in a search worker reaches the parent as the same failure reads in one process: an exception
group's first cause, the model's own error where it pickles, else its message in one line; the worker's traceback
and the exceptions behind it kept as the cause."""

from __future__ import annotations

import asyncio
import pickle
import threading

import httpx
import openai
import pytest

from tombench.generators.exploretom.search.pool import SearchPool
from tombench.generators.exploretom.search.worker_errors import (
    RemoteError,
    RemoteTraceback,
    causes,
    first_cause,
    transportable,
)
from tombench.kit.calls import CallFailed


def _sent(e: BaseException) -> BaseException:
    """What the parent raises for a job that raised `e` in a worker (the queue pickles it)."""
    try:
        raise e
    except BaseException as raised:
        return pickle.loads(pickle.dumps(transportable(raised)))


def _connection_error() -> openai.APIConnectionError:
    return openai.APIConnectionError(request=httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions"))


class _Unpicklable(Exception):
    """Holds a lock, as tenacity's RetryError does (through its Future)."""

    def __init__(self) -> None:
        super().__init__("gave up")
        self.lock = threading.Lock()


def test_a_group_is_sent_as_its_first_real_cause():
    group = ExceptionGroup("unhandled errors in a TaskGroup", [ExceptionGroup("inner", [CallFailed("3 tries")])])
    assert isinstance(first_cause(group), CallFailed)
    got = _sent(group)
    assert type(got) is CallFailed and str(got) == "3 tries"
    assert isinstance(got.__cause__, RemoteTraceback) and "CallFailed: 3 tries" in got.__cause__.text
    assert first_cause(BaseExceptionGroup("g", [asyncio.CancelledError(), ValueError("x")])).args == ("x",)


def test_an_unpicklable_error_keeps_its_message_in_one_line_and_its_causes_by_name():
    # openai's errors take keyword-only arguments: they do not unpickle
    got = _sent(ExceptionGroup("unhandled errors in a TaskGroup", [_connection_error()]))
    assert isinstance(got, RemoteError) and got.message == "Connection error." and "\n" not in got.message
    assert ("APIConnectionError", "Connection error.") in list(causes(got))
    try:
        try:
            raise _connection_error()
        except openai.APIConnectionError as e:
            raise _Unpicklable() from e
    except _Unpicklable as e:
        got = _sent(ExceptionGroup("g", [e]))
    # no `message` attribute: its repr, as Inspect shows a sample's error
    assert got.message == "_Unpicklable('gave up')"
    assert [n for n, _ in causes(got)][:3] == ["_Unpicklable", "_Unpicklable", "APIConnectionError"]


async def _raises_a_group(answer, emit):
    async with asyncio.TaskGroup() as tg:
        tg.create_task(answer(["q"]))
        tg.create_task(_unpicklable_later())


async def _unpicklable_later():
    await asyncio.sleep(0)
    raise _Unpicklable()


async def _recency(prompts):
    return ["x" for _ in prompts]


@pytest.mark.timeout(60)
def test_a_group_raised_in_a_worker_reads_as_its_cause():
    async def go():
        with SearchPool(1) as pool:
            with pytest.raises(RemoteError) as err:
                await pool.run(_raises_a_group, (), _recency)
        return err.value

    e = asyncio.run(go())
    assert e.message == "_Unpicklable('gave up')"
    assert "Exception Group" not in str(e) and "_unpicklable_later" in e.__cause__.text
