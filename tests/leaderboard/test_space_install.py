"""The Space folder installs in a fresh virtual environment with nothing but its requirements.txt (from the
package index pip is configured with), serves the board of a results dataset on the project's fake Hub from a process
of its own, and that page works in a headless Chromium: the rows, inert odd names, the filter, the model-fact
columns, the details links, the About tab, and a row pushed while the app runs shown after a refresh.

Slow (a full install: gradio, inspect-ai, datasets...) and needs the package index, so it runs only with
TOMBENCH_TEST_SPACE_INSTALL=1 (and --run-network); TOMBENCH_TEST_SPACE_VENV=<folder> reuses (and tops up) a venv
made earlier. The browser part needs what test_space.py's does (selenium, Debian's chromium and chromedriver).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner

from tombench.cli import main
from tombench.leaderboard import push_rows

from .hub_server import HubTestServer
from .rows_factory import row
from .space_page import open_tab, shown_board, shown_table, wait_for

TOKEN = "hf_test_token"
ODD = "vllm/org/<svg onload=1>"
DETAILS = "https://huggingface.co/datasets/org/results/blob/main/data/details/{}.jsonl"
#: run in the Space folder by the venv's python: say which tombench it imported, then serve until killed
_SERVE = """
import json, sys
import app, tombench
print(json.dumps({"tombench": tombench.__file__}), flush=True)
app.demo.launch(server_name="127.0.0.1", server_port=int(sys.argv[1]), quiet=True)
"""


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _install(out: Path, tmp_path: Path) -> Path:
    """A venv with the Space's requirements.txt and nothing else (pip's own index settings); its python."""
    venv = Path(os.environ.get("TOMBENCH_TEST_SPACE_VENV") or tmp_path / "venv")
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    pip = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "-r", str(out / "requirements.txt")],
                         capture_output=True, text=True, timeout=1500)
    assert pip.returncode == 0, pip.stderr[-3000:]
    return venv / "bin" / "python"


@contextmanager
def _served(python: Path, out: Path, hub_url: str, home: Path):
    """The Space's app.py served by `python` in a process of its own (the environment holds only what a Space has:
    the Hub endpoint and token), until the block ends; yields (url, the line the app printed, the process)."""
    port = _free_port()
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(home), "HF_ENDPOINT": hub_url, "HF_TOKEN": TOKEN,
           "HF_HUB_DISABLE_TELEMETRY": "1", "GRADIO_ANALYTICS_ENABLED": "False"}
    log, err = home / "app.out", home / "app.err"
    with log.open("w") as stdout, err.open("w") as stderr:
        proc = subprocess.Popen([str(python), "-c", _SERVE, str(port)], cwd=out, env=env, stdout=stdout, stderr=stderr)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 300
        while not _answers(url + "config"):
            assert proc.poll() is None, f"the app exited ({proc.returncode}): {err.read_text()[-3000:]}"
            assert time.monotonic() < deadline, f"the app did not answer in 300 s: {err.read_text()[-3000:]}"
            time.sleep(1)
        yield url, json.loads(log.read_text().splitlines()[0]), proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status == 200
    except OSError:
        return False


@pytest.mark.network
@pytest.mark.browser
@pytest.mark.skipif(not os.environ.get("TOMBENCH_TEST_SPACE_INSTALL"),
                    reason="installs the Space's requirements: set TOMBENCH_TEST_SPACE_INSTALL=1")
@pytest.mark.timeout(1800)
def test_space_installs_in_a_fresh_venv_and_serves_the_board(space_driver, tmp_path):
    out = tmp_path / "space"
    assert CliRunner().invoke(main, ["leaderboard", "space", "--repo", "org/results", "--out", str(out)]).exit_code == 0
    python = _install(out, tmp_path)
    rows = [row("hf/org/big-7b", 0.9, 0.03, submission_id="a"), row(ODD, 0.5, submission_id="b")]
    with HubTestServer() as hub:
        hub.add_model_page("org/big-7b", license="apache-2.0", parameters=7_610_000_000)  # the other has none
        push_rows(rows, "org/results", token=TOKEN, endpoint=hub.url)
        with _served(python, out, hub.url, tmp_path) as (url, printed, proc):
            assert Path(printed["tombench"]).resolve().is_relative_to(out.resolve())  # the Space's own copy
            with urllib.request.urlopen(url + "config", timeout=30) as r:
                config = json.loads(r.read())
            cross = next(c["props"]["value"] for c in config["components"] if c.get("type") == "dataframe")["data"]
            assert len(cross) == 2 and any("vllm/org/&lt;svg onload=1&gt;" in r[0] for r in cross)  # escaped HTML
            _check_the_page(space_driver, url)
            push_rows([row("hf/org/new-3b", 0.7, submission_id="c")], "org/results", token=TOKEN,
                      endpoint=hub.url)
            _check_a_new_row_shows_after_a_refresh(space_driver)
            assert proc.poll() is None  # the same process all along: no restart


def _check_the_page(driver, url: str) -> None:  # noqa: ANN001
    from selenium.webdriver.common.by import By

    driver.get(url)
    tabs = wait_for(driver, lambda d: [t.text for t in d.find_elements(By.CSS_SELECTOR, "[role=tab]")], 60)
    assert tabs == ["All tasks", "exploretom_random v1", "About"]
    heads, cross = open_tab(driver, "All tasks")
    assert heads == ["Model", "License", "Params (Hub)", "exploretom_random v1"]  # the model facts columns
    assert sorted(r[0] for r in cross) == ["hf/org/big-7b", ODD]  # the odd name is text...
    # the model facts: from the model's Hub page where it has one, blank where not (no error)
    assert {r[0]: r[1:3] for r in cross} == {"hf/org/big-7b": ["apache-2.0", "7.61B"], ODD: ["", ""]}
    assert not driver.execute_script("return document.querySelectorAll('[onload]').length")  # ...no element made
    assert not shown_board(driver).find_elements(By.CSS_SELECTOR, "[role=gridcell] svg")
    link = driver.find_element(By.LINK_TEXT, "hf/org/big-7b")
    assert link.get_attribute("href") == "https://huggingface.co/org/big-7b"
    _check_the_filter(driver)

    open_tab(driver, "exploretom_random v1")
    chooser = next(c for c in driver.find_elements(By.CSS_SELECTOR, ".columns") if c.is_displayed())
    chooser.find_element(By.CSS_SELECTOR, "input[name='Details']").click()  # a column the chooser adds
    heads, shown = wait_for(driver, lambda d: (t := shown_table(d)) and "Details" in t[0] and t)
    assert [r[heads.index("Details")] for r in shown] == ["details", "details"]
    hrefs = {a.get_attribute("href") for a in shown_board(driver).find_elements(By.LINK_TEXT, "details")}
    assert hrefs == {DETAILS.format("a"), DETAILS.format("b")}  # each row links to its own details

    next(t for t in driver.find_elements(By.CSS_SELECTOR, "[role=tab]") if t.text == "About").click()
    about = wait_for(driver, lambda d: next((p.text for p in d.find_elements(By.CSS_SELECTOR, "[role=tabpanel]")
                                             if p.is_displayed() and "How to cite" in p.text), None))
    assert "How to submit" in about and "tombench leaderboard push logs/ --repo org/results" in about


def _check_the_filter(driver) -> None:  # noqa: ANN001
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    box = shown_board(driver).find_element(By.CSS_SELECTOR, "input.search-input")
    box.send_keys("svg")
    narrowed = wait_for(driver, lambda d: (t := shown_table(d)) and len(t[1]) == 1 and t[1])
    assert [r[0] for r in narrowed] == [ODD]
    box.send_keys(Keys.CONTROL, "a", Keys.BACKSPACE)
    assert len(wait_for(driver, lambda d: (t := shown_table(d)) and len(t[1]) == 2 and t[1])) == 2


def _check_a_new_row_shows_after_a_refresh(driver) -> None:  # noqa: ANN001
    from selenium.webdriver.common.by import By

    _, cross = open_tab(driver, "All tasks")
    assert "hf/org/new-3b" not in [r[0] for r in cross]  # the app has not read the dataset again yet
    next(b for b in driver.find_elements(By.TAG_NAME, "button") if b.text == "Refresh").click()
    models = wait_for(driver, lambda d: (t := shown_table(d)) and len(t[1]) == 3 and [r[0] for r in t[1]], 60)
    assert sorted(models) == ["hf/org/big-7b", "hf/org/new-3b", ODD]
