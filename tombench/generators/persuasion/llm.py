"""Calling a model and reading its answer: the one adapter every agent and judge goes through.

Agents accept an Inspect `Model` (any provider, any model role) or a plain async callable from chat messages to
text (handy for scripted agents). Model answers are parsed leniently (JSON inside prose or code fences, "Score: 7",
"yes"/"no") because judges and agents are free-form LLMs; a value that cannot be read is `None`, never a guess.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from inspect_ai.model import CachePolicy, ChatMessage, Model

__all__ = ["AgentModel", "complete", "parse_json_object", "parse_bool", "parse_score", "parse_yes_no"]

#: An Inspect model, or an async function (messages -> text).
AgentModel = Model | Callable[[list[ChatMessage]], Awaitable[str]]


async def complete(model: AgentModel, messages: Sequence[ChatMessage], cache: bool | CachePolicy = False) -> str:
    """One completion, through Inspect (so retries, concurrency limits, usage accounting and caching apply)."""
    if isinstance(model, Model):
        output = await model.generate(list(messages), cache=cache)
        return output.completion
    return await model(list(messages))


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def parse_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in `text` (fenced or not), or None."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for candidate in candidates:
        start = candidate.find("{")
        while start != -1:
            try:
                value, _ = json.JSONDecoder().raw_decode(candidate[start:])
            except json.JSONDecodeError:
                start = candidate.find("{", start + 1)
                continue
            if isinstance(value, dict):
                return value
            start = candidate.find("{", start + 1)
    return None


def parse_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return bool(value)
    if isinstance(value, str):
        v = value.strip().lower()
        if v in {"true", "yes", "y", "1"}:
            return True
        if v in {"false", "no", "n", "0"}:
            return False
    return None


_SCORE = re.compile(r"score\s*[:=]?\s*\**\s*(\d+(?:\.\d+)?)", re.IGNORECASE)


def parse_score(text: str, low: float = 1, high: float = 10) -> float | None:
    """The last "Score: N" in `text` (or a bare number if that is all there is), if within [low, high]."""
    matches = _SCORE.findall(text)
    if not matches:
        bare = text.strip().rstrip(".")
        matches = [bare] if re.fullmatch(r"\d+(?:\.\d+)?", bare) else []
    if not matches:
        return None
    value = float(matches[-1])
    return value if low <= value <= high else None


_YES_NO = re.compile(r"persuaded\s*[:=]\s*\**\s*(yes|no)\b", re.IGNORECASE)


def parse_yes_no(text: str) -> bool | None:
    """The last "Persuaded: yes/no" in `text`, else a lone yes/no answer."""
    matches = _YES_NO.findall(text)
    if matches:
        return matches[-1].lower() == "yes"
    word = text.strip().strip(".!").lower()
    return {"yes": True, "no": False}.get(word)
