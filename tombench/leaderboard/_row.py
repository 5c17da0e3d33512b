"""The one leaderboard row schema: a flat, typed record of one (eval log, task), with its provenance.

Rows are what gets published (one immutable JSON file per submission), what `datasets.load_dataset` returns (the
dataset card declares `FEATURES`, derived from this dataclass) and what every view is rendered from. Bump
`SCHEMA_VERSION` when a field changes meaning; add fields only at the end, with defaults, so old files still load.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import types
import typing
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

SCHEMA_VERSION = 1

#: Columns whose table type is richer than their Python type. `created_at` is an ISO-8601 UTC string in Python and
#: in the files, but a timestamp in the table: pyarrow's JSON reader turns ISO strings into timestamps anyway.
_DTYPE_OVERRIDES = {"created_at": "timestamp[us, tz=UTC]"}

#: z for a two-sided 95% normal interval.
Z95 = 1.959963984540054


@dataclass(frozen=True)
class Breakdown:
    """One group of the shared `breakdown` metric: e.g. dimension `action_set`, group `tomi`."""

    dimension: str
    group: str
    value: float
    stderr: float | None = None
    n: int | None = None


@dataclass(frozen=True)
class ResultRow:
    """One leaderboard entry. Field order is the column order of the published table."""

    # identity
    schema_version: int
    submission_id: str
    created_at: str
    # what was run
    benchmark: str
    package_version: str | None
    task: str
    task_version: str
    task_args: str  # canonical JSON: the table needs one type per column, task arguments differ per task
    dataset_id: str | None
    dataset_revision: str | None
    # who was evaluated
    model: str
    provider: str
    model_revision: str | None
    model_params: str  # canonical JSON of the model arguments
    open_weights: bool | None
    model_size_b: float | None  # parameters, in billions, where known
    # how
    temperature: float | None
    max_tokens: int | None
    seed: int | None
    epochs: int
    harness: str
    harness_version: str | None
    config_hash: str
    # results
    samples_total: int
    samples_completed: int
    samples_errored: int
    metric: str
    accuracy: float
    stderr: float | None
    ci_low: float
    ci_high: float
    breakdowns: list[Breakdown] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    # the live adversarial task only
    settings_filled: float | None = None
    model_calls: int | None = None
    # provenance
    eval_id: str = ""
    run_id: str = ""
    log_file: str | None = None
    submitter: str | None = None
    notes: str | None = None

    # --- (de)serialisation -----------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def to_json(self) -> str:
        """One line of JSON (the published file format: one submission per file, one row per line)."""
        return json.dumps(self.to_dict(), sort_keys=False, ensure_ascii=False, allow_nan=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ResultRow:
        """Read a row written by this or an older schema version (unknown keys are ignored, missing get defaults)."""
        names = {f.name for f in dataclasses.fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in names}
        kwargs["breakdowns"] = [Breakdown(**b) for b in kwargs.get("breakdowns") or []]
        if hasattr(kwargs.get("created_at"), "isoformat"):  # a datetime, as `datasets` returns the column
            kwargs["created_at"] = kwargs["created_at"].astimezone(timezone.utc).isoformat()
        return cls(**kwargs)

    @classmethod
    def from_json(cls, text: str) -> ResultRow:
        return cls.from_dict(json.loads(text))

    # --- identity ----------------------------------------------------------------------------------------------
    @property
    def dedup_key(self) -> tuple[str, str, str, str, str]:
        """Rows sharing this key are re-runs of the same configuration: only the newest is shown."""
        return (self.model, self.model_revision or "", self.task, self.task_version, self.config_hash)


def utc_iso(timestamp: str) -> str:
    """An ISO-8601 timestamp, normalised to UTC (so files and the loaded table agree)."""
    return datetime.fromisoformat(timestamp).astimezone(timezone.utc).isoformat()


def canonical_json(value: Any) -> str:
    """Stable JSON for hashing and for the JSON-string columns (sorted keys, no whitespace)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str, ensure_ascii=False)


def config_hash(settings: dict[str, Any]) -> str:
    """Short SHA-256 of every run-shaping setting, so equal configurations compare equal across machines."""
    return hashlib.sha256(canonical_json(settings).encode()).hexdigest()[:16]


def confidence_interval(value: float, stderr: float | None, n: int) -> tuple[float, float]:
    """95% normal interval, clipped to [0, 1]. Without a logged stderr, use the binomial one."""
    if stderr is None or not math.isfinite(stderr):
        stderr = math.sqrt(value * (1 - value) / n) if n > 0 else 0.0
    return max(0.0, value - Z95 * stderr), min(1.0, value + Z95 * stderr)


# --- `datasets` features, derived from the dataclass so the card can never drift from the schema -------------------
def _feature(tp: Any) -> Any:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return _feature(args[0])
    if origin is list:
        (inner,) = typing.get_args(tp)
        return [_feature(inner)]
    if dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        return {f.name: _feature(hints[f.name]) for f in dataclasses.fields(tp)}
    return {str: "string", int: "int64", float: "float64", bool: "bool"}[tp]


def features() -> dict[str, Any]:
    """The row schema as a `datasets.Features`-style dict (dtype names, lists as one-element lists)."""
    hints = typing.get_type_hints(ResultRow)
    return {f.name: _DTYPE_OVERRIDES.get(f.name) or _feature(hints[f.name]) for f in dataclasses.fields(ResultRow)}


def card_features() -> list[dict[str, Any]]:
    """The features in the dataset card's YAML form (`dataset_info.features`)."""

    def one(name: str, feat: Any) -> dict[str, Any]:
        if isinstance(feat, str):
            return {"name": name, "dtype": feat}
        if isinstance(feat, list):
            inner = feat[0]
            if isinstance(inner, dict):
                return {"name": name, "list": [one(k, v) for k, v in inner.items()]}
            return {"name": name, "sequence": inner}
        return {"name": name, "struct": [one(k, v) for k, v in feat.items()]}

    return [one(k, v) for k, v in features().items()]
