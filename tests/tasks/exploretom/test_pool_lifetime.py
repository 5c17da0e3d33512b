"""The live task's search workers end with the eval that started them (Inspect's `on_run_end` hook), not only with
the process; the next eval starts its own."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from tombench.generators.exploretom.search.pool import running_pool
from tombench.tasks.exploretom.adversarial import exploretom_adversarial


def _search_workers() -> list:
    return [p for p in multiprocessing.active_children() if p.name.startswith("tombench-search-")]


@pytest.mark.timeout(300)
def test_no_search_worker_outlives_the_eval_that_started_it(tmp_path: Path) -> None:
    assert not _search_workers()
    for run in ("first", "second"):  # the second eval starts workers again
        task = exploretom_adversarial(action_sets="tomi", asymmetric="plain", people=2, moves=2, budget=4,
                                      workers=2)
        (log,) = inspect_eval(task, model="tombench/recency", log_dir=str(tmp_path / run), display="none")
        assert log.status == "success", log.error
        searches = [s.metadata["search"] for s in log.samples if s.metadata.get("search")]
        assert searches and {s["calls"]["where"] for s in searches} == {"workers"}  # the workers did run
        assert running_pool(2) is None
        assert not _search_workers()
