"""The live adversarial task against a misbehaving provider: a real OpenAI-compatible HTTP server
(tests/local/standin_server.py, answering as the recency baseline) reached through Inspect's `openai-api` provider,
injecting each fault deterministically (every N-th request). Every run, faulty, failed and resumed, or killed and
resumed, must end with the samples and scores of the fault-free run."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from inspect_ai import eval, eval_retry
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log

from tests.terminal import terminal_popen
from tombench.kit import calls
from tombench.tasks.exploretom.adversarial import exploretom_adversarial

STANDIN = Path(__file__).parents[2] / "local" / "standin_server.py"
MODEL = "openai-api/standin/recency"
#: two settings, tomi and tomi+asymmetric; the word below is in the asymmetric setting's prompts only
OPTIONS = {"action_sets": "tomi", "asymmetric": "both", "people": 2, "moves": 2, "budget": 10, "mode": "improved",
           "stories_per_setting": 2, "workers": 1}
ASYMMETRIC_ONLY = "secret"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: every server of this module listens here, one at a time: Inspect keeps a model's client (its base URL) for the
#: whole process, and `eval_retry` takes no base URL
PORT = _free_port()


class Standin:
    """The server in a process of its own; its base URL; the completions asked of it so far."""

    def __init__(self, *flags: str) -> None:
        port = PORT
        self.url = f"http://127.0.0.1:{port}/v1"
        self.stats = f"http://127.0.0.1:{port}/stats"
        self.proc = subprocess.Popen([sys.executable, str(STANDIN), str(port), "--answer", "recency", *flags],
                                     stdout=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": os.getcwd()})
        for _ in range(200):
            with contextlib.suppress(httpx.HTTPError):
                httpx.get(self.stats, timeout=1.0)
                return
            time.sleep(0.05)
        raise RuntimeError("the stand-in server did not start")

    def completions(self, what: str = "completions") -> int:
        return httpx.get(self.stats, timeout=5.0).json()[what]

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


@contextlib.contextmanager
def standin(monkeypatch: pytest.MonkeyPatch, *flags: str) -> Iterator[Standin]:
    server = Standin(*flags)
    monkeypatch.setenv("STANDIN_API_KEY", "none")
    monkeypatch.setenv("STANDIN_BASE_URL", server.url)
    try:
        yield server
    finally:
        server.stop()


def digest(log: EvalLog) -> dict[str, tuple]:
    """Each sample's answer, scores and (search samples) kept stories: what a fault must not change.

    A search sample's output text is left out: it is a sentence about its kept stories, and a search sample that
    `inspect eval-retry` recovers from a killed run's buffer has none (Inspect rebuilds a recovered sample's output
    from its model events, and the search sample logs its calls as one summary); its stories and scores are kept."""
    out = {}
    for s in log.samples or []:
        scores = tuple(sorted((k, repr(v.value)) for k, v in (s.scores or {}).items()))
        search = s.metadata.get("search")
        stories = tuple(r["id"] for r in (search or {}).get("stories", []))
        out[str(s.id)] = ("" if search is not None else s.output.completion, scores, stories)
    return out


def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, **kwargs) -> EvalLog:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    (log,) = eval(exploretom_adversarial(**OPTIONS), model=MODEL, log_dir=str(tmp_path / name), display="none",
                  max_retries=10, **kwargs)
    return log


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, tuple], int]:
    """The fault-free run: its samples and scores, and the calls it made with a cold cache."""
    tmp = tmp_path_factory.mktemp("clean")
    with pytest.MonkeyPatch.context() as mp, standin(mp) as server:
        log = run(tmp, mp, "logs")
        calls_made = server.completions()
    assert log.status == "success" and len(log.samples or []) > 2
    return digest(log), calls_made


@pytest.fixture(autouse=True)
def quick_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(calls, "REREAD_BACKOFF", 0.05)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("fault", ["500:5", "429:6", "hang:9", "truncate:7", "drop:7"])
def test_a_run_with_provider_faults_ends_as_the_fault_free_run(tmp_path, monkeypatch, clean, fault: str) -> None:
    """HTTP 500s, 429s with Retry-After, replies that hang (with a timeout), truncated JSON bodies (not retried by
    Inspect: `kit.calls.reread`) and connections dropped mid-body: the same samples and scores, no error."""
    with standin(monkeypatch, "--fault", fault) as server:
        # Inspect's `timeout` bounds a call with all its retries; `attempt_timeout` abandons a hanging attempt
        log = run(tmp_path, monkeypatch, "logs", **({"attempt_timeout": 2} if fault.startswith("hang") else {}))
        assert server.completions() > clean[1]  # the faults were met, and asked again
    assert log.status == "success"
    assert digest(log) == clean[0]


@pytest.mark.timeout(300)
def test_a_call_that_keeps_failing_ends_its_sample_only_and_eval_retry_finishes_the_run(tmp_path, monkeypatch,
                                                                                        clean) -> None:
    with standin(monkeypatch, "--fail-matching", ASYMMETRIC_ONLY):
        log = run(tmp_path, monkeypatch, "logs")
    assert log.status == "error"
    failed = {str(s.id): s.error.message for s in log.samples or [] if s.error}
    assert list(failed) == ["search|tomi+asymmetric|p2|m2|r1|0"], failed
    (message,) = failed.values()
    assert f"failed {calls.REREAD_TRIES} times" in message and "unreadable reply" in message
    # the other setting went on: its search and its question samples are the fault-free run's
    plain = {k: v for k, v in digest(log).items() if "asymmetric" not in k}
    assert plain == {k: v for k, v in clean[0].items() if "asymmetric" not in k}

    with standin(monkeypatch) as server:
        (retried,) = eval_retry(log, log_dir=str(tmp_path / "logs"), display="none", max_retries=10)
        asked = server.completions()
    assert retried.status == "success"
    assert digest(retried) == clean[0]
    assert 0 < asked < clean[1]  # the plain setting's calls came from the cache


@pytest.mark.timeout(300)
def test_a_killed_run_is_finished_by_eval_retry_from_the_cache(tmp_path, monkeypatch, clean) -> None:
    """SIGKILL of `inspect eval` mid-search (as an out-of-memory kill or a preempted machine does), then
    `inspect eval-retry` of its log against a healthy server: the fault-free run's samples and scores, and the
    calls made before the kill are not made again."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    args = [f"-T{k}={v}" for k, v in OPTIONS.items()]
    # from tmp_path, as users run it: in the repository root an editable install's egg-info makes Inspect read
    # "tombench/..." as a path
    with standin(monkeypatch) as server:
        proc = subprocess.Popen([sys.executable, "-m", "inspect_ai", "eval", "tombench/exploretom_adversarial",
                                 "--model", MODEL, *args, "--log-dir", str(tmp_path / "logs"), "--display", "none"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path)
        try:
            deadline = time.monotonic() + 120
            while server.completions() < clean[1] // 2 and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        before = server.completions()
    assert before < clean[1], "the run ended before it was killed"
    (killed,) = list_eval_logs(str(tmp_path / "logs"))
    assert read_eval_log(killed, header_only=True).status == "started"
    with standin(monkeypatch) as server:
        result = subprocess.run([sys.executable, "-m", "inspect_ai", "eval-retry", killed.name, "--log-dir",
                                 str(tmp_path / "logs"), "--display", "none"], capture_output=True, text=True,
                                timeout=240, cwd=tmp_path)
        after = server.completions()
    assert result.returncode == 0, result.stderr[-2000:]
    done = [x for x in list_eval_logs(str(tmp_path / "logs")) if x.name != killed.name]
    (retried,) = [read_eval_log(x) for x in done]
    assert retried.status == "success"
    assert digest(retried) == clean[0]
    # what the cache held was not asked again: the calls in flight at the kill (counted by the server, never
    # cached) are all the killed run's calls that are asked again
    assert before + after >= clean[1] and clean[1] - after >= before // 2, (before, after, clean[1])


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with contextlib.suppress(OSError):  # a zombie has exited: its state is Z
        return Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()[0] != "Z"
    return False


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


@pytest.mark.timeout(240)
def test_ctrl_c_during_the_final_scoring_ends_the_eval_within_30_s(tmp_path, monkeypatch) -> None:
    """Ctrl-C (SIGINT to the process group) once the searches are done and the question samples are being answered
    and scored (the server hangs on the second-order questions, which only they ask): `inspect eval` ends within
    30 s and leaves no worker behind."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    args = [f"-T{k}={v}" for k, v in {**OPTIONS, "workers": 2}.items()]
    with standin(monkeypatch, "--hang-matching", " think that ") as server:
        # a terminal's signal dispositions (`tests.terminal`): a background pytest would leave SIGINT ignored
        proc = terminal_popen([sys.executable, "-m", "inspect_ai", "eval", "tombench/exploretom_adversarial",
                               "--model", MODEL, *args, "--log-dir", str(tmp_path / "logs"), "--display", "plain"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                              cwd=tmp_path)
        try:
            deadline = time.monotonic() + 150
            while server.completions("hanging") == 0 and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.1)
            assert proc.poll() is None and server.completions("hanging") > 0, "the scoring never started"
            children = _children(proc.pid)
            os.killpg(proc.pid, signal.SIGINT)
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while any(map(_alive, children)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(map(_alive, children)), [c for c in children if _alive(c)]
