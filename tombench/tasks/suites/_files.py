"""Suites released as several files at one commit (OpenToM's per-genre files, ToMBench's per-task files).

Each file is a `UrlFile` pinned by its SHA-256 (or a `HubFile` at a commit) and fetched with `_data.fetch`; `-T data=FOLDER` reads the files of a
local copy instead (under the same names, or an alias such as the Hub's `metadata.json` for GitHub's
`meta_data.json`). The provenance is one record for the whole set: `dataset_sha256` is a SHA-256 over the sorted
"name sha256" lines of the files read, `dataset_revision` the Hub commit (Hub files) or `sha256:` that digest, `dataset_files` maps each name to its hash, and
`dataset_pinned` is True only when every file is the pinned one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tombench.kit.errors import OptionError
from tombench.kit.pinning import HubFile, Source, fetch

__all__ = ["fetch_files", "manifest_sha256"]


def manifest_sha256(hashes: Mapping[str, str]) -> str:
    """One SHA-256 for a set of files: over their sorted "name sha256" lines."""
    lines = "".join(f"{name} {sha}\n" for name, sha in sorted(hashes.items()))
    return hashlib.sha256(lines.encode()).hexdigest()


def fetch_files(
    files: Mapping[str, Source],
    data: str | None,
    *,
    suite: str,
    release: str,
    aliases: Mapping[str, Sequence[str]] | None = None,
) -> tuple[dict[str, Path], dict[str, Any]]:
    """The local path of every named file and the set's provenance; `release` names the pinned set (repo@commit)."""
    aliases = aliases or {}
    folder = Path(data).expanduser() if data else None
    if folder is not None and not folder.is_dir():
        raise OptionError(f"{suite} data {data!r} is not a folder: give the folder that holds {sorted(files)[0]} ...")
    paths: dict[str, Path] = {}
    hashes: dict[str, str] = {}
    pinned = True
    for name, source in files.items():
        local = None
        if folder is not None:
            local = next((folder / n for n in (name, *aliases.get(name, ())) if (folder / n).is_file()), None)
            if local is None:
                raise OptionError(f"{suite} data folder {data!r} has no {name}: give a complete copy of {release}")
        path, prov = fetch(source, str(local) if local else None, suite=suite)
        paths[name] = path
        hashes[name] = prov["dataset_sha256"]
        pinned = pinned and bool(prov["dataset_pinned"])
    digest = manifest_sha256(hashes)
    revisions = {src.revision for src in files.values() if isinstance(src, HubFile)}
    hub = folder is None and len(revisions) == 1 and all(isinstance(src, HubFile) for src in files.values())
    provenance = {
        "dataset_id": str(folder) if folder is not None else release,
        "dataset_revision": revisions.pop() if hub else f"sha256:{digest}",
        "dataset_sha256": digest,
        "dataset_pinned": pinned,
        "dataset_files": hashes,
    }
    if folder is not None:
        provenance["dataset_pinned_source"] = release
    return paths, provenance
