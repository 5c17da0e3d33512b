"""tombench is POSIX only: on a system without the names it uses (Windows), one clear line, never an AttributeError
at import. Simulated in a fresh interpreter by removing `signal.SIGHUP` before tombench is imported."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tombench._platform import missing, unsupported

_WITHOUT_SIGHUP = "import signal; del signal.SIGHUP\n"


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _WITHOUT_SIGHUP + code], capture_output=True, text=True,
                          timeout=120, check=False)


def test_this_system_has_everything():
    assert missing() == [] and unsupported() is None


@pytest.mark.timeout(150)
@pytest.mark.parametrize("module", ["tombench._registry", "tombench.generators.exploretom.search.pool",
                                    "tombench.local._server"])
def test_importing_a_posix_only_module_elsewhere_says_why_in_one_line(module):
    r = _python(f"import {module}")
    assert r.returncode == 1
    last = r.stderr.strip().splitlines()[-1]
    assert last == (f"tombench._platform.UnsupportedPlatform: tombench runs on POSIX systems only (Linux; on Windows, "
                    f"inside WSL): this Python ({sys.platform}) has no signal.SIGHUP")
    assert "AttributeError:" not in r.stderr


@pytest.mark.timeout(150)
def test_the_command_elsewhere_is_one_line():
    r = _python("import sys; sys.argv = ['tombench', 'search', '--out', 'x']\n"
                "from tombench.cli import main; main()")
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [f"error: {unsupported_line()}"]
    assert r.stdout == ""


def unsupported_line() -> str:
    return (f"tombench runs on POSIX systems only (Linux; on Windows, inside WSL): this Python ({sys.platform}) has "
            "no signal.SIGHUP")
