"""The one leaderboard row schema: a flat, typed record of one (eval log, task), with its provenance.

Rows are what gets published (one immutable JSON file per submission), what `datasets.load_dataset` returns (the
dataset card declares `FEATURES`, derived from this dataclass) and what every view is rendered from. Bump
`SCHEMA_VERSION` when a field changes meaning; add fields only at the end, with defaults, so old files still load.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import types
import typing
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

#: 2: Wilson intervals with the story design effect (from per-sample scores), items for paired tests, run config.
SCHEMA_VERSION = 2

#: Columns whose table type is richer than their Python type. `created_at` is an ISO-8601 UTC string in Python and
#: in the files, but a timestamp in the table: pyarrow's JSON reader turns ISO strings into timestamps anyway.
_DTYPE_OVERRIDES = {"created_at": "timestamp[us, tz=UTC]"}


@dataclass(frozen=True)
class Breakdown:
    """One group of the shared `breakdown` metric: e.g. dimension `action_set`, group `tomi`.

    `ci_low`/`ci_high` are the group's 95% interval, computed like the headline's (see `_stats.py`).
    """

    dimension: str
    group: str
    value: float
    stderr: float | None = None
    n: int | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    stories: int | None = None


@dataclass(frozen=True)
class Items:
    """Per-item scores, for paired comparisons between rows (parallel lists, one entry per scored sample).

    `key` identifies the item by content: a digest of (sample id, digest of the input the model saw), so two rows
    pair an item only when both asked the same question. `story` is a digest of the sample's story id ("" when it
    has none). `score` is the sample's score on the headline scorer (reduced over epochs).
    """

    key: list[str] = field(default_factory=list)
    story: list[str] = field(default_factory=list)
    score: list[float] = field(default_factory=list)

    def by_key(self) -> dict[str, tuple[str | None, float]]:
        return {k: (s or None, v) for k, s, v in zip(self.key, self.story, self.score, strict=True)}


@dataclass(frozen=True)
class MetricValue:
    """Any other scalar metric the log reports (kept so tasks with other headline metrics lose nothing)."""

    scorer: str
    name: str
    value: float | None  # None: not a finite number in the log (NaN: a mean over no readable scores)


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
    metric: str  # "<scorer>/<metric>" of the headline (Inspect's `results.headline`), e.g. tom_answer/accuracy
    accuracy: float  # the headline value, a mean score in [0, 1]
    stderr: float | None  # as logged (not used for the interval)
    ci_low: float | None  # 95% interval from the per-sample scores (None: the headline is not a mean of them)
    ci_high: float | None
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
    # schema 2
    ci_method: str | None = None  # "wilson" (independent items) or "wilson-story-deff"; None: no interval
    stories: int | None = None  # distinct stories among the scored items
    design_effect: float | None = None
    items_digest: str | None = None  # digest of the sorted item keys: the content identity of the item set
    items: Items = field(default_factory=Items)
    run_config: str = "{}"  # canonical JSON of every run-shaping setting (what `config_hash` hashes)
    model_roles: str = "{}"  # canonical JSON {role: model}
    other_metrics: list[MetricValue] = field(default_factory=list)
    #: the live adversarial task: how many settings `settings_filled` is a share of (its interval needs it)
    settings_total: int | None = None

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
        bnames = {f.name for f in dataclasses.fields(Breakdown)}
        kwargs["breakdowns"] = [Breakdown(**{k: v for k, v in b.items() if k in bnames})
                                for b in kwargs.get("breakdowns") or []]
        items = kwargs.get("items")
        kwargs["items"] = Items(**items) if isinstance(items, dict) else Items()
        kwargs["other_metrics"] = [MetricValue(**m) for m in kwargs.get("other_metrics") or []]
        if hasattr(kwargs.get("created_at"), "isoformat"):  # a datetime, as `datasets` returns the column
            kwargs["created_at"] = kwargs["created_at"].astimezone(UTC).isoformat()
        return cls(**kwargs)

    @classmethod
    def from_json(cls, text: str) -> ResultRow:
        return cls.from_dict(json.loads(text))

    # --- identity ----------------------------------------------------------------------------------------------
    @property
    def dedup_key(self) -> tuple[str, str, str, str, str]:
        """Rows sharing this key are re-runs of the same configuration: only the newest is shown. The configuration
        is recomputed from `run_config` without the settings that cannot change a number (`shaping_config`), so
        rows pushed while `config_hash` still counted them (a `-T cache=true` re-run) are one configuration too."""
        return (self.model, self.model_revision or "", self.task, self.task_version, self.shaping_hash)

    @property
    def shaping_hash(self) -> str:
        """`config_hash` of the settings in `run_config` that can change items, prompts or scores (rows of schema 1,
        which have no `run_config`, keep the hash they were pushed with)."""
        try:
            settings = json.loads(self.run_config or "{}")
        except ValueError:
            settings = {}
        return config_hash(shaping_config(settings)) if isinstance(settings, dict) and settings else self.config_hash


def utc_iso(timestamp: str) -> str:
    """An ISO-8601 timestamp, normalised to UTC (so files and the loaded table agree)."""
    return datetime.fromisoformat(timestamp).astimezone(UTC).isoformat()


def canonical_json(value: Any) -> str:
    """Stable JSON for hashing and for the JSON-string columns (sorted keys, no whitespace)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str, ensure_ascii=False)


#: Task arguments that say how a run was carried out, never what it asked or how it scored it (the response cache,
#: processes, connections): they do not make a configuration of their own.
RUNTIME_TASK_ARGS = frozenset({"cache", "workers", "max_connections"})
#: Generate-config keys of the same kind (retries, timeouts, connections, caches, batching).
RUNTIME_GENERATE_KEYS = frozenset({"max_retries", "timeout", "attempt_timeout", "stream_idle_timeout", "max_connections",
                                   "adaptive_connections", "cache", "cache_prompt", "batch"})


def shaping_config(settings: dict[str, Any]) -> dict[str, Any]:
    """A run's settings without `RUNTIME_TASK_ARGS` and `RUNTIME_GENERATE_KEYS`: what `config_hash` hashes."""
    out = dict(settings)
    for key, dropped in (("task_args", RUNTIME_TASK_ARGS), ("generate_config", RUNTIME_GENERATE_KEYS)):
        if isinstance(out.get(key), dict):
            out[key] = {k: v for k, v in out[key].items() if k not in dropped}
    return out


def config_hash(settings: dict[str, Any]) -> str:
    """Short SHA-256 of every run-shaping setting, so equal configurations compare equal across machines."""
    return hashlib.sha256(canonical_json(settings).encode()).hexdigest()[:16]


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


def dataclass_features(cls: type) -> dict[str, Any]:
    """Any record dataclass (the per-sample details, the evaluation items) as a `datasets.Features`-style dict."""
    hints = typing.get_type_hints(cls)
    return {f.name: _feature(hints[f.name]) for f in dataclasses.fields(cls)}


def card_features(feats: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The features (default: the row's) in the dataset card's YAML form (`dataset_info.features`)."""

    def one(name: str, feat: Any) -> dict[str, Any]:
        if isinstance(feat, str):
            return {"name": name, "dtype": feat}
        if isinstance(feat, list):
            inner = feat[0]
            if isinstance(inner, dict):
                return {"name": name, "list": [one(k, v) for k, v in inner.items()]}
            return {"name": name, "sequence": inner}
        return {"name": name, "struct": [one(k, v) for k, v in feat.items()]}

    return [one(k, v) for k, v in (feats or features()).items()]
