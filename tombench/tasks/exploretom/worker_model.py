"""The eval's model, rebuilt in each search worker: the model calls are made where the search's CPU is spread.

Why: against a fast server, the CPU a model call costs its caller (the provider's client, Inspect's generate path, a
model event and the sample buffer per call) is as much as the search's own, and made in the eval's main process it
capped the live task at one core's worth of calls whatever `-T workers` said. A worker builds the same model from the
eval's model name, base URL, model args and generate config (`--max-retries`, `--timeout`, ... apply alike), with
Inspect's response cache (on disk: a re-run or `inspect eval-retry` replays it from any process) and
`--max-connections` as the total across all processes (`search.slots`).

What a worker does not do: log a model event per call. The search sample records its calls as one summary instead
(`answerer.calls_summary`) and its tokens are added to the sample's and the eval's usage as Inspect adds its own:
with the job's result, or where the sample has a token or cost limit as each call completes (checked in the eval's
process, and the job runs under the tokens the sample has left: `--token-limit` stops a search in workers as soon
as it would in one process);
`-T call_events=true` makes the calls in the main process again, every one a model event (for debugging).

What Inspect does not let a worker do through its public API (setting the cache key's epoch, collecting a job's
tokens, dropping per-call events, reading the eval's model config) goes through `kit.inspect_internals`: where those
internals are missing or changed (a newer Inspect), `worker_target` returns None and the calls stay in the eval's
process, each a model event (`inspect_internals.fast_path`).

Which models: those behind a remote API (a client that can be built twice) and the `tombench/` baselines. A model
that lives in the eval's process (`hf/`, `llama-cpp-python/`, ...) or whose replies are a script (`mockllm/`) stays
there: rebuilt per worker it would load its weights again, or replay its script from the start. vLLM and SGLang
count as remote when their server is named (a base URL or `VLLM_BASE_URL` / `SGLANG_BASE_URL`), else Inspect would
start one server per worker.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.model import CachePolicy, GenerateConfig, Model, get_model
from inspect_ai.util import TokenLimit, token_limit

from tombench.generators.exploretom.search.pool import JobCalls
from tombench.kit import inspect_internals
from tombench.tasks.exploretom.prompt_caller import PromptCaller

__all__ = ["REMOTE_PROVIDERS", "CallLimits", "InspectTarget", "WorkerModel", "worker_target"]

#: providers whose model is a client of a remote API: safe to build once per worker process
REMOTE_PROVIDERS = frozenset({
    "openai", "openai-api", "openai-api-completions", "anthropic", "google", "cloudflare", "mistral", "grok",
    "together", "fireworks", "moonshot", "meta", "litellm-proxy", "deepseek", "sambanova", "ollama", "openrouter",
    "perplexity", "azureai", "bedrock", "sagemaker", "groq", "hf-inference-providers", "tombench",
})
_CACHE_DIR = "INSPECT_CACHE_DIR"
#: providers that start a server of their own unless one is named
_SERVED = {"vllm": "VLLM_BASE_URL", "vllm-completions": "VLLM_BASE_URL", "sglang": "SGLANG_BASE_URL"}


@dataclass(frozen=True)
class CallLimits:
    """What a sample's limits ask of a worker's job for it; picklable."""

    #: send each call's usage to the eval's process as it completes, where the sample's token and cost limits are
    #: checked (else it goes with the job's result: a message per call costs the eval's process ~0.1 ms)
    live: bool = False
    #: the sample's token limit as the search starts, (tokens left + 1, its metering type): the job runs under it,
    #: so Inspect refuses the job's next call once the usage it sent has made the sample's own (strict) check
    #: fail, without waiting for the message that cancels the job
    tokens: tuple[int, str] | None = None


@dataclass(frozen=True)
class InspectTarget:
    """How a worker builds the eval's model (a `pool.CallTarget`); picklable."""

    model: str
    base_url: str | None
    model_args: dict[str, Any]
    config: dict[str, Any]
    cache: bool | CachePolicy
    connections: int
    api_key: str | None = field(default=None, repr=False)
    key: str = ""
    #: the sample's epoch (`TaskState.epoch`): Inspect's cache key includes it by default, so the worker's calls
    #: share the cache with the same calls made in the eval's process (the question samples' first-order questions)
    epoch: int | None = None
    #: this process's INSPECT_CACHE_DIR when the target was made: Inspect reads it at each call, and a pool's
    #: workers outlive an eval (a later eval of this process may name another folder)
    cache_dir: str | None = None
    #: what the calling sample's limits ask of the worker's jobs (None: nothing, as outside a sample). Not in
    #: `key`: the same caller serves every sample
    limits: CallLimits | None = None

    def build(self, slots: AbstractAsyncContextManager[None]) -> WorkerModel:
        return WorkerModel(self, slots)


