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

A dead worker (killed, out of memory) is seen at once, as `concurrent.futures` sees one: the parent's reader thread
waits on every worker's results pipe and process sentinel together (`multiprocessing.connection.wait`). Unlike
`ProcessPoolExecutor`, which then fails every job and breaks the pool, this pool replaces the worker and runs its jobs
again (they are seeded: the same results); it cannot be an executor, whose workers run one call at a time and
exchange nothing with the parent while it runs. A job is pickled in the caller, so one that cannot be pickled fails
there at once, and unpickled in the worker's task for it, so one that cannot be loaded there fails with that error.

Ending: the parent alone decides when workers stop, and no worker outlives it.
* Workers ignore SIGINT and SIGHUP (a terminal sends them to the whole process group): Ctrl-C or a closed terminal
  reaches the parent, which stops them. The signals are blocked while a worker starts, so one arriving during its
  start-up (importing, unpickling) cannot kill it half-started either.
* A worker whose parent died, however (SIGKILL, out of memory), exits by itself at once: a watchdog thread waits
  on multiprocessing's parent sentinel (`kit.orphans`). With the workers gone, multiprocessing's resource tracker
  (started by the parent for the queues' locks) sees its last pipe close and exits too.
* The live task's shared pool stops when its eval ends (`close_shared`, from an Inspect hook the task registers).
* `close` never blocks on a dead or stuck worker: queues never join their feeder threads (a feeder blocked on a
  full pipe to a dead worker would hold the process at exit), workers left after a grace period are terminated,
  then killed. A Ctrl-C during `close` waits until it is over. The pool's `atexit` clean-up runs before
  multiprocessing's own (which would join those threads), and a Ctrl-C during it ends nothing more than it does.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import contextlib
import itertools
import multiprocessing as mp
import multiprocessing.util  # noqa: F401 - registers multiprocessing's atexit hook now, so the pool's runs before it
import os
import pickle
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager as AsyncContextManager
from dataclasses import dataclass, field
from multiprocessing import connection as mp_connection
from typing import Any, Protocol

from tombench._platform import require_posix
from tombench.generators.exploretom.search.evaluator import Answerer
from tombench.generators.exploretom.search.slots import Contention, SlotBroker, WorkerSlots
from tombench.generators.exploretom.search.worker_errors import WorkerError, transportable
from tombench.kit.orphans import exit_when_orphaned

require_posix()  # signal.SIGHUP and pthread_sigmask below: one line on a system without them, not an AttributeError

__all__ = ["JOB_DEATHS", "CallTarget", "JobCalls", "JobKilledWorker", "SearchPool", "WorkerCaller", "WorkerError",
           "answer_prompts", "can_spawn", "close_shared", "running_pool", "shared_pool", "usable_workers"]

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


class JobKilledWorker(WorkerError):
    """A job whose worker died `JOB_DEATHS` times while running it (each time replaced and the job run again): the
    job itself kills its worker (out of memory, a crash in native code), so it fails alone."""


#: how many times a job may lose its worker (the worker replaced, the job run again) before it fails
JOB_DEATHS = 3


@dataclass
class _Pending:
    loop: asyncio.AbstractEventLoop
    #: the job's messages from the worker (and "lost"/"restart" from this side), read by the job's caller
    inbox: asyncio.Queue
    #: the worker running it; None while it waits to run again alone (`SearchPool._died`)
    worker: int | None
    #: the job as sent (pickled once, here): sent again as it is when its worker dies
    payload: bytes
    #: the job's workers that died while running it
    deaths: int = 0

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
    runner's `parallel_settings`, Inspect's `max_samples`).

    A worker that dies (killed, out of memory) is seen at once (its process sentinel) and replaced, and its jobs
    run again from the start in the new one: a job is seeded, so it gives the same result, and the events it
    already handed over are not handed over twice. A job that kills its worker `JOB_DEATHS` times fails alone with
    `JobKilledWorker`."""

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self._ctx = mp.get_context("spawn")
        self._parent = os.getpid()
        with _terminal_signals_blocked():  # the resource tracker (started by the first queue or lock)
            #: 1 while a request for a call slot waits at the parent: the workers then return freed slots
            self._contended: Any = self._ctx.Value("b", 0, lock=False)
            self._wake_r, self._wake_w = self._ctx.Pipe(duplex=False)  # `close` wakes the reader through it
        self._ins: list[Any] = [None] * workers  # parent -> worker w (a queue: its feeder never blocks a caller)
        self._outs: list[Any] = [None] * workers  # worker w -> parent (a pipe of its own: see `_start`)
        self._procs: list[Any] = [None] * workers
        self._retired: list[Any] = []  # the queues of workers that died
        self._ready = [False] * workers
        self._startup_deaths = 0
        self._broken: str | None = None
        for w in range(workers):
            self._start(w)
        self._jobs: dict[int, _Pending] = {}
        self._brokers: dict[str, SlotBroker] = {}
        self._contention = Contention(self._contended)
        self._load = [0] * workers
        #: jobs whose worker died, waiting to run again each alone in a worker (so that a job that kills its worker
        #: is told from the jobs that only shared the worker with it), and the worker each such job runs in now
        self._retry: collections.deque[int] = collections.deque()
        self._alone: dict[int, int] = {}
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
        sample's transcript and counts them against its limits, as in one process.

        A job that cannot be pickled fails here at once (the pickling error); one that cannot be loaded in the
        worker (its function not importable there) fails with the worker's error as soon as it arrives."""
        if self._closed:
            raise RuntimeError("the search pool is closed")
        if self._broken is not None:
            raise WorkerError(self._broken)
        target: CallTarget | None = getattr(answer, "worker_target", None)
        payload = pickle.dumps((job, args, target), protocol=pickle.HIGHEST_PROTOCOL)
        if target is not None:
            self.broker(target)
        jid, pending = self._submit(payload)
        asks: set[asyncio.Task] = set()
        finished = False
        #: events handed to `on_event`; after a restart, the ones the job hands over again (it is seeded) are skipped
        delivered: list[Any] = []
        repeats: list[Any] = []
        try:
            while True:
                msg = await pending.inbox.get()
                kind = msg[0]
                if kind == "ask":
                    task = asyncio.ensure_future(self._ask(pending, msg[2], msg[3], answer, msg[4]))
                    asks.add(task)
                    task.add_done_callback(asks.discard)
                elif kind == "event":
                    if msg[2] in repeats:
                        repeats.remove(msg[2])
                    else:
                        delivered.append(msg[2])
                        on_event(msg[2])
                elif kind == "usage":  # calls completed in the worker: may raise the sample's limit here
                    if hasattr(answer, "worker_usage"):
                        answer.worker_usage(msg[2])
                elif kind == "restart":  # its worker died: the job runs again in the new one
                    for t in asks:
                        t.cancel()
                    repeats = list(delivered)
                elif kind in ("done", "raised"):
                    finished = True
                    if msg[3] is not None and hasattr(answer, "worker_calls"):
                        answer.worker_calls(msg[3])
                    if kind == "done":
                        return msg[2]
                    raise msg[2]  # the job's exception as in one process (`worker_errors.transportable`)
                else:  # "failed": the model's own error (a connection error stays one); "lost": it cannot run
                    finished = kind == "lost"
                    raise msg[1]
        finally:
            self._forget(jid, pending, finished)
            for t in asks:
                t.cancel()

    def _submit(self, payload: bytes) -> tuple[int, _Pending]:
        """Send a job to the worker with the fewest jobs, among those that do not run a job alone (`_run_alone`)."""
        with self._lock:
            jid = next(self._ids)
            free = [w for w in range(len(self._load)) if w not in self._alone] or range(len(self._load))
            w = min(free, key=self._load.__getitem__)
            self._load[w] += 1
            pending = self._jobs[jid] = _Pending(asyncio.get_running_loop(), asyncio.Queue(), w, payload)
            self._ins[w].put(("job", jid, payload))
        return jid, pending

    def _forget(self, jid: int, pending: _Pending, finished: bool) -> None:
        """The job has ended (or its caller stopped waiting): a worker still running it is told to stop."""
        with self._lock:
            self._jobs.pop(jid, None)
            w = pending.worker
            if w is None:  # waiting to run again
                with contextlib.suppress(ValueError):
                    self._retry.remove(jid)
                return
            self._load[w] -= 1
            if not finished and not self._closed:
                with contextlib.suppress(Exception):  # its queue is closed: the worker is gone
                    self._ins[w].put(("cancel", jid))
            if self._alone.get(w) == jid:
                del self._alone[w]
                self._run_alone()

    def broker(self, target: CallTarget) -> SlotBroker:
        """The one count of call slots for `target`'s key, shared by the workers and this process."""
        broker = self._brokers.get(target.key)
        if broker is None:
            def grant(worker: int, n: int, key: str = target.key) -> None:
                with contextlib.suppress(Exception):  # a worker that is gone: `_died` frees its slots
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
        """Stop the workers; jobs still running fail with `WorkerError` (their finished attempts were already handed
        over).

        Bounded whatever state the workers are in: each is asked to stop, given `grace` seconds, then terminated
        (SIGTERM) and, if still there a second later, killed. A Ctrl-C during it is held until it is over (it is
        the clean-up a Ctrl-C asks for), then raised."""
        if self._closed:
            return
        with _sigint_deferred():
            with self._lock:  # a worker that died is not replaced from now on
                self._closed = True
            self._stop_workers(grace)
            with contextlib.suppress(Exception):
                self._wake_w.close()  # the reader sees its end close and returns
            self._reader.join(timeout=2)
            with self._lock:
                pending = list(self._jobs.values())
            for p in pending:
                p.put(("lost", WorkerError("the search pool was closed")))
            for conn in (*self._ins, *self._retired, *self._outs, self._wake_r):
                with contextlib.suppress(Exception):
                    conn.close()

    def _stop_workers(self, grace: float) -> None:
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

    def __enter__(self) -> SearchPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- starting a worker, and the parent's side of its pipes: one thread waits on them all

    def _start(self, w: int) -> None:
        """Start worker `w` (again, after one died). Each worker has a results pipe of its own, not one queue for
        all: a worker killed while writing to a shared queue would leave its lock held (every other worker's
        writes then block for good) or half a message in the stream; a pipe of its own ends with it, whole."""
        with _terminal_signals_blocked():  # a queue's lock may start the resource tracker, which unblocks them
            inbox = self._ctx.Queue()
        inbox.cancel_join_thread()  # what is unsent at exit is for a worker that is stopping: never wait on it
        out_r, out_w = self._ctx.Pipe(duplex=False)
        proc = self._ctx.Process(target=_worker_main, args=(w, inbox, out_w, self._parent, self._contended),
                                 daemon=True, name=f"tombench-search-{w}")
        with _terminal_signals_blocked():  # inherited by the worker: see `_terminal_signals_blocked`
            proc.start()
        out_w.close()  # the worker's end: its pipe reads as ended when the worker does
        if self._ins[w] is not None:  # a dead worker's: closed with the others (closing it now could make its
            self._retired.append(self._ins[w])  # feeder thread, still writing to it, print a broken pipe)
            self._outs[w].close()
        self._ins[w], self._outs[w], self._procs[w], self._ready[w] = inbox, out_r, proc, False

    def _read(self) -> None:
        """Hand each worker's messages to the loop that waits for its job; replace a worker as soon as it dies."""
        ended: set[int] = set()  # workers whose pipe ended (their sentinel follows)
        watch = self._watch(ended)
        while True:
            try:
                ready = mp_connection.wait(list(watch))
            except OSError:  # `close` closed a pipe under it
                return
            deaths = []
            for obj in ready:
                what, w = watch[obj]
                if what == "wake" or self._closed:
                    return
                if what == "died":
                    deaths.append(w)
                elif not self._drain(w):
                    ended.add(w)
                    watch = self._watch(ended)
            for w in deaths:
                self._drain(w)  # what it sent before it died counts (a job that ended is not run again)
                ended.discard(w)
                self._died(w)
                watch = self._watch(ended)

    def _watch(self, ended: set[int]) -> dict[Any, tuple[str, int]]:
        """What the reader waits on: each worker's pipe (unless `ended`) and sentinel, and `close`'s wake-up."""
        watch: dict[Any, tuple[str, int]] = {self._wake_r: ("wake", -1)}
        for w, (out, proc) in enumerate(zip(self._outs, self._procs, strict=True)):
            if w not in ended:
                watch[out] = ("msg", w)
            watch[proc.sentinel] = ("died", w)
        return watch

    def _drain(self, w: int) -> bool:
        """Hand on every message worker `w` has sent so far; False when its pipe has ended."""
        out = self._outs[w]
        try:
            while out.poll():
                self._handle(w, out.recv())
        except (EOFError, OSError):
            return False
        return True

    def _handle(self, w: int, msg: tuple) -> None:
        kind = msg[0]
        if kind == "slots":  # ("slots", worker, key, "want" | "release", n)
            _, _, key, verb, n = msg
            getattr(self._brokers[key], verb)(w, n)
            return
        if kind == "ready":
            self._ready[w], self._startup_deaths = True, 0
            return
        if kind == "ask":  # the answer goes to this worker's queue, not to one that replaced it
            msg = (*msg, self._ins[w])
        with self._lock:
            pending = self._jobs.get(msg[1])
        if pending is not None:
            pending.put(msg)

    def _died(self, w: int) -> None:
        """Worker `w` died (killed, out of memory): its call slots come back, a new worker takes its place, and its
        jobs run again, each alone in a worker (`_run_alone`), until one has lost `JOB_DEATHS` workers: that job
        kills its worker and fails. Workers that keep dying before they are ready (a start-up that cannot succeed)
        break the pool: every job then fails at once."""
        if self._closed:
            return
        self._procs[w].join(timeout=1.0)  # its sentinel says it ended: this reads its exit code
        code = self._procs[w].exitcode
        for broker in list(self._brokers.values()):
            broker.lost(w)
        if not self._ready[w]:
            self._startup_deaths += 1
            if self._startup_deaths >= JOB_DEATHS:
                self._broken = f"search workers die as they start (exit code {code}{_signal_name(code)})"
        with self._lock:
            if self._closed:
                return
            if self._broken is None:
                self._start(w)
            self._alone.pop(w, None)
            for jid, p in [(jid, p) for jid, p in self._jobs.items() if p.worker == w]:
                p.deaths += 1
                self._load[w] -= 1
                p.worker = None
                if self._broken is not None:
                    p.put(("lost", WorkerError(self._broken)))
                elif p.deaths >= JOB_DEATHS:
                    p.put(("lost", JobKilledWorker(f"its worker process died {p.deaths} times while running it "
                                                   f"(exit code {code}{_signal_name(code)})")))
                else:
                    p.put(("restart",))
                    self._retry.append(jid)
            if self._broken is not None:
                while self._retry:
                    self._jobs[self._retry.popleft()].put(("lost", WorkerError(self._broken)))
            self._run_alone()

    def _run_alone(self) -> None:
        """Send the jobs waiting to run again to the workers that run nothing (under the lock), one each; new jobs
        go elsewhere while they run."""
        for w in range(len(self._procs)):
            if not self._retry:
                return
            if self._load[w] == 0 and w not in self._alone:
                jid = self._retry.popleft()
                pending = self._jobs[jid]
                pending.worker, self._alone[w] = w, jid
                self._load[w] += 1
                self._ins[w].put(("job", jid, pending.payload))

    async def _ask(self, pending: _Pending, rid: int, prompts: list, answer: Answerer, inbox: Any) -> None:
        try:
            responses = await answer(prompts)
        except Exception as e:
            pending.inbox.put_nowait(("failed", e))
            return
        inbox.put(("answer", rid, list(responses)))


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


