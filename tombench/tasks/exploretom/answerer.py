"""An `Answerer` (the search's target) backed by any Inspect model.

The search is pure asyncio and knows nothing of Inspect; this adapter is the one place that turns its prompts into
Inspect `generate` calls, so the model's concurrency limit (`max_connections`), retries and response cache are
Inspect's own. A reply Inspect cannot read and does not retry (a truncated body) is asked again here
(`kit.calls.reread`), each retry in its own cache scope; a call that keeps failing raises `kit.calls.CallFailed`.

Where the model can be rebuilt in another process (`worker_model.worker_target`), the answerer says how, and a
search pool's workers then make the calls themselves (`search.pool`): the eval's main process only coordinates.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.model import CachePolicy, GenerateConfig, Model, ModelUsage, get_model

from tombench.dsl import Prompt
from tombench.generators.exploretom.search.evaluator import Answerer
from tombench.generators.exploretom.search.pool import JobCalls
from tombench.kit import inspect_internals
from tombench.tasks.exploretom.prompt_caller import PromptCaller
from tombench.tasks.exploretom.worker_model import CallLimits, worker_target

__all__ = ["calls_summary", "inspect_answerer"]


def inspect_answerer(
    model: str | Model | None = None,
    *,
    cache: bool | CachePolicy = True,
    model_args: dict[str, Any] | None = None,
    max_connections: int | None = None,
    in_workers: bool = True,
    epoch: int | None = None,
    sample_limits: bool = True,
) -> Answerer:
    """Answer prompts with `model` (an Inspect model, a model string, or None for the active eval's model).

    `in_workers`: let a search pool's workers rebuild the model and call it themselves where it can be rebuilt
    (`worker_model.worker_target`); False keeps every call in this process (each one a model event of the
    calling sample's transcript). `epoch`: the calling sample's (`TaskState.epoch`; None outside a sample), which a
    worker's calls put in their cache keys as Inspect does here. `sample_limits`: a worker's calls count against
    the calling sample's token and cost limits as they complete, and stop at its token limit (as left when the
    answerer is made) without waiting to be told; False where they do not count against them
    (`suspend_token_limit`). The answerer's `stats` (a `JobCalls`) sums its calls wherever they were made."""
    if isinstance(model, Model):
        m = model
    else:
        config = GenerateConfig(max_connections=max_connections) if max_connections else None
        kwargs = {"config": config} if config else {}
        m = get_model(model, **kwargs, **(model_args or {}))  # inspect-evals-lint: ignore[get_model_location] -- `tombench search` asks a model outside any eval
    caller = PromptCaller(m, cache)
    stats = JobCalls()

    async def answer(prompts: list[Prompt]) -> list[str]:
        return await caller(prompts, stats)

    def worker_calls(calls: JobCalls) -> None:
        """A worker's calls for one job, counted here when the job ends (their usage came as they completed:
        `worker_usage`)."""
        stats.calls += calls.calls
        stats.errors += calls.errors
        stats.seconds += calls.seconds

    def worker_usage(usage: dict[str, ModelUsage]) -> None:
        """Usage of calls just completed in a worker, recorded as Inspect records its own calls' (only ever called
        on the fast path: a worker makes calls only with a `worker_target`): the sample's and the eval's usage, and
        the sample's token and cost limits checked, so an exceeded one raises here, in the sample's task."""
        for name, used in usage.items():
            stats.usage[name] = stats.usage.get(name, ModelUsage()) + used
            inspect_internals.record_usage(m, used)

    answer.model_name = str(m)  # type: ignore[attr-defined]
    answer.stats = stats  # type: ignore[attr-defined]
    answer.calls = lambda: stats.calls  # type: ignore[attr-defined]  # answered so far (the live task's progress)
    answer.worker_target = (worker_target(m, cache, epoch, _call_limits() if sample_limits else None)  # type: ignore[attr-defined]
                            if in_workers else None)
    answer.worker_calls = worker_calls  # type: ignore[attr-defined]
    answer.worker_usage = worker_usage  # type: ignore[attr-defined]
    return answer


def _call_limits() -> CallLimits | None:
    """What the calling sample's limits ask of a worker's job (`worker_model.CallLimits`): its usage sent as each
    call completes where it has a token or cost limit, and the job itself under its token limit (the tokens left
    + 1: the worker then refuses a call only once the usage it sent has made the sample's own check raise, which
    is strict, a limit being exceeded above it); None outside a sample or without either limit."""
    from inspect_ai.util import sample_limits

    try:
        limits = sample_limits()
    except RuntimeError:  # no running sample (`tombench search`)
        return None
    left = limits.token.remaining
    tokens = None if left is None else (max(0, int(left)) + 1, str(getattr(limits.token, "type", "all")))
    if tokens is None and limits.cost.limit is None:
        return None
    return CallLimits(live=True, tokens=tokens)


def calls_summary(stats: JobCalls, where: str, usage: dict[str, ModelUsage] | None = None) -> dict[str, Any]:
    """The search sample's account of its model calls (its metadata and an info event), in place of one model
    event per call: `where` they were made, how many, failed for good, seconds in calls, tokens the server counted
    (`usage`, default the ones the workers reported)."""
    usage = stats.usage if usage is None else usage
    return {
        "where": where, "calls": stats.calls, "errors": stats.errors, "call_seconds": round(stats.seconds, 3),
        "input_tokens": sum(u.input_tokens for u in usage.values()),
        "output_tokens": sum(u.output_tokens for u in usage.values()),
        "total_tokens": sum(u.total_tokens for u in usage.values()),
    }
