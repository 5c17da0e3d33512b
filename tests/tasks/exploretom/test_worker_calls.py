"""The live task with the search's model calls made in its worker processes (worker_model.py, search/slots.py),
against a real OpenAI-compatible HTTP server (tests/local/standin_server.py): the tokens logged are the server's,
`--max-connections` bounds all processes together, the search sample logs a summary of its calls, the response
cache is the eval's, and which providers a worker may rebuild."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import httpx
import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import GenerateConfig, get_model

import tombench._registry  # noqa: F401  (registers the tombench/<name> models)
from tests.tasks.exploretom.test_adversarial_faults import MODEL, digest, standin
from tombench.tasks.exploretom.adversarial import exploretom_adversarial
from tombench.tasks.exploretom.worker_model import InspectTarget, worker_target

#: two settings (tomi, tomi+asymmetric); `people="2,3"` makes four
OPTIONS = {"action_sets": "tomi", "asymmetric": "both", "people": 2, "moves": 2, "budget": 8, "mode": "improved",
           "workers": 2}
SOURCE = "tombench search calls"


def _eval(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cache: str = "cache", max_connections: int | None = None,
          config: dict[str, Any] | None = None, **options: Any) -> EvalLog:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / cache))
    task = exploretom_adversarial(**{**OPTIONS, **options})
    (log,) = eval(task, model=MODEL, log_dir=str(tmp_path / "logs"), display="none", max_connections=max_connections,
                  **(config or {}))
    assert log.status == "success", log.error
    return log


def _stats(server: Any) -> dict[str, int]:
    return httpx.get(server.stats, timeout=5.0).json()


def _logged_tokens(log: EvalLog) -> int:
    assert log.stats.model_usage, "no usage logged"
    return sum(u.total_tokens for u in log.stats.model_usage.values())


def _search_samples(log: EvalLog) -> list[Any]:
    out = [s for s in log.samples or [] if "search" in (s.metadata or {})]
    assert out, "no search sample"
    return out


@pytest.fixture(scope="module")
def cold(tmp_path_factory: pytest.TempPathFactory) -> tuple[EvalLog, dict[str, int], Path]:
    """A default run (workers=2) on a cold cache: its log, the server's stats, its folder (the cache under it)."""
    tmp = tmp_path_factory.mktemp("cold")
    with pytest.MonkeyPatch.context() as mp, standin(mp) as server:
        log = _eval(tmp, mp)
        stats = _stats(server)
    return log, stats, tmp


@pytest.mark.timeout(60)
def test_logged_tokens_are_the_servers_with_workers(cold) -> None:
    log, stats, _ = cold
    assert {s.metadata["search"]["calls"]["where"] for s in _search_samples(log)} == {"workers"}
    assert stats["tokens"] > 0 and _logged_tokens(log) == stats["tokens"]


@pytest.mark.timeout(60)
def test_logged_tokens_are_the_servers_in_one_process(tmp_path, monkeypatch) -> None:
    with standin(monkeypatch) as server:
        log = _eval(tmp_path, monkeypatch, workers=1)
        stats = _stats(server)
    assert {s.metadata["search"]["calls"]["where"] for s in _search_samples(log)} == {"main"}
    assert stats["tokens"] > 0 and _logged_tokens(log) == stats["tokens"]


@pytest.mark.timeout(90)
def test_max_connections_is_the_total_across_processes(tmp_path, monkeypatch) -> None:
    """Two workers searching four settings at once, each call held 50 ms by the server: with
    `--max-connections 2` the server never works on more than 2 completions at once (a limit per process would let
    the two workers have 4 in flight); with 8 it does (the limit is what binds, not the run's own pace)."""
    seen, logs = {}, {}
    for limit in (2, 8):
        with standin(monkeypatch, "--latency", "0.05") as server:
            logs[limit] = _eval(tmp_path, monkeypatch, cache=f"cache{limit}", max_connections=limit, workers=2,
                                people="2,3")
            seen[limit] = _stats(server)
        assert len(_search_samples(logs[limit])) == 4 and seen[limit]["completions"] > 0
    assert seen[2]["max_inflight"] == 2
    assert seen[8]["max_inflight"] > 2
    assert digest(logs[2]) == digest(logs[8])


def _cache_entries(folder: Path) -> int:
    return sum(1 for p in (folder / "cache").rglob("*") if p.is_file())


def _events(sample: Any, kind: str) -> list[Any]:
    return [e for e in sample.events if e.event == kind]


@pytest.mark.timeout(60)
def test_the_search_sample_logs_a_summary_of_its_calls(cold) -> None:
    log, _, _ = cold
    for s in _search_samples(log):
        calls = s.metadata["search"]["calls"]
        assert calls["where"] == "workers" and calls["calls"] > 0 and calls["total_tokens"] > 0
        assert calls["events"] is False and calls["errors"] == 0
        assert calls["calls"] == s.metadata["search"]["model_calls"]
        assert not _events(s, "model")
        (info,) = [e for e in _events(s, "info") if e.source == SOURCE]
        assert info.data == calls
    # the question samples' own calls are logged as ever
    assert any(_events(s, "model") for s in log.samples if "search" not in s.metadata)


def _question_samples(log: EvalLog) -> list[Any]:
    out = [s for s in log.samples or [] if "search" not in (s.metadata or {})]
    assert out, "no question sample"
    return out


