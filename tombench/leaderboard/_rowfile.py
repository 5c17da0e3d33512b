"""Reading a row file that anyone may have written: a damaged file becomes one line naming it, never a traceback.

A board's rows come from files other people write (a Hub dataset accepts any commit, a local copy any editor), so
one truncated, binary or foreign JSON file must not take the board down for every reader. `parse_row` checks the
text against the row schema (`ResultRow`'s fields and their types) before building the row; what does not fit
raises `DamagedRow`, whose message is the one line every entry point shows (`leaderboard show`, `push`, the HTML
page, the Space) while the other rows are shown and ranked.
"""

from __future__ import annotations

import dataclasses
import json
import math
import types
import typing
from dataclasses import dataclass
from functools import cache
from typing import Any

from ._row import ResultRow
from ._text import clip, inert

#: Characters of a file name shown in a skip line (names from the Hub are user data).
NAME_CHARS = 120


class DamagedRow(ValueError):
    """A row file that is not a row: `name` (where it was read) and `why`, shown as one line."""

    def __init__(self, name: str, why: str) -> None:
        self.name, self.why = clip(inert(name), NAME_CHARS), why
        super().__init__(f"skipped {self.name}: {why}")


@dataclass
class RowSet:
    """The rows read from a board's files, and one line per file skipped as damaged."""

    rows: list[ResultRow] = dataclasses.field(default_factory=list)
    skipped: list[str] = dataclasses.field(default_factory=list)


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false", type(None): "null"}.get(
        type(value), "a number")


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _fits(value: Any, tp: Any) -> bool:
    """Whether a JSON value can stand for a field of type `tp` (an int where a float goes; never a bool for a
    number)."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, a) for a in typing.get_args(tp))
    if tp is type(None):
        return value is None
    if origin is list:
        (inner,) = typing.get_args(tp)
        return isinstance(value, list) and all(_fits(v, inner) for v in value)
    if dataclasses.is_dataclass(tp):
        return isinstance(value, dict) and not _problem(value, tp)
    if tp is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if tp is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, tp)


def _problem(data: dict[str, Any], cls: type) -> str:
    """What keeps `data` from being a `cls` record: missing required fields, or a field of the wrong type ('')."""
    fields = dataclasses.fields(cls)
    required = [f.name for f in fields
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    missing = [n for n in required if n not in data]
    if missing:
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        return f"missing {', '.join(missing[:3])}{more}"
    hints = _hints(cls)
    for f in fields:
        if f.name in data and not _fits(data[f.name], hints[f.name]):
            return f"{f.name} is {_kind(data[f.name])}"
    return ""


def parse_row(content: bytes | str, name: str) -> ResultRow:
    """The row in a result file's content (one JSON object), or `DamagedRow` saying why it is not one."""
    if isinstance(content, bytes):
        try:
            content = content.decode("utf-8")
        except UnicodeDecodeError:
            raise DamagedRow(name, "not UTF-8 text (a binary or damaged file)") from None
    try:
        data = json.loads(content)
    except json.JSONDecodeError as e:
        where = "empty" if not content.strip() else f"line {e.lineno}, column {e.colno}"
        raise DamagedRow(name, f"not valid JSON (truncated or damaged: {where})") from None
    if not isinstance(data, dict):
        raise DamagedRow(name, f"JSON of another shape ({_kind(data)}, not a row object)")
    problem = _problem(data, ResultRow)
    if problem:
        raise DamagedRow(name, f"not a leaderboard row ({problem})")
    if not math.isfinite(data["accuracy"]):
        raise DamagedRow(name, "not a leaderboard row (accuracy is not a finite number)")
    try:
        return ResultRow.from_dict(data)
    except (TypeError, ValueError, AttributeError) as e:  # a nested record the checks above let through
        raise DamagedRow(name, f"not a leaderboard row ({type(e).__name__})") from None
