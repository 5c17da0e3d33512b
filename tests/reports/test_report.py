"""tombench report on real Inspect logs made by tiny inline tasks with the ExploreToM metadata keys."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import match
from inspect_ai.solver import generate

from tombench.cli import main
from tombench.kit.intervals import wilson_interval
from tombench.reports import by_people_and_moves, interesting_table, load_records, per_action_set_table, transfer_matrix

# (target, action_set, asymmetric, interesting, order, people, moves, search method, model answer)
ROWS = [
    ("box", "tomi", False, True, 1, 2, 2, "astar-improved", "box"),
    ("box", "tomi", True, True, 1, 2, 3, "astar-improved", "basket"),
    ("kitchen", "tomi+room-changes", False, False, 1, 3, 2, "over-generate", "kitchen"),
    ("yes", "fantom-private", False, True, 1, 3, 3, "over-generate", "no"),
    ("basket", "tomi", False, True, 2, 2, 2, "astar-improved", "box"),  # second order: not in Table 1
    ("box", "tomi", False, None, 0, 2, 2, "astar-improved", "box"),  # state tracking: in no table
]
# a ToMi item: an order but no action set; it must never land in an ExploreToM row
TOMI = [("basket", None, None, None, 1, None, None, None, "basket")]


def _log(tmp_path, rows=ROWS, generator=None, name="exploretom_adversarial"):
    samples = [
        Sample(input=f"q{i}", target=t, metadata={"action_set": a, "asymmetric": asym, "interesting": it, "order": o,
                                                  "people": p, "moves": m, "generator_model": generator,
                                                  "search_method": sm})
        for i, (t, a, asym, it, o, p, m, sm, _) in enumerate(rows)
    ]
    outputs = []
    for r in rows:  # explicit usage: mockllm's default output needs a network
        out = ModelOutput.from_content("mockllm/model", r[-1])
        out.usage = ModelUsage(input_tokens=10, output_tokens=1, total_tokens=11)
        outputs.append(out)
    model = get_model("mockllm/model", custom_outputs=outputs, memoize=False)
    task = Task(dataset=samples, solver=generate(), scorer=match(), name=name)
    (log,) = eval(task, model=model, log_dir=str(tmp_path), display="none", max_samples=1)
    assert log.status == "success"
    return tmp_path


def test_table_1_counts_first_order_exploretom_questions_only(tmp_path):
    recs = load_records([_log(tmp_path / "a", generator="tombench/recency"), _log(tmp_path / "b", TOMI, name="tomi")])
    assert len(recs) == 7  # 6 ExploreToM questions with an order (0, 1 or 2) and the ToMi item
    t1 = per_action_set_table(recs)
    assert t1.columns == ["action set", "A plain", "A asym."]
    assert t1.legend == ["A = mockllm/model on exploretom_adversarial"]
    rows = {r[0]: r[1:] for r in t1.rows}
    assert rows["tomi"][0].startswith("1.00 [0.21, 1.00] n=1") and rows["tomi"][1].startswith("0.00 [0.00, 0.79]")
    # overall plain: the 3 first-order plain questions (2 right); the ToMi item and the order-2 question stay out
    assert rows["overall"][0].startswith("0.67") and rows["overall"][0].endswith("n=3")


def test_tasks_of_one_model_are_never_pooled(tmp_path):
    recs = load_records([_log(tmp_path / "a"), _log(tmp_path / "b", name="exploretom_random")])
    t1 = per_action_set_table(recs)
    assert len(t1.columns) == 1 + 2 * 2
    assert t1.legend == ["A = mockllm/model on exploretom_adversarial", "B = mockllm/model on exploretom_random"]
    (fig_a, fig_b) = by_people_and_moves(recs)
    assert fig_a.title.endswith(": A") and fig_b.title.endswith(": B")
    assert fig_a.legend == t1.legend[:1] and fig_b.legend == t1.legend[1:]
    assert fig_a.columns == ["people \\ moves", "2", "3"]


def test_table_6_is_per_action_set_and_asymmetry(tmp_path):
    recs = load_records([_log(tmp_path)])
    t6 = interesting_table(recs)
    assert [r[:2] for r in t6.rows] == [["tomi", "✗"], ["tomi", "✓"], ["tomi+room-changes", "✗"],
                                         ["fantom-private", "✗"], ["total", "—"]]
    tomi_plain = t6.rows[0][2:]
    assert tomi_plain[0].startswith("1.00") and tomi_plain[1] == "–" and tomi_plain[2] == "100%"
    total = t6.rows[-1][2:]
    assert total[0].endswith("n=3") and total[1].endswith("n=1") and total[2] == "75%"


def test_transfer_separates_search_methods_and_counts_belief_questions(tmp_path):
    recs = load_records([_log(tmp_path, generator="tombench/primacy")])
    tr = transfer_matrix(recs)
    assert [r[0] for r in tr.rows] == ["tombench/primacy / astar-improved", "tombench/primacy / over-generate"]
    improved, overgen = (r[1] for r in tr.rows)
    assert improved.startswith("0.33") and improved.endswith("n=3")  # orders 1 and 2, not the order-0 question
    assert overgen.startswith("0.50") and overgen.endswith("n=2")


def test_wilson_interval_is_honest_at_the_edges():
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and 0.25 < hi < 0.35
    lo, hi = wilson_interval(10, 10)
    assert 0.65 < lo < 0.75 and hi == 1.0


def test_cli(tmp_path):
    logs = _log(tmp_path / "logs", generator="tombench/primacy")
    r = CliRunner().invoke(main, ["report", str(logs), "--md"])
    assert r.exit_code == 0, r.output
    assert "**Table 1: first-order accuracy per action set" in r.output and "| tomi |" in r.output
    assert "**Table 6:" in r.output
    r = CliRunner().invoke(main, ["report", "transfer", str(logs)])
    assert r.exit_code == 0 and "tombench/primacy / over-generate" in r.output
    r = CliRunner().invoke(main, ["report", str(tmp_path / "nope")])
    assert r.exit_code == 2 and "no such log file or folder" in r.output


def test_a_tomi_only_log_prints_no_empty_exploretom_tables(tmp_path):
    logs = _log(tmp_path / "tomi", TOMI, name="tomi")
    r = CliRunner().invoke(main, ["report", str(logs)])
    assert r.exit_code == 2 and "Table" not in r.output and "Traceback" not in r.output
    assert "no scored ExploreToM questions" in r.output and "only tomi" in r.output


def test_plot_png(tmp_path):
    pytest.importorskip("matplotlib", reason="the plot needs the 'plot' extra (matplotlib)")
    logs = _log(tmp_path / "logs")
    png = tmp_path / "fig3.png"
    r = CliRunner().invoke(main, ["report", str(logs), "--plot", str(png)])
    assert r.exit_code == 0, r.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
