"""What every suite task shares: its task metadata (the report and the leaderboard read it) and option checks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tombench.kit.errors import OptionError
from tombench.kit.suites import suite_info

__all__ = ["suite_metadata", "one_of", "as_list"]


def suite_metadata(
    suite: str,
    *,
    provenance: Mapping[str, Any],
    records: int,
    chance: float | None,
    **extra: Any,
) -> dict[str, Any]:
    """The task metadata of a suite task (`Task(metadata=...)`), with the keys the report and leaderboard read.

    `suite` is the suite's name in the registry (`tombench.kit.suites`), whose record gives the `headline` (a metric
    of the log: "accuracy", "macro_f1", ...) and the `headline_groups` (the breakdown dimensions that form the
    suite's own table); `chance` the expected accuracy of a uniform guess (mean of 1/k over the items run; None
    for free-form answers); `provenance` comes from `tombench.kit.pinning.fetch`; `records` is the number of items read from the
    file (before any filter), `extra` anything suite-specific (protocol, prompting, filters).
    """
    info = suite_info(suite)
    return {
        "benchmark": suite,
        "suite": suite,
        "headline": info.headline,
        "headline_groups": list(info.groups),
        "chance": chance,
        **dict(provenance),
        "dataset_records": records,
        **extra,
    }


def as_list(value: str | int | float | Sequence[str | int] | None) -> list[str] | None:
    """A `-T` option given once ("a"; `-T order=3` arrives as the int 3) or several times / comma-separated ("a,b")
    as a list of strings; None stays None."""
    if value is None:
        return None
    items = [value] if isinstance(value, (str, int, float)) else list(value)
    return [p.strip() for v in items for p in str(v).split(",") if p.strip()]


def one_of(name: str, values: str | Sequence[str] | None, valid: Sequence[Any]) -> list[str] | None:
    """Validate a filter option against its valid values (compared as strings, case-insensitive): one-line error."""
    given = as_list(values)
    if given is None:
        return None
    lookup = {str(v).lower(): str(v) for v in valid}
    bad = [v for v in given if v.lower() not in lookup]
    if bad:
        raise OptionError(f"Invalid {name} value(s): {bad}. Must be one of: {[str(v) for v in valid]}")
    return [lookup[v.lower()] for v in given]
