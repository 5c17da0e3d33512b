"""Start, probe and stop llama.cpp's OpenAI-compatible server on 127.0.0.1.

Why a subprocess and not an in-process `llama_cpp.Llama`: the point of the local model is to exercise exactly the path users
take with vLLM, llama.cpp or a hosted API, i.e. Inspect's `openai-api` provider talking HTTP to a server. The server
runs in its own process group (so a Ctrl-C in the terminal reaches only us, and we decide how it stops) with its
output in a log file (so a pipe never fills up and blocks it, and a failed start can show its last lines). It is
stopped by its PID: SIGTERM to its group, then SIGKILL if it lingers.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tombench._platform import require_posix
from tombench.kit.orphans import PARENT_ENV
from tombench.local._errors import PortBusy, ServerStartError
from tombench.local._model import DEFAULT_ALIAS, PORTABLE_REINSTALL, alias_for, check_server_extra, resolve_gguf

if TYPE_CHECKING:
    from inspect_ai.model import Model

require_posix()  # process groups and signal.SIGBUS below

HOST = "127.0.0.1"
#: Inspect's `openai-api` provider reads `<SERVICE>_BASE_URL` / `<SERVICE>_API_KEY`; our service name is "local".
SERVICE = "local"
#: The server is started without a key (it only listens on 127.0.0.1), but Inspect insists on one being set.
API_KEY = "local"
#: Enough for a story, a question and a short answer; the model was trained with 8k but memory stays ~0.2 GB.
DEFAULT_N_CTX = 2048
DEFAULT_READY_TIMEOUT = 60.0


def free_port(host: str = HOST) -> int:
    """A TCP port that is free on `host` right now (the OS picks it by binding port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def check_port_free(port: int, host: str = HOST) -> None:
    """Raise `PortBusy` if something already listens on (or holds) `host:port`."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, port))
        except OSError as exc:
            raise PortBusy(
                f"port {port} on {host} is busy ({exc.strerror}); pick another with --port, or omit it"
            ) from None


def default_threads() -> int:
    """Two threads at most: the measured sweet spot on the 2-core CI machine, and polite on a shared one."""
    return max(1, min(2, os.cpu_count() or 1))


@dataclass(frozen=True)
class LocalServer:
    """A running local server: how to reach it from Inspect, and what to stop."""

    base_url: str
    alias: str
    port: int
    pid: int
    log_path: Path
    gguf: Path
    api_key: str = field(default=API_KEY)

    @property
    def model(self) -> str:
        """The Inspect model string, e.g. `openai-api/local/smollm2-135m`."""
        return f"openai-api/{SERVICE}/{self.alias}"

    @property
    def env(self) -> dict[str, str]:
        """Environment that lets `inspect eval --model <model>` find the server."""
        prefix = SERVICE.upper()
        return {f"{prefix}_BASE_URL": self.base_url, f"{prefix}_API_KEY": self.api_key}

    @property
    def running(self) -> bool:
        """Whether the server process is still alive (a server can die later, e.g. killed for memory)."""
        return _alive(self.pid)

    def exit_cause(self) -> str:
        """How the server ended and its likely cause, with the fix where there is one (`crash_cause`)."""
        return crash_cause(_EXIT_CODES.get(self.pid))

    def get_model(self, **kwargs: Any) -> Model:
        """An Inspect `Model` bound to this server (no environment needed); kwargs go to `get_model`."""
        from inspect_ai.model import get_model

        return get_model(self.model, base_url=self.base_url, api_key=self.api_key, **kwargs)


def llama_server_argv(gguf: Path, alias: str, port: int, n_ctx: int, n_threads: int) -> list[str]:
    """The command line of llama-cpp-python's server (through our fresh-state wrapper), with this interpreter.

    `tombench.local._llama_server` is `python -m llama_cpp.server` with the model state reset before each request,
    so that greedy answers depend on the prompt alone (see that module).
    """
    return [
        sys.executable, "-m", "tombench.local._llama_server",
        "--model", str(gguf),
        "--model_alias", alias,
        "--host", HOST,
        "--port", str(port),
        "--n_ctx", str(n_ctx),
        "--n_threads", str(n_threads),
    ]  # fmt: skip


def tail(path: Path, lines: int = 15) -> str:
    """The last `lines` lines of a log file (empty if it cannot be read)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.rstrip().splitlines()[-lines:])


def _models_answer(base_url: str, timeout: float) -> bool:
    """True once GET {base_url}/models returns an OpenAI-style list with at least one model."""
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=timeout) as response:  # noqa: S310 - our localhost URL
            payload = json.loads(response.read())
    except (urllib.error.URLError, OSError, ValueError):
        return False
    return isinstance(payload, dict) and bool(payload.get("data"))


def stop_process(pid: int, grace: float = 10.0) -> None:
    """Stop the process group led by `pid`: SIGTERM, wait up to `grace` seconds, then SIGKILL.

    The server was started with `start_new_session=True`, so its process group id is its PID and signalling the
    group also reaches any helper process it forked. Safe to call twice.
    """
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            break
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if not _alive(pid):
                return
            time.sleep(0.05)


#: how each server this process reaped ended (`Popen.returncode`'s convention: -N for signal N); reaping discards it
#: otherwise, and the cause of a crash is in it
_EXIT_CODES: dict[int, int] = {}

