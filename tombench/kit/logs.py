"""Reading Inspect eval logs: the one place that finds logs in folders, reads them, and says in one line why a file
is not a readable log.

A log folder is a working folder: it holds a truncated `.eval` from a run that was killed while writing, a
`notes.json`, a half-copied file. Every reader (`tombench report`, `report suites`, `leaderboard push`) reads
through here, so each such file costs one line naming it and why (`UnreadableLog`), never a traceback and never
the whole report.

`run_settings` is what makes two logs "the same run": every setting that shapes the numbers (task and its version,
task arguments, model and its arguments and roles, decoding, data, epochs, limits, solver, scorers). Two logs with
equal settings are repeats of one configuration; two logs that differ in any of them are different experiments.
Readers keep both apart and never pool them silently.

**Shards**. A task run as `-T shard=K/N` on N machines writes N logs that are *parts of one
run*, not N runs nor repeats: `shard_of` reads the part, and `run_settings` leaves the part out (task argument
`shard` and the items each shard happens to hold; it keeps the shard count), so the N logs share one key.
`shard_groups` sorts logs of one key into complete runs and says in one line what is missing or doubled;
`combine_shards` makes one log of a complete set (samples together, metrics recomputed by Inspect from them).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["EVAL_SET_FILES", "LOG_SUFFIXES", "RUNTIME_ARGS", "ShardSet", "shaping_args", "UnreadableLog", "combine_shards", "log_paths", "read_log",
           "read_sample_summaries", "run_settings", "settings_key", "shard_groups", "shard_of"]

#: The file suffixes Inspect writes logs with.
LOG_SUFFIXES = (".eval", ".json")


class UnreadableLog(ValueError):
    """A file that is not a readable Inspect eval log. Its text is one line: the file and why."""

    def __init__(self, path: str | Path, why: str) -> None:
        self.path = Path(path)
        self.why = why
        super().__init__(f"{path}: not a readable Inspect eval log ({why})")

    @classmethod
    def from_error(cls, path: str | Path, error: BaseException) -> UnreadableLog:
        """The one-line error for whatever reading `path` raised."""
        return cls(path, _why(error))


#: The files `inspect eval-set` writes beside its logs (its manifest, the headers of the folder's logs, the viewer's
#: listing): JSON, so they look like logs by name, but none is one.
EVAL_SET_FILES = frozenset({"eval-set.json", "logs.json", "listing.json"})


def log_paths(paths: Iterable[str | Path], on_skip: Callable[[str], None] = lambda line: None) -> list[Path]:
    """Expand directories into the Inspect logs they may contain (.eval and .json files, sorted); named files are
    kept as given. A path that does not exist raises FileNotFoundError with a one-line message.

    `inspect eval-set`'s bookkeeping (`EVAL_SET_FILES`) is left out, with one line per folder through `on_skip`, so
    every reader takes an eval-set's log folder as it is."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(x for x in p.rglob("*") if x.suffix in LOG_SUFFIXES and x.is_file())
            out += _without_eval_set_files(found, on_skip)
        elif p.exists():
            out += _without_eval_set_files([p], on_skip)
        else:
            raise FileNotFoundError(f"no such log file or folder: {p}")
    return out


def _without_eval_set_files(files: list[Path], on_skip: Callable[[str], None]) -> list[Path]:
    """`files` less `inspect eval-set`'s bookkeeping, said in one line per folder that held some."""
    skipped: dict[Path, list[str]] = {}
    for f in files:
        if f.name in EVAL_SET_FILES:
            skipped.setdefault(f.parent, []).append(f.name)
    for folder, names in skipped.items():
        on_skip(f"skipped {', '.join(names)} in {folder}: inspect eval-set's bookkeeping, not eval logs")
    return [f for f in files if f.name not in EVAL_SET_FILES]


