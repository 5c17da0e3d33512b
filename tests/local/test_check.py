"""`tombench serve --check`, the install recipe and the build options: a local model that really runs (issue #32)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tombench.local import ServerStartError, check_completion, free_port, serve_process
from tombench.local._model import EXTRA_INSTALL, PORTABLE_CMAKE_ARGS, PORTABLE_REINSTALL
from tombench.local._server import crash_cause

ROOT = Path(__file__).parents[2]
STANDIN = Path(__file__).with_name("standin_server.py")


def _standin(tmp_path: Path, *flags: str):  # noqa: ANN202 - a context manager
    port = free_port()
    argv = [sys.executable, str(STANDIN), str(port), *flags]
    return serve_process(argv, port=port, alias="standin", gguf=tmp_path / "m.gguf", log_path=tmp_path / "s.log")


def test_check_returns_the_real_reply_and_its_tokens(tmp_path: Path) -> None:
    with _standin(tmp_path) as server:
        result = check_completion(server, timeout=30)
    assert result.reply == "In the basket."
    assert result.completion_tokens == 4
    assert result.seconds >= 0


def test_a_server_that_dies_on_its_first_completion_is_one_clear_error(tmp_path: Path) -> None:
    """The AMX fault of issue #32: ready, then gone on the first matrix product. Said as such, with the log's tail."""
    with _standin(tmp_path, "--die-on-completion") as server, pytest.raises(ServerStartError) as caught:
        check_completion(server, timeout=30)
    assert "exited on its first completion" in str(caught.value)
    assert "\n" not in str(caught.value)
    assert "general protection fault" in caught.value.log_tail


@pytest.mark.parametrize(("flag", "cause"), [
    ("--segfault-on-completion", "killed by SIGSEGV: likely a llama.cpp build for another CPU"),
    ("--die-on-completion", "killed by SIGSEGV: likely a llama.cpp build for another CPU"),  # exit code 139 = 128+11
])
def test_a_crash_names_its_likely_cause_and_the_fix(tmp_path: Path, flag: str, cause: str) -> None:
    with _standin(tmp_path, flag) as server, pytest.raises(ServerStartError) as caught:
        check_completion(server, timeout=30)
    message = str(caught.value)
    assert f"exited on its first completion ({cause}" in message and "\n" not in message
    assert f"fix: reinstall the portable build: {PORTABLE_REINSTALL}" in message


def test_crash_causes() -> None:
    assert crash_cause(-9).startswith("killed by SIGKILL: likely out of memory")
    assert crash_cause(-4).startswith("killed by SIGILL: likely a llama.cpp build for another CPU")
    assert crash_cause(1) == "exit code 1" and crash_cause(-15) == "killed by SIGTERM"


def test_readme_installs_the_portable_build_ci_uses() -> None:
    """The README's real-model install and the fix the crash message gives build what `.ci/run` builds."""
    ci = (ROOT / ".ci" / "run").read_text()
    cmake_args = re.search(r'CMAKE_ARGS="\$\{CMAKE_ARGS:-([^}]*)\}"', ci)
    assert cmake_args and cmake_args.group(1) == PORTABLE_CMAKE_ARGS
    assert EXTRA_INSTALL in (ROOT / "README.md").read_text()
    pinned = re.search(r'^local = \["(llama-cpp-python\[server\]==[^"]+)"\]$', (ROOT / "pyproject.toml").read_text(),
                       re.M)
    assert pinned and PORTABLE_REINSTALL.endswith(f"'{pinned.group(1)}'")


def test_ci_builds_the_local_extras_pin_portably() -> None:
    """CI builds the very version the `local` extra pins, for any x86-64: no native flags, hence no AMX."""
    ci = (ROOT / ".ci" / "run").read_text()
    pinned = re.search(r'^local = \["llama-cpp-python\[server\]==([^"]+)"\]$', (ROOT / "pyproject.toml").read_text(), re.M)
    assert pinned, "the local extra's pin not found in pyproject.toml"
    assert f'llama_spec="llama-cpp-python=={pinned.group(1)}"' in ci
    cmake_args = re.search(r'CMAKE_ARGS="\$\{CMAKE_ARGS:-([^}]*)\}"', ci)
    assert cmake_args, "CMAKE_ARGS default not found in .ci/run"
    assert "-DGGML_NATIVE=OFF" in cmake_args.group(1).split()
    assert "AMX" not in cmake_args.group(1)
    assert "tombench serve --check" in ci


def test_readme_and_ci_install_with_the_constraints_file() -> None:
    """The install resolves without pip backtracking through boto3 releases (issue #32 point 0)."""
    readme_first = (ROOT / "README.md").read_text().split("```bash\n", 1)[1].splitlines()[0]
    assert 'pip install -c constraints.txt -e ".[dev]"' in readme_first
    assert 'pip install -q -c constraints.txt -e ".[dev]"' in (ROOT / ".ci" / "run").read_text()
    pins = [line for line in (ROOT / "constraints.txt").read_text().splitlines() if line and line[0] != "#"]
    assert pins and all(re.fullmatch(r"[a-z0-9-]+==[0-9.]+", pin) for pin in pins)
