"""Fixtures for the leaderboard tests: real Inspect logs from a tiny task, and the local Hub look-alike."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

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


@pytest.fixture(autouse=True)
def _isolated_hf(isolated_hf: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never touch the real Hugging Face cache, token (tests/conftest.py) or the user's leaderboard folders."""
    monkeypatch.setenv("TOMBENCH_LEADERBOARD_HOME", str(tmp_path / "boards"))


# --- the one headless Chromium of the browser tests (test_browser.py: the HTML page; test_space.py: the Space) ----
_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
          "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-dev-shm-usage"]


def _binaries() -> tuple[str, str]:
    browser = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
    driver = shutil.which("chromedriver")
    if not browser or not driver:
        pytest.skip("no headless Chromium: install Debian's `chromium` and `chromium-driver` (see .ci/run)")
    return browser, driver


@pytest.fixture(scope="module")
def driver():
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install selenium)")
    browser, driver_path = _binaries()
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in _FLAGS:
        options.add_argument(flag)
    service = webdriver.ChromeService(executable_path=driver_path)
    d = webdriver.Chrome(options=options, service=service)
    try:
        yield d
    finally:
        d.quit()


@pytest.fixture(scope="module")
def space_driver(driver):
    """The shared headless Chromium, wide enough for the Space's tables."""
    driver.set_window_size(1600, 1000)
    return driver