def _why(error: BaseException) -> str:
    """A short reason for a failed read, in the user's words rather than the zip or JSON library's."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    if "EOCD" in text or "zip" in text.lower() or type(error).__name__ == "BadZipFile":
        return "a damaged or truncated .eval file, e.g. from a run killed while writing"
    if isinstance(error, UnicodeDecodeError):
        return "a binary file, not JSON"
    if type(error).__name__ == "ValidationError" or text.startswith("Unable to read log file"):
        return "JSON without the fields of an eval log"
    if isinstance(error, json.JSONDecodeError) or text.startswith("expected value"):
        return "not JSON"
    if isinstance(error, OSError):
        return error.strerror or text
    return f"{type(error).__name__}: {text}"[:200]


def read_log(path: str | Path, **options: Any) -> Any:
    """`inspect_ai.log.read_eval_log(path, **options)`, raising `UnreadableLog` (one line) for any file that is not
    a readable log."""
    from inspect_ai.log import read_eval_log

    try:
        return read_eval_log(str(path), **options)
    except Exception as e:  # noqa: BLE001 - whatever the zip, JSON or pydantic layer raises becomes one line
        raise UnreadableLog.from_error(path, e) from e


def read_sample_summaries(path: str | Path) -> list[Any]:
    """The samples' summaries (ids, epochs, small metadata fields, scores, errors), without messages or events.

    For an `.eval` file this is one small member of the zip, so a report that needs only scores and metadata reads
    a fraction of what the full log holds."""
    from inspect_ai.log import read_eval_log_sample_summaries

    try:
        return list(read_eval_log_sample_summaries(str(path)))
    except Exception as e:  # noqa: BLE001 - as in read_log
        raise UnreadableLog.from_error(path, e) from e


def _digest(values: list[str]) -> str:
    """A short digest of the sample ids: two runs over different items are different experiments."""
    return hashlib.sha256("\n".join(values).encode()).hexdigest()[:16]


def _generate_config(log: Any) -> dict[str, Any]:
    """The decoding the run used: the model's config overridden by the plan's (the task's merged with the CLI's)."""
    config = log.eval.model_generate_config.model_dump(exclude_none=True)
    if log.plan is not None:
        config.update(log.plan.config.model_dump(exclude_none=True))
    return config


def shard_of(log: Any) -> tuple[int, int] | None:
    """(K, N) of a log run as shard K of N (`-T shard=K/N`, N > 1); None for a whole run.

    The task's metadata says which shard it ran (the tasks write the resolved "K/N" there), the task argument only
    what was asked: `-T shard=auto/N` is the same argument in all N logs of a job array."""
    value = (log.eval.metadata or {}).get("shard") or (log.eval.task_args or {}).get("shard")
    k, sep, n = str(value or "").partition("/")
    if not sep or not (k.strip().isdigit() and n.strip().isdigit()):
        return None
    kn = int(k), int(n)
    return kn if 1 <= kn[0] <= kn[1] and kn[1] > 1 else None


#: task arguments that say where the work runs, never what it computes (`workers`: processes for the live search's
#: CPU, the same samples and scores for any value): left out wherever logs are compared
RUNTIME_ARGS = frozenset({"workers"})


def shaping_args(task_args: dict[str, Any] | None) -> dict[str, Any]:
    """The task arguments that shape a run's numbers: all but `RUNTIME_ARGS`."""
    return {k: v for k, v in (task_args or {}).items() if k not in RUNTIME_ARGS}


def run_settings(log: Any) -> dict[str, Any]:
    """Every setting of a log (a header is enough) that shapes its numbers; equal settings = repeats of one run, or,
    for shard logs (`shard_of`), parts of one run: the part itself is left out, the shard count kept."""
    spec = log.eval
    meta = spec.metadata or {}
    config = spec.config
    shard = shard_of(log)
    # a shard's items are its part of the grid: the other task arguments fix the whole run's
    items = [spec.dataset.samples, _digest(sorted(map(str, spec.dataset.sample_ids or [])))] if shard is None else []
    return {
        "task": spec.task_registry_name or spec.task, "task_version": str(spec.task_version),
        "task_args": {k: v for k, v in shaping_args(spec.task_args).items() if k != "shard"},
        "shards": shard[1] if shard else 1,
        "model": spec.model, "model_args": spec.model_args,
        "model_roles": {k: str(getattr(v, "model", v)) for k, v in (spec.model_roles or {}).items()},
        "generate_config": _generate_config(log),
        "dataset": [spec.dataset.name, spec.dataset.location, meta.get("dataset_id"), meta.get("dataset_revision"),
                    *items],
        "epochs": config.epochs or 1, "epochs_reducer": config.epochs_reducer, "limit": config.limit,
        "sample_id": config.sample_id, "solver": spec.solver, "solver_args": spec.solver_args,
        "scorers": [(s.name, s.options) for s in spec.scorers or []],
    }


