"""Every core for the search: searches run in worker processes, and so do their model calls where they can.

Why processes: the search's CPU (rollouts, screening, question generation) is pure Python and holds the GIL, so
threads would not help; two settings never depend on each other, so a setting (or one story's search) is a job a
process can run alone. A search is a deterministic function of its inputs and its answers, so a job gives the same
result in a worker as in the parent, whatever the timing.

Where the model is called: a model call costs the caller CPU too (a client, its retries, the bookkeeping around
it), as much as the search's own against a fast server, so calls made in the parent would make it the bottleneck.
So an answerer that can be rebuilt in another process says how (its `worker_target`, a picklable `CallTarget`):
each worker builds its own caller from it once and the job's calls are made there; the parent gets a summary of
them with the result (`JobCalls`, handed to the answerer's `worker_calls`). Concurrent calls stay within one limit
for all processes together (`slots.SlotBroker`; the parent's own calls borrow from it through `slot()`). An
answerer without a target (a test's closure, a model that lives in this process) stays in the parent: the worker's
job gets an *answerer proxy*, each prompt batch goes to the parent over a queue, the parent awaits the real
answerer and sends the responses back.

Jobs are top-level async functions `fn(answer, emit, *args)`; `emit(message)` hands the parent an event while the
job runs (the runner writes each finished attempt as it comes: nothing is lost on interruption). Workers start with
`spawn` (no forked copy of the parent's threads and event loop).

Ending: the parent alone decides when workers stop, and no worker outlives it.
* Workers ignore SIGINT and SIGHUP (a terminal sends them to the whole process group): Ctrl-C or a closed terminal
  reaches the parent, which stops them. The signals are blocked while a worker starts, so one arriving during its
  start-up (importing, unpickling) cannot kill it half-started either.
* A worker whose parent died, however (SIGKILL, out of memory), exits by itself within a second: a watchdog thread
  compares `os.getppid()` with the parent's pid (`kit.orphans`). With the workers gone, multiprocessing's resource tracker (started
  by the parent for the queues' locks) sees its last pipe close and exits too.
* The live task's shared pool stops when its eval ends (`close_shared`, from an Inspect hook the task registers).
* `close` never blocks on a dead or stuck worker: queues never join their feeder threads (a feeder blocked on a
  full pipe to a dead worker would hold the process at exit), workers left after a grace period are terminated,
  then killed. The pool's `atexit` clean-up runs before multiprocessing's own (which would join those threads).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import itertools
import multiprocessing as mp
import multiprocessing.util  # noqa: F401 - registers multiprocessing's atexit hook now, so the pool's runs before it
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager as AsyncContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

from tombench._platform import require_posix
from tombench.generators.exploretom.search.evaluator import Answerer
from tombench.generators.exploretom.search.slots import Contention, SlotBroker, WorkerSlots
from tombench.generators.exploretom.search.worker_errors import WorkerError, transportable
from tombench.kit.orphans import exit_when_orphaned

require_posix()  # signal.SIGHUP and pthread_sigmask below: one line on a system without them, not an AttributeError

__all__ = ["CallTarget", "JobCalls", "SearchPool", "WorkerCaller", "WorkerError", "answer_prompts", "can_spawn",
           "close_shared", "running_pool", "shared_pool", "usable_workers"]

Job = Callable[..., Awaitable[Any]]


async def answer_prompts(answer: Answerer, emit: Callable[[Any], None], prompts: list[Any]) -> int:
    """A job that only asks `prompts` (in one batch): with a response cache, their answers are then there for
    whoever asks the same prompts later, in any process; how many were asked."""
    await answer(prompts)
    return len(prompts)


@dataclass
class JobCalls:
    """What one job's model calls in a worker cost: calls answered, calls that failed for good, seconds spent in
    calls (summed over concurrent ones) and the usage the caller recorded (its own keys, e.g. per model).

    Usage goes through `fresh`: the caller's record adds each call's usage there and calls `called()`; where the
    parent must see it as each call completes (`live`: a sample's token and cost limits are checked on it) the
    worker sends what is fresh once per turn of its event loop, else with the result (`take_fresh`: it then joins
    `usage`)."""

    calls: int = 0
    errors: int = 0
    seconds: float = 0.0
    usage: dict[str, Any] = field(default_factory=dict)
    #: usage recorded since the parent was last sent any (values that add with `+`)
    fresh: dict[str, Any] = field(default_factory=dict)
    #: send `fresh` as the calls complete (else with the result only)
    live: bool = True
    #: set by the worker: told after each call (never pickled: the parent gets the record without it)
    on_call: Callable[[], None] | None = field(default=None, repr=False, compare=False)

    def called(self) -> None:
        """A call ended (its usage, if any, is in `fresh`)."""
        if self.on_call is not None:
            self.on_call()

    def take_fresh(self) -> dict[str, Any]:
        """The fresh usage, moved into `usage` (the job's total)."""
        if not self.fresh:
            return {}
        out = dict(self.fresh)
        self.fresh.clear()  # the same dict: whoever records into it keeps doing so
        for key, value in out.items():
            self.usage[key] = value if key not in self.usage else self.usage[key] + value
        return out

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "on_call": None}


class WorkerCaller(Protocol):
    """A worker's caller of one model, built once per worker from a `CallTarget`."""

    def begin(self, target: Any) -> JobCalls:
        """A fresh record for one job, made in the job's own task (a caller may bind per-job state there, from the
        job's `target`: the one the caller was built from, or another of the same key)."""

    async def __call__(self, prompts: list, calls: JobCalls) -> list[str]:
        """The responses to `prompts`, in order; what the calls cost added to `calls`."""


class CallTarget(Protocol):
    """A picklable recipe for a caller a worker process builds for itself (an answerer's `worker_target`)."""

    #: the same key: the same caller (a worker builds each once); one slot count per key
    key: str
    #: concurrent calls for all processes together
    connections: int

    def build(self, slots: AsyncContextManager[None]) -> WorkerCaller:
        """The caller, in the worker; `async with slots:` around each call keeps the total within `connections`."""


@dataclass
class _Pending:
    loop: asyncio.AbstractEventLoop
    #: the job's messages from the worker (and "failed"/"lost" from this side), read by the job's caller
    inbox: asyncio.Queue
    worker: int

    def put(self, msg: tuple) -> None:
        """Hand `msg` to the job's caller, from any thread; dropped when the caller's event loop has ended."""
        try:
            self.loop.call_soon_threadsafe(self.inbox.put_nowait, msg)
        except RuntimeError:  # its event loop is closed: nobody waits
            pass


class SearchPool:
    """`workers` worker processes that run search jobs; `await pool.run(job, args, answer)` from any event loop.

    Each job goes to the worker with the fewest jobs running; a worker runs its jobs concurrently as asyncio tasks
    (a job waiting for answers leaves the core to another), so how many run at once is the callers' limit (the
    runner's `parallel_settings`, Inspect's `max_samples`)."""

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        ctx = mp.get_context("spawn")
        with _terminal_signals_blocked():  # the resource tracker (started by the first queue) and the workers
            self._out: Any = ctx.Queue()  # every worker -> parent
            self._ins: list[Any] = [ctx.Queue() for _ in range(workers)]  # parent -> worker w
            for q in (*self._ins, self._out):
                q.cancel_join_thread()  # what is unsent at exit is for a worker that is stopping: never wait on it
            parent = os.getpid()
            #: 1 while a request for a call slot waits at the parent: the workers then return freed slots
            self._contended: Any = ctx.Value("b", 0, lock=False)
            self._procs = [ctx.Process(target=_worker_main, args=(w, self._ins[w], self._out, parent,
                                                                  self._contended), daemon=True,
                                       name=f"tombench-search-{w}") for w in range(workers)]
        with _terminal_signals_blocked():  # again: starting the resource tracker unblocks SIGINT in this thread
            for p in self._procs:
                p.start()
        self._jobs: dict[int, _Pending] = {}
        self._brokers: dict[str, SlotBroker] = {}
        self._contention = Contention(self._contended)
        self._load = [0] * workers
        self._ids = itertools.count()
        self._lock = threading.Lock()
        self._closed = False
        self._reader = threading.Thread(target=self._read, daemon=True, name="tombench-search-pool")
        self._reader.start()

    @property
    def workers(self) -> int:
        return len(self._procs)

    async def run(self, job: Job, args: tuple, answer: Answerer,
                  on_event: Callable[[Any], None] = lambda m: None) -> Any:
        """Run `job(answer, emit, *args)` in a worker; its result.

        With a `worker_target` on `answer`, the worker answers the job's prompts with its own caller, and the
        calls' summary goes to `answer.worker_calls(JobCalls)` (in this coroutine's context) when the job ends,
        however it ends; their usage goes to `answer.worker_usage(usage)` as they complete, also here: what that
        raises (a sample's limit, `LimitExceededError`) ends the run and cancels the job in the worker, as a limit
        ends the calling sample's calls in one process. Without a target, the prompts are answered here by tasks
        started from this coroutine, so they run in its context: Inspect records the model calls in the calling
        sample's transcript and counts them against its limits, as in one process."""
        if self._closed:
            raise RuntimeError("the search pool is closed")
        target: CallTarget | None = getattr(answer, "worker_target", None)
        if target is not None:
            self.broker(target)
        loop = asyncio.get_running_loop()
        with self._lock:
            jid = next(self._ids)
            w = min(range(len(self._load)), key=self._load.__getitem__)
            self._load[w] += 1
            pending = self._jobs[jid] = _Pending(loop, asyncio.Queue(), w)
        asks: set[asyncio.Task] = set()
        finished = False
        self._ins[w].put(("job", jid, job, args, target))
        try:
            while True:
                msg = await pending.inbox.get()
                kind = msg[0]
                if kind == "ask":
                    task = asyncio.ensure_future(self._ask(pending, jid, msg[2], msg[3], answer))
                    asks.add(task)
                    task.add_done_callback(asks.discard)
                elif kind == "event":
                    on_event(msg[2])
                elif kind == "usage":  # calls completed in the worker: may raise the sample's limit here
                    if hasattr(answer, "worker_usage"):
                        answer.worker_usage(msg[2])
                elif kind in ("done", "raised"):
                    finished = True
                    if msg[3] is not None and hasattr(answer, "worker_calls"):
                        answer.worker_calls(msg[3])
                    if kind == "done":
                        return msg[2]
                    raise msg[2]  # the job's exception as in one process (`worker_errors.transportable`)
                else:  # "failed": the model's own error (a connection error stays one); "lost": the worker died
                    raise msg[1]
        finally:
            with self._lock:
                self._jobs.pop(jid, None)
                self._load[w] -= 1
            for t in asks:
                t.cancel()
            if not finished and not self._closed:
                self._ins[w].put(("cancel", jid))

    def broker(self, target: CallTarget) -> SlotBroker:
        """The one count of call slots for `target`'s key, shared by the workers and this process."""
        broker = self._brokers.get(target.key)
        if broker is None:
            def grant(worker: int, n: int, key: str = target.key) -> None:
                with contextlib.suppress(Exception):  # a worker that is gone: `_check_alive` frees its slots
                    self._ins[worker].put(("grant", key, n))

            broker = self._brokers.setdefault(target.key, SlotBroker(max(1, target.connections), len(self._procs),
                                                                     grant, self._contention))
        return broker

    def slot(self, target: CallTarget) -> AsyncContextManager[None]:
        """One of `target`'s call slots for a call made in this process (`async with pool.slot(target):`)."""
        return self.broker(target).slot()

    def shared_slot(self, target: CallTarget) -> AsyncContextManager[None]:
        """`slot(target)` where the workers already call `target` (its count exists), else no limit of ours: a call
        here then has Inspect's own limit alone, as when no worker calls."""
        broker = self._brokers.get(target.key)
        return contextlib.nullcontext() if broker is None else broker.slot()

    def close(self, grace: float = 2.0) -> None:
        """Stop the workers (jobs still running are dropped: their finished attempts were already handed over).

        Bounded whatever state the workers are in: each is asked to stop, given `grace` seconds, then terminated
        (SIGTERM) and, if still there a second later, killed."""
        if self._closed:
            return
        self._closed = True
        for q in self._ins:
            with contextlib.suppress(Exception):  # a queue whose pipe is broken: its worker is gone anyway
                q.put(None)
        _join_all(self._procs, grace)
        for stop in ("terminate", "kill"):
            alive = [p for p in self._procs if p.is_alive()]
            if not alive:
                break
            for p in alive:
                with contextlib.suppress(Exception):
                    getattr(p, stop)()
            _join_all(alive, 1.0)
        with contextlib.suppress(Exception):
            self._out.put(None)
        self._reader.join(timeout=2)
        for q in (*self._ins, self._out):
            with contextlib.suppress(Exception):
                q.close()

    def __enter__(self) -> SearchPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the parent's side of the queues: a thread hands each message to the loop that waits for its job

    def _read(self) -> None:
        while True:
            try:
                msg = self._out.get(timeout=1.0)
            except queue.Empty:
                self._check_alive()
                continue
            except (EOFError, OSError, ValueError):  # ValueError: `close` closed the queue after its bounded wait
                return
            if msg is None:
                return
            if msg[0] == "slots":  # ("slots", worker, key, "want" | "release", n)
                _, w, key, verb, n = msg
                getattr(self._brokers[key], verb)(w, n)
                continue
            with self._lock:
                pending = self._jobs.get(msg[1])
            if pending is not None:
                pending.put(msg)

    def _check_alive(self) -> None:
        """Fail the jobs of a worker that died (killed, out of memory): their callers must not wait forever."""
        if self._closed:
            return
        dead = [w for w, p in enumerate(self._procs) if not p.is_alive()]
        for broker in list(self._brokers.values()):
            for w in dead:
                broker.lost(w)
        with self._lock:
            lost = [p for p in self._jobs.values() if p.worker in dead]
        for p in lost:
            p.put(("lost", WorkerError(f"search worker {p.worker} died (exit code "
                                       f"{self._procs[p.worker].exitcode})")))

    async def _ask(self, pending: _Pending, jid: int, rid: int, prompts: list, answer: Answerer) -> None:
        try:
            responses = await answer(prompts)
        except Exception as e:
            pending.inbox.put_nowait(("failed", e))
            return
        self._ins[pending.worker].put(("answer", rid, list(responses)))


def can_spawn() -> bool:
    """Whether worker processes can start here: `spawn` re-runs the main script by its path in each worker, and a
    script read from stdin (`python - <<EOF`) or otherwise gone has no path to re-run (every worker would die at
    start). Modules (`python -m`, `inspect eval`, pytest) and `python -c` are fine."""
    main = sys.modules.get("__main__")
    if main is None or getattr(main, "__spec__", None) is not None:
        return True
    path = getattr(main, "__file__", None)
    return path is None or os.path.exists(path)


def usable_workers(workers: int) -> int:
    """`workers`, or 1 (the search in this process, the same output) where worker processes cannot start."""
    return workers if workers <= 1 or can_spawn() else 1


_SHARED: dict[int, SearchPool] = {}


def shared_pool(workers: int) -> SearchPool:
    """One pool of `workers` processes for this whole process, started at first use and stopped by `close_shared`
    (the live task calls it when the eval ends) or at exit.

    Why: the live task's search samples are solver calls, and starting worker processes per sample would cost more
    than many searches; the samples of one eval, each on Inspect's event loop, share one pool."""
    pool = _SHARED.get(workers)
    if pool is None or pool._closed:
        pool = _SHARED[workers] = SearchPool(workers)
    return pool


def running_pool(workers: int) -> SearchPool | None:
    """The shared pool of `workers` processes if one is running, without starting one (a caller that only borrows
    its call slots must not pay for starting workers)."""
    pool = _SHARED.get(workers)
    return None if pool is None or pool._closed else pool


def close_shared() -> None:
    """Stop the shared pools' workers now (the live task's, when the eval that started them ends; a later eval starts
    new ones), not only at this process's exit."""
    for pool in list(_SHARED.values()):
        pool.close()


# registered after multiprocessing's own hook (imported above): atexit runs the last registered first, so the
# workers are stopped before multiprocessing joins its children and queue threads
atexit.register(close_shared)


def _join_all(procs: list[Any], seconds: float) -> None:
    """Wait for `procs` to end, `seconds` in all (not each)."""
    deadline = time.monotonic() + seconds
    for p in procs:
        p.join(timeout=max(0.0, deadline - time.monotonic()))


#: the signals a terminal sends to its whole foreground process group: the parent's to act on, never a worker's
_TERMINAL_SIGNALS = frozenset({signal.SIGINT, signal.SIGHUP})


@contextlib.contextmanager
def _terminal_signals_blocked() -> Iterator[None]:
    """Block SIGINT and SIGHUP in this thread while workers start: a spawned worker inherits the blocked mask, so one
    arriving during its start-up waits until `_worker_main` has set it to be ignored. Multiprocessing's resource
    tracker, started here too, keeps them blocked for good: a closed terminal does not kill it under the parent
    (which would then print its tracebacks); it exits when the parent and the workers are gone. Pending ones reach
    this process when the block ends."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _TERMINAL_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


# --- the worker's side


def _worker_main(wid: int, inbox: Any, out: Any, parent: int, contended: Any) -> None:
    """A worker process: run jobs as asyncio tasks, their prompts answered through the parent."""
    from tombench.generators.exploretom.search.heap import search_gc

    for sig in _TERMINAL_SIGNALS:  # the parent's to handle: it stops the workers
        signal.signal(sig, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _TERMINAL_SIGNALS)
    exit_when_orphaned(parent)
    out.cancel_join_thread()  # a worker exits only when its results no longer matter
    with search_gc():
        asyncio.run(_Worker(wid, inbox, out, contended).serve())


class _Worker:
    def __init__(self, wid: int, inbox: Any, out: Any, contended: Any) -> None:
        self.wid, self.inbox, self.out, self.contended = wid, inbox, out, contended
        self.waiting: dict[int, asyncio.Future] = {}
        self.tasks: dict[int, asyncio.Task] = {}
        self.rids = itertools.count()
        self.callers: dict[str, WorkerCaller] = {}
        self.slots: dict[str, WorkerSlots] = {}
        #: jobs whose calls recorded usage the parent has not been sent yet, sent at the next turn of the loop
        self.unsent: dict[int, JobCalls] = {}

    async def serve(self) -> None:
        loop = asyncio.get_running_loop()
        stopped = loop.create_future()

        def read() -> None:
            while True:
                try:
                    msg = self.inbox.get()
                except (EOFError, OSError):
                    msg = None
                loop.call_soon_threadsafe(self._handle, msg, stopped)
                if msg is None:
                    return

        threading.Thread(target=read, daemon=True).start()
        await stopped
        for t in list(self.tasks.values()):
            t.cancel()

    def _handle(self, msg: tuple | None, stopped: asyncio.Future) -> None:
        if msg is None:
            if not stopped.done():
                stopped.set_result(None)
        elif msg[0] == "job":
            _, jid, job, args, target = msg
            self.tasks[jid] = asyncio.ensure_future(self._run(jid, job, args, target))
        elif msg[0] == "grant":
            self.slots[msg[1]].granted(msg[2])
        elif msg[0] == "answer":
            fut = self.waiting.pop(msg[1], None)
            if fut is not None and not fut.done():
                fut.set_result(msg[2])
        elif msg[0] == "cancel" and msg[1] in self.tasks:
            self.tasks[msg[1]].cancel()

    def caller(self, target: CallTarget) -> WorkerCaller:
        """This worker's caller for `target`, built at its first job."""
        caller = self.callers.get(target.key)
        if caller is None:
            key = target.key
            slots = self.slots[key] = WorkerSlots(lambda m: self.out.put(("slots", self.wid, key, *m)),
                                                  self.contended)
            caller = self.callers[key] = target.build(slots)
        return caller

    async def _run(self, jid: int, job: Job, args: tuple, target: CallTarget | None) -> None:
        calls: JobCalls | None = None
        if target is None:
            async def answer(prompts: list) -> list[str]:
                rid = next(self.rids)
                fut = self.waiting[rid] = asyncio.get_running_loop().create_future()
                self.out.put(("ask", jid, rid, list(prompts)))
                return await fut
        else:
            caller = self.caller(target)
            calls = caller.begin(target)
            if calls.live:
                calls.on_call = lambda: self._usage_due(jid, calls)

            async def answer(prompts: list) -> list[str]:
                return await caller(prompts, calls)

        def emit(message: Any) -> None:
            self.out.put(("event", jid, message))

        try:
            result = await job(answer, emit, *args)
        except asyncio.CancelledError:
            return
        except BaseException as e:
            self._send_usage(jid, calls)
            self.out.put(_failure(jid, e, calls))
        else:
            self._send_usage(jid, calls)
            self.out.put(("done", jid, result, calls))
        finally:
            self.tasks.pop(jid, None)
            self.unsent.pop(jid, None)

    def _usage_due(self, jid: int, calls: JobCalls) -> None:
        """A call of job `jid` ended: its usage goes to the parent at the next turn of the loop (the calls that end
        in one turn share one message), so a sample's limit is checked as its calls complete, not when its job
        ends."""
        if not self.unsent:
            asyncio.get_running_loop().call_soon(self._flush_usage)
        self.unsent[jid] = calls

    def _flush_usage(self) -> None:
        unsent, self.unsent = self.unsent, {}
        for jid, calls in unsent.items():
            self._send_usage(jid, calls)

    def _send_usage(self, jid: int, calls: JobCalls | None) -> None:
        """Send job `jid`'s fresh usage, if any (before its result: the parent reads both in order)."""
        fresh = calls.take_fresh() if calls is not None else None
        if fresh:
            self.out.put(("usage", jid, fresh))


def _failure(jid: int, e: BaseException, calls: JobCalls | None) -> tuple:
    """The message for a job that raised `e`: the failure as the parent raises it (`worker_errors.transportable`:
    an exception group's first cause, a model's error staying the model's), with what its calls cost (`calls`)."""
    return ("raised", jid, transportable(e), calls)
