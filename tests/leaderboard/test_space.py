"""The Hub Space (issue #30 point 6): the folder `tombench leaderboard space` writes, its push through the one Hub
writer to the project's fake Hub, and the generated app served by Gradio in a real headless Chromium.

The browser tests need gradio (the `space` extra), Debian's `chromium` and `chromium-driver` and selenium; they skip
with the reason otherwise. The app runs in this process on a free port of 127.0.0.1 and is closed after the module.
"""

from __future__ import annotations

import re
import runpy
import socket
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from tombench.cli import main
from tombench.leaderboard import LocalStore, RowSet, build_view
from tombench.leaderboard.space import GRADIO_VERSION, LOCAL_DIR_ENV, interval_bar, space_tables

from .chart_page import chart_traces, check_traces_match_cells
from .hub_server import HubTestServer
from .rows_factory import row
from .space_page import open_tab, shown_table, wait_for

TOKEN = "hf_test_token"
SECOND_TASK = "exploretom_random v1"


def _hand_rows():
    """A second task's board (hand-made rows): a Hub model (linked), and one model also on the tiny task."""
    return [row("hf/org/big-7b", 0.9, 0.03, provider="hf", submission_id="hand-big"),
            row("mockllm/strong-7b", 0.6, 0.05, provider="mockllm", submission_id="hand-strong")]


@pytest.fixture(scope="module")
def board(logs, tmp_path_factory) -> Path:
    """A local copy of a results dataset: real logs pushed with `push --local-dir`, plus a second task's rows."""
    root = tmp_path_factory.mktemp("space-board")
    res = CliRunner().invoke(main, ["leaderboard", "push", str(logs["strong"]), str(logs["middle"]),
                                    str(logs["weak"]), "--local-dir", str(root)])
    assert res.exit_code == 0, res.output
    store = LocalStore(root)
    for r in _hand_rows():
        assert store.add(r)
    return root


# --- pure: the tables, the drawing, the folder ------------------------------------------------------------------------
def test_interval_bar_draws_the_interval_on_a_0_to_100_scale():
    assert interval_bar(0.0, 0.0, 0.2, width=11) == "|●━━········|"
    assert interval_bar(0.5, 0.75, 1.0, width=5) == "|··━●━|"
    assert interval_bar(None, 0.5, None) == ""


def test_tables_rank_like_show_and_cross_tasks(board):
    rows = LocalStore(board).rows()
    cross, *tasks = space_tables(rows)
    boards = build_view(rows).boards
    assert [t.title for t in tasks] == ["exploretom_random v1", "tiny_tom v2"]
    for t, b in zip(tasks, boards, strict=True):
        ranks = [r[t.headers.index("Rank")] for r in t.rows]
        assert ranks == [e.cells["rank"].text for e in b.entries]  # the very cells `show` prints
    assert cross.headers == ["Model", "License", "Params (Hub)", "exploretom_random v1", "tiny_tom v2"]
    by_model = {re.sub("<[^>]*>", "", r[0]): r[3:] for r in cross.rows}  # the model cells are escaped HTML
    assert set(by_model) == {"hf/org/big-7b", "mockllm/strong-7b", "mockllm/middle-1.5b", "mockllm/weak-135m"}
    assert ('<a href="https://huggingface.co/org/big-7b" title="hf/org/big-7b" target="_blank" '
            'rel="noopener noreferrer">hf/org/big-7b</a>') in {r[0] for r in cross.rows}
    assert by_model["mockllm/strong-7b"][0].startswith("60.0 [") and by_model["mockllm/strong-7b"][1] != "–"
    assert by_model["mockllm/weak-135m"][0] == "–"  # not run on that task


