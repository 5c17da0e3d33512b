"""tests/terminal.py: a test's child gets a terminal's signal dispositions however pytest was started, and every test
that signals a child as a user or a terminal does starts it that way."""

from __future__ import annotations

import ast
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.terminal import TERMINAL_SIGNALS, terminal_popen

TESTS = Path(__file__).parent

#: prints the child's disposition of each terminal signal: "default", "ignored" or "handler"
SHOW = """
import signal
names = {signal.SIG_DFL: "default", signal.SIG_IGN: "ignored", signal.default_int_handler: "handler"}
print(" ".join(names.get(signal.getsignal(s), "other") for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGHUP,
                                                                  signal.SIGTERM)))
"""


def _dispositions(popen) -> list[str]:  # noqa: ANN001 - subprocess.Popen or terminal_popen
    proc = popen([sys.executable, "-c", SHOW], stdout=subprocess.PIPE, text=True)
    out, _ = proc.communicate(timeout=60)
    return out.split()


@pytest.mark.timeout(120)
def test_a_child_gets_a_terminals_signals_when_pytest_ignores_them() -> None:
    """As in a background job (`pytest &`: SIGINT and SIGQUIT ignored; `nohup`: SIGHUP): a plain child inherits the
    ignored signals, and Python installs no Ctrl-C handler; a `terminal_popen` child has Python's usual ones."""
    before = {s: signal.signal(s, signal.SIG_IGN) for s in TERMINAL_SIGNALS}
    try:
        inherited = _dispositions(subprocess.Popen)
        at_terminal = _dispositions(terminal_popen)
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)
    assert inherited == ["ignored"] * 4  # what the five Ctrl-C tests met when run from a background job
    assert at_terminal == ["handler", "default", "default", "default"]  # Python's own Ctrl-C handler: KeyboardInterrupt


def test_terminal_popen_keeps_its_own_preexec_fn() -> None:
    with pytest.raises(TypeError, match="sets preexec_fn itself"):
        terminal_popen([sys.executable, "-c", "pass"], preexec_fn=lambda: None)


def _sends_a_catchable_signal(tree: ast.AST) -> bool:
    """Whether the module sends a process a signal it can catch or ignore (`send_signal`, `os.kill`, `os.killpg`
    with anything but SIGKILL or 0)."""
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr not in ("send_signal", "kill", "killpg") or not node.args:
            continue
        sig = node.args[-1]
        if isinstance(sig, ast.Constant) and sig.value == 0:
            continue
        if isinstance(sig, ast.Attribute) and sig.attr == "SIGKILL":
            continue
        return True
    return False


def test_every_test_that_signals_a_child_starts_it_as_a_terminal_would() -> None:
    offenders = []
    for path in sorted(TESTS.rglob("*.py")):
        if path.name == "terminal.py" or path == Path(__file__):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if _sends_a_catchable_signal(tree) and "terminal_popen" not in {
                n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}:
            offenders.append(str(path.relative_to(TESTS)))
    assert offenders == [], f"signal a child started with tests.terminal.terminal_popen: {offenders}"
