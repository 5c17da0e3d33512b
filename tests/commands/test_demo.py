"""`tombench demo --model ...` on an 80-column terminal: whole headers, panel titles that say what they measured."""

from __future__ import annotations

import glob
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from inspect_ai.log import read_eval_log

from tombench.cli import main
from tombench.local._model import PORTABLE_REINSTALL


def test_demo_report_is_consistent_and_fits_80_columns(tmp_path):
    result = CliRunner().invoke(
        main,
        ["demo", "--model", "tombench/recency", "--action-sets", "tomi", "--budget", "10",
         "--log-dir", str(tmp_path)],
        env={"COLUMNS": "80"},
    )
    assert result.exit_code == 0, result.output
    out = result.output
    assert "…" not in out  # no header or title cut with an ellipsis
    assert "first-order accuracy in the search" in out and "search accuracy" not in out
    (path,) = glob.glob(str(tmp_path / "*.eval"))
    log = read_eval_log(path)
    questions = [s for s in log.samples if s.metadata.get("tombench_kind") == "question"]
    found = [s for s in log.samples if s.metadata.get("tombench_kind") == "search" and s.metadata["search"]["found"]]
    assert found
    for search in found:
        sid = f"{search.metadata['setting_id']}|{search.metadata['attempt']}"
        first = [q for q in questions if q.metadata["story_id"] == sid and q.metadata["order"] == 1]
        right = sum(q.scores["adversarial_answer"].value == "C" for q in first)
        # the panel's "first-order accuracy in the search" is exactly what the scored first-order questions show
        assert search.metadata["search"]["g"] == right / len(first), sid


@pytest.mark.timeout(180)
def test_demo_ends_with_one_line_when_the_local_server_dies(tmp_path):
    """A server that crashes on its first completion (a CPU-specific llama.cpp build): `tombench demo` ends at once
    with one line naming the cause and the fix, instead of waiting on Inspect's retries of a dead server."""
    standin = Path(__file__).parents[1] / "local" / "standin_server.py"
    script = f"""
import sys
from pathlib import Path
import tombench.local._server as server
server.check_server_extra = lambda: None
server.resolve_gguf = lambda gguf: Path("m.gguf")
server.llama_server_argv = lambda *a: [sys.executable, {str(standin)!r}, str(a[2]), "--segfault-on-completion"]
from tombench.cli import main
from tombench.local._model import PORTABLE_REINSTALL
main(["demo", "--action-sets", "tomi", "--budget", "5", "--log-dir", {str(tmp_path / "logs")!r}])
"""
    started = time.monotonic()
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=150)
    assert r.returncode == 2, r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("error: the local server died during the demo (killed by SIGSEGV: likely a llama.cpp "
                           "build for another CPU"), r.stderr
    assert f"fix: reinstall the portable build: {PORTABLE_REINSTALL}" in last and "Traceback" not in r.stderr
    assert time.monotonic() - started < 120


@pytest.mark.parametrize("status", [None, "cancelled"])
def test_demo_ctrl_c_is_one_line(tmp_path, monkeypatch, status):
    """Ctrl-C during the eval: Inspect ends it and returns no log (or a cancelled one); the demo says so in one
    line with where the log is."""
    from types import SimpleNamespace

    import inspect_ai

    logs = [] if status is None else [SimpleNamespace(status=status, error=None)]
    monkeypatch.setattr(inspect_ai, "eval", lambda *a, **k: logs)
    r = CliRunner().invoke(main, ["demo", "--model", "tombench/recency", "--log-dir", str(tmp_path)])
    assert r.exit_code != 0 and "interrupted" in r.output and str(tmp_path) in r.output.replace("\n", ""), r.output
    assert "Traceback" not in r.output and not isinstance(r.exception, ValueError)
