"""Offline baseline models (oracle, reality, recency, primacy, random) and their Inspect provider `tombench/<name>`.

Importing this package registers nothing heavy; `tombench._registry` imports `tombench.models.provider` so that
`--model tombench/<name>` resolves from the Inspect CLI.
"""

from tombench.models._baselines import (
    BASELINES,
    UNKNOWN,
    ParsedPrompt,
    answer,
    answer_question,
    offered_answers,
    prompt_seed,
    split_prompt,
)

__all__ = [
    "BASELINES",
    "UNKNOWN",
    "ParsedPrompt",
    "answer",
    "answer_question",
    "offered_answers",
    "prompt_seed",
    "split_prompt",
]
