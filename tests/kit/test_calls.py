"""One way to call a model (tombench.kit.calls): plain and Inspect models, cache scopes per retry, parse-and-retry."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pytest
from inspect_ai.model import (
    CachePolicy,
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    ModelOutput,
    ModelUsage,
    get_model,
)

from tombench.kit.calls import (
    MalformedOutput,
    ModelError,
    Reply,
    ask_until_parsed,
    call_model,
    make_asker,
    retry_cache,
    scoped_cache,
)


@dataclass
class Recorder:
    """An Inspect-like model (it has `generate`) answering from a list, recording what each call was given."""

    answers: list[tuple[str, str | None]]
    calls: list[dict[str, Any]] = field(default_factory=list)

    async def generate(self, input: Any, config: GenerateConfig, cache: bool | CachePolicy) -> Any:
        self.calls.append({"input": input, "config": config, "cache": cache})
        text, error = self.answers[min(len(self.calls), len(self.answers)) - 1]
        return type("Output", (), {"completion": text, "error": error})()


def test_retry_cache_keeps_the_plain_key_for_a_first_try_and_scopes_every_retry() -> None:
    assert retry_cache(True, None) is True and retry_cache(True, {"round": 0, "attempt": 0}) is True
    assert retry_cache(False, {"round": 2}) is False
    policy = retry_cache(True, {"round": 2, "attempt": 0, "context": 1})
    assert isinstance(policy, CachePolicy) and policy.expiry == "1W"
    assert list(policy.scopes.items()) == [("tombench_retry_context", "1"), ("tombench_retry_round", "2")]
    mine = CachePolicy(expiry=None, scopes={"user": "x"})
    scoped = retry_cache(mine, {"step": 3})
    assert isinstance(scoped, CachePolicy) and scoped.expiry is None
    assert scoped.scopes == {"user": "x", "tombench_retry_step": "3"} and mine.scopes == {"user": "x"}
    assert scoped_cache(mine, {}) is mine


def test_a_plain_model_gets_the_prompt_or_a_list_of_the_messages() -> None:
    seen: list[Any] = []

    async def plain(x: Any) -> str:
        seen.append(x)
        return "text"

    messages: tuple[ChatMessage, ...] = (ChatMessageUser(content="hi"),)
    assert asyncio.run(call_model(plain, "prompt", system="ignored", cache=True)) == Reply("text")
    assert asyncio.run(call_model(plain, messages)) == Reply("text")
    assert seen == ["prompt", list(messages)]


def test_an_inspect_model_gets_the_system_prompt_config_and_cache() -> None:
    model = Recorder([("fine", None), ("", "content filter")])
    config = GenerateConfig(temperature=0.5)
    assert asyncio.run(call_model(model, "q", system="be brief", config=config, cache=True)) == Reply("fine")
    assert asyncio.run(call_model(model, "q")) == Reply("", "content filter")
    first, second = model.calls
    assert [(type(m), m.text) for m in first["input"]] == [(ChatMessageSystem, "be brief"), (ChatMessageUser, "q")]
    assert first["config"] is config and first["cache"] is True
    assert second["input"] == "q" and second["config"] == GenerateConfig() and second["cache"] is False


def test_a_real_inspect_model_answers_a_prompt_and_messages() -> None:
    out = ModelOutput.from_content(model="mockllm/model", content="from mock")
    out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # mockllm's own count needs a download
    model = get_model("mockllm/model", custom_outputs=[out, out], memoize=False)
    ask = make_asker(model, cache=False)
    assert asyncio.run(ask("q")) == "from mock"
    assert asyncio.run(call_model(model, [ChatMessageUser(content="q")])) == Reply("from mock")


def test_the_asker_counts_calls_scopes_retries_and_raises_provider_errors() -> None:
    model = Recorder([("first", None), ("second", None), ("", "refused")])
    calls: list[int] = []
    ask = make_asker(model, on_call=lambda: calls.append(1))
    assert asyncio.run(ask("p")) == "first"
    assert asyncio.run(ask("p", retry={"attempt": 1})) == "second"
    with pytest.raises(ModelError, match="refused") as raised:
        asyncio.run(ask("p"))
    assert isinstance(raised.value, MalformedOutput) and raised.value.kind == "model_error"
    assert len(calls) == 3 and model.calls[0]["cache"] is True
    assert model.calls[1]["cache"].scopes == {"tombench_retry_attempt": "1"}


class Odd(MalformedOutput):
    kind = "odd"


def _even(text: str) -> int:
    if int(text) % 2:
        raise Odd(text)
    return int(text)


def test_ask_until_parsed_counts_each_failure_by_kind_and_asks_each_attempt_under_its_own_cache() -> None:
    model = Recorder([("", "overloaded"), ("3", None), ("4", None)])
    result = asyncio.run(ask_until_parsed(model, "p", _even, cache=lambda a: CachePolicy(scopes={"a": str(a)})))
    assert (result.value, result.attempts, dict(result.errors), result.last_output) == (
        4, 3, {"model_error": 1, "odd": 1}, "4",
    )
    assert [c["cache"].scopes for c in model.calls] == [{"a": "0"}, {"a": "1"}, {"a": "2"}]


def test_ask_until_parsed_gives_up_after_its_retries_and_keeps_the_last_output() -> None:
    model = Recorder([("5", None)])
    result = asyncio.run(ask_until_parsed(model, "p", _even, cache=lambda a: False, max_retries=1))
    assert (result.value, result.attempts, dict(result.errors), result.last_output) == (None, 2, {"odd": 2}, "5")
    with pytest.raises(ValueError):  # anything but a malformed answer is a bug, never counted
        asyncio.run(ask_until_parsed(Recorder([("x", None)]), "p", _even, cache=lambda a: False))


def test_reread_asks_an_unreadable_reply_again_each_time_in_its_own_cache_scope() -> None:
    import json

    from tombench.kit.calls import reread

    caches: list[Any] = []

    async def call(cache: Any) -> str:
        caches.append(cache)
        if len(caches) < 3:
            raise json.JSONDecodeError("Unterminated string", '{"id": "c', 7)
        return "answer"

    assert asyncio.run(reread(call, True, backoff=0.0)) == "answer"
    assert caches[0] is True  # the first try keeps the plain key: a finished run re-run reads the cache
    assert [c.scopes for c in caches[1:]] == [{"tombench_retry_reread": "1"}, {"tombench_retry_reread": "2"}]


def test_reread_gives_up_with_what_failed_and_after_how_many_tries() -> None:
    import httpx

    from tombench.kit.calls import CallFailed, reread

    tries = [0]

    async def call(cache: Any) -> str:
        tries[0] += 1
        raise httpx.RemoteProtocolError("peer closed connection without sending complete message body")

    with pytest.raises(CallFailed, match="failed 3 times in a row, the last with a broken connection"):
        asyncio.run(reread(call, True, tries=3, backoff=0.0))
    assert tries[0] == 3


def test_reread_leaves_other_errors_alone() -> None:
    from tombench.kit.calls import reread, unreadable

    class ServiceTemporarilyOverloaded(Exception):
        pass

    assert unreadable(ServiceTemporarilyOverloaded("busy")) is not None  # names itself transient
    assert unreadable(ValueError("bad request")) is None
    tries = [0]

    async def call(cache: Any) -> str:
        tries[0] += 1
        raise ValueError("bad request")

    with pytest.raises(ValueError, match="bad request"):
        asyncio.run(reread(call, True, backoff=0.0))
    assert tries[0] == 1
