"""The `tombench` Inspect model provider: `--model tombench/<baseline>` for the offline baselines.

    inspect eval tombench/tomsynth --model tombench/oracle
    inspect eval tombench/tomsynth --model tombench/random -M seed=3

The provider answers the last user message with `tombench.models._baselines.answer`; no network, no key. Token usage
is counted in whitespace-separated words so that Inspect's accounting and the search's budgets still work.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageUser,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from tombench.kit.errors import OptionError

__all__ = ["BaselineAPI", "tombench_baselines"]


def _words(text: str) -> int:
    return len(text.split())


class BaselineAPI(ModelAPI):
    """An Inspect `ModelAPI` whose "model" is a pure baseline answerer (oracle, reality, recency, primacy, random).

    Model args: `seed` (int, default 0) for `random`; `contexts` (a path to a contexts json/jsonl file) whose
    state-change templates make object-state sentences parseable beyond the packaged bank.
    """

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig | None = None,
        seed: int | str = 0,
        contexts: str | None = None,
        **model_args: Any,
    ) -> None:
        from tombench.models._baselines import BASELINES

        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())
        if model_name not in BASELINES:
            # an OptionError is Inspect's one-line PrerequisiteError: `--model tombench/nosuch` is one line, no traceback
            raise OptionError(f"Unknown tombench model 'tombench/{model_name}'. Known tombench models: "
                              f"{', '.join(f'tombench/{b}' for b in BASELINES)}")
        if model_args:
            raise OptionError(f"Unknown model args for tombench/{model_name}: {sorted(model_args)} (known: seed, contexts)")
        try:
            self.seed = int(seed)
        except ValueError:
            raise OptionError(f"Model arg seed must be an integer, got {seed!r}") from None
        self.contexts: tuple = ()
        if contexts:
            from tombench.generators.exploretom.contexts import load_contexts

            self.contexts = tuple(load_contexts(contexts))

    def max_connections(self) -> int:
        # pure CPU work: concurrency buys nothing but memory
        return 1000

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        from tombench.models._baselines import answer

        users = [m for m in input if isinstance(m, ChatMessageUser)]
        prompt = users[-1].text if users else ""
        # the seed of a GenerateConfig (e.g. --seed) takes precedence over the model arg
        seed = config.seed if config.seed is not None else self.seed
        completion = answer(self.model_name, prompt, seed=seed, contexts=self.contexts)
        output = ModelOutput.from_content(model=f"tombench/{self.model_name}", content=completion)
        n_in = sum(_words(m.text) for m in input)
        n_out = _words(completion)
        output.usage = ModelUsage(input_tokens=n_in, output_tokens=n_out, total_tokens=n_in + n_out)
        return output


@modelapi(name="tombench")
def tombench_baselines() -> type[ModelAPI]:
    """Registered as `tombench`, so `get_model("tombench/oracle")` builds a `BaselineAPI` named "oracle"."""
    return BaselineAPI
