"""A worker's call usage reaches the parent as the calls complete (search/pool.py: `JobCalls.fresh`, the "usage"
message), so whatever the parent's `worker_usage` raises (a sample's limit) ends the run and stops the job in the
worker; without `live`, the usage comes once, with the result. A dummy target stands in for the model."""

from __future__ import annotations

import asyncio
import pickle
from dataclasses import dataclass

import pytest

from tombench.generators.exploretom.search.pool import JobCalls, SearchPool

#: calls the dummy caller made in this process (read in a worker by `_calls_made`)
MADE = [0]


def test_take_fresh_moves_the_fresh_usage_into_the_total_and_the_hook_never_crosses():
    calls = JobCalls()
    calls.fresh["m"] = 3
    calls.on_call = lambda: None
    assert calls.take_fresh() == {"m": 3} and calls.fresh == {} and calls.usage == {"m": 3}
    calls.fresh["m"] = 2
    assert calls.take_fresh() == {"m": 2} and calls.usage == {"m": 5}
    assert calls.take_fresh() == {}
    copy = pickle.loads(pickle.dumps(calls))
    assert copy.on_call is None and copy.usage == {"m": 5} and calls.on_call is not None


@dataclass(frozen=True)
class CountingTarget:
    """A `pool.CallTarget` whose caller counts one token per prompt, 10 ms each, one at a time."""

    live: bool = True
    key: str = "counting"
    connections: int = 1

    def build(self, slots):
        return CountingCaller()


class CountingCaller:
    def begin(self, target: CountingTarget) -> JobCalls:
        return JobCalls(live=target.live)

    async def __call__(self, prompts: list, calls: JobCalls) -> list[str]:
        out = []
        for p in prompts:
            await asyncio.sleep(0.01)
            MADE[0] += 1
            calls.fresh["tokens"] = calls.fresh.get("tokens", 0) + 1
            calls.calls += 1
            calls.called()
            out.append(p)
        return out


class Exceeded(Exception):
    pass


class _Answer:
    """Its calls are the workers'; `worker_usage` adds up the tokens and raises past `limit`."""

    def __init__(self, live: bool, limit: int | None = None) -> None:
        self.worker_target = CountingTarget(live)
        self.limit = limit
        self.messages: list[dict] = []
        self.jobs: list[JobCalls] = []

    async def __call__(self, prompts: list) -> list[str]:
        raise AssertionError("the parent was asked to answer")

    def worker_usage(self, usage: dict) -> None:
        self.messages.append(usage)
        if self.limit is not None and sum(m["tokens"] for m in self.messages) > self.limit:
            raise Exceeded

    def worker_calls(self, calls: JobCalls) -> None:
        self.jobs.append(calls)


async def _ask_one_by_one(answer, emit, n):
    for i in range(n):
        await answer([f"p{i}"])
    return n


async def _calls_made(answer, emit):
    return MADE[0]


@pytest.mark.timeout(60)
def test_usage_comes_per_call_and_what_the_parent_raises_stops_the_job():
    limited = _Answer(live=True, limit=5)

    async def go():
        made = []
        with pytest.raises(Exceeded):
            await pool.run(_ask_one_by_one, (500,), limited)
        for _ in range(2):  # read twice, apart: a job still running would go on counting
            await asyncio.sleep(0.3)
            made.append(await pool.run(_calls_made, (), _Answer(live=True)))
        return made

    with SearchPool(1) as pool:
        made = asyncio.run(go())
    assert sum(m["tokens"] for m in limited.messages) == 6  # one message per call here (one call per loop turn)
    assert made[0] == made[1] < 20, made  # stopped at the limit and the calls in flight, not after 500
    assert limited.jobs == []  # the run ended at the limit, not with the job


@pytest.mark.timeout(60)
def test_without_live_the_usage_comes_once_before_the_result():
    answer = _Answer(live=False)
    with SearchPool(1) as pool:
        assert asyncio.run(pool.run(_ask_one_by_one, (7,), answer)) == 7
    assert answer.messages == [{"tokens": 7}]
    (job,) = answer.jobs
    assert job.calls == 7 and job.usage == {"tokens": 7} and job.fresh == {}

