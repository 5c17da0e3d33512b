"""How `pytest -n auto` shares the tests between its workers (pytest-xdist).

Each test file runs whole in one worker (a module's shared fixture is built once), as with `--dist loadfile`, with
two changes that shorten the run on CI's two cores:

* the files that talk to the real local model run in one worker, so one llama.cpp server serves them all (two
  servers on two cores, one per worker, slowed each real-model test three- to four-fold);
* the heaviest files are handed out first (the real-model files, then the files with the most tests measured slow),
  so that a long file does not start last and keep one worker busy after the other has finished.

A run in one process (`pytest` without -n) keeps pytest's own order.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from xdist.scheduler import LoadScopeScheduling

#: the files whose tests use the `local_model_server` fixture (tests/test_conftest.py checks the list is complete)
REAL_MODEL_FILES = frozenset({
    "tests/local/test_live.py",
    "tests/local/test_live_tasks.py",
    "tests/tasks/persuasion/test_persuasion_live.py",
    "tests/generators/tomsynth/test_live.py",
})
REAL_MODEL_SCOPE = "real-model"


def scope(nodeid: str) -> str:
    """The unit of work a test belongs to: its file, or the one real-model unit."""
    path = nodeid.split("::", 1)[0]
    return REAL_MODEL_SCOPE if path in REAL_MODEL_FILES else path


class FileScheduling(LoadScopeScheduling):
    """xdist's scope scheduling with `scope` as the scope (the units are handed out in collection order)."""

    def _split_scope(self, nodeid: str) -> str:
        return scope(nodeid)


def heaviest_first(items: list[pytest.Item], slow: set[str]) -> None:
    """Reorder `items` in place: the real-model unit, then the files by their number of slow tests (most first),
    each file's tests kept together and in their order."""
    weight: Counter[str] = Counter()
    for item in items:
        unit = scope(item.nodeid)
        if item.nodeid in slow or unit in slow:
            weight[unit] += 1
    first = {}
    for i, item in enumerate(items):
        first.setdefault(scope(item.nodeid), i)

    def key(item: Any) -> tuple[int, int, int]:
        unit = scope(item.nodeid)
        return (unit != REAL_MODEL_SCOPE, -weight[unit], first[unit])

    items.sort(key=key)