def worker_target(model: Model, cache: bool | CachePolicy, epoch: int | None = None,
                  limits: CallLimits | None = None) -> InspectTarget | None:
    """How a worker rebuilds `model` for calls made on behalf of the sample of epoch `epoch` (None: outside a sample)
    under its `limits`, or None where it must stay in this process (see the module's docstring), or Inspect's
    internals the workers need are missing or changed (`kit.inspect_internals`)."""
    provider = str(model).split("/", 1)[0]
    named_server = model.explicit_base_url or os.environ.get(_SERVED.get(provider, ""), "")
    if provider not in REMOTE_PROVIDERS and not (provider in _SERVED and named_server):
        return None
    # the config a call here would use: the model's, with the task's and the eval's (`--max-retries`, `--timeout`,
    # `--attempt-timeout`, ...) merged in where it is the eval's model
    settings = inspect_internals.worker_settings(model)
    if settings is None:
        return None
    config = settings.config.model_dump(exclude_none=True)
    connections = settings.config.max_connections or model.api.max_connections()
    try:
        args = json.dumps([model.model_args, config], sort_keys=True, default=str)
    except (TypeError, ValueError):
        return None
    # vLLM's and SGLang's providers resolve their base URL at the first call: until then only the named one is known
    base_url = model.api.base_url or named_server or None
    key = hashlib.sha256(f"{model}\0{base_url}\0{args}\0{cache!r}\0{connections}".encode()).hexdigest()[:16]
    return InspectTarget(str(model), base_url, dict(model.model_args), config, cache, connections,
                         settings.api_key, key, epoch, os.environ.get(_CACHE_DIR), limits)


class WorkerModel:
    """The worker's caller (a `pool.WorkerCaller`): the rebuilt model, its prompts asked as the parent asks them."""

    def __init__(self, target: InspectTarget, slots: AbstractAsyncContextManager[None]) -> None:
        config = GenerateConfig(**target.config)
        model = get_model(target.model, config=config, base_url=target.base_url, api_key=target.api_key,  # inspect-evals-lint: ignore[get_model_location] -- a search worker process rebuilds the eval's model
                          memoize=False, **target.model_args)
        self.caller = PromptCaller(model, target.cache, _reentrant(slots))

    def begin(self, target: InspectTarget) -> JobCalls:
        """In the job's task: its calls log no model events, their usage goes to this job's own record (`fresh`:
        the worker sends it to the parent as the calls complete where the sample has a token or cost limit, checked
        there, else with the result), and their cache keys are the sample's (`target.epoch`), in the eval's cache
        folder."""
        if target.cache_dir is None:
            os.environ.pop(_CACHE_DIR, None)
        else:
            os.environ[_CACHE_DIR] = target.cache_dir
        limits = target.limits or CallLimits()
        calls = JobCalls(live=limits.live)
        inspect_internals.begin_worker_job(target.epoch, calls.fresh)  # Inspect adds each call's usage there
        if limits.tokens is not None:
            tokens, metering = limits.tokens
            # entered for the rest of the job's task (its context ends with it): Inspect's own checks before each
            # call and on each call's usage then stop the job, as they stop a sample's calls in one process
            token_limit(TokenLimit(tokens=tokens, type=metering)).__enter__()
        return calls

    async def __call__(self, prompts: list, calls: JobCalls) -> list[str]:
        return await self.caller(prompts, calls)


def _reentrant(slots: AbstractAsyncContextManager[None]) -> Callable[[], AbstractAsyncContextManager[None]]:
    """`slots` is one reusable context manager (`search.slots.WorkerSlots`); the caller wants a factory."""
    return lambda: slots
