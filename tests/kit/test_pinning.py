"""Pinned data (`tombench.kit.pinning`): download through fsspec (file:// URLs stand in for the network), verify,
cache, extract; sets of released files; Hub revisions resolved to a commit (a fake Hub client stands in)."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from tombench.kit.errors import OptionError
from tombench.kit.pinning import (
    HubFile,
    UrlFile,
    download_hub_file,
    fetch,
    fetch_files,
    load_hub_dataset,
    manifest_sha256,
    resolve_revision,
)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TOMBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("TOMBENCH_OFFLINE", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    return tmp_path / "cache"


def test_url_file_is_downloaded_verified_and_cached(tmp_path: Path, cache: Path) -> None:
    src_file = tmp_path / "items.json"
    src_file.write_bytes(b'{"data": []}')
    src = UrlFile(url=src_file.as_uri(), sha256=_sha(b'{"data": []}'))
    path, prov = fetch(src, suite="X")
    assert path.read_bytes() == b'{"data": []}' and cache in path.parents
    assert prov == {"dataset_id": src_file.as_uri(), "dataset_revision": f"sha256:{src.sha256}",
                    "dataset_sha256": src.sha256, "dataset_pinned": True}
    src_file.unlink()  # the cache answers now, without the "network"
    assert fetch(src, suite="X")[0] == path


def test_hash_mismatch_is_one_line_and_leaves_no_file(tmp_path: Path, cache: Path) -> None:
    src_file = tmp_path / "items.json"
    src_file.write_bytes(b"changed")
    src = UrlFile(url=src_file.as_uri(), sha256="0" * 64)
    with pytest.raises(OptionError, match="expected 000000000000") as err:
        fetch(src, suite="X")
    assert "\n" not in str(err.value) and "-T data=PATH" in str(err.value)
    assert not any(p.is_file() for p in cache.rglob("*"))


def test_offline_and_missing_are_one_line(tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = UrlFile(url="https://example.invalid/x.json", sha256="1" * 64)
    monkeypatch.setenv("TOMBENCH_OFFLINE", "1")
    with pytest.raises(OptionError, match="offline mode"):
        fetch(src, suite="X")
    monkeypatch.delenv("TOMBENCH_OFFLINE")
    with pytest.raises(OptionError, match="cannot download"):
        fetch(UrlFile(url=(tmp_path / "absent.json").as_uri(), sha256="1" * 64), suite="X")
    with pytest.raises(OptionError, match="not found"):
        fetch(src, data=str(tmp_path / "nope.json"), suite="X")


def test_zip_member_from_release_and_from_local_copy(tmp_path: Path, cache: Path) -> None:
    archive = tmp_path / "release.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("release/test.txt", "1 Anne entered the kitchen.\n")
        z.writestr("release/train.txt", "other")
    sha = _sha(archive.read_bytes())
    src = UrlFile(url=archive.as_uri(), sha256=sha, member="test.txt")
    path, prov = fetch(src, suite="X")
    assert path.read_text() == "1 Anne entered the kitchen.\n"
    assert prov["dataset_revision"] == f"sha256:{sha}" and prov["dataset_sha256"] == _sha(path.read_bytes())
    # a local copy of the archive: its member is read, and it is recognised as the pinned file
    local_path, local = fetch(src, data=str(archive), suite="X")
    assert local_path.read_text() == path.read_text() and local["dataset_pinned"] is True
    # a local copy of the member itself, edited: read as is, recorded as not the pinned file
    edited = tmp_path / "test.txt"
    edited.write_text("1 Beth entered the kitchen.\n")
    p, prov2 = fetch(src, data=str(edited), suite="X")
    assert p == edited and prov2["dataset_pinned"] is False and prov2["dataset_pinned_source"] == src.id
    with pytest.raises(OptionError, match="no member"):
        fetch(UrlFile(url=archive.as_uri(), sha256=sha, member="val.txt"), suite="X")


def test_pins_must_be_full() -> None:
    with pytest.raises(ValueError, match="40-hex"):
        HubFile("org/data", "a.csv", revision="main")
    with pytest.raises(ValueError, match="64"):
        UrlFile("https://x/y", sha256="abc")


def test_hub_offline_is_one_line(cache: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    src = HubFile("org/not-cached", "a.json", revision="a" * 40)
    with pytest.raises(OptionError, match="-T data=PATH") as err:
        fetch(src, suite="X")
    assert "\n" not in str(err.value)


def test_a_set_of_files_from_the_release_and_from_a_local_folder(tmp_path: Path, cache: Path) -> None:
    release = tmp_path / "release"
    release.mkdir()
    (release / "a.json").write_text("A")
    (release / "meta_data.json").write_text("M")
    files = {n: UrlFile(url=(release / n).as_uri(), sha256=_sha((release / n).read_bytes()))
             for n in ("a.json", "meta_data.json")}
    paths, prov = fetch_files(files, None, suite="X", release="org/x@1234")
    hashes = {"a.json": _sha(b"A"), "meta_data.json": _sha(b"M")}
    assert paths["a.json"].read_text() == "A" and prov["dataset_files"] == hashes
    assert prov == {"dataset_id": "org/x@1234", "dataset_revision": f"sha256:{manifest_sha256(hashes)}",
                    "dataset_sha256": manifest_sha256(hashes), "dataset_pinned": True, "dataset_files": hashes}
    copy = tmp_path / "copy"  # a local copy naming one file by its alias, with the other file edited
    copy.mkdir()
    (copy / "a.json").write_text("A edited")
    (copy / "metadata.json").write_text("M")
    paths, local = fetch_files(files, str(copy), suite="X", release="org/x@1234",
                               aliases={"meta_data.json": ("metadata.json",)})
    assert paths["meta_data.json"] == copy / "metadata.json"
    assert local["dataset_pinned"] is False and local["dataset_pinned_source"] == "org/x@1234"
    assert local["dataset_id"] == str(copy)
    (copy / "metadata.json").unlink()
    with pytest.raises(OptionError, match="has no meta_data.json: give a complete copy of org/x@1234"):
        fetch_files(files, str(copy), suite="X", release="org/x@1234")
    with pytest.raises(OptionError, match="is not a folder"):
        fetch_files(files, str(copy / "a.json"), suite="X", release="org/x@1234")


def test_a_set_of_hub_files_at_one_commit_is_named_by_the_commit(monkeypatch: pytest.MonkeyPatch,
                                                                 tmp_path: Path) -> None:
    import huggingface_hub

    (tmp_path / "q.json").write_text("Q")
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", lambda **kw: str(tmp_path / kw["filename"]))
    files = {"q.json": HubFile("org/data", "q.json", revision="b" * 40)}
    _, prov = fetch_files(files, None, suite="X", release="hf://datasets/org/data@bbbb")
    assert prov["dataset_revision"] == "b" * 40 and prov["dataset_files"] == {"q.json": _sha(b"Q")}


def _fake_info(monkeypatch: pytest.MonkeyPatch, raises: type[BaseException] | None = None) -> list:
    import huggingface_hub

    asked: list = []

    def dataset_info(self, repo_id, revision=None, **kw):  # noqa: ANN001, ANN202
        asked.append((repo_id, revision))
        if raises is not None:
            raise raises("boom")
        return SimpleNamespace(sha="c" * 40, siblings=[SimpleNamespace(rfilename="data/train.jsonl")])

    monkeypatch.setattr(huggingface_hub.HfApi, "dataset_info", dataset_info)
    return asked


def test_a_revision_resolves_to_its_commit(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _fake_info(monkeypatch)
    rev = resolve_revision("org/data")
    assert asked == [("org/data", None)] and rev.sha == "c" * 40 and rev.requested == "main"
    assert rev.files == ("data/train.jsonl",)


def test_an_unreachable_hub_is_one_line_naming_the_option(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_info(monkeypatch, raises=ConnectionError)
    with pytest.raises(OptionError, match="cannot reach the Hugging Face Hub to resolve org/data@v1") as err:
        resolve_revision("org/data", "v1", option="-T stories=PATH")
    assert "\n" not in str(err.value) and "-T stories=PATH" in str(err.value)


def test_a_hub_dataset_is_loaded_at_the_resolved_commit(monkeypatch: pytest.MonkeyPatch) -> None:
    import datasets

    _fake_info(monkeypatch)
    loaded: list = []

    def load_dataset(repo, split=None, revision=None, **kw):  # noqa: ANN001, ANN202
        loaded.append((repo, split, revision))
        return [{"x": 1}]

    monkeypatch.setattr(datasets, "load_dataset", load_dataset)
    rows, rev = load_hub_dataset("org/data", "main", split="test")
    assert rows == [{"x": 1}] and loaded == [("org/data", "test", "c" * 40)] and rev.sha == "c" * 40

    def broken(*a, **kw):  # noqa: ANN002, ANN003, ANN202
        raise FileNotFoundError("no split")

    monkeypatch.setattr(datasets, "load_dataset", broken)
    with pytest.raises(OptionError, match=r"cannot load Hub dataset 'org/data' \(revision main, commit cccccccccccc\)"):
        load_hub_dataset("org/data")


def test_a_hub_file_offline_and_not_cached_is_one_line(cache: Path, monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path: Path) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    with pytest.raises(OptionError, match=r"cannot download org/x/a.csv@main \(offline mode\)") as err:
        download_hub_file("org/x", "a.csv", "main", suite="X", option="dataset=PATH")
    assert "\n" not in str(err.value) and "dataset=PATH (X)" in str(err.value)
