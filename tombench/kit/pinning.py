"""Pinned data: the one place that resolves a Hub dataset revision to a commit, and fetches, verifies and describes
pinned files (a suite's file, a set of released files, a Hub dataset at a commit).

A suite's data is either a file of a Hugging Face dataset repo at a full commit sha (`HubFile`), or a file the
authors released elsewhere (a GitHub commit, a zip inside it), pinned by its SHA-256 (`UrlFile`). `-T data=PATH`
replaces the download with a local copy, which is hashed and recorded too (and says whether it is the pinned file).

    from tombench.kit.pinning import UrlFile, fetch
    TOMI = UrlFile(url="https://raw.githubusercontent.com/.../tomi.zip", sha256="d838...", member="test.txt")
    path, provenance = fetch(TOMI, data=None, suite="ToMi")   # cached after the first call
    provenance |= {"dataset_records": len(records)}           # the task puts it into Task(metadata=...)

Every failure a user can cause (offline, a hash mismatch, a missing local file, a zip without the member) is one
`OptionError` line saying what to do. Hub files go through `huggingface_hub.hf_hub_download` (its cache, auth and
retries); URL files through `fsspec` (http(s) and file:// alike) into `$TOMBENCH_CACHE` (default
`~/.cache/tombench/suites`), written atomically and re-verified on every use, so a corrupt cache is an error, never
silently served. `HF_HUB_OFFLINE=1` or `TOMBENCH_OFFLINE=1` skip the network at once.

Provenance keys (task metadata, hence the log and the leaderboard row): `dataset_id` (where it came from),
`dataset_revision` (the Hub commit, or `sha256:<hex>` for a URL or local file), `dataset_sha256` (of the file read),
`dataset_pinned` (True when that is the pinned file), and, added by the task, `dataset_records`.

Suites released as several files (OpenToM's per-genre files, ToMBench's per-task files) use `fetch_files`, which
fetches each file and describes the set as one record. Data given as a Hub dataset id (`-T data=org/name`) goes
through `resolve_revision` (branch, tag or sha -> the commit, recorded in the log) and `load_hub_dataset` (the rows
at that commit); `download_hub_file` reads one file of a Hub repo through its cache.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import tarfile
import tempfile
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tombench.kit.errors import OptionError

__all__ = ["HubFile", "HubRevision", "UrlFile", "Source", "TaskData", "cache_dir", "cached_path", "download_hub_file", "fetch", "fetch_files",
           "load_hub_dataset", "manifest_sha256", "resolve_revision", "sha256_file"]

_SHA1 = re.compile(r"^[0-9a-f]{40}$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class HubFile:
    """A file of a Hub dataset repo at a full commit sha (never a branch: a branch moves)."""

    repo: str
    filename: str
    revision: str
    sha256: str | None = None

    def __post_init__(self) -> None:
        if not _SHA1.match(self.revision):
            raise ValueError(f"HubFile revision must be a full 40-hex commit sha, got {self.revision!r}")

    @property
    def id(self) -> str:
        return f"hf://datasets/{self.repo}/{self.filename}"


@dataclass(frozen=True)
class UrlFile:
    """A released file pinned by SHA-256; `member` names the file to read inside a zip archive."""

    url: str
    sha256: str
    member: str | None = None

    def __post_init__(self) -> None:
        if not _SHA256.match(self.sha256):
            raise ValueError(f"UrlFile sha256 must be 64 lower-case hex digits, got {self.sha256!r}")

    @property
    def id(self) -> str:
        return self.url if self.member is None else f"{self.url}#{self.member}"

    @property
    def filename(self) -> str:
        return self.url.rstrip("/").rsplit("/", 1)[-1] or "data"


Source = HubFile | UrlFile


@dataclass(frozen=True)
class TaskData:
    """What a task reads, declared beside its pinned sources (`tombench tasks` and `tombench data download` read
    these declarations, so the listing can never drift from what the task fetches).

    `sources` maps a name to each pinned file (empty: the task needs no download); `needs` says in words what the
    task reads; `items` its size as released; `offline` the way to run it with no network, when there is one."""

    task: str
    needs: str
    sources: Mapping[str, Source] = field(default_factory=dict)
    items: str | int | None = None
    license: str | None = None
    offline: str | None = None


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def cache_dir() -> Path:
    """Where URL files are kept: `$TOMBENCH_CACHE`, else `$XDG_CACHE_HOME/tombench/suites`, else ~/.cache/..."""
    if env := os.environ.get("TOMBENCH_CACHE"):
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tombench" / "suites"


def _offline() -> bool:
    return any(os.environ.get(v, "").strip().lower() in ("1", "true", "yes") for v in ("HF_HUB_OFFLINE",
                                                                                     "TOMBENCH_OFFLINE"))


def _advice(suite: str, option: str = "-T data=PATH", offline: str | None = None) -> str:
    alternative = f", or run offline with {offline}" if offline else ""
    return (f"connect to the internet once (`tombench data download` caches it), or pass a local copy with {option}"
            f"{alternative} ({suite})")


def _url_target(src: UrlFile) -> Path:
    return cache_dir() / src.sha256[:16] / src.filename


def cached_path(source: Source) -> Path | None:
    """Where a pinned file is cached, without any network call; None when it is not there yet."""
    if isinstance(source, UrlFile):
        target = _url_target(source)
        return target if target.is_file() else None
    try:
        from huggingface_hub import hf_hub_download

        return Path(hf_hub_download(repo_id=source.repo, filename=source.filename, repo_type="dataset",
                                    revision=source.revision, local_files_only=True))
    except Exception:  # noqa: BLE001 - not in the cache (or no huggingface_hub): not cached
        return None


# ------------------------------------------------------------------------------------------------------- fetching
def _download_url(src: UrlFile, suite: str, offline: str | None = None) -> Path:
    """The verified archive or file in the cache, downloading it once."""
    target = _url_target(src)
    if target.is_file():
        got = sha256_file(target)
        if got == src.sha256:
            return target
        raise OptionError(
            f"cached {suite} file {str(target)!r} has SHA-256 {got[:12]}..., expected {src.sha256[:12]}...: delete it "
            "and run again"
        )
    if _offline():
        raise OptionError(f"cannot download {src.url} (offline mode): {_advice(suite, offline=offline)}")
    import fsspec

    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=".part-")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out, fsspec.open(src.url, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                out.write(block)
        got = sha256_file(tmp)
        if got != src.sha256:
            raise OptionError(
                f"{src.url} has SHA-256 {got[:12]}..., expected {src.sha256[:12]}... (the release changed or the "
                f"download was corrupted): pass the pinned file with -T data=PATH ({suite})"
            )
        tmp.replace(target)  # atomic: an interrupted download never leaves a half file under the final name
    except OptionError:
        raise
    except Exception as e:  # noqa: BLE001 - offline, proxy, 404: all end in the same advice
        raise OptionError(f"cannot download {src.url} ({type(e).__name__}): {_advice(suite, offline=offline)}") from None
    finally:
        tmp.unlink(missing_ok=True)
    return target


def download_hub_file(repo: str, filename: str, revision: str, *, suite: str, option: str = "-T data=PATH",
                      offline: str | None = None) -> Path:
    """A file of a Hub dataset repo at `revision`: from huggingface_hub's cache when it is there (no network), else
    downloaded (its cache, auth and retries). Offline or failing, one `OptionError` line naming `option`."""
    from huggingface_hub import hf_hub_download

    kwargs: dict[str, Any] = {"repo_id": repo, "filename": filename, "repo_type": "dataset", "revision": revision}
    try:
        return Path(hf_hub_download(**kwargs, local_files_only=True))
    except Exception:  # noqa: BLE001 - not cached yet: download below
        pass
    where = f"{repo}/{filename}@{revision[:12]}"
    if _offline():
        raise OptionError(f"cannot download {where} (offline mode): {_advice(suite, option, offline)}")
    hub_logger = logging.getLogger("huggingface_hub")
    level = hub_logger.level
    hub_logger.setLevel(logging.ERROR)  # its per-retry warnings would bury the one line that matters
    try:
        return Path(hf_hub_download(**kwargs))
    except Exception as e:  # noqa: BLE001 - offline, proxy, auth, 404
        raise OptionError(f"cannot download {where} ({type(e).__name__}): {_advice(suite, option, offline)}") from None
    finally:
        hub_logger.setLevel(level)


def _download_hub(src: HubFile, suite: str, offline: str | None = None) -> Path:
    return download_hub_file(src.repo, src.filename, src.revision, suite=suite, offline=offline)


def _is_archive(path: Path) -> bool:
    return zipfile.is_zipfile(path) or tarfile.is_tarfile(path)


def _extract_tar(archive: Path, member: str, out: Path, suite: str) -> Path:
    """A tar(.gz) member (FANToM's release), extracted like a zip member."""
    with tarfile.open(archive) as t:
        names = [m.name for m in t.getmembers() if m.isfile()]
        name = member if member in names else next((n for n in names if n.endswith("/" + member)), None)
        f = t.extractfile(name) if name is not None else None
        if f is None:
            raise OptionError(f"{str(archive)!r} has no member {member!r} ({suite}); members: {names[:8]}")
        fd, tmp_name = tempfile.mkstemp(dir=out.parent, prefix=".part-")
        with os.fdopen(fd, "wb") as dst:
            dst.write(f.read())
        Path(tmp_name).replace(out)
    return out


def _extract(archive: Path, member: str, suite: str) -> Path:
    """The zip (or tar) member, extracted once beside the archive (named by the archive's hash, so never stale)."""
    out = archive.parent / f"{sha256_file(archive)[:16]}-{member.replace('/', '__')}"
    if out.is_file():
        return out
    if not zipfile.is_zipfile(archive) and tarfile.is_tarfile(archive):
        return _extract_tar(archive, member, out, suite)
    try:
        with zipfile.ZipFile(archive) as z:
            names = z.namelist()
            name = member if member in names else next((n for n in names if n.endswith("/" + member)), None)
            if name is None:
                raise OptionError(f"{str(archive)!r} has no member {member!r} ({suite}); members: {names[:8]}")
            fd, tmp_name = tempfile.mkstemp(dir=out.parent, prefix=".part-")
            with os.fdopen(fd, "wb") as f:
                f.write(z.read(name))
            Path(tmp_name).replace(out)
    except zipfile.BadZipFile:
        raise OptionError(f"{str(archive)!r} is not a zip archive ({suite}): pass the archive or its {member}") from None
    return out


def fetch(source: Source, data: str | None = None, *, suite: str,
          offline: str | None = None) -> tuple[Path, dict[str, Any]]:
    """The local path of a suite's file and its provenance: the pinned source, or the local copy `data`.

    A local `data` may be the file itself or, for a zip source, the archive (its member is then read). Its SHA-256
    is recorded; `dataset_pinned` says whether it equals the pinned file's (a modified copy is allowed: the log
    then shows it is not the release). `offline` names the task's offline alternative for the error when the
    download is impossible (`-T split=example`).
    """
    if data:
        path = Path(data).expanduser()
        if not path.is_file():
            raise OptionError(f"{suite} data file {data!r} not found: give an existing file with -T data=PATH")
        member = source.member if isinstance(source, UrlFile) else None
        archive_sha = None
        if member is not None and _is_archive(path):
            archive_sha = sha256_file(path)
            path = _extract(path, member, suite)
        digest = sha256_file(path)
        pinned_sha = source.sha256
        pinned = (archive_sha or digest) == pinned_sha if pinned_sha else None
        prov = {"dataset_id": str(Path(data).expanduser()), "dataset_revision": f"sha256:{archive_sha or digest}",
                "dataset_sha256": digest, "dataset_pinned": pinned, "dataset_pinned_source": source.id}
        return path, prov
    if isinstance(source, HubFile):
        path = _download_hub(source, suite, offline)
        digest = sha256_file(path)
        if source.sha256 and digest != source.sha256:
            raise OptionError(f"{source.id}@{source.revision[:12]} has SHA-256 {digest[:12]}..., expected "
                              f"{source.sha256[:12]}...: pass the pinned file with -T data=PATH ({suite})")
        return path, {"dataset_id": source.id, "dataset_revision": source.revision, "dataset_sha256": digest,
                      "dataset_pinned": True}
    archive = _download_url(source, suite, offline)
    path = _extract(archive, source.member, suite) if source.member else archive
    return path, {"dataset_id": source.id, "dataset_revision": f"sha256:{source.sha256}",
                  "dataset_sha256": sha256_file(path), "dataset_pinned": True}


# ------------------------------------------------------------------------------------------------ sets of files
def manifest_sha256(hashes: Mapping[str, str]) -> str:
    """One SHA-256 for a set of files: over their sorted "name sha256" lines."""
    lines = "".join(f"{name} {sha}\n" for name, sha in sorted(hashes.items()))
    return hashlib.sha256(lines.encode()).hexdigest()


def _local_copy(folder: Path, name: str, aliases: Sequence[str], *, data: str, suite: str, release: str) -> str:
    """The file standing for `name` in a local copy of the release: under its own name or an alias (the Hub and
    GitHub copies of one release may name a file differently)."""
    local = next((folder / n for n in (name, *aliases) if (folder / n).is_file()), None)
    if local is None:
        raise OptionError(f"{suite} data folder {data!r} has no {name}: give a complete copy of {release}")
    return str(local)


def _set_provenance(files: Mapping[str, Source], folder: Path | None, hashes: dict[str, str], pinned: bool,
                    release: str) -> dict[str, Any]:
    """One provenance record for the whole set: a Hub release at one commit is named by that commit, anything else
    (URL files, a local copy) by the set's manifest hash."""
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
    return provenance


def fetch_files(
    files: Mapping[str, Source],
    data: str | None,
    *,
    suite: str,
    release: str,
    aliases: Mapping[str, Sequence[str]] | None = None,
) -> tuple[dict[str, Path], dict[str, Any]]:
    """The local path of every named file of a release, and the set's provenance; `release` names the pinned set
    (repo@commit). `data` is a local copy of the release's folder (files under the same names or an alias).

    The provenance is one record: `dataset_sha256` is a SHA-256 over the sorted "name sha256" lines of the files
    read, `dataset_revision` the Hub commit (Hub files) or `sha256:` that digest, `dataset_files` maps each name to
    its hash, and `dataset_pinned` is True only when every file is the pinned one."""
    aliases = aliases or {}
    folder = Path(data).expanduser() if data else None
    if folder is not None and not folder.is_dir():
        raise OptionError(f"{suite} data {data!r} is not a folder: give the folder that holds {sorted(files)[0]} ...")
    paths: dict[str, Path] = {}
    hashes: dict[str, str] = {}
    pinned = True
    for name, source in files.items():
        local = (_local_copy(folder, name, aliases.get(name, ()), data=str(data), suite=suite, release=release)
                 if folder else None)
        paths[name], prov = fetch(source, local, suite=suite)
        hashes[name] = prov["dataset_sha256"]
        pinned = pinned and bool(prov["dataset_pinned"])
    return paths, _set_provenance(files, folder, hashes, pinned, release)


# ------------------------------------------------------------------------------------------------ Hub datasets
@dataclass(frozen=True)
class HubRevision:
    """A Hub dataset revision as asked (branch, tag or commit) and the commit it resolved to, with its file list."""

    repo: str
    requested: str
    sha: str
    files: tuple[str, ...] = ()


def resolve_revision(repo: str, revision: str | None = None, *, option: str = "-T data=PATH") -> HubRevision:
    """The commit a Hub dataset's revision (default `main`) points at now, so what is read and what is recorded are
    the same data even if the branch moves. One `OptionError` line when offline or not found (`option` names the
    task's way to pass a local copy instead)."""
    from huggingface_hub import HfApi
    from huggingface_hub.errors import RepositoryNotFoundError, RevisionNotFoundError

    requested = revision or "main"
    try:
        info = HfApi().dataset_info(repo, revision=revision)  # None: the default branch
    except RevisionNotFoundError:
        raise OptionError(f"revision {requested!r} not found in dataset {repo}") from None
    except RepositoryNotFoundError:
        raise OptionError(f"dataset {repo} not found on the Hugging Face Hub") from None
    except Exception as e:  # noqa: BLE001 - network stacks raise many types; all mean the same to the user
        raise OptionError(
            f"cannot reach the Hugging Face Hub to resolve {repo}@{requested} ({type(e).__name__}); "
            f"check your connection, or pass a local file ({option})"
        ) from None
    return HubRevision(repo, requested, str(info.sha), tuple(s.rfilename for s in info.siblings or []))


def load_hub_dataset(repo: str, revision: str | None = None, *, split: str = "train",
                     option: str = "-T data=PATH") -> tuple[list[dict[str, Any]], HubRevision]:
    """The rows of a Hub dataset's split at the commit its revision resolves to (recorded by the caller)."""
    import datasets

    rev = resolve_revision(repo, revision, option=option)
    try:
        ds = datasets.load_dataset(repo, split=split, revision=rev.sha)
    except Exception as e:  # noqa: BLE001 - network/auth/missing split all end in the same one-line advice
        raise OptionError(
            f"cannot load Hub dataset {repo!r} (revision {rev.requested}, commit {rev.sha[:12]}): {type(e).__name__}; "
            f"check the id, your network and HF_TOKEN, or pass a local file with {option}"
        ) from None
    return list(ds), rev
