"""The one way tombench writes to a Hugging Face Hub repo: commits against a known parent, bounded waits, one-line errors.

Three things write to the Hub (the leaderboard's rows, its "Eval Results" pull requests, an exported ToM-Synth
dataset); they all go through `HubRepo`, so each gets the same guarantees:

* **No lost updates.** `HubRepo.commit(files, parent=sha)` sends the commit against the head the caller read; if
  someone else committed in between, the Hub answers 409/412 and `HubConflict` is raised, so the caller re-reads
  and tries again instead of silently overwriting. The files are preuploaded against that *parent* too, so files
  another writer committed meanwhile are never dropped from our commit as "unchanged" (see `HubRepo.commit`).
* **Bounded waits.** `timeout` is a real deadline for each Hub operation (read the head, download a file,
  preupload, commit), everything included: `huggingface_hub` retries timed-out and failed requests on its own (up to
  5 times with backoff, so a per-request timeout of 2 s used to end after 10 s), and its shared HTTP client has no
  timeout for API calls at all. Each operation therefore runs in a worker thread that the caller waits for at most
  `timeout` seconds (`bounded`; an upload gets one more second per MB it sends); the per-request timeout is set as
  well (`set_hub_timeout`), so an abandoned request ends soon after. A Hub that accepts connections and never
  answers ends the call with one line.
* **One-line errors.** A missing token, an unreachable Hub, a refused token, a timeout or a conflict is a
  `HubError` whose message is one line saying what happened (and, for a commit that timed out, that it may have
  landed).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

__all__ = ["DEFAULT_TIMEOUT", "HubConflict", "HubError", "HubRepo", "HubTimeout", "bounded", "folder_files",
           "set_hub_timeout"]

#: Seconds one Hub operation (its requests and huggingface_hub's own retries together) may take before it gives up.
DEFAULT_TIMEOUT = 30.0
#: Bytes per second an upload is granted on top of the deadline (a slow link: 1 MB/s).
UPLOAD_RATE = 1_000_000
#: Statuses meaning "the branch moved under us": re-read and try again.
_CONFLICT = {409, 412}
#: Sessions whose timeout we set (we never override a timeout the user configured on their own client).
_TIMED: weakref.WeakSet = weakref.WeakSet()


class HubError(RuntimeError):
    """A Hub call that could not complete (no token, offline, permission, conflict, timeout). One line of text."""


class HubTimeout(HubError):
    """The Hub accepted the connection but did not answer in time."""


class HubConflict(HubError):
    """The branch moved since the parent commit the caller read: re-read it and try again."""


T = TypeVar("T")


def bounded(call: Callable[[], T], seconds: float | None, on_timeout: Callable[[], BaseException]) -> T:
    """`call()`, waited for at most `seconds` (None: without limit); past that, `on_timeout()` is raised.

    The call runs in a daemon thread, so a request that never returns (and huggingface_hub's retries of it) cannot
    hold the caller, nor keep the process alive at exit. What the call does after the deadline is lost (a commit
    may still land: the caller's message says so)."""
    if not seconds:
        return call()
    box: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        try:
            box["value"] = call()
        except BaseException as e:  # noqa: BLE001 - handed to the caller's thread as is
            box["error"] = e
        finally:
            done.set()

    threading.Thread(target=work, name="tombench-hub-call", daemon=True).start()
    if not done.wait(seconds):
        raise on_timeout()
    if "error" in box:
        raise box["error"]
    return box["value"]


def set_hub_timeout(seconds: float | None) -> None:
    """Give huggingface_hub's shared HTTP client a per-request timeout (connect and read), unless its user already
    configured one. `None` leaves the client as it is."""
    if seconds is None:
        return
    from huggingface_hub import get_session

    session = get_session()
    current = getattr(session, "timeout", None)
    if current is None:  # not an httpx-style client (huggingface_hub < 1.0 used requests): nothing to set
        return
    if session in _TIMED or all(getattr(current, k, None) is None for k in ("connect", "read", "write", "pool")):
        session.timeout = type(current)(seconds)
        _TIMED.add(session)


def _http_errors() -> tuple[type[BaseException], ...]:
    from huggingface_hub.errors import HfHubHTTPError

    # The HTTP library's base error (connection refused, DNS, timeouts), whatever library huggingface_hub uses.
    return (HfHubHTTPError, HfHubHTTPError.__bases__[0], OSError)


def _status(err: BaseException) -> int | None:
    response = getattr(err, "response", None)
    return getattr(response, "status_code", None)


def _is_timeout(err: BaseException | None) -> bool:
    while err is not None:
        if "Timeout" in type(err).__name__:
            return True
        err = err.__cause__ or err.__context__
    return False


def _first_line(err: BaseException) -> str:
    return str(err).splitlines()[0] if str(err) else "no details"


def folder_files(folder: str | Path) -> dict[str, Path]:
    """The files of an exported folder by their path in the repo (hidden files and folders, e.g. caches, left out)."""
    root = Path(folder)
    files = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if path.is_file() and not any(part.startswith(".") for part in rel.parts):
            files[rel.as_posix()] = path
    return files


@dataclass
class HubRepo:
    """One Hub repo, read or written through `huggingface_hub` with a per-request timeout and one-line errors.

    A writer (`writing=True`, the default) needs a token: the given one, else the user's (`hf auth login`, HF_TOKEN).
    `writing` also chooses the wording of errors ("could not reach the Hub to push to ..." or "could not read ...").
    """

    repo_id: str
    repo_type: str = "dataset"
    token: str | None = None
    endpoint: str | None = None
    timeout: float | None = DEFAULT_TIMEOUT
    writing: bool = True
    space_sdk: str | None = None  # a Space repo is created with its SDK (`gradio`); the Hub refuses one without
    api: Any = field(init=False, repr=False)

    def __post_init__(self) -> None:
        from huggingface_hub import HfApi, get_token

        if self.writing:
            self.token = self.token or get_token()
            if not self.token:
                raise HubError("no Hugging Face token: run `hf auth login` or set HF_TOKEN")
        set_hub_timeout(self.timeout)
        self.api = HfApi(endpoint=self.endpoint, token=self.token)

    # ------------------------------------------------------------------------------------------------- errors
    def _timeout_message(self, seconds: float | None = None) -> str:
        seconds = seconds or self.timeout
        return f"the Hub at {self.api.endpoint} did not answer " + (
            f"within {round(seconds, 1):g} s" if seconds else "in time")

    def _one_line(self, err: BaseException, committing: bool) -> HubError:
        """The one-line error a user sees for an HTTP or network failure."""
        status = _status(err)
        if committing and status in _CONFLICT:
            return HubConflict(f"{self.repo_id} changed while committing (HTTP {status}): read it again and retry")
        if self.writing and status in (401, 403):
            return HubError(f"the Hub refused the token for {self.repo_id} (HTTP {status}): check it has write access")
        if _is_timeout(err):
            landed = " (the commit may have landed: pushing again skips what is there)" if committing else ""
            return HubTimeout(self._timeout_message() + landed)
        detail = f"HTTP {status}" if status else type(err).__name__
        if self.writing:
            return HubError(f"could not reach the Hub to push to {self.repo_id} ({detail}): {_first_line(err)}")
        return HubError(f"could not read {self.repo_id} from the Hub ({detail})")

    def _bounded(self, call: Callable[[], T], committing: bool = False, upload: int = 0) -> T:
        """One Hub operation under the deadline: `timeout` seconds, huggingface_hub's retries included, plus one
        second per `UPLOAD_RATE` bytes it sends (so a large export is not cut off by a deadline meant for a
        silent Hub)."""
        landed = " (the commit may have landed: pushing again skips what is there)" if committing else ""
        seconds = self.timeout + upload / UPLOAD_RATE if self.timeout else None
        return bounded(call, seconds, lambda: HubTimeout(self._timeout_message(seconds) + landed))

    @contextmanager
    def _errors(self, committing: bool = False) -> Iterator[None]:
        try:
            yield
        except HubError:
            raise
        except _http_errors() as e:
            raise self._one_line(e, committing) from e

    # ------------------------------------------------------------------------------------------------- reading
    def head(self, revision: str | None = None, *, create: bool = False, private: bool = False) -> Any:
        """The repo's info at `revision` (sha and file list, no per-file metadata); with `create`, a repo that does
        not exist yet is created first."""
        from huggingface_hub.errors import RepositoryNotFoundError

        with self._errors():
            try:
                return self._info(revision)
            except RepositoryNotFoundError:
                if not create:
                    raise
            self._bounded(lambda: self.api.create_repo(self.repo_id, repo_type=self.repo_type, private=private,
                                                       exist_ok=True, space_sdk=self.space_sdk))
            return self._info(revision)

    def _info(self, revision: str | None) -> Any:
        return self._bounded(lambda: self.api.repo_info(self.repo_id, repo_type=self.repo_type, revision=revision,
                                                        timeout=self.timeout, files_metadata=False))

    def read_text(self, path: str, revision: str) -> str:
        """A file at a commit as UTF-8 text (see `read_bytes`)."""
        return self.read_bytes(path, revision).decode("utf-8")

    def read_bytes(self, path: str, revision: str) -> bytes:
        """A file at a commit, through huggingface_hub's cache, within the deadline (bytes: for files anyone may
        have written, the caller decides what is damaged)."""
        with self._errors():
            local = self._bounded(lambda: self.api.hf_hub_download(self.repo_id, path, repo_type=self.repo_type,
                                                                   revision=revision))
        return Path(local).read_bytes()

    # ------------------------------------------------------------------------------------------------- writing
    def commit(self, files: Mapping[str, bytes | Path], message: str, *, parent: str | None = None,
               new: Collection[str] = (), create_pr: bool = False) -> Any:
        """Commit `files` ({path in repo: content, or a local file}) on top of `parent` (the head the caller read).

        Returns the commit info, or None when one of the `new` paths (files the caller means to create) turns out
        to be on the branch already (someone committed it meanwhile: re-read the branch). Raises `HubConflict` when
        the branch moved since `parent`, and `HubTimeout` (saying the commit may have landed) when it timed out.
        """
        from huggingface_hub import CommitOperationAdd

        ops = [CommitOperationAdd(p, str(c) if isinstance(c, Path) else c) for p, c in files.items()]
        size = sum(c.stat().st_size if isinstance(c, Path) else len(c) for c in files.values())
        with self._errors(committing=True):
            if parent is not None and not self._preupload(ops, parent, set(new), size):
                return None
            return self._bounded(lambda: self.api.create_commit(self.repo_id, ops, repo_type=self.repo_type,
                                                                parent_commit=parent, commit_message=message,
                                                                create_pr=create_pr), committing=True, upload=size)

    def _preupload(self, ops: list, parent: str, new: set[str], size: int) -> bool:
        """Preupload the commit's files, comparing them with the *parent* commit we build on (not the branch's
        current head), so our new files are never dropped from the commit as "unchanged" when another writer
        committed identical ones meanwhile: the commit is sent and the Hub's parent check answers 412.

        If the Hub does not take a commit id here (400/404), compare with the branch instead and return False when
        any of the `new` files is already there (someone committed it): the caller re-reads the branch."""
        from huggingface_hub.errors import HfHubHTTPError

        try:
            self._bounded(lambda: self.api.preupload_lfs_files(self.repo_id, ops, repo_type=self.repo_type,
                                                               revision=parent, free_memory=False), upload=size)
            return True
        except HfHubHTTPError as e:
            if _status(e) not in (400, 404):
                raise
        self._bounded(lambda: self.api.preupload_lfs_files(self.repo_id, ops, repo_type=self.repo_type,
                                                           free_memory=False), upload=size)
        # `_remote_oid` is what huggingface_hub itself compares to drop unchanged files (set by the preupload call)
        return not any(getattr(op, "_remote_oid", None) is not None for op in ops if op.path_in_repo in new)

    def upload_folder(self, folder: str | Path, message: str, *, private: bool = False) -> str:
        """Commit every file of `folder` on top of the current head (creating the repo if needed); returns the
        commit id, the revision to pin."""
        head = self.head(create=True, private=private)
        return self.commit(folder_files(folder), message, parent=head.sha).oid
