"""The live task and `tombench search --workers N` under a new Inspect that renamed or changed one of the internals
their fast path uses (issue #48; each hidden in turn by tests/inspect_renames.py): they degrade, never die. The live
task with `-T workers=2` ends with status success, the fast path's question samples and scores, its search samples
saying their calls were made in the eval's process, each a model event (as `-T call_events=true` makes them), and one
warning line naming the Inspect version tombench was tested with and the one running; `tombench search` writes the
fast path's stories with every call made in its main process."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from inspect_ai import eval
from inspect_ai.log import EvalLog

import tombench._registry  # noqa: F401  (registers the tombench/<name> models)
from tests.inspect_renames import RENAMES
from tests.records import assert_same_records
from tombench.cli import main
from tombench.generators.exploretom.search.runner import read_jsonl
from tombench.kit import inspect_internals
from tombench.tasks.exploretom.adversarial import exploretom_adversarial

#: one setting, two search samples (paper mode: one per story slot), each finding a story on this budget; the
#: `tombench/` baselines count as remote models: on the fast path their calls are made in the workers
OPTIONS = {"action_sets": "tomi", "asymmetric": "plain", "people": 2, "moves": 2, "budget": 15, "mode": "paper",
           "stories_per_setting": 2, "workers": 2}
MODEL = "tombench/recency"


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.fixture
def warnings() -> Iterator[list[str]]:
    """The seam's warning lines while the test runs; the verdict forgotten before and after."""
    handler = _Records()
    inspect_internals.logger.addHandler(handler)
    inspect_internals.forget()
    try:
        yield handler.lines
    finally:
        inspect_internals.logger.removeHandler(handler)
        inspect_internals.forget()


def _eval(folder: Path, monkeypatch: pytest.MonkeyPatch, **options: Any) -> EvalLog:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(folder / "cache"))  # a cold cache: every call reaches the model
    (log,) = eval(exploretom_adversarial(**{**OPTIONS, **options}), model=MODEL, log_dir=str(folder / "logs"), display="none")
    assert log.status == "success", log.error
    return log


def _searches(log: EvalLog) -> list[Any]:
    out = [s for s in log.samples or [] if "search" in (s.metadata or {})]
    assert len(out) == 2
    return out


def _outcome(log: EvalLog) -> dict[str, tuple[str, str]]:
    """Every sample's scores, and each search sample's summary without the account of its calls (which says where
    they were made)."""
    out = {}
    for s in log.samples or []:
        search = {k: v for k, v in (s.metadata or {}).get("search", {}).items() if k != "calls"}
        out[str(s.id)] = (json.dumps({k: v.value for k, v in (s.scores or {}).items()}, sort_keys=True),
                          json.dumps(search, sort_keys=True))
    return out


@pytest.fixture(scope="module")
def fast(tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    """The run with every internal there: the search's calls in the workers."""
    inspect_internals.forget()
    with pytest.MonkeyPatch.context() as mp:
        log = _eval(tmp_path_factory.mktemp("fast"), mp)
    assert {s.metadata["search"]["calls"]["where"] for s in _searches(log)} == {"workers"}
    assert any(s.metadata.get("tombench_kind") == "question" for s in log.samples)
    return log


@pytest.mark.timeout(120)
@pytest.mark.parametrize("rename", sorted(RENAMES))
def test_the_live_task_degrades_to_its_public_path(rename: str, fast: EvalLog, warnings: list[str], tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    RENAMES[rename](monkeypatch)
    log = _eval(tmp_path, monkeypatch)
    (line,) = warnings  # once per process, not per search sample
    assert f"tested with inspect-ai {inspect_internals.TESTED_WITH}, this is {inspect_internals.running_version()}" \
        in line
    assert _outcome(log) == _outcome(fast)
    assert log.results.scores == fast.results.scores
    for s in _searches(log):
        calls = s.metadata["search"]["calls"]
        assert calls["where"] == "main" and calls["events"] is True and "questions" not in calls
        assert calls["calls"] == s.metadata["search"]["model_calls"] > 0 and calls["errors"] == 0
        assert len([e for e in s.events if e.event == "model"]) == calls["calls"]
        # the summary's tokens are the sample's, read from its model events
        assert calls["total_tokens"] == sum(u.total_tokens for u in s.model_usage.values()) > 0


def test_call_events_counts_the_same_tokens_from_its_events(fast: EvalLog, warnings: list[str], tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """`-T call_events=true` with every internal there: the same path, no warning, the tokens the workers counted."""
    log = _eval(tmp_path, monkeypatch, call_events=True)
    assert warnings == []
    assert _outcome(log) == _outcome(fast)
    by_id = {s.id: s.metadata["search"]["calls"] for s in _searches(fast)}
    for s in _searches(log):
        calls = s.metadata["search"]["calls"]
        assert calls["where"] == "main" and calls["events"] is True
        assert calls["total_tokens"] == by_id[s.id]["total_tokens"] > 0


def _search(tmp_path: Path, name: str, targets: list[Any], monkeypatch: pytest.MonkeyPatch) -> Path:
    """`tombench search --workers 2` into `tmp_path / name`; each job's `worker_target` (None: its calls are made in
    the main process) appended to `targets`."""
    from tombench.generators.exploretom.search import pool

    real = pool.SearchPool.run

    async def run(self: Any, job: Any, args: tuple, answer: Any, on_event: Any = lambda m: None) -> Any:
        targets.append(getattr(answer, "worker_target", None))
        return await real(self, job, args, answer, on_event)

    monkeypatch.setattr(pool.SearchPool, "run", run)
    out = tmp_path / name
    r = CliRunner().invoke(main, ["search", "--model", MODEL, "--story-types", "tomi", "--people", "2", "--moves", "2",
                                  "--stories-per-setting", "2", "--budget", "10", "--budget-unit", "calls",
                                  "--workers", "2", "--no-cache", "--out", str(out)])
    assert r.exit_code == 0, r.output
    return out


@pytest.mark.timeout(120)
def test_search_command_keeps_its_calls_in_the_main_process(warnings: list[str], tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    fast_targets: list[Any] = []
    fast = _search(tmp_path, "fast", fast_targets, monkeypatch)
    assert fast_targets and all(t is not None for t in fast_targets) and warnings == []
    RENAMES["Model._resolve_config-parameters"](monkeypatch)
    inspect_internals.forget()
    slow_targets: list[Any] = []
    slow = _search(tmp_path, "slow", slow_targets, monkeypatch)
    assert slow_targets and all(t is None for t in slow_targets)
    assert len(warnings) == 1 and inspect_internals.TESTED_WITH in warnings[0]
    for name in ("stories.jsonl", "attempts.jsonl"):  # each setting's lines in order (the settings interleave)
        got, want = _by_setting(slow / name), _by_setting(fast / name)
        assert sorted(got) == sorted(want), name
        for setting, records in want.items():
            assert_same_records(got[setting], records, name=lambda i, r, n=name: f"{n}, {r.get('id', r['setting_id'])}")
    assert read_jsonl(fast / "stories.jsonl")


def _by_setting(path: Path) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for rec in read_jsonl(path):
        out.setdefault(rec["setting_id"], []).append(rec)
    return out
