"""Loading CToMPersu records: the public evaluation split on the Hugging Face Hub, or a local JSON/JSONL file.

The Hub dataset's commit is not pinned here (none was known when this was written), so the requested `revision`
(a branch, tag or commit) is resolved to a commit id at load time and returned as provenance, which the tasks write
into the eval log: every result can be re-run on exactly the data it saw.

The file is fetched with `huggingface_hub` and parsed with the standard library rather than with `datasets`: in
CToMPersu the `preventive` field is an object in some records and the string "None" in others, which Arrow's schema
inference cannot hold in one column.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tombench.generators.persuasion.records import PersuasionRecord, record_from_dict

__all__ = [
    "HUB_REPO",
    "LoadedRecords",
    "PersuasionDataError",
    "load_records",
    "read_record_dicts",
    "resolve_hub_revision",
]

#: The public release of CToMPersu (paper: Zhang et al., ToMMA).
HUB_REPO = "KamijioTouma/ToMMA-CToMPersu"


class PersuasionDataError(Exception):
    """A data problem the user can fix (offline, unknown revision, bad file): its message is one line."""


@dataclass(frozen=True)
class LoadedRecords:
    records: list[PersuasionRecord]
    provenance: dict[str, Any]  # source, repo, requested and resolved revision, file


def read_record_dicts(path: str | Path) -> list[dict[str, Any]]:
    """Records from a JSON list, a JSON object holding a list, or JSON lines."""
    p = Path(path)
    if not p.is_file():
        raise PersuasionDataError(f"no such file: {p}")
    text = p.read_text(encoding="utf-8")
    try:
        if p.suffix == ".jsonl":
            return [json.loads(line) for line in text.splitlines() if line.strip()]
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise PersuasionDataError(f"{p} is not valid JSON/JSONL ({e.msg} at line {e.lineno})") from None
    if isinstance(value, dict):
        lists = [v for v in value.values() if isinstance(v, list)]
        value = lists[0] if len(lists) == 1 else [value]
    if not isinstance(value, list):
        raise PersuasionDataError(f"{p}: expected a list of records")
    return value


def _parse_all(raws: Iterable[dict[str, Any]], source: str) -> Iterator[PersuasionRecord]:
    for i, raw in enumerate(raws):
        try:
            yield record_from_dict(raw)
        except (ValueError, AttributeError, TypeError) as e:
            raise PersuasionDataError(f"{source}: record {i} is malformed: {e}") from None


def resolve_hub_revision(repo: str, revision: str) -> tuple[str, list[str]]:
    """(commit id, file names) of `repo` at `revision`; one clear error line when offline or not found."""
    from huggingface_hub import HfApi
    from huggingface_hub.errors import RepositoryNotFoundError, RevisionNotFoundError

    try:
        info = HfApi().dataset_info(repo, revision=revision)
    except RevisionNotFoundError:
        raise PersuasionDataError(f"revision {revision!r} not found in dataset {repo}") from None
    except RepositoryNotFoundError:
        raise PersuasionDataError(f"dataset {repo} not found on the Hugging Face Hub") from None
    except Exception as e:  # network stacks raise many types; all mean the same to the user
        raise PersuasionDataError(
            f"cannot reach the Hugging Face Hub to resolve {repo}@{revision} ({type(e).__name__}); "
            "check your connection, or pass a local file (dataset=PATH)"
        ) from None
    files = [s.rfilename for s in (info.siblings or [])]
    return str(info.sha), files


def _pick_eval_file(files: list[str]) -> str:
    """The evaluation split's file: a JSON/JSONL file with "eval" or "test" in its path."""
    data = [f for f in files if f.lower().endswith((".json", ".jsonl"))]
    for keyword in ("eval", "test"):
        hits = sorted(f for f in data if keyword in f.lower())
        if hits:
            return hits[0]
    raise PersuasionDataError(f"no evaluation file found among {data or files}; pass data_file=...")


def load_records(
    dataset: str | Path | None = None,
    revision: str = "main",
    data_file: str | None = None,
    repo: str = HUB_REPO,
) -> LoadedRecords:
    """CToMPersu records from a local file (`dataset` is a path) or from the Hub evaluation split (`dataset` None).

    `revision` is a Hub branch, tag or commit; it is resolved to a commit id recorded in `provenance`.
    `data_file` picks a file of the Hub repository (default: the one whose name says eval/test).
    """
    if dataset is not None:
        path = Path(dataset)
        records = list(_parse_all(read_record_dicts(path), str(path)))
        return LoadedRecords(records, {"source": "file", "path": str(path.resolve()), "records": len(records)})

    from huggingface_hub import hf_hub_download

    sha, files = resolve_hub_revision(repo, revision)
    filename = data_file or _pick_eval_file(files)
    try:
        local = hf_hub_download(repo, filename, repo_type="dataset", revision=sha)
    except Exception as e:  # any download failure means the same to the user
        raise PersuasionDataError(f"cannot download {filename} from {repo}@{sha[:12]} ({type(e).__name__})") from None
    records = list(_parse_all(read_record_dicts(local), f"{repo}/{filename}"))
    provenance = {
        "source": "hub",
        "repo": repo,
        "revision": revision,
        "resolved_revision": sha,
        "data_file": filename,
        "records": len(records),
    }
    return LoadedRecords(records, provenance)