def settings_key(log: Any) -> str:
    """`run_settings` as one canonical string, to compare and group logs by."""
    return json.dumps(run_settings(log), sort_keys=True, default=str)


@dataclass
class ShardSet:
    """The logs of one sharded run (one per shard, in shard order, absent ones left out), and what is wrong."""

    shards: int
    #: shard number K -> the log (any object) of that shard in this run
    parts: dict[int, Any] = field(default_factory=dict)

    @property
    def missing(self) -> list[int]:
        return [k for k in range(1, self.shards + 1) if k not in self.parts]

    @property
    def complete(self) -> bool:
        return not self.missing


def _shard_list(ks: Iterable[int], n: int) -> str:
    return ", ".join(f"{k}/{n}" for k in ks)


def shard_groups(items: Sequence[T], shard: Callable[[T], tuple[int, int]], label: str
                 ) -> tuple[list[ShardSet], str | None]:
    """Sort the shard logs of one configuration (equal `settings_key`, in start order) into runs, and one line
    saying what is missing or doubled (None when every run has each shard once).

    Run r takes the r-th log of each shard: a shard run twice makes a second, incomplete run rather than counting
    its questions twice, and nothing is dropped silently."""
    n = shard(items[0])[1]
    by_k: dict[int, list[T]] = {}
    for it in items:
        by_k.setdefault(shard(it)[0], []).append(it)
    runs = [ShardSet(n) for _ in range(max(len(v) for v in by_k.values()))]
    for k, logs in by_k.items():
        for r, log in enumerate(logs):
            runs[r].parts[k] = log
    doubled = sorted(k for k, v in by_k.items() if len(v) > 1)
    missing = runs[0].missing  # the first run has every shard that has a log at all
    if not doubled and not missing:
        return runs, None
    what = ([f"shard {_shard_list(missing, n)} missing"] if missing else []) + \
        ([f"shard {_shard_list(doubled, n)} more than once (the later logs make an incomplete run of their own)"]
         if doubled else [])
    return runs, f"{label}: {'; '.join(what)}; a sharded run needs each of its {n} shards' logs once"


def _without_shard(values: dict[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in (values or {}).items() if k != "shard"}


def _union_header(spec: Any, logs: Sequence[Any]) -> None:
    """The combined run's header: no `shard`, the earliest start, the union of the items, an id from the parts'."""
    spec.task_args, spec.task_args_passed = _without_shard(spec.task_args), _without_shard(spec.task_args_passed)
    spec.metadata = _without_shard(spec.metadata) or None
    spec.created = min(log.eval.created for log in logs)
    # stable: the same shard logs give the same id
    spec.eval_id = hashlib.sha256("|".join(log.eval.eval_id for log in logs).encode()).hexdigest()[:22]
    spec.dataset.sample_ids = [i for log in logs for i in (log.eval.dataset.sample_ids or [])]
    spec.dataset.samples = sum(log.eval.dataset.samples or 0 for log in logs)


def _sum_usage(usage: dict[str, Any], logs: Sequence[Any]) -> None:
    """Add the other shards' model usage to the first's, model by model."""
    for log in logs:
        for model, u in log.stats.model_usage.items():
            usage[model] = usage[model] + u if model in usage else u


def combine_shards(logs: Sequence[Any]) -> Any:
    """One log of a complete shard set (full logs, in shard order): its samples together, its metrics recomputed
    from them by Inspect (`recompute_metrics`, the task's own metrics and reducers), usage summed, the dataset the
    union, `shard` dropped from the task arguments; the header is the first shard's, started at the earliest.

    The union of the shards' samples is the unsharded run's (each setting keeps its seeds), so every metric is the
    one an unsharded run would log, not an average of the shards' averages."""
    from inspect_ai.log import recompute_metrics

    first = logs[0].model_copy(deep=True)
    _union_header(first.eval, logs)
    first.samples = [s for log in logs for s in (log.samples or [])]
    _sum_usage(first.stats.model_usage, logs[1:])
    recompute_metrics(first)
    first.results.total_samples = sum(log.results.total_samples for log in logs)
    return first