def test_space_folder_and_push_to_the_fake_hub(tmp_path, monkeypatch):
    out = tmp_path / "space"
    with HubTestServer() as hub:
        monkeypatch.setenv("HF_TOKEN", TOKEN)
        from tombench.leaderboard import space as space_module

        monkeypatch.setattr(space_module, "push_space", _pointed_at(space_module.push_space, hub.url))
        res = CliRunner().invoke(main, ["leaderboard", "space", "--repo", "org/results", "--out", str(out),
                                        "--space", "org/board", "--timeout", "20"])
        assert res.exit_code == 0, res.output
        assert "pushed the Space to org/board" in res.output
        pushed = hub.files("org/board", "space")
    assert {"README.md", "requirements.txt", "app.py"} <= set(pushed)  # (the Hub adds .gitattributes)
    header = yaml.safe_load(pushed["README.md"].decode().split("---")[1])
    assert header["sdk"] == "gradio" and header["sdk_version"] == GRADIO_VERSION and header["app_file"] == "app.py"
    assert header["datasets"] == ["org/results"]
    # no `tombench==VERSION` from an index that may lack it: the source travels in the Space, its dependencies do not
    requirements = pushed["requirements.txt"].decode().splitlines()
    assert requirements[-1] == f"gradio=={GRADIO_VERSION}" and not any(r.startswith("tombench") for r in requirements)
    assert any(r.startswith("inspect-ai") for r in requirements)
    assert "tombench/leaderboard/space.py" in pushed and "tombench/leaderboard/static/board.css" in pushed
    assert not any("__pycache__" in p for p in pushed)
    assert "build_app('org/results')" in pushed["app.py"].decode()
    assert (out / "app.py").read_bytes() == pushed["app.py"]

    bad = CliRunner().invoke(main, ["leaderboard", "space", "--repo", "results", "--out", str(out)])
    assert bad.exit_code == 2 and "is not a Hub repo id: it must look like ORG/NAME" in bad.output


def test_app_that_cannot_read_the_hub_says_so(monkeypatch):
    """A Space whose dataset cannot be read starts all the same and says why in one line (no traceback page)."""
    pytest.importorskip("gradio", reason="gradio is not installed (pip install -e '.[space]')")
    from tombench.kit.hub import HubError
    from tombench.leaderboard import space as space_module

    def unreachable(repo, timeout=30.0):  # noqa: ANN001, ANN202
        raise HubError(f"could not read {repo} from the Hub (ConnectError)")

    monkeypatch.setattr(space_module, "load_rows", unreachable)
    demo = space_module.build_app("org/results")
    texts = [b.value for b in demo.blocks.values() if type(b).__name__ == "Markdown"]
    assert any("Could not read the results:** could not read org/results from the Hub" in t for t in texts)


def _pointed_at(push, url: str):
    def pointed(folder, space, **kw):  # noqa: ANN001, ANN202
        return push(folder, space, endpoint=url, **kw)
    return pointed


# --- the app in a browser ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def app_url(board, tmp_path_factory):
    """The generated app.py, run against the local copy and served on a free port; closed after the module."""
    pytest.importorskip("gradio", reason="gradio is not installed (pip install -e '.[space]')")
    out = tmp_path_factory.mktemp("space")
    assert CliRunner().invoke(main, ["leaderboard", "space", "--repo", "org/results", "--out", str(out)]).exit_code == 0
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(LOCAL_DIR_ENV, str(board))
        mp.setenv("GRADIO_ANALYTICS_ENABLED", "False")
        demo = runpy.run_path(str(out / "app.py"))["demo"]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    demo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        demo.close()


