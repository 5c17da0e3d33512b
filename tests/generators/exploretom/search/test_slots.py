"""One limit on concurrent model calls for a parent and its search workers (search/slots.py): the broker's grants
with a fake grant callable, then a real pool whose workers and parent call a dummy target together."""

from __future__ import annotations

import asyncio
import random
import time
import types
from dataclasses import dataclass

import pytest

from tombench.generators.exploretom.search.pool import JobCalls, SearchPool, WorkerError
from tombench.generators.exploretom.search.slots import Contention, SlotBroker


class _Grants:
    """The broker's `grant` callable: every grant in order, and the slots each worker holds (granted - released)."""

    def __init__(self, workers: int) -> None:
        self.log: list[tuple[int, int]] = []
        self.held = [0] * workers

    def __call__(self, worker: int, n: int) -> None:
        self.log.append((worker, n))
        self.held[worker] += n


def _broker(capacity: int, workers: int) -> tuple[SlotBroker, _Grants, types.SimpleNamespace]:
    grants, flag = _Grants(workers), types.SimpleNamespace(value=0)
    return SlotBroker(capacity, workers, grants, flag), grants, flag


def _queued(broker: SlotBroker) -> int:
    return len(broker._queue)


def test_capacity_must_be_positive():
    with pytest.raises(ValueError, match="capacity must be >= 1"):
        _broker(0, 1)


@pytest.mark.timeout(30)
def test_capacity_is_never_exceeded_and_every_request_is_served():
    """Random wants and releases of 4 workers on 3 slots: never more than 3 held, what the broker counts as taken
    is what the workers hold, the flag is up exactly while a request waits; at the end every request was granted."""
    rng = random.Random(7)
    broker, grants, flag = _broker(3, 4)
    wanted = [0] * 4
    for _ in range(500):
        w = rng.randrange(4)
        if grants.held[w] and rng.random() < 0.5:
            n = rng.randint(1, grants.held[w])
            grants.held[w] -= n
            broker.release(w, n)
        else:
            n = rng.randint(1, 3)
            wanted[w] += n
            broker.want(w, n)
        assert sum(grants.held) <= 3
        assert broker.in_use() == sum(grants.held)
        assert flag.value == int(_queued(broker) > 0)
    while _queued(broker):  # release everything held until the queue is drained
        w = next(i for i, h in enumerate(grants.held) if h)
        n, grants.held[w] = grants.held[w], 0  # before the release: it may grant this worker more at once
        broker.release(w, n)
    granted = [0] * 4
    for w, n in grants.log:
        granted[w] += n
    assert granted == wanted
    assert flag.value == 0


def test_one_contention_flag_for_every_target_of_a_pool():
    """Two targets (two brokers) share the workers' flag: one with nothing queued must not clear it while the
    other has a request waiting (the workers would keep freed slots from it)."""
    flag = types.SimpleNamespace(value=0)
    contention = Contention(flag)
    a = SlotBroker(1, 2, lambda w, n: None, contention)
    b = SlotBroker(1, 2, lambda w, n: None, contention)
    a.want(0, 1)
    a.want(1, 1)  # queued: a's one slot is taken
    assert flag.value == 1
    b.want(0, 1)
    b.release(0, 1)  # b's queue is empty
    assert flag.value == 1
    a.release(0, 1)  # a's queued request is granted: nothing waits anywhere
    assert flag.value == 0


def test_release_frees_and_grants_the_next_request():
    broker, grants, flag = _broker(2, 2)
    broker.want(0, 2)
    assert grants.log == [(0, 2)] and broker.in_use() == 2 and flag.value == 0
    broker.want(1, 1)
    assert grants.log == [(0, 2)] and flag.value == 1  # nothing free: queued
    broker.release(0, 1)
    assert grants.log == [(0, 2), (1, 1)] and broker.in_use() == 2 and flag.value == 0
    broker.release(0, 5)  # more than it holds: only what it holds comes back
    assert broker.in_use() == 1
    broker.release(1, 1)
    assert broker.in_use() == 0
    broker.want(1, 3)  # capacity 2: two now, one waits
    assert grants.log[-1] == (1, 2) and flag.value == 1 and _queued(broker) == 1


