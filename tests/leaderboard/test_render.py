"""The one renderer: ranking with shared ranks, dedup, and the three formats (escaping included)."""

from __future__ import annotations

import html.parser
import json
import re
import shutil
import subprocess
from dataclasses import replace

import pytest
from rich.console import Console

from tombench.kit.intervals import wilson_interval
from tombench.leaderboard import build_view, compare, latest_rows, render, shared_ranks
from tombench.leaderboard._cells import differing_settings
from tombench.leaderboard._html import static_text
from tombench.leaderboard._ranking import pair_tests, same_items
from tombench.leaderboard.charts import plotly_js

from .rows_factory import clustered, config, items, row


def test_ranks_are_shared_where_intervals_overlap():
    rows = [row("a", 0.90, 0.03), row("b", 0.86, 0.03), row("c", 0.70, 0.03), row("d", 0.50, 0.03)]
    assert shared_ranks(rows) == [1, 1, 3, 4]
    wide = [row("a", 0.9, 0.45), row("b", 0.5, 0.04), row("c", 0.35, 0.04)]
    assert shared_ranks(wide) == [1, 1, 3]  # a's wide interval overlaps b's: not separable; both beat c


def test_view_orders_by_accuracy_and_marks_shared_ranks():
    board = build_view([row("b", 0.86, 0.03), row("c", 0.70, 0.03), row("a", 0.90, 0.03)]).boards[0]
    assert [e.row.model for e in board.entries] == ["a", "b", "c"]
    assert [e.cells["rank"].text for e in board.entries] == ["=1", "=1", "3"]
    assert [c.key for c in board.columns if c.breakdown] == ["action_set=tomi", "order=1"]


def test_ranks_come_from_honest_intervals():
    """Issue #18.1: an oracle at 40/40 (logged stderr 0) was ranked strictly above recency at 97.7% on 43 items."""
    oracle = row("tombench/oracle", 1.0, ci_low=wilson_interval(1.0 * 40, 40)[0], ci_high=1.0)
    recency = row("tombench/recency", 42 / 43, ci_low=wilson_interval((42 / 43) * 43, 43)[0], ci_high=wilson_interval((42 / 43) * 43, 43)[1])
    weak = row("tombench/random", 0.3, ci_low=wilson_interval(0.3 * 40, 40)[0], ci_high=wilson_interval(0.3 * 40, 40)[1])
    board = build_view([weak, recency, oracle]).boards[0]
    assert [(e.row.model, e.cells["rank"].text) for e in board.entries] == [
        ("tombench/oracle", "=1"), ("tombench/recency", "=1"), ("tombench/random", "3")]
    assert board.entries[0].cells["ci"].text == "91.2–100.0"
    # a row without an interval can be placed by no test: it is not ranked, and ranks nothing else
    unknown = row("x", 0.1, ci_low=None, ci_high=None, ci_method=None)
    assert shared_ranks([oracle, unknown]) == [1, None]
    entry = build_view([oracle, unknown]).boards[0].entries[1]
    assert entry.cells["ci"].text == "no CI" and entry.cells["rank"].text == "–"


def test_rows_of_schema_one_are_shown_with_a_wilson_interval():
    old = row("old", 1.0, ci_low=1.0, ci_high=1.0, schema_version=1, samples_completed=40)  # logged stderr 0
    cell = build_view([old]).boards[0].entries[0].cells["ci"]
    assert cell.text == "91.2–100.0" and "schema 1" in cell.title


def test_paired_test_against_the_next_row():
    """Issue #18.2: rows that answered the same items get a paired test in every view."""
    a = row("a", 0.60, items=items([1.0] * 60 + [0.0] * 40))
    b = row("b", 0.53, items=items([0.0] * 9 + [1.0] * 53 + [0.0] * 38))  # A alone right on 9, B alone on 2
    other = items([1.0] * 40 + [0.0] * 60)
    c = row("c", 0.40, items=replace(other, key=[f"r{i}" for i in range(100)]))  # other items: no pairing
    board = build_view([a, b, c]).boards[0]
    first, second, last = board.entries
    assert first.vs_next.method == "mcnemar-exact" and (first.vs_next.a_only, first.vs_next.b_only) == (9, 2)
    # each pair's own p: the other pairs of the board do not change it
    cell = first.cells["vs_next"]
    assert cell.text == "+7.0 p=0.065" and "p=0.0654" in cell.title
    assert second.vs_next is None and second.cells["vs_next"].text.endswith(" (u)")  # different items: unpaired
    assert "not paired, the rows answered different items" in second.cells["vs_next"].title
    assert last.cells["vs_next"].text == ""
    strong = row("a", 0.61, items=items([1.0] * 61 + [0.0] * 39), submission_id="strong")
    assert build_view([strong, b]).boards[0].entries[0].cells["vs_next"].text == "+8.0 p=0.021 *"  # 9 vs 1
    two = [a, b]
    assert build_view(two).boards[0].entries[0].cells["vs_next"].text == "+7.0 p=0.065"  # one pair: no adjustment
    md = render(two, "markdown")
    assert "vs next" in md and "+7.0 p=0.065" in md
    page = render(two, "html")
    assert "+7.0 p=0.065" in page and "against b (mcnemar-exact): the same 100 items" in page
    console = Console(record=True, width=120)
    console.print(render(two, "terminal"))
    assert "+7.0 p=0.065" in console.export_text()


