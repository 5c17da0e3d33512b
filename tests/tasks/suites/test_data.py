"""Pinned suite data: download through fsspec (file:// URLs stand in for the network), verify, cache, extract."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from tombench.kit.errors import OptionError
from tombench.kit.pinning import HubFile, UrlFile, fetch


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
