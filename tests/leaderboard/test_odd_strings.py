"""Any string a log can carry (model name, task argument, submitter, notes) is kept verbatim and shown inert in
every format: the local copy, the terminal, Markdown, HTML, the Eval Results files and the Space's cells."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tombench.cli import main
from tombench.leaderboard import LocalStore, render, write_eval_results
from tombench.leaderboard._text import clip, inert, safe_name
from tombench.leaderboard.space import MODEL_CHARS, model_link, space_tables

from .rows_factory import config, row
from .tiny_task import make_log

ODD = ["org/[/]bad[bold]x", "[pwn]", "vllm/org/<svg onload=alert(1)>", "hf/https://evil.example/x", "hf/" + "A" * 3000,
       "a\x1b[31mred\nline\u202eevil", "模型/名前-ÄÖ", "../../etc/passwd", "x|y*z_`#&@~!"]
#: What the page's own markup uses; a name must never add another element.
_PAGE_TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "small", "div", "label", "input", "section",
              "table", "thead", "tbody", "tr", "th", "td", "ul", "li", "script", "p"}


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.data: list[str] = []

    def handle_starttag(self, tag, attrs):  # noqa: ANN001, ANN201
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):  # noqa: ANN001, ANN201
        self.data.append(data)


def _parse(text: str) -> _Tags:
    p = _Tags()
    p.feed(text)
    p.close()
    return p


def _odd_rows(s: str) -> list:
    """Two rows on one board: a plain one, and one with `s` in every free-text field."""
    plain = row("hf/org/plain-7b", 0.6, submission_id="plain", run_config=config(), items_digest="abc")
    odd = row(s, 0.4, submission_id="odd", task_args=json.dumps({"x": s}), submitter=s, notes=s,
              run_config=config(task_args={"x": s}), dataset_id=s, provider=s.split("/")[0], items_digest="abc")
    return [plain, odd]


def _check_everywhere(s: str, root: Path) -> None:
    rows = _odd_rows(s)
    store = LocalStore(root)
    for r in rows:
        store.add(r)
    items = root / "data" / "items" / "exploretom_random" / "abc.jsonl"
    items.parent.mkdir(parents=True, exist_ok=True)
    items.touch()
    store.write_site("org/board")
    store.write_site("org/board")  # a second write over the first: the local copy is never poisoned
    assert {r.model for r in store.rows()} == {r.model for r in rows}  # kept verbatim
    # every file the site wrote has a short, portable path; the model's files name it exactly inside
    for path in root.rglob("*"):
        assert all(len(part) <= 120 for part in path.relative_to(root).parts)
    (odd_file,) = (root / "eval_results" / safe_name(s)).glob("*.yaml")
    assert odd_file.read_text(encoding="utf-8").splitlines()[0] == f"# model: {json.dumps(s)}"
    assert write_eval_results(rows, "org/board", root / "er", files=["data/items/exploretom_random/abc.jsonl"])

    from rich.cells import cell_len
    from rich.console import Console

    out = io.StringIO()
    Console(file=out, width=120, color_system=None).print(render(rows, "terminal", breakdowns=True))
    printed = out.getvalue()
    assert "\x1b" not in printed and all(c == "\n" or c >= " " for c in printed)
    # the width a terminal gives it, in cells: a combining mark takes none (len() would count it)
    assert all(cell_len(line) <= 120 for line in printed.splitlines())

    md = render(rows, "markdown")
    header = next(line for line in md.splitlines() if line.startswith("| Rank"))
    for line in md.splitlines():
        if line.startswith("| "):  # every table line keeps its columns: nothing in a cell is read as a `|`
            assert line.replace("\\|", "").count("|") == header.count("|")

    page = _parse(render(rows, "html"))
    assert {t for t, _ in page.tags} <= _PAGE_TAGS
    models = [a["title"] for t, a in page.tags if t == "td" and "model" in a.get("class", "").split()]
    assert models[1].startswith(inert(s))  # the whole name in the tooltip

    cell = _parse(model_link(rows[1]))
    (tag, attrs), = cell.tags
    assert tag in ("a", "span") and attrs["title"] == inert(s) and "".join(cell.data) == clip(inert(s), MODEL_CHARS)
    tables = space_tables(store.rows())
    assert len(tables) == 2


def test_odd_strings_are_kept_and_shown_inert(tmp_path):
    for i, s in enumerate(ODD):
        _check_everywhere(s, tmp_path / str(i))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(min_size=1, max_size=400))
def test_any_string_is_kept_and_shown_inert(tmp_path_factory, s):
    _check_everywhere(s, tmp_path_factory.mktemp("odd"))


def test_markup_in_a_model_name_is_printed_as_typed(tmp_path):
    """A real log whose model name is rich markup: `push` says "added" with the name as typed, `show` prints it.
    (Inspect's own display cannot run such a model, so the name is written into a finished log.)"""
    from inspect_ai.log import read_eval_log, write_eval_log

    log = read_eval_log(str(make_log(tmp_path / "logs", (0, 1), "mockllm/plain")))
    log.eval.model = "mockllm/org/[/]bad[bold]x[pwn]"
    write_eval_log(log, str(tmp_path / "odd.eval"))
    log = tmp_path / "odd.eval"
    board = tmp_path / "board"
    pushed = CliRunner().invoke(main, ["leaderboard", "push", str(log), "--local-dir", str(board)])
    assert pushed.exit_code == 0, pushed.output
    assert "mockllm/org/[/]bad[bold]x[pwn]" in pushed.output
    shown = CliRunner().invoke(main, ["leaderboard", "show", str(board)])
    assert shown.exit_code == 0, shown.output
    assert "org/[/]bad[bold]x[pwn]" in shown.output


def test_a_row_from_a_repo_never_names_a_path_outside_the_local_copy(tmp_path):
    bad = row("m", 0.5, submission_id="../../escaped", run_config=config())
    sneaky = row("m", 0.5, submission_id="ok", log_file="../../../etc/passwd", run_config=config())
    store = LocalStore(tmp_path / "board")
    assert not store.add(bad) and not store.add(sneaky)
    assert not (tmp_path / "escaped.json").exists() and store.rows() == []


def test_odd_strings_survive_a_push_to_the_hub_and_back():
    from tombench.leaderboard import fetch_rows, push_rows

    from .hub_server import HubTestServer

    rows = [r for i, s in enumerate(ODD) for r in _odd_rows(s)[1:2]]
    rows = [replace(r, submission_id=f"odd-{i}") for i, r in enumerate(rows)]
    with HubTestServer() as hub:
        result = push_rows(rows, "tester/odd-board", token="hf_test_token", endpoint=hub.url)
        assert len(result.added) == len(rows)
        back = {r.submission_id: r for r in fetch_rows("tester/odd-board", token="hf_test_token", endpoint=hub.url)}
        files = hub.files("tester/odd-board")
    assert {r.submission_id: r.model for r in rows} == {k: r.model for k, r in back.items()}
    assert all(len(part) <= 120 for path in files for part in path.split("/"))