def test_config_column_shows_what_differs():
    """Issue #18.8: rows of one model with different seeds, limits or task arguments must not look identical."""
    base = dict(model="hf/org/m-7b", accuracy=0.5)
    rows = [row(**base, submission_id="a", config_hash="a", task_args='{"seed": 0}',
                run_config=config(task_args={"seed": 0}, limit=None)),
            row(**base, submission_id="b", config_hash="b", task_args='{"seed": 0}',
                run_config=config(task_args={"seed": 0}, limit=50)),
            row(**base, submission_id="c", config_hash="c", task_args='{"seed": 1}',
                run_config=config(task_args={"seed": 1}, limit=None, generate_config={"seed": 3}))]
    assert differing_settings(rows) == ["T.seed", "limit", "seed"]
    view = build_view(rows)
    texts = sorted(e.cells["config"].text for b in view.boards for e in b.entries)
    assert texts == ["T.seed=0 limit=50 seed=–", "T.seed=0 limit=null seed=–", "T.seed=1 limit=null seed=3"]
    md = render(rows, "markdown")
    assert "T.seed=0 limit=50" in md and "T.seed=1 limit=null seed=3" in md
    console = Console(record=True, width=300)
    console.print(render(rows, "terminal"))
    assert "T.seed=1 limit=null seed=3" in console.export_text()
    # nothing differs: the column says the decoding and epochs
    assert build_view([rows[0]]).boards[0].entries[0].cells["config"].text == "T=0.0 ep=1"


def test_newest_submission_per_configuration_is_shown_older_kept():
    old = row("a", 0.5, submission_id="old", created_at="2026-01-01T00:00:00+00:00")
    new = row("a", 0.6, submission_id="new", created_at="2026-02-01T00:00:00+00:00")
    other_config = row("a", 0.7, submission_id="hot", config_hash="other")
    shown, older = latest_rows([old, new, other_config, new])  # `new` twice: identical submissions count once
    assert {r.submission_id for r in shown} == {"new", "hot"} and [r.submission_id for r in older] == ["old"]
    board = build_view([old, new, other_config]).boards[0]
    assert board.hidden == 1 and len(board.entries) == 2
    assert len(build_view([old, new, other_config], history=True).boards[0].entries) == 3


def test_one_board_per_task_version():
    view = build_view([row("a", 0.5), row("a", 0.6, task_version="2"), row("a", 0.4, task="tombench/tomsynth")])
    assert [(b.task, b.task_version) for b in view.boards] == [
        ("tombench/exploretom_random", "1"), ("tombench/exploretom_random", "2"), ("tombench/tomsynth", "1")]


def test_terminal_table_shows_ranks_ci_and_breakdowns():
    console = Console(record=True, width=250)
    console.print(render([row("org/model-a", 0.9), row("org/model-b", 0.6, settings_filled=0.25, model_calls=40)],
                         "terminal"))
    text = console.export_text()
    assert "org/model-a" in text and "90.0" in text and "85.0–95.0" in text
    assert "action_set" in text and "tomi: 50.0 [37.0–63.0] n=50" in text and "Filled %" in text
    assert "1: 40.0 n=30" in text  # a group logged without an interval says so by having none


def test_settings_filled_carries_a_wilson_interval_over_the_settings():
    """A share of 8 settings is shown with its interval, honest at 0% and 100%; an older row without the count says
    it has none."""
    console = Console(record=True, width=300)
    console.print(render([row("org/all", 0.9, settings_filled=1.0, settings_total=8, model_calls=40),
                          row("org/none", 0.6, settings_filled=0.0, settings_total=8, model_calls=40),
                          row("org/old", 0.5, settings_filled=0.5, model_calls=40)], "terminal"))
    text = console.export_text()
    assert "100.0 [67.6–100.0] of 8" in text and "0.0 [0.0–32.4] of 8" in text
    md = render([row("org/old", 0.5, settings_filled=0.5, model_calls=40)], "markdown")
    assert "| 50.0 |" in md


