"""Comparing lists of records (stories, questions, rows) so that a failure says what differs, not only that a digest
or a long list changed: the first record that differs, named, and the first field in it, with both values.

    assert_same_records(got, want, name=lambda r: r["id"])
    # AssertionError: record 3 of 12 (tomi|p2|m2|r0|1) differs at questions[2].expected_answer: 'box', expected 'crate'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["assert_same_records", "first_difference"]


def _short(value: Any, width: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def _join(path: str, step: str) -> str:
    return f"{path}.{step}" if path and not step.startswith("[") else f"{path}{step}"


def first_difference(got: Any, want: Any, path: str = "") -> str | None:
    """The first place where two JSON-like values differ ("questions[2].expected_answer: 'box', expected 'crate'"),
    dict keys in sorted order; None when they are equal."""
    if isinstance(got, dict) and isinstance(want, dict):
        for key in sorted(got.keys() | want.keys(), key=str):
            if key not in want:
                return f"{_join(path, str(key))}: present, not expected"
            if key not in got:
                return f"{_join(path, str(key))}: missing (expected {_short(want[key])})"
            if (found := first_difference(got[key], want[key], _join(path, str(key)))) is not None:
                return found
        return None
    if isinstance(got, (list, tuple)) and isinstance(want, (list, tuple)):
        for i, (g, w) in enumerate(zip(got, want, strict=False)):
            if (found := first_difference(g, w, f"{path}[{i}]")) is not None:
                return found
        if len(got) != len(want):
            return f"{path or 'value'}: {len(got)} items, expected {len(want)}"
        return None
    if got != want or type(got) is not type(want):
        return f"{path or 'value'}: {_short(got)}, expected {_short(want)}"
    return None


def assert_same_records(got: Sequence[Any], want: Sequence[Any],
                        name: Callable[[int, Any], str] = lambda i, r: f"#{i}") -> None:
    """Fail naming the first record that differs (`name(index, expected record)`, e.g. its story id and setting) and
    the first field in it, or the records missing or extra at the end."""
    for i, (g, w) in enumerate(zip(got, want, strict=False)):
        if (found := first_difference(g, w)) is not None:
            raise AssertionError(f"record {i + 1} of {len(want)} ({name(i, w)}) differs at {found}")
    if len(got) > len(want):
        raise AssertionError(f"{len(got) - len(want)} record(s) more than expected, the first: {_short(got[len(want)])}")
    if len(got) < len(want):
        raise AssertionError(f"{len(want) - len(got)} record(s) missing, the first: {name(len(got), want[len(got)])}")
