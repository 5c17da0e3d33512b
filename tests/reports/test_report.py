"""tombench report on real Inspect logs made by a tiny inline task with the ExploreToM metadata keys."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import match
from inspect_ai.solver import generate

from tombench.cli import main
from tombench.reports import by_people_and_moves, interesting_table, load_records, per_action_set_table, transfer_matrix

ROWS = [  # (target, action_set, asymmetric, interesting, people, moves, model answer)
    ("box", "tomi", False, True, 2, 2, "box"),
    ("box", "tomi", True, True, 2, 3, "basket"),
    ("kitchen", "tomi+room-changes", False, False, 3, 2, "kitchen"),
    ("yes", "fantom-private", False, True, 3, 3, "no"),
]


def _log(tmp_path, generator=None):
    samples = [
        Sample(input=f"q{i}", target=t, metadata={"action_set": a, "asymmetric": asym, "interesting": it, "order": 1,
                                                  "people": p, "moves": m, "generator_model": generator})
        for i, (t, a, asym, it, p, m, _) in enumerate(ROWS)
    ]
    outputs = []
    for r in ROWS:  # explicit usage: mockllm's default output needs a network
        out = ModelOutput.from_content("mockllm/model", r[-1])
        out.usage = ModelUsage(input_tokens=10, output_tokens=1, total_tokens=11)
        outputs.append(out)
    model = get_model("mockllm/model", custom_outputs=outputs, memoize=False)
    task = Task(dataset=samples, solver=generate(), scorer=match())
    (log,) = eval(task, model=model, log_dir=str(tmp_path), display="none", max_samples=1)
    assert log.status == "success"
    return tmp_path


def test_tables_from_logs(tmp_path):
    recs = load_records([_log(tmp_path, generator="tombench/recency")])
    assert len(recs) == 4 and sum(r.correct for r in recs) == 2
    t1 = per_action_set_table(recs)
    tomi = next(r for r in t1.rows if r[0] == "tomi")
    assert tomi[1:] == ["1.00 (n=1)", "0.00 (n=1)"]
    t6 = interesting_table(recs)
    assert t6.rows == [["mockllm/model", "0.33 (n=3)", "1.00 (n=1)", "75%"]]
    (fig3,) = by_people_and_moves(recs)
    assert fig3.columns == ["people \\ moves", "2", "3"]
    tr = transfer_matrix(recs)
    assert tr.rows == [["tombench/recency", "0.50 (n=4)"]]


def test_cli(tmp_path):
    logs = _log(tmp_path / "logs", generator="tombench/primacy")
    r = CliRunner().invoke(main, ["report", str(logs), "--md"])
    assert r.exit_code == 0, r.output
    assert "**Table 1: accuracy per action set**" in r.output and "| tomi |" in r.output
    r = CliRunner().invoke(main, ["report", "transfer", str(logs)])
    assert r.exit_code == 0 and "tombench/primacy" in r.output
    r = CliRunner().invoke(main, ["report", str(tmp_path / "nope")])
    assert r.exit_code == 2 and "no such log file or folder" in r.output


def test_plot_png(tmp_path):
    pytest.importorskip("matplotlib", reason="the plot needs the 'plot' extra (matplotlib)")
    logs = _log(tmp_path / "logs")
    png = tmp_path / "fig3.png"
    r = CliRunner().invoke(main, ["report", str(logs), "--plot", str(png)])
    assert r.exit_code == 0, r.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