@pytest.mark.timeout(60)
def test_the_workers_ask_the_question_samples_prompts_ahead(cold) -> None:
    """Every question sample's one model call is a read of the answer a worker asked for it: the eval's process
    calls the server for none (the tokens logged are still the server's: see above)."""
    log, _, _ = cold
    questions = _question_samples(log)
    for s in questions:
        (event,) = _events(s, "model")
        assert event.cache == "read", s.id
    searches = _search_samples(log)
    assert not any("questions" in s.metadata["search"]["calls"] for s in searches if not s.metadata["search"]["stories"])
    ahead = [s.metadata["search"]["calls"]["questions"] for s in searches if s.metadata["search"]["stories"]]
    assert sum(a["prompts"] for a in ahead) == len(questions)
    assert all(a["errors"] == 0 and "error" not in a and a["total_tokens"] > 0 for a in ahead)


@pytest.mark.timeout(90)
def test_a_failed_ask_ahead_leaves_the_questions_to_their_samples(tmp_path, monkeypatch) -> None:
    """Asking ahead is an optimisation: when it fails (here: the job never reaches a worker), the search sample
    still succeeds, notes the failure, and the question samples ask the model themselves."""
    from tombench.generators.exploretom.search import pool as pool_module

    real = pool_module.SearchPool.run

    async def run(self: Any, job: Any, args: tuple, answer: Any, on_event: Any = lambda m: None) -> Any:
        if job is pool_module.answer_prompts:
            raise RuntimeError("the worker is gone")
        return await real(self, job, args, answer, on_event)

    monkeypatch.setattr(pool_module.SearchPool, "run", run)
    with standin(monkeypatch) as server:
        log = _eval(tmp_path, monkeypatch)
        assert _stats(server)["tokens"] == _logged_tokens(log)
    searches = [s for s in _search_samples(log) if s.metadata["search"]["stories"]]
    assert searches and all(s.metadata["search"]["calls"]["questions"]["error"] == "RuntimeError: the worker is gone"
                            for s in searches)
    questions = _question_samples(log)
    assert all(s.scores for s in questions)
    assert any(e.cache != "read" for s in questions for e in _events(s, "model"))


@pytest.mark.timeout(90)
def test_asked_ahead_with_the_evals_decoding_overrides(tmp_path, monkeypatch) -> None:
    """`--max-tokens` / `--temperature` given to the eval apply to the question samples: the prompts asked ahead
    carry them too, so the question samples still read every answer from the cache."""
    with standin(monkeypatch):
        log = _eval(tmp_path, monkeypatch, config={"max_tokens": 30, "temperature": 0.5})
    for s in _question_samples(log):
        (event,) = _events(s, "model")
        assert event.cache == "read" and event.config.max_tokens == 30 and event.config.temperature == 0.5, s.id


@pytest.mark.timeout(60)
def test_call_events_keeps_every_calls_event(tmp_path, monkeypatch) -> None:
    with standin(monkeypatch):
        log = _eval(tmp_path, monkeypatch, call_events=True)
    for s in _search_samples(log):
        calls = s.metadata["search"]["calls"]
        assert calls["where"] == "main" and calls["events"] is True and calls["calls"] > 0
        assert len(_events(s, "model")) >= calls["calls"]
        (info,) = [e for e in _events(s, "info") if e.source == SOURCE]
        assert info.data == calls


@pytest.mark.timeout(120)
def test_a_rerun_replays_the_workers_calls_from_the_evals_cache(cold, tmp_path, monkeypatch) -> None:
    """The workers' cache entries are the main process's: a re-run with workers, or with every call in the main
    process, asks the server nothing. A later eval of this process with another cache folder uses that folder in
    the workers too (they started under the first one)."""
    _, first, folder = cold
    for workers in (2, 1):
        with standin(monkeypatch) as server:
            _eval(folder, monkeypatch, workers=workers)
            assert _stats(server)["completions"] == 0, f"workers={workers}"
    with standin(monkeypatch) as server:
        log = _eval(tmp_path, monkeypatch)
        stats = _stats(server)
    # a cold cache: every distinct prompt asked again (a prompt two calls ask at once may be asked twice), and
    # answered into this eval's folder
    entries = _cache_entries(folder)
    assert entries > 0 and _cache_entries(tmp_path) == entries
    assert stats["completions"] >= entries and first["completions"] >= entries
    assert _logged_tokens(log) == stats["tokens"]
    with standin(monkeypatch) as server:
        _eval(tmp_path, monkeypatch)
        assert _stats(server)["completions"] == 0


@pytest.mark.timeout(60)
def test_which_models_a_worker_rebuilds(monkeypatch) -> None:
    """Scripted replies and in-process models stay in the eval's process; the tombench baselines and remote APIs
    are rebuilt from a picklable target; vLLM only with its server named (else every worker would start one)."""
    assert worker_target(get_model("mockllm/model", memoize=False), True) is None

    model = get_model("tombench/recency", memoize=False)
    target = worker_target(model, True)
    assert isinstance(target, InspectTarget) and target.model == "tombench/recency"
    assert pickle.loads(pickle.dumps(target)) == target
    assert target.connections == model.api.max_connections()
    seven = worker_target(get_model("tombench/recency", config=GenerateConfig(max_connections=7), memoize=False),
                          True)
    assert seven is not None and seven.connections == 7 and seven.key != target.key

    # vLLM's provider starts its server at the first call, not when built: these build offline
    monkeypatch.delenv("VLLM_BASE_URL", raising=False)
    assert worker_target(get_model("vllm/x", memoize=False), True) is None
    url = "http://127.0.0.1:9/v1"
    named = worker_target(get_model("vllm/x", base_url=url, memoize=False), True)
    assert named is not None and named.base_url == url  # the worker connects to it, starts none
    assert pickle.loads(pickle.dumps(named)) == named
    monkeypatch.setenv("VLLM_BASE_URL", url)
    from_env = worker_target(get_model("vllm/x", memoize=False), True)
    assert from_env is not None and from_env.base_url == url