@pytest.mark.browser
def test_space_in_a_headless_browser(space_driver, app_url, board):
    driver = space_driver
    from selenium.webdriver.common.by import By

    rows = LocalStore(board).rows()
    driver.get(app_url)
    tabs = wait_for(driver, lambda d: [t.text for t in d.find_elements(By.CSS_SELECTOR, "[role=tab]")])
    assert tabs == ["All tasks", SECOND_TASK, "tiny_tom v2", "About"]  # the cross-task view, one tab per task

    heads, cross = open_tab(driver, "All tasks")
    assert heads == ["Model", "License", "Params (Hub)", SECOND_TASK, "tiny_tom v2"]  # one column per task
    models = [r[0] for r in cross]
    assert sorted(models) == sorted(["hf/org/big-7b", "mockllm/strong-7b", "mockllm/middle-1.5b",
                                     "mockllm/weak-135m"])  # one row per model
    link = driver.find_element(By.LINK_TEXT, "hf/org/big-7b")
    assert link.get_attribute("href") == "https://huggingface.co/org/big-7b"
    strong = cross[models.index("mockllm/strong-7b")]
    assert strong[3].startswith("60.0 [") and strong[4].startswith("100.0 [")  # intervals in every cell

    for b in build_view(rows).boards:
        title = f"{b.task.removeprefix('tombench/')} v{b.task_version}"
        heads, shown = open_tab(driver, title)
        assert [r[heads.index("Rank")] for r in shown] == [e.cells["rank"].text for e in b.entries]  # as `show`
        assert [r[heads.index("Model")] for r in shown] == [e.row.model for e in b.entries]
        bars = [r[heads.index("Interval (0–100%)")] for r in shown]
        assert all(bar.startswith("|") and "●" in bar for bar in bars)  # the interval drawn for every row
        assert "Samples" in heads and "Tokens" not in heads
        # the tab's chart: every row's headline and breakdown groups, the numbers of the board's cells
        chart = next(c for c in driver.find_elements(By.CSS_SELECTOR, ".chart") if c.is_displayed())
        traces = chart_traces(driver, chart)
        cells = [{**{c.title: e.cells[c.key].text for c in b.columns}} for e in b.entries]
        assert [r[heads.index("Accuracy %")] for r in shown] == [c["Accuracy %"] for c in cells]
        assert check_traces_match_cells(traces, cells) >= len(b.entries)
        assert {t["meta"]["panel"] for t in traces} >= {"headline", "action_set"}

    # the column chooser of the shown tab (the last task's): hide Samples, show Tokens
    chooser = next(c for c in driver.find_elements(By.CSS_SELECTOR, ".columns") if c.is_displayed())
    for name in ("Samples", "Tokens"):
        chooser.find_element(By.CSS_SELECTOR, f"input[name='{name}']").click()
    heads, _ = wait_for(driver, lambda d: (t := shown_table(d)) and "Tokens" in t[0] and "Samples" not in t[0] and t)
    assert heads[:2] == ["Rank", "Model"]


def test_the_app_rereads_the_dataset_without_a_restart(monkeypatch):
    """Issue #41.7: the Space read the dataset once, at start. Now a page load, the timer or the button re-read it
    (a page load at most once per `max_age`); a failed read keeps the last tables and says why."""
    from tombench.kit.hub import HubError
    from tombench.leaderboard import space as space_module

    served = [[row("hf/org/a-7b", 0.6, 0.05, submission_id="a")]]

    def read(repo, timeout=30.0):  # noqa: ANN001, ANN202
        if not served:
            raise HubError(f"could not read {repo} from the Hub (ConnectError)")
        return RowSet(served[-1])

    monkeypatch.setattr(space_module, "load_rows", read)
    live = space_module.LiveBoard("org/results", max_age=3600)
    assert [len(t.rows) for t in live.tables.values()] == [1, 1]
    served.append(served[0] + [row("hf/org/b-7b", 0.4, 0.05, submission_id="b")])
    assert [len(t.rows) for t in live.refresh().values()] == [1, 1]  # a page load within max_age: no new read
    assert [len(t.rows) for t in live.refresh(force=True).values()] == [2, 2]  # the button: read now
    served.clear()
    assert [len(t.rows) for t in live.refresh(force=True).values()] == [2, 2]  # the Hub is down: the last tables
    assert "Could not read the results" in live.status()


