"""`parse_breakdown` reads back what `breakdown` writes, also for groups whose names hold a colon; `group_metrics`
logs one mean and one count per group (a stderr only where the scores are not 0/1) and the parser recomputes the
rest (issue #32 point 6)."""

from __future__ import annotations

import math

import pytest

from tombench.kit.metrics import BreakdownEntry, binary_stderr, group_metrics, parse_breakdown


def test_groups_with_a_colon_and_metric_groupings() -> None:
    metrics = {
        "ability=Belief: Second-order beliefs": 0.5, "ability=Belief: Second-order beliefs:n": 4.0,
        "ability=Belief: Second-order beliefs:stderr": 0.25,
        "breakdown_task=False Belief Task": 1.0, "breakdown_task=False Belief Task:n": 3.0,
        "breakdown_task=Hinting Task Test": 0.4, "breakdown_task=Hinting Task Test:n": 3.0,  # 1.2 right: not 0/1
        "macro_f1:genre=attitude": 0.3, "macro_f1:genre=attitude:n": 5.0,  # OpenToM's F1 cells: not accuracy
        "accuracy": 0.7,
    }
    assert parse_breakdown(metrics) == [
        BreakdownEntry("ability", "Belief: Second-order beliefs", 0.5, 0.25, 4),
        BreakdownEntry("task", "False Belief Task", 1.0, 0.0, 3),  # all right: stderr 0, recomputed
        BreakdownEntry("task", "Hinting Task Test", 0.4, None, 3),  # cannot be 0/1 scores: unknown
    ]


def test_group_metrics_means_first_then_counts_and_only_informative_stderrs() -> None:
    keys = group_metrics({
        "order": {"0": [1.0, 0.0, 0.0], "1": [1.0]},
        "domain": {"Health": [0.25, 0.75], "Career": [0.3]},  # a mean score (ROUGE-L, ratings): stderr logged
    })
    assert list(keys) == ["order=0", "order=1", "domain=Health", "domain=Career", "order=0:n", "order=1:n",
                          "domain=Health:n", "domain=Career:n", "domain=Health:stderr"]  # one score: stderr 0
    assert keys["order=0:n"] == 3 and keys["domain=Health:stderr"] == pytest.approx(0.25)
    read = {(e.dimension, e.group): e.stderr for e in parse_breakdown(keys)}
    assert read == pytest.approx({("order", "0"): math.sqrt(1 / 3 * 2 / 3 / 2), ("order", "1"): 0.0,
                                  ("domain", "Health"): 0.25, ("domain", "Career"): 0.0})


@pytest.mark.parametrize("scores", [[1.0, 0.0, 0.0], [1.0, 1.0, 0.0, 1.0, 0.0], [0.0, 0.0], [1.0]])
def test_recomputed_stderr_equals_the_one_logged_before(scores: list[float]) -> None:
    """The stderr the parser recomputes for a 0/1 group is the sample-variance stderr logs before the change held
    (and Inspect's `stderr()` gives), so a reader sees the same number for an old and a new log."""
    n, mean = len(scores), sum(scores) / len(scores)
    logged = math.sqrt(sum((v - mean) ** 2 for v in scores) / (n - 1) / n) if n > 1 else 0.0
    (entry,) = parse_breakdown(group_metrics({"order": {"1": scores}}))
    assert entry.stderr == pytest.approx(logged, abs=1e-12) and entry.n == n
    assert binary_stderr(mean, n) == pytest.approx(logged, abs=1e-12)
