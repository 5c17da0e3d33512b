"""The one prompt builder: how a story question is put to a model (semantics §5.5).

ExploreToM asks every question the same way: system prompt "You are a helpful assistant.", user message
`{story}\\n{question} Short Answer.`, greedy decoding (temperature 0, top_p 1) and at most 40 new tokens. The A*
search, the offline baselines and the Inspect tasks must all ask exactly this, or their accuracies are not
comparable, so the decision lives here and nowhere else.

A `Prompt` is a frozen, hashable value holding everything that determines a greedy model call except the model
itself; `(model name, prompt)` is therefore the cache key of a call, and `Prompt.cache_key(model)` gives a stable
string form of it (the same across processes and PYTHONHASHSEED values) for on-disk caches and resumable jsonl.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["SYSTEM_PROMPT", "DEFAULT_TEMPLATE", "Prompt", "build_prompt"]

SYSTEM_PROMPT: str = "You are a helpful assistant."
"""The paper's system prompt (ExploreToM, Appendix B.4)."""

DEFAULT_TEMPLATE: str = "{story}\n{question} Short Answer."
"""The paper's user message: the whole story, a newline, the question, then " Short Answer."."""


@dataclass(frozen=True)
class Prompt:
    """One model call, minus the model: messages and decoding parameters.

    Frozen and hashable because it is (with the model name) the key under which a response is cached: two calls with
    equal prompts to the same model must get the same answer at temperature 0, so the search never pays twice.
    """

    system: str
    user: str
    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 40

    def to_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (for jsonl rows and Inspect `GenerateConfig` arguments)."""
        return asdict(self)

    def cache_key(self, model: str) -> str:
        """A stable SHA-256 hex key for (model, prompt); independent of PYTHONHASHSEED, unlike `hash()`."""
        payload = json.dumps({"model": model, **self.to_dict()}, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def build_prompt(
    story_text: str,
    question_text: str,
    *,
    template: str = DEFAULT_TEMPLATE,
    system: str = SYSTEM_PROMPT,
) -> Prompt:
    """Build the prompt for one question about one story.

    `story_text` is the rendered story (all sentences, modifier sentences included, joined by single spaces) and
    `question_text` the question exactly as §5.1 words it; neither is altered, because a stray space changes the
    cache key and, for some models, the answer. `template` must contain the `{story}` and `{question}` fields and no
    others; a custom one is for prompt ablations, the default reproduces the paper.
    """
    for field_name in ("{story}", "{question}"):
        if field_name not in template:
            raise ValueError(f"Prompt template must contain {field_name}: {template!r}")
    try:
        user = template.format(story=story_text, question=question_text)
    except (KeyError, IndexError, ValueError) as err:
        raise ValueError(
            f"Prompt template may only use the {{story}} and {{question}} fields (double other braces): {template!r}"
        ) from err
    return Prompt(system=system, user=user)