def test_a_lost_worker_returns_its_slots_and_its_requests_go():
    broker, grants, flag = _broker(2, 3)
    broker.want(0, 2)
    broker.want(0, 1)
    broker.want(1, 1)
    broker.want(0, 1)
    broker.want(2, 1)
    assert grants.log == [(0, 2)] and _queued(broker) == 4 and flag.value == 1
    broker.lost(0)
    # its two slots go to the next requests in order that are not its own
    assert grants.log == [(0, 2), (1, 1), (2, 1)]
    assert broker.in_use() == 2 and _queued(broker) == 0 and flag.value == 0
    broker.release(1, 1)
    broker.release(2, 1)
    assert broker.in_use() == 0 and grants.log[-1] == (2, 1)  # nothing left for the dead worker
    broker.lost(1)  # a worker that holds nothing: no change
    assert broker.in_use() == 0


@pytest.mark.timeout(30)
def test_grants_are_fifo_across_workers_and_local_waiters():
    """Capacity 1: a local holder, then worker 0, a local waiter, worker 1, another local waiter: served in that
    order as each lets go."""
    broker, grants, flag = _broker(1, 2)
    order: list[object] = []
    grants_log = grants.log

    async def local(name: str, go: asyncio.Event) -> None:
        async with broker.slot():
            order.append(name)
            await go.wait()

    async def main() -> None:
        gates = {n: asyncio.Event() for n in "ABC"}
        a = asyncio.create_task(local("A", gates["A"]))
        await asyncio.sleep(0)
        assert order == ["A"] and flag.value == 0
        broker.want(0, 1)
        assert flag.value == 1
        b = asyncio.create_task(local("B", gates["B"]))
        await asyncio.sleep(0)
        broker.want(1, 1)
        c = asyncio.create_task(local("C", gates["C"]))
        await asyncio.sleep(0)
        assert _queued(broker) == 4 and grants_log == []
        gates["A"].set()
        await a
        assert grants_log == [(0, 1)] and order == ["A"]
        broker.release(0, 1)
        for _ in range(3):
            await asyncio.sleep(0)
        assert order == ["A", "B"] and grants_log == [(0, 1)]
        gates["B"].set()
        await b
        assert grants_log == [(0, 1), (1, 1)] and order == ["A", "B"] and flag.value == 1  # C still waits
        broker.release(1, 1)
        gates["C"].set()
        await c
        assert order == ["A", "B", "C"] and broker.in_use() == 0 and flag.value == 0

    asyncio.run(main())


@pytest.mark.timeout(30)
def test_a_cancelled_local_waiter_takes_no_slot():
    broker, grants, flag = _broker(1, 1)

    async def waiter() -> None:
        async with broker.slot():
            await asyncio.sleep(3600)

    async def main() -> None:
        # cancelled while queued: its request goes, the flag falls
        broker.want(0, 1)
        t = asyncio.create_task(waiter())
        await asyncio.sleep(0)
        assert flag.value == 1 and _queued(broker) == 1
        t.cancel()
        with pytest.raises(asyncio.CancelledError):
            await t
        assert flag.value == 0 and _queued(broker) == 0
        broker.release(0, 1)
        assert broker.in_use() == 0 and grants.log == [(0, 1)]

        # granted and cancelled before it woke: the slot comes back
        broker.want(0, 1)
        t = asyncio.create_task(waiter())
        await asyncio.sleep(0)
        broker.release(0, 1)  # the grant to the waiter is on its way
        assert broker.in_use() == 1
        t.cancel()
        with pytest.raises(asyncio.CancelledError):
            await t
        assert broker.in_use() == 0 and _queued(broker) == 0

        # cancelled while it holds the slot: the slot comes back
        t = asyncio.create_task(waiter())
        await asyncio.sleep(0)
        assert broker.in_use() == 1
        t.cancel()
        with pytest.raises(asyncio.CancelledError):
            await t
        assert broker.in_use() == 0 and flag.value == 0

    asyncio.run(main())


# --- a real pool: workers and the parent call one dummy target within its two connections


@dataclass(frozen=True)
class DummyTarget:
    """A `pool.CallTarget` whose caller sleeps 20 ms per prompt inside a slot and records when."""

    key: str = "dummy"
    connections: int = 2

    def build(self, slots):
        return DummyCaller(slots)


class DummyCaller:
    def __init__(self, slots) -> None:
        self.slots = slots

    def begin(self, target) -> JobCalls:
        return JobCalls()

    async def one(self, prompt: str, calls: JobCalls) -> str:
        async with self.slots:
            start = time.time()
            await asyncio.sleep(0.02)
            calls.usage.setdefault("spans", []).append((start, time.time()))
        calls.calls += 1
        return f"answer to {prompt}"

    async def __call__(self, prompts: list, calls: JobCalls) -> list[str]:
        return list(await asyncio.gather(*(self.one(p, calls) for p in prompts)))