#: signals a native library dies by when it runs code this CPU does not (AMX or AVX-512 on a VM that advertises and
#: does not enable them: a general protection fault is SIGSEGV, an unknown instruction SIGILL)
_CPU_FAULTS = frozenset({signal.SIGILL, signal.SIGSEGV, signal.SIGBUS, signal.SIGFPE})


def crash_cause(code: int | None) -> str:
    """How a server process ended, from its exit code (-N or 128+N for signal N), and its likely cause and fix."""
    if code is None:
        return "it is gone"
    signum = -code if code < 0 else code - 128 if 128 < code < 160 else None
    if signum is None:
        return f"exit code {code}"
    name = signal.Signals(signum).name if signum in signal.valid_signals() else f"signal {signum}"
    if signum in _CPU_FAULTS:
        return (f"killed by {name}: likely a llama.cpp build for another CPU (native instructions, e.g. AMX, that "
                f"this machine does not run); fix: reinstall the portable build: {PORTABLE_REINSTALL}")
    if signum == signal.SIGKILL:
        return f"killed by {name}: likely out of memory (or killed by hand)"
    return f"killed by {name}"


def _alive(pid: int) -> bool:
    """Reap `pid` if it is our exited child (keeping how it ended); True while it still runs."""
    try:
        done, status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:  # not our child (or already reaped): ask the kernel whether it exists
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    if done == 0:
        return True
    _EXIT_CODES[pid] = os.waitstatus_to_exitcode(status)
    return False


@contextlib.contextmanager
def serve_process(
    argv: Sequence[str],
    *,
    port: int,
    alias: str,
    gguf: Path,
    log_path: Path,
    ready_timeout: float = DEFAULT_READY_TIMEOUT,
) -> Iterator[LocalServer]:
    """Run `argv` as an OpenAI-compatible server on `port`, wait until `/v1/models` answers, always stop it.

    Separate from `local_server` so that tests can drive the start/ready/stop life cycle with a stand-in server.
    """
    base_url = f"http://{HOST}:{port}/v1"
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(  # noqa: S603 - argv is ours
            list(argv), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            env={**os.environ, PARENT_ENV: str(os.getpid())},  # the server exits if we die (kit.orphans)
        )
    try:
        deadline = time.monotonic() + ready_timeout
        while not _models_answer(base_url, timeout=2.0):
            code = proc.poll()
            if code is not None:
                raise ServerStartError(
                    f"the local server exited while starting ({crash_cause(code)}; log: {log_path})", tail(log_path)
                )
            if time.monotonic() > deadline:
                raise ServerStartError(
                    f"the local server did not answer {base_url}/models within {ready_timeout:g}s (log: {log_path})",
                    tail(log_path),
                )
            time.sleep(0.1)
        yield LocalServer(base_url=base_url, alias=alias, port=port, pid=proc.pid, log_path=log_path, gguf=gguf)
    finally:
        stop_process(proc.pid)
        proc.wait()  # reaps it if stop_process did not (returns at once: it has exited)


@contextlib.contextmanager
def local_server(
    gguf: str | Path | None = None,
    *,
    alias: str | None = None,
    port: int | None = None,
    n_ctx: int = DEFAULT_N_CTX,
    n_threads: int | None = None,
    ready_timeout: float = DEFAULT_READY_TIMEOUT,
    log_path: str | Path | None = None,
    export_env: bool = False,
) -> Iterator[LocalServer]:
    """Serve a GGUF model (default: the packaged SmolLM2-135M) over an OpenAI-compatible API for the `with` block.

    Yields a `LocalServer` whose `.model` is the Inspect model string and `.env` the environment for it; with
    `export_env=True` that environment is also set in `os.environ` for the block (and restored after), so in-process
    `inspect_ai.eval(..., model=server.model)` works unchanged. Raises `ExtraMissing`/`ModelMissing` (not installed),
    `PortBusy` or `ServerStartError`, each with a message that says what to do. The server is stopped on exit, on
    error and on KeyboardInterrupt. Without `log_path` the server logs to a temporary file, removed at the end
    unless something failed.
    """
    check_server_extra()
    model_path = resolve_gguf(gguf)
    alias = alias or (DEFAULT_ALIAS if gguf is None else alias_for(model_path))
    if port is None:
        port = free_port()
    else:
        check_port_free(port)
    temporary_log = log_path is None
    if log_path is None:
        fd, name = tempfile.mkstemp(prefix=f"tombench-{alias}-{port}-", suffix=".log")
        os.close(fd)
        log_path = name
    argv = llama_server_argv(model_path, alias, port, n_ctx, n_threads or default_threads())
    keep_log = True  # a temporary log outlives a failure (error messages point at it), not a normal end or Ctrl-C
    try:
        with serve_process(
            argv, port=port, alias=alias, gguf=model_path, log_path=Path(log_path), ready_timeout=ready_timeout
        ) as server:
            with _environ(server.env if export_env else {}):
                yield server
        keep_log = False
    except KeyboardInterrupt:
        keep_log = False
        raise
    finally:
        if temporary_log and not keep_log:
            Path(log_path).unlink(missing_ok=True)


@contextlib.contextmanager
def _environ(values: dict[str, str]) -> Iterator[None]:
    """Set environment variables for a block, restoring the previous values afterwards."""
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old
