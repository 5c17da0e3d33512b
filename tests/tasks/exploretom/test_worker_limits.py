"""Inspect's sample limits with the search's model calls in worker processes (worker_model.py, search/pool.py): a
search sample's `--token-limit`, `--cost-limit` and `--time-limit` stop its search as the calls complete, wherever
they run, and the sample ends with Inspect's own limit record, as in one process. Measured against the stand-in
server (tests/local/standin_server.py), which counts the tokens it serves: 24 per completion."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import ModelCost, ModelInfo, set_model_info

import tombench._registry  # noqa: F401  (registers the tombench/<name> models)
from tests.tasks.exploretom.test_adversarial_faults import MODEL, standin
from tombench.tasks.exploretom.adversarial import exploretom_adversarial

#: one setting, one search sample whose budget its limits cut short (unlimited, it makes hundreds of calls)
OPTIONS = {"action_sets": "tomi", "asymmetric": "plain", "people": 2, "moves": 2, "budget": 200, "mode": "improved"}
TOKENS_PER_CALL = 24  # what the stand-in counts per completion
CONNECTIONS = 4
LIMIT = 500
#: the limit plus the calls in flight when it is crossed, with a second round of them as margin
BOUND = LIMIT + 2 * CONNECTIONS * TOKENS_PER_CALL


def _served(server: Any) -> int:
    return httpx.get(server.stats, timeout=5.0).json()["tokens"]


def _eval(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, workers: int, budget: int = OPTIONS["budget"],
          **config: Any) -> EvalLog:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / name / "cache"))
    (log,) = eval(exploretom_adversarial(**{**OPTIONS, "budget": budget}, workers=workers), model=MODEL,
                  log_dir=str(tmp_path / name), display="none", max_connections=CONNECTIONS, **config)
    assert log.status == "success", log.error
    return log


def _search_sample(log: EvalLog) -> EvalSample:
    (sample,) = [s for s in log.samples or [] if str(s.id).startswith("search|")]
    return sample


def _limit_events(sample: EvalSample) -> list[str]:
    return [e.type for e in sample.events if e.event == "sample_limit"]


def _stopped(server: Any) -> tuple[int, int]:
    """The tokens served when the eval returned and a second later: equal once nothing calls any more (a job left
    running in a worker would go on)."""
    now = _served(server)
    time.sleep(1.0)
    return now, _served(server)


@pytest.mark.timeout(180)
def test_a_token_limit_stops_the_search_in_workers_as_in_one_process(tmp_path, monkeypatch) -> None:
    served, samples = {}, {}
    for workers in (1, 2):
        with standin(monkeypatch, "--latency", "0.02") as server:
            log = _eval(tmp_path, monkeypatch, f"w{workers}", workers, token_limit=LIMIT)
            served[workers] = _stopped(server)
        samples[workers] = _search_sample(log)
        # no scored question samples: the search ended at its limit, as in one process
        assert len(log.samples or []) == 1
    for workers, sample in samples.items():
        assert sample.limit is not None and (sample.limit.type, sample.limit.limit) == ("token", LIMIT), workers
        assert "search" not in sample.metadata
        # Inspect's own event, in the sample's transcript (in one process, kept from the summarised calls' own)
        assert _limit_events(sample) == ["token"], workers
    # the tokens served: the limit plus the calls in flight, with the calls in workers as in one process (before,
    # with 2 workers: the whole job, 6,336 tokens here)
    now, later = served[2]
    assert LIMIT < now <= BOUND and later == now, served
    assert LIMIT < served[1][0] <= BOUND, served


@pytest.mark.timeout(180)
def test_a_cost_limit_stops_the_search_in_workers(tmp_path, monkeypatch) -> None:
    # a dollar per million output tokens: 4 per completion, 4e-6 $ each; the limit is about 25 completions' cost
    set_model_info(MODEL, ModelInfo(cost=ModelCost(input=0.0, output=1.0, input_cache_write=0.0,
                                                   input_cache_read=0.0)))
    limit = 25 * 4e-6
    try:
        with standin(monkeypatch, "--latency", "0.02") as server:
            log = _eval(tmp_path, monkeypatch, "cost", 2, cost_limit=limit)
            now, later = _stopped(server)
    finally:
        set_model_info(MODEL, ModelInfo())  # no cost data again, for the process's other tests
    sample = _search_sample(log)
    assert sample.limit is not None and sample.limit.type == "cost"
    assert _limit_events(sample) == ["cost"]
    # checked in the eval's process as each call's usage arrives (the worker cannot price a call): the limit plus
    # the calls made while the message travels, far below the whole job's
    assert 25 * TOKENS_PER_CALL < now <= 3 * 25 * TOKENS_PER_CALL and later == now, (now, later)


@pytest.mark.timeout(180)
def test_a_time_limit_stops_the_search_in_workers(tmp_path, monkeypatch) -> None:
    with standin(monkeypatch, "--latency", "0.2") as server:
        before = _served(server)
        # the workers start with the eval (and end with it): the limit leaves room for their start-up on a busy
        # machine (two test processes on two cores: over 12 s seen), and the budget (2,000 calls at 200 ms, 4 at a
        # time: 100 s or more) outlasts the limit; the slow replies keep the calls' CPU low while it waits
        log = _eval(tmp_path, monkeypatch, "timed", 2, budget=2000, time_limit=30)
        now, later = _stopped(server)
    sample = _search_sample(log)
    assert sample.limit is not None and sample.limit.type == "time"
    assert _limit_events(sample) == ["time"]
    assert now > before and later == now  # it searched until the limit, then its job in the worker was cancelled
