"""Publishing rows to a Hub dataset repo with `huggingface_hub`, safely under concurrent pushes.

Each push is one commit made against the head it read (`parent_commit`): it adds one immutable
`data/results/<submission_id>.json` per new submission (and optionally the log), and regenerates the card and views
from *all* rows at that head. If someone else committed in between, the Hub answers 412 and we start over from the
new head, so no submission and no view update is ever lost. Submissions already in the repo are skipped, so
re-pushing the same log adds nothing.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ._row import ResultRow
from ._site import RESULTS_DIR, result_path, site_files

#: Statuses meaning "the branch moved under us": re-read and try again.
_CONFLICT = {409, 412}


class PublishError(RuntimeError):
    """A push that could not complete (no token, offline, permission, too many conflicts). One line of text."""


@dataclass
class PushResult:
    repo_id: str
    added: list[str] = field(default_factory=list)  # submission ids committed by this push
    already: list[str] = field(default_factory=list)  # submission ids the repo had already
    commit: str | None = None
    attempts: int = 0


def _http_errors() -> tuple[type[BaseException], ...]:
    from huggingface_hub.errors import HfHubHTTPError

    # The HTTP library's base error (connection refused, DNS, timeouts), whatever library huggingface_hub uses.
    return (HfHubHTTPError, HfHubHTTPError.__bases__[0], OSError)


def _status(err: BaseException) -> int | None:
    response = getattr(err, "response", None)
    return getattr(response, "status_code", None)


def _remote_rows(api, repo_id: str, revision: str) -> dict[str, ResultRow]:
    """All rows at `revision`, keyed by path (downloads are cached in HF_HOME by content)."""
    from huggingface_hub import RepoFile
    from huggingface_hub.errors import HfHubHTTPError

    try:
        entries = list(api.list_repo_tree(repo_id, RESULTS_DIR, recursive=True, repo_type="dataset",
                                          revision=revision))
    except HfHubHTTPError as e:
        if _status(e) == 404:
            return {}
        raise
    rows = {}
    for entry in entries:
        if isinstance(entry, RepoFile) and entry.path.endswith(".json"):
            local = api.hf_hub_download(repo_id, entry.path, repo_type="dataset", revision=revision)
            rows[entry.path] = ResultRow.from_json(Path(local).read_text(encoding="utf-8"))
    return rows


def push_rows(
    rows: Sequence[ResultRow],
    repo_id: str,
    *,
    logs: dict[str, Path] | None = None,
    token: str | None = None,
    endpoint: str | None = None,
    private: bool = False,
    max_attempts: int = 40,
    seed: int | None = None,
    on_retry: Callable[[int, str], None] | None = None,
) -> PushResult:
    """Commit the rows the repo lacks (plus their logs, keyed by submission id) and regenerate the views.

    Raises `PublishError` with a one-line message on a missing token, a network failure or repeated conflicts.
    """
    from huggingface_hub import CommitOperationAdd, HfApi, get_token

    token = token or get_token()
    if not token:
        raise PublishError("no Hugging Face token: run `hf auth login` or set HF_TOKEN")
    api = HfApi(endpoint=endpoint, token=token)
    result = PushResult(repo_id)
    rng = random.Random(seed)
    errors = _http_errors()
    try:
        api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
        for attempt in range(1, max_attempts + 1):
            result.attempts = attempt
            head = api.dataset_info(repo_id).sha
            remote = _remote_rows(api, repo_id, head)
            new = [r for r in {r.submission_id: r for r in rows}.values() if result_path(r.submission_id) not in remote]
            result.already = [r.submission_id for r in rows if result_path(r.submission_id) in remote]
            if not new:
                return result
            ops = [CommitOperationAdd(result_path(r.submission_id), (r.to_json() + "\n").encode()) for r in new]
            for r in new:
                if r.log_file and logs and r.submission_id in logs:
                    ops.append(CommitOperationAdd(r.log_file, str(logs[r.submission_id])))
            everything = list(remote.values()) + new
            ops += [CommitOperationAdd(p, c) for p, c in site_files(everything, repo_id, api.endpoint).items()]
            try:
                info = api.create_commit(
                    repo_id, ops, repo_type="dataset", parent_commit=head,
                    commit_message=f"Add {len(new)} result(s): " + ", ".join(sorted({r.model for r in new}))[:200])
            except errors as e:
                if _status(e) not in _CONFLICT:
                    raise
                if on_retry:
                    on_retry(attempt, "the repo changed while pushing; retrying on the new head")
                time.sleep(min(2.0, 0.05 * 2 ** min(attempt, 5)) * (0.5 + rng.random()))
                continue
            result.added = [r.submission_id for r in new]
            result.commit = info.oid
            return result
        raise PublishError(f"gave up after {max_attempts} attempts: {repo_id} kept changing; push again later")
    except PublishError:
        raise
    except errors as e:
        status = _status(e)
        if status in (401, 403):
            raise PublishError(f"the Hub refused the token for {repo_id} (HTTP {status}): check it has write access"
                               ) from e
        detail = f"HTTP {status}" if status else type(e).__name__
        raise PublishError(f"could not reach the Hub to push to {repo_id} ({detail}): "
                           f"{str(e).splitlines()[0] if str(e) else 'no details'}") from e


def fetch_rows(repo_id: str, *, token: str | None = None, endpoint: str | None = None,
               revision: str | None = None) -> list[ResultRow]:
    """Every row of a Hub leaderboard repo (history included)."""
    from huggingface_hub import HfApi

    api = HfApi(endpoint=endpoint, token=token)
    try:
        head = api.dataset_info(repo_id, revision=revision).sha
        return list(_remote_rows(api, repo_id, head).values())
    except _http_errors() as e:
        status = _status(e)
        detail = f"HTTP {status}" if status else type(e).__name__
        raise PublishError(f"could not read {repo_id} from the Hub ({detail})") from e
