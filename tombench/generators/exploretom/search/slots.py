"""One limit on concurrent model calls for a parent process and its search workers together.

Why: when the workers call the model themselves (`pool.CallTarget`), each builds its own client, and each client's
own connection limit would multiply the user's `--max-connections` by the number of processes. So the parent holds
the one count (`SlotBroker`) and a worker's calls borrow slots from it (`WorkerSlots`); the parent's own calls (the
live task's question samples) borrow from the same count. The total in flight never exceeds the capacity.

Why not one message per call: a worker keeps a slot a finished call frees and hands it to its next waiting call, and
asks the parent only for what its waiting calls lack. That is fair only while nobody else waits, so the parent
raises a flag shared with every worker (`contended`) while any request is queued, and a worker then returns each
freed slot to the parent, which grants slots in the order they were asked for.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

__all__ = ["Contention", "SlotBroker", "WorkerSlots"]


class Contention:
    """The flag the workers read (`shared.value`): 1 while any broker of the pool has a request queued. One per
    pool, whatever the number of targets: a broker with nothing queued must not clear another's request."""

    def __init__(self, shared: Any) -> None:
        self.shared = shared
        self._queued: set[int] = set()
        self._lock = threading.Lock()

    def mark(self, broker: object, queued: bool) -> None:
        with self._lock:
            (self._queued.add if queued else self._queued.discard)(id(broker))
            self.shared.value = int(bool(self._queued))


class SlotBroker:
    """The parent's count of free call slots for one target; `grant(worker, n)` sends a worker its slots.

    Thread-safe: the pool's reader thread hands it the workers' requests and returns, the parent's event loops
    borrow through `slot()`."""

    def __init__(self, capacity: int, workers: int, grant: Callable[[int, int], None],
                 contended: Contention | Any) -> None:
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1, got {capacity}")
        self.capacity = capacity
        self._free = capacity
        self._held = [0] * workers
        #: queued requests, one entry per slot: a worker's index or a local waiter (its loop and future)
        self._queue: collections.deque[int | tuple[asyncio.AbstractEventLoop, asyncio.Future]] = collections.deque()
        self._grant = grant
        #: the workers' flag (a `Contention`; a bare shared value is wrapped: one broker alone writes it)
        self._contention = contended if isinstance(contended, Contention) else Contention(contended)
        self._lock = threading.Lock()

    def want(self, worker: int, n: int) -> None:
        """`worker` asks for `n` more slots."""
        with self._lock:
            self._queue.extend([worker] * n)
            grants = self._dispatch()
        self._send(grants)

    def release(self, worker: int, n: int) -> None:
        """`worker` gives `n` slots back."""
        with self._lock:
            n = min(n, self._held[worker])
            self._held[worker] -= n
            self._free += n
            grants = self._dispatch()
        self._send(grants)

    def lost(self, worker: int) -> None:
        """`worker` died: its slots come back and its queued requests go."""
        with self._lock:
            self._free += self._held[worker]
            self._held[worker] = 0
            self._queue = collections.deque(x for x in self._queue if x != worker)
            grants = self._dispatch()
        self._send(grants)

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """One slot for a call made in this process, for as long as the block runs."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future = loop.create_future()
        with self._lock:
            if self._free > 0 and not self._queue:
                self._free -= 1
                fut.set_result(None)
            else:
                self._queue.append((loop, fut))
                self._contention.mark(self, True)
        try:
            await fut
        except asyncio.CancelledError:
            with self._lock:
                waiting = (loop, fut) in self._queue
                if waiting:
                    self._queue.remove((loop, fut))
                    self._contention.mark(self, bool(self._queue))
            if not waiting:  # granted as it was cancelled: give the slot back
                self._give_back()
            raise
        try:
            yield
        finally:
            self._give_back()

    def in_use(self) -> int:
        """Slots taken now (tests, progress)."""
        with self._lock:
            return self.capacity - self._free

    def _give_back(self) -> None:
        with self._lock:
            self._free += 1
            grants = self._dispatch()
        self._send(grants)

    def _dispatch(self) -> dict[int, int]:
        """Grant free slots in request order (under the lock); the workers' grants to send."""
        grants: dict[int, int] = {}
        while self._free > 0 and self._queue:
            who = self._queue.popleft()
            self._free -= 1
            if isinstance(who, int):
                self._held[who] += 1
                grants[who] = grants.get(who, 0) + 1
            else:
                loop, fut = who
                with contextlib.suppress(RuntimeError):  # its loop has closed: the slot is free again below
                    loop.call_soon_threadsafe(_resolve, fut)
                    continue
                self._free += 1
        self._contention.mark(self, bool(self._queue))
        return grants

    def _send(self, grants: dict[int, int]) -> None:
        for worker, n in grants.items():
            self._grant(worker, n)


def _resolve(fut: asyncio.Future) -> None:
    if not fut.done():
        fut.set_result(None)


class WorkerSlots:
    """A worker's side of one broker: `async with slots:` around each call; `granted(n)` when the parent sends n.

    `send(message)` goes to the parent: ("want", n) or ("release", n)."""

    def __init__(self, send: Callable[[tuple[str, int]], None], contended: Any) -> None:
        self._send = send
        self._contended = contended
        self._asked = 0  # slots asked of the parent and not granted yet
        self._to_release = 0
        self._waiters: collections.deque[asyncio.Future] = collections.deque()
        self._flush_due = False

    async def __aenter__(self) -> None:
        # a worker holds no idle slot (a freed one goes to a waiting call or back to the parent): every call waits
        # for a grant or a handover
        fut = asyncio.get_running_loop().create_future()
        self._waiters.append(fut)
        self._schedule()
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():
                self._freed()
            else:
                with contextlib.suppress(ValueError):
                    self._waiters.remove(fut)
            raise

    async def __aexit__(self, *exc: object) -> None:
        self._freed()

    def granted(self, n: int) -> None:
        """The parent granted `n` slots: to the waiting calls, any left over back."""
        self._asked = max(0, self._asked - n)
        for _ in range(n):
            self._freed(from_parent=True)

    def _freed(self, from_parent: bool = False) -> None:
        """A slot is free here: the next waiting call takes it, unless others wait at the parent (then it goes
        back there, and this worker's waiting calls are already queued there)."""
        while self._waiters and (from_parent or not self._contended.value):
            fut = self._waiters.popleft()
            if not fut.done():
                fut.set_result(None)
                return
        self._to_release += 1
        self._schedule()

    def _schedule(self) -> None:
        if not self._flush_due:
            self._flush_due = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        """Once per turn of the loop: ask for what the waiting calls lack, return what nobody here waits for."""
        self._flush_due = False
        if self._to_release:
            self._send(("release", self._to_release))
            self._to_release = 0
        need = len(self._waiters) - self._asked
        if need > 0:
            self._asked += need
            self._send(("want", need))
