"""Loading CToMPersu records: the authors' Hub release or a local JSON/JSONL file, with duplicates and provenance.

The authors' evaluation file (`dataset/CToMPersu_Eval/CToMPersu_Eval.json` of github.com/DingyiZhang/ToMMA-CToMPersu,
also published as the Hub dataset `KamijioTouma/ToMMA-CToMPersu`) holds 525 records of which 134 are exact copies of
another record (391 distinct). The paper's Table 3 counts them all (1,099 = 525 records x their listed domains), but
a copy adds no information and narrows every standard error, so by default each distinct record is kept once and the
number of dropped copies is recorded (`duplicates="keep"` keeps the paper's 525, with distinct ids).

Provenance goes into the eval log: the file's SHA-256, its record count, whether it is byte-identical to a file of
the authors' release, the license, and for the Hub the commit the requested revision resolved to. No Hub commit of
the dataset could be checked when this was written, so the default (no `revision`) resolves `main` and then requires
the downloaded file to be byte-identical to the authors' release file measured here: the data is pinned by content.
An explicit `revision` is taken as the user's choice and only recorded.

The file is parsed with the standard library rather than `datasets`: in CToMPersu-style files `preventive` can be an
object in some records and the string "None" in others, which Arrow's schema inference cannot hold in one column.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from tombench.generators.persuasion.records import PersuasionRecord, record_digest, record_from_dict
from tombench.kit.errors import OptionError
from tombench.kit.pinning import download_hub_file, resolve_revision
from tombench.kit.reading import read_json_or_lines, read_jsonl

__all__ = [
    "HUB_REPO",
    "HUB_REVISION",
    "LICENSE",
    "RELEASE_FILES",
    "Duplicates",
    "LoadedRecords",
    "PersuasionDataError",
    "dedupe_records",
    "load_records",
    "read_record_dicts",
    "resolve_hub_revision",
]

#: The Hub copy of the release (paper: Zhang et al., ToMMA / CToMPersu).
HUB_REPO = "KamijioTouma/ToMMA-CToMPersu"
#: The Hub commit the default loads, once someone who can reach the Hub has checked one (None: `main`, accepted
#: only when its evaluation file is byte-identical to the authors' release file in RELEASE_FILES).
HUB_REVISION: str | None = None
#: The authors' repository and the commit whose files were measured (README: "Update README.md", 2025-03-07).
RELEASE_REPO = "DingyiZhang/ToMMA-CToMPersu"
RELEASE_COMMIT = "a1e3449c8303bc1558a9bca4645fdd35c7bbaca1"
#: The LICENSE file of the authors' repository at RELEASE_COMMIT.
LICENSE = "Apache-2.0"

#: SHA-256 of the release's files -> what they are (measured on the files at RELEASE_COMMIT). The full-split files
#: (`dataset/CToMPersu_Full/*.json`) could not be read from here, so they are not listed.
RELEASE_FILES: dict[str, dict[str, Any]] = {
    "6011d16fb4dbe690e5092edcde9ab7969e312ea829c08057cd1c0f88bf825908": {
        "file": "dataset/CToMPersu_Eval/CToMPersu_Eval.json", "records": 525, "distinct": 391,
    },
    "0a2c11deb31725f3b70f06dafc49ad77c2b59b12c5175d23f0764b610791a7fc": {
        "file": "dataset/CToMPersu_Eval/CToMPersu_Eval_MentalStateOnly.json", "records": 525, "distinct": 391,
    },
}

Duplicates = Literal["drop", "keep"]


class PersuasionDataError(Exception):
    """A data problem the user can fix (offline, unknown revision, bad file): its message is one line."""


@dataclass(frozen=True)
class LoadedRecords:
    records: list[PersuasionRecord]
    provenance: dict[str, Any]  # source, file digest, counts, release match, license; Hub revision if any


_EXPECTED = "CToMPersu records: a JSON list, a JSON object holding one list, or one JSON object per line"


def _shape(value: Any, name: str) -> list[dict[str, Any]]:
    if isinstance(value, dict):
        lists = [v for v in value.values() if isinstance(v, list)]
        value = lists[0] if len(lists) == 1 else [value]
    if not isinstance(value, list):
        raise PersuasionDataError(f"{name}: expected a list of records")
    if not value:
        raise PersuasionDataError(f"persuasion data file {name!r} holds no records; expected {_EXPECTED}")
    return value


def read_record_dicts(path: str | Path) -> list[dict[str, Any]]:
    """Records from a JSON list, a JSON object holding a list, or JSON lines (read by the kit's strict reader: a
    binary, empty or corrupt file is one line naming the file and the line)."""
    what = "persuasion data"
    try:
        if Path(path).suffix == ".jsonl":
            value: Any = read_jsonl(path, what=what)
        else:
            value = read_json_or_lines(path, what=what, expected=_EXPECTED)
    except OptionError as e:
        raise PersuasionDataError(str(e)) from None
    return _shape(value, str(path))


#: a record holds its scenario under `scenario`, or the scenario's fields at the top level, and/or a dialogue
_RECORD_KEYS = ("scenario", "dialog", "background", "goal")


def _parse_all(raws: Iterable[dict[str, Any]], source: str) -> Iterator[PersuasionRecord]:
    for i, raw in enumerate(raws, start=1):
        if not isinstance(raw, dict) or not any(k in raw for k in _RECORD_KEYS):
            raise PersuasionDataError(f"{source}: record {i}: missing key 'scenario' (nor 'dialog', 'background', "
                                      "'goal'); expected a CToMPersu record")
        try:
            yield record_from_dict(raw)
        except (ValueError, AttributeError, TypeError) as e:
            raise PersuasionDataError(f"{source}: record {i} is malformed: {e}") from None


def dedupe_records(records: list[PersuasionRecord], policy: Duplicates = "drop") -> tuple[list[PersuasionRecord], int]:
    """Exact copies (same scenario, mental state and dialogue) of an earlier record: dropped, or kept under
    `{id}~2`, `{id}~3`, ... so every sample id is unique. Returns the records and the number of copies found.

    Two records that share an id but differ in content are an error: an id must name one record.
    """
    first: dict[str, str] = {}
    copies: Counter[str] = Counter()
    out: list[PersuasionRecord] = []
    for record in records:
        digest = record_digest(record)
        if record.id in first:
            if first[record.id] != digest:
                raise PersuasionDataError(f"two different records share the id {record.id!r}")
            copies[record.id] += 1
            if policy == "keep":
                out.append(replace(record, id=f"{record.id}~{copies[record.id] + 1}"))
            continue
        first[record.id] = digest
        out.append(record)
    return out, sum(copies.values())


def _provenance(data: bytes, records: list[PersuasionRecord], kept: int, copies: int, policy: Duplicates) -> dict:
    sha = hashlib.sha256(data).hexdigest()
    release = RELEASE_FILES.get(sha)
    return {
        "sha256": sha,
        "records_in_file": len(records),
        "duplicates": copies,
        "duplicates_policy": policy,
        "records": kept,
        "release_file": (
            {"repo": RELEASE_REPO, "commit": RELEASE_COMMIT, **release} if release is not None else None
        ),
        "license": f"{LICENSE} (authors' release)" if release is not None else "unknown (not the authors' release)",
    }


def resolve_hub_revision(repo: str, revision: str) -> tuple[str, list[str]]:
    """(commit id, file names) of `repo` at `revision`; one clear error line when offline or not found."""
    try:
        rev = resolve_revision(repo, revision, option="dataset=PATH")
    except OptionError as e:
        raise PersuasionDataError(str(e)) from None
    return rev.sha, list(rev.files)


def _pick_eval_file(files: list[str]) -> str:
    """The evaluation split's dialogue file: a JSON/JSONL file with "eval" (else "test") in its path, preferring
    the one with dialogues over the `_MentalStateOnly` one."""
    data = [f for f in files if f.lower().endswith((".json", ".jsonl"))]
    for keyword in ("eval", "test"):
        hits = sorted((f for f in data if keyword in f.lower()), key=lambda f: ("mentalstateonly" in f.lower(), f))
        if hits:
            return hits[0]
    raise PersuasionDataError(f"no evaluation file found among {data or files}; pass data_file=...")


def _load_file(path: Path, name: str, duplicates: Duplicates) -> tuple[list[PersuasionRecord], dict]:
    """The records of a local file (read strictly: a bad line is one error naming it) and their provenance."""
    if duplicates not in ("drop", "keep"):
        raise PersuasionDataError(f"duplicates must be 'drop' or 'keep', got {duplicates!r}")
    records = list(_parse_all(read_record_dicts(path), name))
    kept, copies = dedupe_records(records, duplicates)
    return kept, _provenance(path.read_bytes(), records, len(kept), copies, duplicates)


def load_records(
    dataset: str | Path | None = None,
    revision: str | None = None,
    data_file: str | None = None,
    repo: str = HUB_REPO,
    duplicates: Duplicates = "drop",
) -> LoadedRecords:
    """CToMPersu records from a local file (`dataset` is a path) or from the Hub evaluation split (`dataset` None).

    `revision` is a Hub branch, tag or commit, resolved to a commit id recorded in `provenance`; None means `main`
    with the downloaded file required to be the authors' release file (byte for byte). `data_file` picks a file of
    the Hub repository (default: the evaluation dialogue file). `duplicates`: see `dedupe_records`.
    """
    if dataset is not None:
        path = Path(dataset)
        if not path.is_file():
            raise PersuasionDataError(f"no such file: {path}")
        records, prov = _load_file(path, str(path), duplicates)
        return LoadedRecords(records, {"source": "file", "path": str(path.resolve()), **prov})

    sha, files = resolve_hub_revision(repo, revision or HUB_REVISION or "main")
    filename = data_file or _pick_eval_file(files)
    try:
        local = download_hub_file(repo, filename, sha, suite="CToMPersu", option="dataset=PATH")
    except OptionError as e:
        raise PersuasionDataError(str(e)) from None
    records, prov = _load_file(Path(local), f"{repo}/{filename}", duplicates)
    if revision is None and HUB_REVISION is None and prov["release_file"] is None:
        raise PersuasionDataError(
            f"{repo}/{filename} at {sha[:12]} is not byte-identical to the authors' release file this version was "
            f"checked against; pass revision={sha} to evaluate it anyway (it will be recorded), or dataset=PATH"
        )
    hub = {"source": "hub", "repo": repo, "revision": revision or HUB_REVISION or "main", "resolved_revision": sha,
           "data_file": filename}
    return LoadedRecords(records, {**hub, **prov})
