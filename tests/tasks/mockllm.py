"""One scripted Inspect `mockllm` model for the evals' end-to-end tests.

Every eval's end-to-end test runs its task through `inspect_ai.eval` against a model whose replies the test chooses.
The replies are looked up by the prompt the model is shown (never by call order: Inspect runs samples concurrently),
and each reply carries an explicit usage, because mockllm's own token count downloads a tokenizer (no network in CI).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage, Model, ModelOutput, ModelUsage, get_model


def reply_model(respond: Callable[[list[ChatMessage]], str], *, model: str = "mockllm/model", input_tokens: int = 100,
                output_tokens: int = 3) -> Model:
    """Inspect's mock model (`model`: any name under mockllm/, the name its logs show) whose reply to each call is
    `respond(messages)`, with the given usage."""

    def output(messages: list[ChatMessage], *_: Any) -> ModelOutput:
        out = ModelOutput.from_content(model, respond(messages))
        out.usage = ModelUsage(input_tokens=input_tokens, output_tokens=output_tokens,
                               total_tokens=input_tokens + output_tokens)
        return out

    return get_model(model, custom_outputs=output, memoize=False)


def scripted(samples: Iterable[Sample], reply: Callable[[Sample], str], *, model: str = "mockllm/model",
             system: str | None = None, input_tokens: int = 100, output_tokens: int = 3) -> Model:
    """The mock model `model` answering each sample's prompt with `reply(sample)`.

    With `system`, every call must open with that system message (the protocol's instruction is what the model sees).
    """
    by_prompt = {str(s.input): s for s in samples}

    def respond(messages: list[ChatMessage]) -> str:
        if system is not None:
            assert messages[0].role == "system" and messages[0].text == system
        return reply(by_prompt[messages[-1].text])

    return reply_model(respond, model=model, input_tokens=input_tokens, output_tokens=output_tokens)


def metrics(log: Any) -> dict[str, float]:
    """Every metric of an eval log's scores by name (an EvalLog)."""
    return {k: m.value for score in log.results.scores for k, m in score.metrics.items()}
