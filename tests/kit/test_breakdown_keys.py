"""`parse_breakdown` reads back what `breakdown` writes, also for groups whose names hold a colon."""

from __future__ import annotations

from tombench.kit.metrics import BreakdownEntry, parse_breakdown


def test_groups_with_a_colon_and_metric_groupings() -> None:
    metrics = {
        "ability=Belief: Second-order beliefs": 0.5, "ability=Belief: Second-order beliefs:n": 4.0,
        "ability=Belief: Second-order beliefs:stderr": 0.25,
        "breakdown_task=False Belief Task": 1.0, "breakdown_task=False Belief Task:n": 3.0,
        "macro_f1:genre=attitude": 0.3, "macro_f1:genre=attitude:n": 5.0,  # OpenToM's F1 cells: not accuracy
        "accuracy": 0.7,
    }
    assert parse_breakdown(metrics) == [
        BreakdownEntry("ability", "Belief: Second-order beliefs", 0.5, 0.25, 4),
        BreakdownEntry("task", "False Belief Task", 1.0, None, 3),
    ]
