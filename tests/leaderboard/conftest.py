"""Fixtures for the leaderboard tests: real Inspect logs from a tiny task, and the local Hub look-alike."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .hub_server import HubTestServer
from .tiny_task import make_log


@pytest.fixture(scope="session")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Real logs: three models of different skill, a re-run of one, and one run at another temperature."""
    root = tmp_path_factory.mktemp("logs")
    return {
        "strong": make_log(root / "strong", (0, 1, 2, 3, 4, 5), "mockllm/strong-7b", temperature=0.0),
        "middle": make_log(root / "middle", (0, 2, 3), "mockllm/middle-1.5b", temperature=0.0),
        "weak": make_log(root / "weak", (), "mockllm/weak-135m", temperature=0.0),
        "strong_rerun": make_log(root / "strong_rerun", (0, 1, 2, 3, 4), "mockllm/strong-7b", temperature=0.0),
        "strong_hot": make_log(root / "strong_hot", (0, 1, 2), "mockllm/strong-7b", temperature=1.0),
    }


@pytest.fixture(scope="session")
def hub() -> Iterator[HubTestServer]:
    with HubTestServer() as server:
        yield server


@pytest.fixture(autouse=True)
def _isolated_hf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never touch the real Hugging Face cache, token or the user's leaderboard folders."""
    import huggingface_hub.constants as constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hf" / "hub"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("TOMBENCH_LEADERBOARD_HOME", str(tmp_path / "boards"))
    monkeypatch.delenv("HF_TOKEN", raising=False)
