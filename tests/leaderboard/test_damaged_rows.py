"""One damaged row file never takes the board down: every entry point skips it with one line naming it (escaped),
shows and ranks the other rows, and never writes into it.

Damage kinds: a truncated file, a binary file, JSON of another shape (a list, an object of other fields, a row
whose headline is a string). Entry points: `leaderboard show` (terminal, Markdown, HTML) and `push` on a local
folder and on a Hub dataset (the local Hub look-alike), and the Space's board.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from tombench.cli import main
from tombench.leaderboard import DamagedRow, LocalStore, parse_row, push_rows, render
from tombench.leaderboard._site import RESULTS_DIR, result_path

from .rows_factory import row

TOKEN = "hf_test_token"
GOOD = [row("org/strong-7b", 0.9, 0.03, submission_id="good-a"), row("org/weak-1b", 0.4, 0.05, submission_id="good-b")]
_VALID = GOOD[0].to_json()
DAMAGE = {
    "truncated": (_VALID[: len(_VALID) // 2].encode(), "not valid JSON (truncated or damaged: line 1"),
    "empty": (b"", "not valid JSON (truncated or damaged: empty)"),
    "binary": (bytes(range(256)) * 4, "not UTF-8 text"),
    "list": (b"[1, 2, 3]\n", "JSON of another shape (a list, not a row object)"),
    "other-object": (b'{"hello": "world"}\n', "not a leaderboard row (missing schema_version, submission_id, "),
    "wrong-type": (_VALID.replace('"accuracy": 0.9', '"accuracy": "high"').encode(),
                   "not a leaderboard row (accuracy is a string)"),
}
#: A file name that is rich markup and HTML at once: it must be shown as typed, never read as either.
ODD_NAME = "[bold]x<img src=y>"


def _folder(tmp_path: Path, damage: bytes, name: str = "damaged") -> Path:
    board = tmp_path / "board"
    store = LocalStore(board)
    for r in GOOD:
        store.add(r)
    (board / RESULTS_DIR / f"{name}.json").write_bytes(damage)
    return board


@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_parse_row_names_the_file_and_says_why(kind: str) -> None:
    content, why = DAMAGE[kind]
    with pytest.raises(DamagedRow) as err:
        parse_row(content, "data/results/x.json")
    assert str(err.value).startswith(f"skipped data/results/x.json: {why}")
    assert "\n" not in str(err.value)


def test_every_valid_row_still_parses() -> None:
    """The checks refuse nothing a row of this schema (or an older one, fields at their defaults) can be."""
    for r in GOOD:
        assert parse_row(r.to_json(), "x") == r
    old = {k: v for k, v in json.loads(GOOD[0].to_json()).items() if k not in ("items", "run_config", "stories")}
    assert parse_row(json.dumps(old), "x").accuracy == 0.9


def _ranked_models(markdown: str) -> list[str]:
    return [line.split(" | ")[1] for line in markdown.splitlines() if line.startswith("| ") and "org/" in line]


@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_show_skips_a_damaged_local_file_in_every_format(kind: str, tmp_path: Path) -> None:
    board = _folder(tmp_path, DAMAGE[kind][0])
    runner = CliRunner()
    md = runner.invoke(main, ["leaderboard", "show", str(board), "--format", "markdown"])
    assert md.exit_code == 0, md.output
    line = f"warning: skipped data/results/damaged.json: {DAMAGE[kind][1]}"
    assert md.stderr.startswith(line) and len(md.stderr.splitlines()) == 1
    assert _ranked_models(md.stdout) == ["org/strong-7b", "org/weak-1b"]
    assert md.stdout == render(GOOD, "markdown", skipped=[md.stderr.removeprefix("warning: ").strip()])
    terminal = runner.invoke(main, ["leaderboard", "show", str(board)])
    assert terminal.exit_code == 0 and "org/weak-1b" in terminal.stdout and terminal.stderr.startswith(line)
    page = runner.invoke(main, ["leaderboard", "show", str(board), "--format", "html"])
    assert page.exit_code == 0 and '<ul class="skipped"><li>skipped data/results/damaged.json: ' in page.stdout
    results = runner.invoke(main, ["leaderboard", "eval-results", str(board), "--out", str(tmp_path / "er"),
                                   "--benchmark", "org/board"])
    assert results.exit_code == 0 and results.stderr.startswith(line) and "wrote eval.yaml" in results.stdout


@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_push_skips_and_never_rewrites_a_damaged_local_file(kind: str, tmp_path: Path, hub,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    board = _folder(tmp_path, DAMAGE[kind][0])
    _point_at(hub, monkeypatch)
    repo = f"tester/local-{uuid.uuid4().hex[:8]}"
    res = CliRunner().invoke(main, ["leaderboard", "push", "--repo", repo, "--local-dir", str(board)])
    assert res.exit_code == 0, res.output
    assert f"warning: skipped data/results/damaged.json: {DAMAGE[kind][1]}" in " ".join(res.stdout.split())
    assert "pushed 2 new submission(s)" in res.stdout  # the two good rows
    assert (board / RESULTS_DIR / "damaged.json").read_bytes() == DAMAGE[kind][0]
    assert "skipped data/results/damaged.json" in (board / "leaderboard.html").read_text(encoding="utf-8")
    assert result_path("damaged") not in hub.files(repo)


def test_a_file_name_is_shown_as_typed_never_as_markup(tmp_path: Path) -> None:
    board = _folder(tmp_path, b"{", ODD_NAME)
    runner = CliRunner()
    page = runner.invoke(main, ["leaderboard", "show", str(board), "--format", "html"]).stdout
    assert "<img" not in page and "&lt;img src=y&gt;" in page
    md = runner.invoke(main, ["leaderboard", "show", str(board), "--format", "markdown"])
    assert "\\<img src=y\\>" in md.stdout and f"skipped data/results/{ODD_NAME}.json" in md.stderr
    pushed = runner.invoke(main, ["leaderboard", "push", "--local-dir", str(board), "--repo", "o/n", "--timeout",
                                  "0.1"], env={"HF_HUB_OFFLINE": "1"})
    assert f"skipped data/results/{ODD_NAME}.json" in pushed.stdout  # rich printed the brackets, bold nothing


def _point_at(hub, monkeypatch: pytest.MonkeyPatch) -> None:
    """Clients made without an endpoint (the CLI, the Space) read from the local Hub look-alike: the endpoint and
    the download URL template, which huggingface_hub builds from it at import."""
    import huggingface_hub.constants as constants

    monkeypatch.setenv("HF_TOKEN", TOKEN)
    monkeypatch.setattr(constants, "ENDPOINT", hub.url)
    monkeypatch.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE", hub.url + "/{repo_id}/resolve/{revision}/{filename}")


def _hub_with_damage(hub, content: bytes) -> str:
    repo = f"tester/damaged-{uuid.uuid4().hex[:8]}"
    push_rows(GOOD, repo, token=TOKEN, endpoint=hub.url)
    with hub.state.lock:
        hub.state.add_commit(hub.state.repos[("dataset", repo)], {result_path("damaged"): content}, "hand-written")
    return repo


@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_hub_show_and_push_skip_a_damaged_file_and_leave_it(kind: str, hub, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    content, why = DAMAGE[kind]
    repo = _hub_with_damage(hub, content)
    _point_at(hub, monkeypatch)
    runner = CliRunner()
    shown = runner.invoke(main, ["leaderboard", "show", "--repo", repo, "--format", "markdown"])
    assert shown.exit_code == 0, shown.output
    assert shown.stderr.startswith(f"warning: skipped {result_path('damaged')}: {why}")
    assert len(shown.stderr.splitlines()) == 1
    assert _ranked_models(shown.stdout) == ["org/strong-7b", "org/weak-1b"]

    LocalStore(tmp_path / "copy").add(row("org/third-3b", 0.6, submission_id="third"))
    pushed = runner.invoke(main, ["leaderboard", "push", "--repo", repo, "--local-dir", str(tmp_path / "copy")])
    assert pushed.exit_code == 0, pushed.output
    assert "pushed 1 new submission(s)" in pushed.stdout
    assert f"{repo}: skipped {result_path('damaged')}: {why}" in " ".join(pushed.stdout.split())
    files = hub.files(repo)
    assert files[result_path("damaged")] == content  # left as it was
    assert f"skipped {result_path('damaged')}" in files["leaderboard.html"].decode()
    assert len([p for p in files if p.startswith(RESULTS_DIR)]) == 4


def test_push_never_writes_into_a_damaged_file_of_its_own_id(hub) -> None:
    """A row whose submission id is a damaged file's name is not written over it (nor is the damaged file)."""
    repo = _hub_with_damage(hub, b"{")
    mine = row("org/mine-3b", 0.5, submission_id="damaged")
    result = push_rows([mine, row("org/other-3b", 0.6, submission_id="other")], repo, token=TOKEN,
                       endpoint=hub.url)
    assert result.added == ["other"] and "damaged" not in result.added
    assert hub.files(repo)[result_path("damaged")] == b"{"


@pytest.mark.parametrize("kind", ["truncated", "binary", "other-object"])
def test_the_space_shows_the_other_rows_and_names_the_damaged_file(kind: str, tmp_path: Path, hub,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from tombench.leaderboard import space as space_module

    board = _folder(tmp_path, DAMAGE[kind][0], ODD_NAME)
    monkeypatch.setenv(space_module.LOCAL_DIR_ENV, str(board))
    live = space_module.LiveBoard("org/results")
    assert [len(t.rows) for t in live.tables.values()] == [2, 2]
    status = live.status().splitlines()
    assert len(status) == 2 and status[1].startswith("- skipped data/results/\\[bold\\]x\\<img src=y\\>.json")

    monkeypatch.delenv(space_module.LOCAL_DIR_ENV)
    repo = _hub_with_damage(hub, DAMAGE[kind][0])
    _point_at(hub, monkeypatch)
    live = space_module.LiveBoard(repo, facts=lambda models: {})
    assert [len(t.rows) for t in live.tables.values()] == [2, 2]
    assert f"skipped {result_path('damaged')}".replace("_", "\\_") in live.status()