def test_markdown_escapes_table_syntax():
    md = render([row("evil|model", 0.5, notes="x")], "markdown")
    assert "evil\\|model" in md and "| 1 |" in md.replace("| =1 |", "| 1 |")
    lines = [ln for ln in md.splitlines() if ln.startswith("|")]
    assert len({ln.count(" | ") for ln in lines[2:]}) == 1  # every data row has the same number of cells


class _Parser(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[str] = []
        self._in_script = False
        self.cells: list[str] = []

    def handle_starttag(self, tag, attrs):
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        (self.scripts if self._in_script else self.cells).append(data)


def test_html_is_self_contained_and_escaped():
    evil = '<script>alert("x")</script>'
    page = render([row(evil, 0.5, submitter='"><img src=x onerror=alert(1)>'), row('"><img src=y>', 0.4)], "html")
    assert 'data-pairs="{' in page  # every pair's cell, model names included, escaped inside the attribute
    assert evil not in page and "<img" not in page
    assert page.count(plotly_js()) == 1  # the charts' library, inline (its own source names URLs it never fetches)
    rest = page.replace(plotly_js(), "")
    assert "http://" not in rest and "https://" not in rest and "<link" not in page and "<script src" not in page
    parser = _Parser()
    parser.feed(rest)
    chart, table = parser.scripts
    assert "alert" not in table
    # in the chart's data the name is a JSON string, escaped for Plotly's labels: no "<" can end the script
    data = rest.split("Plotly.newPlot(", 1)[1].split("</script>", 1)[0]
    assert "<" not in data and "&lt;script&gt;alert" in data
    assert evil in parser.cells  # shown as text


def test_empty_leaderboard_renders():
    assert "No results yet" in render([], "markdown") and "No results yet" in render([], "html")


_NODE_TEST = """
%s
var cases = [['', '', true, true], [undefined, '', true, false], ['', '0.5', true, true], ['0.5', '', true, false],
             ['0.2', '0.5', true, true], ['0.2', '0.5', true, false], ['b', 'a', false, true]];
console.log(JSON.stringify(cases.map(function(c){ return compareCells(c[0], c[1], c[2], c[3]); })));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node to run the page's comparator")
def test_html_sort_comparator_keeps_missing_values_in_place():
    """Issue #18.9: the comparator returned 1 when both values were missing, reshuffling rows."""
    comparator = static_text("board.js").split("document.querySelectorAll", 1)[0]
    out = subprocess.run(["node", "-e", _NODE_TEST % comparator], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    both_missing, missing_first_desc, missing_x, missing_y, asc, desc, text = json.loads(out.stdout)
    assert both_missing == 0 and missing_first_desc == 0  # equal: a stable sort keeps their order
    assert missing_x > 0 and missing_y < 0  # missing values last, in both directions
    assert asc < 0 and desc > 0 and text > 0


def test_different_ranks_are_always_backed_by_the_printed_tests():
    """Issue #30.1: two rows at p=0.62 were ranked =2 and 4, two at p=0.0004 shared =2. Now a row's rank is 1 + the
    rows above it in the "significantly better" order (directly or through a chain): a row that beats another is
    always ranked above it, and every rank below 1 is backed by a printed test against a row above."""
    import random

    rng = random.Random(3)
    for _ in range(12):
        rows = [clustered(f"m{i}", {s: rng.choice([0, 0, 0, 2, 5, 11, 22]) for s in range(18)})
                for i in range(5)]
        board = build_view(rows).boards[0]
        tests = pair_tests([e.row for e in board.entries])
        ranks = [e.rank for e in board.entries]
        assert ranks == sorted(ranks)  # listed by rank
        for i, a in enumerate(board.entries):
            beaten_by = [j for j in range(len(ranks)) if j != i and tests[(j, i)].better]
            assert (a.rank == 1) == (not beaten_by)
            for j in beaten_by:
                assert ranks[j] < a.rank and tests[(j, i)].p_value < 0.05


def test_the_issue_board_primacy_and_random_share_a_rank():
    oracle = clustered("tombench/oracle", {})
    recency = clustered("tombench/recency", dict.fromkeys(range(9), 4) | {9: 4})  # 40 misses in ten stories
    primacy = clustered("tombench/primacy", {s: 5 for s in range(17)})  # 85 misses spread over 17 stories
    random_ = clustered("tombench/random", {s: 5 for s in range(18)})  # 90 misses over all 18
    board = build_view([random_, primacy, recency, oracle]).boards[0]
    assert [e.row.model for e in board.entries] == ["tombench/oracle", "tombench/recency", "tombench/primacy",
                                                     "tombench/random"]
    texts = [e.cells["rank"].text for e in board.entries]
    assert texts[2] == texts[3]  # primacy vs random: one story apart, no test separates them
    assert not board.entries[2].cells["vs_next"].text.endswith("*")
    caption = render([random_, primacy, recency, oracle], "markdown")
    assert "Rank: 1 + the number of rows significantly better than this one" in caption
    assert "Holm" not in caption


def test_rows_on_different_item_sets_are_never_paired_on_their_overlap():
    """Issue #30.2: recency on 162 items against primacy on 400 was paired on the 18 items they shared
    (+44.4 p=0.039 *). Pairs need the same item set; other rows get the unpaired test of their intervals."""
    primacy = row("primacy", 0.5, items=items([1.0] * 200 + [0.0] * 200))
    recency = row("recency", 0.9, items=items([1.0] * 146 + [0.0] * 16))
    recency = replace(recency, items=replace(recency.items, key=[f"q{i}" for i in range(382, 544)]))  # 18 shared
    assert compare(recency, primacy) is None and not same_items(recency, primacy)
    entry = build_view([primacy, recency]).boards[0].entries[0]
    assert entry.vs_next is None and entry.cells["vs_next"].text.endswith("(u)")
    assert "162 vs 400" in entry.cells["vs_next"].title
    # the same items in another order, or another subset of the same size: paired only when the set is equal
    shuffled = replace(primacy, model="other", items=replace(primacy.items, key=list(reversed(primacy.items.key))))
    assert same_items(primacy, shuffled) and compare(primacy, shuffled) is not None
    # the item digests alone decide: a setting that changed no question does not stop the pairing
    assert same_items(primacy, replace(shuffled, task_args='{"seed": 2, "cache": true}'))


def test_open_and_size_come_from_model_metadata_or_stay_blank():
    """Issue #30.6: "Open" and "Size" showed "?" on every row; a baseline (no weights) showed "yes" and "0"."""
    rows = [row("tombench/recency", 0.9, provider="tombench", open_weights=None, model_size_b=None),
            row("vllm/Qwen/Qwen2.5-7B-Instruct", 0.8, provider="vllm", open_weights=None, model_size_b=None),
            row("openai/gpt-4o", 0.7, provider="openai", open_weights=None, model_size_b=None),
            row("mystery/model", 0.6, provider="mystery", open_weights=None, model_size_b=None)]
    cells = {e.row.model: (e.cells["open_weights"].text, e.cells["size"].text) for e in build_view(rows).boards[0].entries}
    assert cells == {"tombench/recency": ("", ""), "vllm/Qwen/Qwen2.5-7B-Instruct": ("yes", "7B"),
                     "openai/gpt-4o": ("no", ""), "mystery/model": ("", "")}
    assert "?" not in render(rows, "markdown").split("## ", 1)[1].split("\n\n", 2)[2]
    assert "blank: not known" in render(rows, "markdown")


def test_terminal_board_fits_120_columns_one_line_a_row():
    """Issue #32.6: `leaderboard show` was 240 columns wide with rows 20 lines tall."""
    rows = [clustered("vllm/Qwen/Qwen2.5-72B-Instruct-AWQ-with-a-long-name", {0: 3}),
            clustered("openai/gpt-4o-mini-2024-07-18", {0: 5, 1: 4}, provider="openai"),
            clustered("tombench/recency", {s: 3 for s in range(10)}, provider="tombench",
                       run_config=config(limit=400, task_args={"seed": 0})),
            clustered("tombench/primacy", {s: 6 for s in range(12)}, provider="tombench", settings_filled=0.5,
                       settings_total=8)]
    console = Console(record=True, width=120)
    console.print(render(rows, "terminal", breakdowns=False))
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 120
    lines = text.splitlines()
    for model in ("openai/gpt-4o-mini-2024-07-18", "tombench/recency", "tombench/primacy"):
        (line,) = [ln for ln in lines if model in ln]  # exactly one line per row, its rank, CI and test whole
        assert re.search(r"\d+\.\d–\d+\.\d", line)
    assert "vllm/Qwen/Qwen2.5-72B-Instruct" in text and "action_set" not in text and "Rank:" in text
    wide = Console(record=True, width=120)
    wide.print(render(rows, "terminal", breakdowns=True))
    wide_text = wide.export_text()
    assert "action_set" in wide_text and max(len(ln) for ln in wide_text.splitlines()) <= 120