def test_the_space_runs_from_its_own_copy_of_tombench(board, tmp_path):
    """The Space folder carries tombench's source: app.py imports that copy (not an installed tombench) and builds
    the app from it; a `tombench/` folder it did not make is never replaced."""
    pytest.importorskip("gradio", reason="gradio is not installed (pip install -e '.[space]')")
    import os
    import subprocess
    import sys

    out = tmp_path / "space"
    res = CliRunner().invoke(main, ["leaderboard", "space", "--repo", "org/results", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert (out / "tombench" / "leaderboard" / "space.py").exists()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {LOCAL_DIR_ENV: str(board)}
    code = "import app, tombench; print(tombench.__file__); print(type(app.demo).__name__)"
    ran = subprocess.run([sys.executable, "-c", code], cwd=out, env=env, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr[-3000:]
    where, kind = ran.stdout.strip().splitlines()[-2:]
    assert Path(where).resolve().is_relative_to(out.resolve()) and kind == "Blocks"
    # rewriting the folder replaces its own copy; a source tree it did not make stops the command in one line
    assert CliRunner().invoke(main, ["leaderboard", "space", "--repo", "org/results", "--out", str(out)]).exit_code == 0
    (tmp_path / "checkout" / "tombench").mkdir(parents=True)
    bad = CliRunner().invoke(main, ["leaderboard", "space", "--repo", "org/results", "--out", str(tmp_path / "checkout")])
    assert bad.exit_code == 2 and "is not a copy this command made" in bad.output


def test_model_facts_details_links_and_about(monkeypatch):
    """Issue #41.7: license and size from the model's Hub page where it is there (blank where not), a link from
    each row to its details, an About tab with how to submit and how to cite."""
    from tombench.leaderboard import space as space_module

    rows = [row("hf/org/big-7b", 0.9, 0.03, submission_id="big"), row("mockllm/m", 0.5, submission_id="../x")]
    monkeypatch.setattr(space_module, "load_rows", lambda repo, timeout=30.0: RowSet(rows))
    asked = []

    def facts(models):  # noqa: ANN001, ANN202
        asked.append(list(models))
        return {"hf/org/big-7b": space_module.ModelFacts("apache-2.0", 7.61)}

    live = space_module.LiveBoard("org/results", facts=facts)
    cross = live.tables["All tasks"]
    by_model = {re.sub("<[^>]*>", "", r[0]): r[1:3] for r in cross.rows}
    assert by_model == {"hf/org/big-7b": ["apache-2.0", "7.61B"], "mockllm/m": ["", ""]}
    task = live.tables["exploretom_random v1"]
    details = [r[task.headers.index("Details")] for r in task.rows]
    assert details[0] == ('<a href="https://huggingface.co/datasets/org/results/blob/main/data/details/big.jsonl" '
                          'target="_blank" rel="noopener noreferrer">details</a>')
    assert details[1] == ""  # an id that is not a plain file name gets no link
    live.refresh(force=True)
    assert asked == [["hf/org/big-7b", "mockllm/m"]]  # each model asked once
    about = space_module.about_text("org/results")
    assert "tombench leaderboard push logs/ --repo org/results" in about and "How to cite" in about
    with HubTestServer() as hub:  # a Hub without these models: blank facts, no error
        assert space_module.hub_model_facts(["hf/org/big-7b", "vllm/org/<svg>"], timeout=5, endpoint=hub.url) == {}
    with HubTestServer() as hub:  # a Hub with one of them: its card's license and its safetensors' parameter count
        hub.add_model_page("org/big-7b", license="apache-2.0", parameters=7_610_000_000)
        hub.add_model_page("org/no-card")
        got = space_module.hub_model_facts(["hf/org/big-7b", "vllm/org/no-card", "mockllm/m"], timeout=5,
                                           endpoint=hub.url)
        assert got == {"hf/org/big-7b": space_module.ModelFacts("apache-2.0", 7.61),
                       "vllm/org/no-card": space_module.ModelFacts("", None)}
