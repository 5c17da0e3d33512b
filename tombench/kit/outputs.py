"""Where commands write: an output that cannot be written is one line before any work starts, and an output
folder has one writer at a time.

Why check first: a search or a generation run writes its first record after minutes or hours; finding then that
`--out` is read-only (or names a file, or a full disk) costs the run and ends in a traceback. Why a lock: two
runs appending to one folder each resume from what the other has not yet written and write every record twice.
The lock is an advisory `flock` on a file inside the folder: the kernel drops it when its process ends, however
it ends (SIGKILL, out of memory), so a crashed run never leaves a stale lock behind.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from tombench.kit.errors import OptionError

__all__ = ["LOCK_FILE", "exclusive_lock", "is_unwritable", "writable_dir", "writable_file"]

#: the lock file `exclusive_lock` keeps in an output folder (it holds the writer's pid)
LOCK_FILE = ".tombench.lock"

#: the errors that mean "this place cannot be written" (not a bug of ours): one line for the user
_UNWRITABLE = frozenset({errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.ENOTDIR,
                         errno.EISDIR, errno.EEXIST, errno.ENAMETOOLONG})


def is_unwritable(error: BaseException) -> bool:
    """Whether `error` says a path cannot be written (permissions, read-only or full disk, a file in the way)."""
    return isinstance(error, OSError) and error.errno in _UNWRITABLE


def _reason(error: OSError) -> str:
    return (error.strerror or type(error).__name__).lower()


def _file_in_the_way(folder: Path) -> Path | None:
    """The nearest of `folder` and its parents that exists and is not a folder (a file where a folder must be)."""
    for p in (folder, *folder.parents):
        if p.exists():
            return None if p.is_dir() else p
    return None


def _check_dir(folder: Path, option: str, named: Path) -> None:
    """Make `folder` and write a scratch file in it, or one line about `option` `named` (the path the user gave)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".tombench-write-check-"):
            pass
    except OSError as e:
        blocker = _file_in_the_way(folder)
        if blocker is not None:
            raise OptionError(f"{option} {named}: cannot write there ({blocker} is a file, not a folder)") from None
        raise OptionError(f"{option} {named}: cannot write there ({_reason(e)})") from None


def writable_dir(path: str | Path, option: str = "--out") -> Path:
    """`path` as a folder that exists and takes new files (created with its parents if missing), or an
    `OptionError` in one line naming `option`, the folder and why."""
    folder = Path(path)
    _check_dir(folder, option, folder)
    return folder


def writable_file(path: str | Path, option: str = "--out") -> Path:
    """`path` as a file that can be written: its folder is made and checked, and an existing file must be a file
    that opens for appending; an `OptionError` in one line otherwise. Nothing is written to the file itself."""
    file = Path(path)
    if file.is_dir():
        raise OptionError(f"{option} {file}: a folder, not a file")
    _check_dir(file.parent, option, file)
    if file.exists():
        try:
            with file.open("ab"):
                pass
        except OSError as e:
            raise OptionError(f"{option} {file}: cannot write it ({_reason(e)})") from None
    return file


@contextlib.contextmanager
def exclusive_lock(folder: str | Path, what: str = "tombench search", option: str = "--out") -> Iterator[Path]:
    """Hold the output folder `folder` (made if missing) for this process while the block runs; a second writer is
    refused at once with one line naming the holder's pid (non-blocking: a run never waits on another)."""
    import fcntl

    folder = writable_dir(folder, option)
    lock = folder / LOCK_FILE
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
            raise OptionError(f"another {what} is writing to {folder} (pid {holder}); wait for it or use another "
                              f"{option}") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        yield folder
    finally:
        os.close(fd)  # closing drops the lock; the file stays (removing it would race a writer that just opened it)