class ModelDown(Exception):
    """Picklable: a worker's job raising it is raised again in the parent as itself."""


class Unpicklable(Exception):
    def __init__(self) -> None:
        super().__init__("cannot cross")
        self.hook = lambda: None


class _Answer:
    """An answerer whose calls are the workers' (it is never called in the parent)."""

    worker_target = DummyTarget()

    def __init__(self) -> None:
        self.jobs: list[JobCalls] = []

    async def __call__(self, prompts: list) -> list[str]:
        raise AssertionError("the parent was asked to answer")

    def worker_calls(self, calls: JobCalls) -> None:
        self.jobs.append(calls)


async def _ask(answer, emit, prompts):
    return await answer(prompts)


async def _ask_then_fail(answer, emit, error):
    await answer(["x", "y"])
    raise {"ModelDown": ModelDown("server gone"), "Unpicklable": Unpicklable()}[error]


def _max_overlap(spans: list[tuple[float, float]]) -> int:
    # at equal times an end comes before a start: a slot handed on is not two calls at once
    points = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans], key=lambda x: (x[0], x[1]))
    now = most = 0
    for _, d in points:
        now += d
        most = max(most, now)
    return most


@pytest.mark.timeout(60)
def test_workers_and_parent_share_one_connection_limit():
    """3 workers running 10-prompt jobs at once and calls in the parent: never more than the target's 2
    connections in flight across the processes, 2 at some point, and every call answered."""
    answer = _Answer()
    target = answer.worker_target
    parent_spans: list[tuple[float, float]] = []

    async def parent_call() -> None:
        async with pool.slot(target):
            start = time.time()
            await asyncio.sleep(0.02)
            parent_spans.append((start, time.time()))

    async def go():
        jobs = [[f"j{j}p{i}" for i in range(10)] for j in range(3)]
        runs = [pool.run(_ask, (prompts,), answer) for prompts in jobs]
        results = await asyncio.gather(*runs, *(parent_call() for _ in range(5)))
        assert results[:3] == [[f"answer to {p}" for p in prompts] for prompts in jobs]
        assert pool.broker(target).in_use() == 0

    with SearchPool(3) as pool:
        asyncio.run(go())
    assert len(answer.jobs) == 3 and all(c.calls == 10 and c.errors == 0 for c in answer.jobs)
    spans = [tuple(s) for c in answer.jobs for s in c.usage["spans"]] + parent_spans
    assert len(spans) == 35
    assert _max_overlap(spans) == 2


@pytest.mark.timeout(60)
def test_a_worker_calls_job_that_raises_raises_its_own_type_in_the_parent():
    answer = _Answer()

    async def go():
        with pytest.raises(ModelDown, match="server gone"):
            await pool.run(_ask_then_fail, ("ModelDown",), answer)
        # one that cannot cross processes: its traceback
        with pytest.raises(WorkerError, match="Unpicklable"):
            await pool.run(_ask_then_fail, ("Unpicklable",), answer)

    with SearchPool(1) as pool:
        asyncio.run(go())
    # the calls made before the failure were still handed over
    assert [(c.calls, c.errors, len(c.usage["spans"])) for c in answer.jobs] == [(2, 0, 2), (2, 0, 2)]


@pytest.mark.timeout(60)
def test_close_ends_the_reader_quietly_when_a_worker_was_just_killed(monkeypatch):
    """A worker killed as the pool closes (its pipe ended mid-way, its replacement not wanted any more): the
    parent's reader, woken by `close` through a pipe of its own, ends without an exception (a traceback at exit)."""
    import os
    import signal
    import threading

    errors: list[BaseException] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: errors.append(args.exc_value))
    pool = SearchPool(1)
    os.kill(pool._procs[0].pid, signal.SIGKILL)
    pool.close(grace=0.5)
    pool._reader.join(timeout=5)
    assert not pool._reader.is_alive()
    assert errors == []


def test_running_pool_starts_nothing_and_shared_slot_limits_only_a_called_target():
    """A question sample only borrows the workers' slots: it never starts a pool, and where no worker calls its
    model there is no count of ours to borrow from."""
    import contextlib

    from tombench.generators.exploretom.search.pool import running_pool

    assert running_pool(97) is None  # no pool of that size was started, and asking starts none
    assert running_pool(97) is None
    with SearchPool(1) as pool:
        target = DummyTarget()
        assert isinstance(pool.shared_slot(target), contextlib.nullcontext)
        pool.broker(target)
        assert not isinstance(pool.shared_slot(target), contextlib.nullcontext)
