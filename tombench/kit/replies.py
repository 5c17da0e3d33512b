"""Reading what a model wrote: a JSON value inside prose, a yes/no verdict, a score, a JSON boolean.

Models asked for "JSON only" or "answer yes or no" still wrap their answer in prose and code fences, so every
generator reads replies leniently. A reply that cannot be read gives `None`, never a guess: the caller decides
whether that is a retry, a rejection or a missing value.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["find_json", "read_bool", "read_score", "read_yes_no"]

# any language tag after the opening fence; it holds no bracket, so it can never start a JSON value
_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_OPENERS = {dict: "{", list: "["}


def find_json(
    text: str,
    kind: type | tuple[type, ...] = dict,
    *,
    fenced_first: bool = True,
    forgive_trailing_commas: bool = False,
) -> Any:
    """The first JSON object (`kind=dict`), list (`list`) or either (`(dict, list)`) in `text`, or None.

    Every `{`/`[` is tried as a start with a real JSON decoder, so braces in the prose or inside strings cannot
    confuse it; the outermost value wins. With `fenced_first`, code-fenced blocks are searched before the whole
    text, because a model that fences its answer often shows an example in the prose around it.
    `forgive_trailing_commas` reads `{"a": 1,}` as `{"a": 1}` (tried only after the exact text fails at a start).
    """
    kinds = kind if isinstance(kind, tuple) else (kind,)
    openers = "".join(_OPENERS[k] for k in kinds)
    candidates = [m.group(1) for m in _FENCE.finditer(text)] if fenced_first else []
    decoder = json.JSONDecoder()
    for candidate in [*candidates, text]:
        for i, ch in enumerate(candidate):
            if ch in openers and (value := _decode_at(decoder, candidate[i:], forgive_trailing_commas)) is not None:
                return value
    return None


def _decode_at(decoder: json.JSONDecoder, text: str, forgive_trailing_commas: bool) -> Any:
    attempts = (text, _TRAILING_COMMA.sub(r"\1", text)) if forgive_trailing_commas else (text,)
    for attempt in attempts:
        try:
            return decoder.raw_decode(attempt)[0]
        except json.JSONDecodeError:
            continue
    return None


def read_yes_no(text: str, *, label: str | None = None) -> bool | None:
    """A yes/no verdict: True, False, or None for anything else ("maybe", "it depends", empty).

    Without `label`, the reply's first word decides (after an optional leading "Answer"), as a judge asked to
    "answer yes or no" tends to start with its verdict and then explain. With `label` (e.g. "Persuaded"), the reply
    is reasoning that ends in "<label>: yes/no": the last such label decides, else the reply must be a lone yes/no.
    """
    if label is None:
        words = re.findall(r"[a-z]+", text.lower())
        if words[:1] == ["answer"]:
            words = words[1:]
        return _YES_NO.get(words[0]) if words else None
    labelled = re.findall(rf"{re.escape(label)}\s*[:=]\s*\**\s*(yes|no)\b", text, re.IGNORECASE)
    if labelled:
        return labelled[-1].lower() == "yes"
    return _YES_NO.get(text.strip().strip(".!").lower())


_YES_NO = {"yes": True, "no": False}
_SCORE = re.compile(r"score\s*[:=]?\s*\**\s*(\d+(?:\.\d+)?)", re.IGNORECASE)


def read_score(text: str, low: float = 1, high: float = 10) -> float | None:
    """The last "Score: N" in `text` (or a bare number if that is all there is), if within [low, high]."""
    matches = _SCORE.findall(text)
    if not matches:
        bare = text.strip().rstrip(".")
        matches = [bare] if re.fullmatch(r"\d+(?:\.\d+)?", bare) else []
    if not matches:
        return None
    value = float(matches[-1])
    return value if low <= value <= high else None


def read_bool(value: Any) -> bool | None:
    """A JSON field meant as a boolean, which models also write as "yes", "Y", 1 or "false"."""
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
