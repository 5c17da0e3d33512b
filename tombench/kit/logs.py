"""Reading Inspect eval logs: the one place that finds logs in folders, reads them, and says in one line why a file
is not a readable log (issue #32 point 3).

A log folder is a working folder: it holds a truncated `.eval` from a run that was killed while writing, a
`notes.json`, a half-copied file. Every reader (`tombench report`, `report suites`, `leaderboard push`) reads
through here, so each such file costs one line naming it and why (`UnreadableLog`), never a traceback and never
the whole report.

`run_settings` is what makes two logs "the same run": every setting that shapes the numbers (task and its version,
task arguments, model and its arguments and roles, decoding, data, epochs, limits, solver, scorers). Two logs with
equal settings are repeats of one configuration; two logs that differ in any of them are different experiments.
Readers keep both apart and never pool them silently.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["LOG_SUFFIXES", "UnreadableLog", "log_paths", "read_log", "read_sample_summaries", "run_settings",
           "settings_key"]

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


def log_paths(paths: Iterable[str | Path]) -> list[Path]:
    """Expand directories into the Inspect logs they may contain (.eval and .json files, sorted); named files are
    kept as given. A path that does not exist raises FileNotFoundError with a one-line message."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(x for x in p.rglob("*") if x.suffix in LOG_SUFFIXES and x.is_file())
        elif p.exists():
            out.append(p)
        else:
            raise FileNotFoundError(f"no such log file or folder: {p}")
    return out


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


def run_settings(log: Any) -> dict[str, Any]:
    """Every setting of a log (a header is enough) that shapes its numbers; equal settings = repeats of one run."""
    spec = log.eval
    meta = spec.metadata or {}
    config = spec.config
    return {
        "task": spec.task_registry_name or spec.task, "task_version": str(spec.task_version),
        "task_args": spec.task_args, "model": spec.model, "model_args": spec.model_args,
        "model_roles": {k: str(getattr(v, "model", v)) for k, v in (spec.model_roles or {}).items()},
        "generate_config": _generate_config(log),
        "dataset": [spec.dataset.name, spec.dataset.location, meta.get("dataset_id"), meta.get("dataset_revision"),
                    spec.dataset.samples, _digest(sorted(map(str, spec.dataset.sample_ids or [])))],
        "epochs": config.epochs or 1, "epochs_reducer": config.epochs_reducer, "limit": config.limit,
        "sample_id": config.sample_id, "solver": spec.solver, "solver_args": spec.solver_args,
        "scorers": [(s.name, s.options) for s in spec.scorers or []],
    }


def settings_key(log: Any) -> str:
    """`run_settings` as one canonical string, to compare and group logs by."""
    return json.dumps(run_settings(log), sort_keys=True, default=str)