def _close_shared_at_exit() -> None:
    """At exit: a Ctrl-C now asks for what is being done anyway (no traceback, the workers still stopped)."""
    with _sigint_deferred(reraise=False):
        close_shared()


# registered after multiprocessing's own hook (imported above): atexit runs the last registered first, so the
# workers are stopped before multiprocessing joins its children and queue threads
atexit.register(_close_shared_at_exit)


def _join_all(procs: list[Any], seconds: float) -> None:
    """Wait for `procs` to end, `seconds` in all (not each)."""
    deadline = time.monotonic() + seconds
    for p in procs:
        p.join(timeout=max(0.0, deadline - time.monotonic()))


def _signal_name(code: int | None) -> str:
    """", SIGKILL" for an exit code -9 (a process ended by a signal), else nothing."""
    if code is None or code >= 0:
        return ""
    try:
        return f", {signal.Signals(-code).name}"
    except ValueError:
        return ""


@contextlib.contextmanager
def _sigint_deferred(reraise: bool = True) -> Iterator[None]:
    """Hold a Ctrl-C (SIGINT) until the block is over, then act on it as before (`reraise`) or drop it. Why: the
    block is a clean-up that must finish (stopping the workers); a KeyboardInterrupt in its middle would leave
    workers and queues half-closed and, at exit, print a traceback. Only the main thread can set a handler: in
    another thread the block just runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[Any] = []
    old = signal.signal(signal.SIGINT, lambda sig, frame: caught.append(frame))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
        if caught and reraise:
            if callable(old):
                old(signal.SIGINT, caught[0])
            elif old == signal.SIG_DFL:
                signal.raise_signal(signal.SIGINT)


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
    exit_when_orphaned(parent, sentinel=mp.parent_process().sentinel)
    with search_gc():
        asyncio.run(_Worker(wid, inbox, _Sender(out), contended).serve())


class _Sender:
    """The worker's end of its results pipe, `put(message)` as on a queue. A message is pickled in the sending
    thread, so one that cannot be pickled raises there (a queue's feeder thread would print it and drop it); a
    send blocks only while the pipe is full, and the parent's reader empties it as it fills."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn
        self._lock = threading.Lock()

    def put(self, msg: tuple) -> None:
        with self._lock:
            self._conn.send(msg)


class _Worker:
    def __init__(self, wid: int, inbox: Any, out: _Sender, contended: Any) -> None:
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
        self.out.put(("ready",))
        await stopped
        for t in list(self.tasks.values()):
            t.cancel()

    def _handle(self, msg: tuple | None, stopped: asyncio.Future) -> None:
        if msg is None:
            if not stopped.done():
                stopped.set_result(None)
        elif msg[0] == "job":
            _, jid, payload = msg
            self.tasks[jid] = asyncio.ensure_future(self._run(jid, payload))
        elif msg[0] == "grant":
            if msg[1] in self.slots:  # else meant for the worker this one replaced: the parent took it back
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

    def answerer(self, jid: int, target: CallTarget | None) -> tuple[Answerer, JobCalls | None]:
        """The job's answerer: this worker's caller for `target`, else the parent (a message per prompt batch)."""
        if target is None:
            async def ask(prompts: list) -> list[str]:
                rid = next(self.rids)
                fut = self.waiting[rid] = asyncio.get_running_loop().create_future()
                self.out.put(("ask", jid, rid, list(prompts)))
                return await fut
            return ask, None
        caller = self.caller(target)
        calls = caller.begin(target)
        if calls.live:
            calls.on_call = lambda: self._usage_due(jid, calls)

        async def answer(prompts: list) -> list[str]:
            return await caller(prompts, calls)
        return answer, calls

    async def _run(self, jid: int, payload: bytes) -> None:
        calls: JobCalls | None = None
        try:
            job, args, target = pickle.loads(payload)
        except Exception as e:  # its function or a class of its arguments cannot be imported here
            self.out.put(_failure(jid, e, None))
            self.tasks.pop(jid, None)
            return

        def emit(message: Any) -> None:
            self.out.put(("event", jid, message))

        try:
            answer, calls = self.answerer(jid, target)
            result = await job(answer, emit, *args)
            self._send_usage(jid, calls)
            self.out.put(("done", jid, result, calls))
        except asyncio.CancelledError:
            return
        except BaseException as e:  # the job raised, or its result cannot be pickled
            self._send_usage(jid, calls)
            self.out.put(_failure(jid, e, calls))
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
    """The message for a job that raised `e` (or could not be loaded, or whose result cannot be pickled): the
    failure as the parent raises it (`worker_errors.transportable`: an exception group's first cause, a model's
    error staying the model's), with what its calls cost (`calls`)."""
    return ("raised", jid, transportable(e), calls)
