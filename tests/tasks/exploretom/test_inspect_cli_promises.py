"""What the docs promise of Inspect's own command line with tombench's tasks (docs/tasks.md, "Progress" and the exit
codes below the provider faults), checked on the real `inspect` commands:

* `--display log` logs the live task's counter (`tombench: settings 1/1 searched · ...`) only with
  `--log-level info`: at Inspect's default level (`warning`) it prints none;
* after Ctrl-C, `inspect eval-set` exits 0 while its log's status is `cancelled`, so a script reads the status:
  `inspect log list --status cancelled` names the log.

If an Inspect release changes either, these fail and the docs must say the new behaviour.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.terminal import terminal_popen

STANDIN = Path(__file__).parents[2] / "local" / "standin_server.py"
#: the smallest live run: one setting, a budget of 3 nodes, memory questions only, in Inspect's process
LIVE = ["tombench/exploretom_adversarial", "--model", "tombench/recency", "-T", "action_sets=tomi", "-T",
        "asymmetric=plain", "-T", "people=2", "-T", "moves=2", "-T", "budget=3", "-T", "question_orders=0", "-T",
        "workers=1", "--display", "log"]
COUNTER = re.compile(r"tombench: settings \d+/1 searched")


def _inspect(*args: str) -> list[str]:
    return [sys.executable, "-m", "inspect_ai", *args]


@pytest.mark.timeout(300)
def test_display_log_shows_the_live_counter_only_at_log_level_info(tmp_path: Path) -> None:
    # from tmp_path: in the repository root, the `tombench.egg-info` of an editable install makes Inspect read
    # "tombench/..." as a path; wide lines so that Rich does not wrap the counter
    env = {**os.environ, "COLUMNS": "400"}
    runs = {level: subprocess.Popen(_inspect("eval", *LIVE, "--log-dir", str(tmp_path / level), *extra),
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path, env=env)
            for level, extra in (("info", ["--log-level", "info"]), ("default", []))}  # side by side: half the wait
    out = {level: proc.communicate(timeout=240)[0] for level, proc in runs.items()}
    assert [proc.returncode for proc in runs.values()] == [0, 0], out
    assert COUNTER.search(out["info"]), out["info"]
    assert "tombench: settings 1/1 searched" in out["info"]  # the counter at the finished search
    assert not COUNTER.search(out["default"]) and "searched" not in out["default"], out["default"]


@contextlib.contextmanager
def _slow_server(port: int) -> Iterator[str]:
    """The stand-in OpenAI-compatible server, each completion taking a minute: a run stays mid-sample, idle."""
    proc = subprocess.Popen([sys.executable, str(STANDIN), str(port), "--answer", "recency", "--latency", "60"],
                            stdout=subprocess.DEVNULL)
    stats = f"http://127.0.0.1:{port}/stats"
    try:
        for _ in range(200):
            with contextlib.suppress(httpx.HTTPError):
                httpx.get(stats, timeout=1.0)
                break
            time.sleep(0.05)
        yield stats
    finally:
        proc.kill()
        proc.wait()


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.timeout(300)
def test_eval_set_exits_0_after_ctrl_c_and_the_log_says_cancelled(tmp_path: Path) -> None:
    port = _free_port()
    logs = tmp_path / "logs"
    env = {**os.environ, "STANDIN_BASE_URL": f"http://127.0.0.1:{port}/v1", "STANDIN_API_KEY": "none"}
    with _slow_server(port) as stats:
        proc = terminal_popen(_inspect("eval-set", "tombench/tomi", "-T", "split=example", "--limit", "2", "--model",
                                       "openai-api/standin/recency", "--display", "plain", "--log-dir", str(logs)),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path, env=env,
                              start_new_session=True)
        try:
            deadline = time.monotonic() + 180
            while httpx.get(stats, timeout=5.0).json()["completions"] == 0 and proc.poll() is None:
                assert time.monotonic() < deadline, "the eval asked the server nothing"
                time.sleep(0.2)
            os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the terminal signals the whole process group
            out = proc.communicate(timeout=60)[0]
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    assert proc.returncode == 0, out  # a script cannot tell a Ctrl-C from a success by the exit code
    from inspect_ai.log import list_eval_logs, read_eval_log

    (info,) = list_eval_logs(str(logs))
    assert read_eval_log(info, header_only=True).status == "cancelled"
    name = Path(info.name).name

    listed = subprocess.run(_inspect("log", "list", "--status", "cancelled", "--log-dir", str(logs)),
                            capture_output=True, text=True, cwd=tmp_path, timeout=120, check=True).stdout
    assert name in listed  # what a script reads, where the exit code says nothing
