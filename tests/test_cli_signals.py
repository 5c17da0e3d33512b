"""tombench.cli: SIGTERM and SIGHUP unwind a command like Ctrl-C and exit 128 + the signal (the end-to-end tests with
worker processes are in tests/generators/exploretom/search/test_pool_signals.py)."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest
from click.testing import CliRunner

from tests.terminal import terminal_popen
from tombench.cli import main


def test_a_command_run_in_process_leaves_the_callers_handlers_alone() -> None:
    before = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
    r = CliRunner().invoke(main, ["tasks"])
    assert r.exit_code == 0, r.output
    assert {s: signal.getsignal(s) for s in before} == before


@pytest.mark.timeout(120)
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_runs_the_commands_clean_up_and_exits_by_it(tmp_path, sig: signal.Signals) -> None:
    """A command blocked in plain Python code (no event loop): its `finally` runs, then one line and 128 + sig."""
    script = f"""
import os, signal, sys, time, click
from tombench import cli

@click.command()
def wait():
    try:
        print("ready", flush=True)
        time.sleep(60)
    finally:
        open({str(tmp_path / "cleaned")!r}, "w").close()

cli._COMMANDS["wait"] = ("__main__:wait", "")
cli.main(["wait"])
"""
    # a terminal's dispositions (`tests.terminal`): under `nohup`, SIGHUP would be ignored from the start
    proc = terminal_popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig, err
    assert err.strip() == f"stopped by {sig.name}" and (tmp_path / "cleaned").exists()
