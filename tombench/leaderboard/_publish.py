"""Publishing rows to a Hub dataset repo, safely under concurrent pushes.

Each push is one commit made against the head it read (`tombench.kit.hub.HubRepo.commit` with that parent): it adds
one immutable `data/results/<submission_id>.json` per new submission (and optionally the log), and regenerates the
card, the views and `data/index.jsonl` from *all* rows at that head. If someone else committed in between, the Hub
answers 412 and we start over from the new head, so no submission and no view update is ever lost.

**What a push costs.** The head's file list comes with the one info call; rows are immutable, so a row already
known (passed in `known`, e.g. the local copy) is never downloaded again, and the others come from the one
`data/index.jsonl` (files the index lacks, e.g. written by hand, are read one by one). So a push makes a fixed
number of requests plus what it adds: it does not list the tree or touch every result file (docs/design-notes/leaderboard.md
has the measured counts).

**Truthful claims.** The commit's files are compared with the *parent* commit (the kit preuploads against it), so
a submission some other process committed meanwhile is never silently dropped from "our" commit as unchanged:
the commit is sent, the Hub answers 412, and the retry sees the submission as already there.

**Timeouts and errors** are the kit's (`tombench.kit.hub`): a per-request timeout (`timeout`, default 30 s) and one
line per failure, raised here as `PublishError` / `HubTimeout`.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tombench.kit.hub import DEFAULT_TIMEOUT, HubConflict, HubRepo, HubTimeout, set_hub_timeout
from tombench.kit.hub import HubError as PublishError

from ._details import DETAILS_DIR, ITEMS_DIR, details_path
from ._row import ResultRow
from ._rowfile import DamagedRow, parse_row
from ._site import INDEX_PATH, RESULTS_DIR, hub_model_id, read_index, result_path, site_files
from ._text import inert

__all__ = ["DEFAULT_TIMEOUT", "Board", "HubTimeout", "PublishError", "PushResult", "fetch_board", "fetch_rows",
           "open_eval_result_prs", "push_rows", "set_hub_timeout"]


@dataclass
class PushResult:
    repo_id: str
    added: list[str] = field(default_factory=list)  # submission ids whose files this push's commit created
    already: list[str] = field(default_factory=list)  # submission ids the repo had already (any pusher)
    fetched: list[ResultRow] = field(default_factory=list)  # rows read from the Hub that `known` lacked
    commit: str | None = None
    attempts: int = 0
    skipped: list[str] = field(default_factory=list)  # one line per damaged result file at the head (left as is)


@dataclass
class RemoteRows:
    """The rows at one head: {submission id: row}, those `known` lacked (downloaded), and the damaged result files
    ({submission id: one line}) left out: their ids count as taken, so no push ever writes into them."""

    rows: dict[str, ResultRow]
    fetched: list[ResultRow]
    damaged: dict[str, str] = field(default_factory=dict)


def _remote_rows(hub: HubRepo, info: Any, known: dict[str, ResultRow]) -> RemoteRows:
    """All rows at the head `info`.

    Reads nothing when every result file at the head is known; else the index once, then any file it lacks (a
    damaged file is read once per call and reported, never raised)."""
    prefix = RESULTS_DIR + "/"
    files = {s.rfilename for s in info.siblings or []}
    ids = {p[len(prefix):-len(".json")] for p in files if p.startswith(prefix) and p.endswith(".json")}
    rows = {i: known[i] for i in ids if i in known}
    missing = ids - set(rows)
    fetched: list[ResultRow] = []
    if missing and INDEX_PATH in files:
        index = read_index(_read_or_empty(hub, INDEX_PATH, info.sha))
        fetched += [index[i] for i in sorted(missing & set(index)) if index[i].submission_id == i]
        missing -= {r.submission_id for r in fetched}
    damaged: dict[str, str] = {}
    for i in sorted(missing):  # result files the index does not cover (written by hand or by an older client)
        try:
            fetched.append(parse_row(hub.read_bytes(result_path(i), info.sha), result_path(i)))
        except DamagedRow as e:
            damaged[i] = str(e)
    rows.update({r.submission_id: r for r in fetched})
    return RemoteRows(rows, fetched, damaged)


def _read_or_empty(hub: HubRepo, path: str, revision: str) -> str:
    """A derived file's text, or '' when it is not UTF-8 (the index is a cache: the result files stand in)."""
    try:
        return hub.read_bytes(path, revision).decode("utf-8")
    except UnicodeDecodeError:
        return ""


@dataclass
class Evidence:
    """Local files that go with the rows: logs and per-sample details (by submission id), evaluation items (by
    their path in the repo)."""

    logs: dict[str, Path] = field(default_factory=dict)
    details: dict[str, Path] = field(default_factory=dict)
    items: dict[str, Path] = field(default_factory=dict)


def _data_files(paths: Iterable[str]) -> set[str]:
    return {p for p in paths if p.startswith((DETAILS_DIR + "/", ITEMS_DIR + "/"))}


def _commit_files(new: list[ResultRow], remote: dict[str, ResultRow], evidence: Evidence, at_head: set[str],
                  hub: HubRepo, skipped: Sequence[str] = ()) -> dict[str, bytes | Path]:
    """What one push commits: the new rows' result files, their logs and details, evaluation items the head lacks,
    and the views regenerated from every row (declaring the details and items the commit leaves in the repo)."""
    files: dict[str, bytes | Path] = {result_path(r.submission_id): (r.to_json() + "\n").encode() for r in new}
    for r in new:
        if r.log_file and r.submission_id in evidence.logs:
            files[r.log_file] = Path(evidence.logs[r.submission_id])
        if r.submission_id in evidence.details:
            files[details_path(r.submission_id)] = Path(evidence.details[r.submission_id])
    files.update({p: Path(local) for p, local in evidence.items.items() if p not in at_head})
    present = _data_files(at_head) | _data_files(files)
    files.update(site_files(list(remote.values()) + new, hub.repo_id, hub.api.endpoint, files=present,
                            skipped=skipped))
    return files


def _attempt(hub: HubRepo, rows: Sequence[ResultRow], cache: dict[str, ResultRow], evidence: Evidence,
             private: bool, result: PushResult) -> bool:
    """One read-then-commit against the current head. True when the push is done (committed, or nothing new);
    False when our files turned out to be on the branch already (re-read it: they count as "already").
    Raises `HubConflict` when the branch moved before our commit."""
    info = hub.head(create=True, private=private)
    found = _remote_rows(hub, info, cache)
    remote = found.rows
    cache.update({r.submission_id: r for r in found.fetched})
    result.fetched += found.fetched
    result.skipped = list(found.damaged.values())
    # a file of the head is never rewritten: ours are known (never re-read), damaged ones are taken
    new = [r for r in {r.submission_id: r for r in rows}.values()
           if r.submission_id not in remote and r.submission_id not in found.damaged]
    result.already = [r.submission_id for r in rows if r.submission_id in remote]
    if not new:
        return True
    message = f"Add {len(new)} result(s): " + inert(", ".join(sorted({r.model for r in new})))[:200]
    at_head = {x.rfilename for x in info.siblings or []}
    commit = hub.commit(_commit_files(new, remote, evidence, at_head, hub, result.skipped), message,
                        parent=info.sha, new={result_path(r.submission_id) for r in new})
    if commit is None:
        return False
    result.added = [r.submission_id for r in new]
    result.commit = commit.oid
    return True


def _backoff(attempt: int, rng: random.Random) -> float:
    """Seconds to wait before retrying after a conflict: exponential up to 2 s, jittered so that concurrent pushers
    do not collide again."""
    return min(2.0, 0.05 * 2 ** min(attempt, 5)) * (0.5 + rng.random())


def push_rows(
    rows: Sequence[ResultRow],
    repo_id: str,
    *,
    known: Iterable[ResultRow] = (),
    logs: dict[str, Path] | None = None,
    details: dict[str, Path] | None = None,
    items: dict[str, Path] | None = None,
    token: str | None = None,
    endpoint: str | None = None,
    private: bool = False,
    max_attempts: int = 40,
    seed: int | None = None,
    timeout: float | None = DEFAULT_TIMEOUT,
    on_retry: Callable[[int, str], None] | None = None,
) -> PushResult:
    """Commit the rows the repo lacks (plus their logs and per-sample details, keyed by submission id, and the
    evaluation item files the repo lacks, keyed by their path in the repo) and regenerate the views.

    `known` are rows already at hand (rows are immutable: a known submission is never downloaded). Raises
    `PublishError` with a one-line message on a missing token, a network failure, a timeout or repeated conflicts.
    """
    hub = HubRepo(repo_id, token=token, endpoint=endpoint, timeout=timeout)
    result = PushResult(repo_id)
    cache = {r.submission_id: r for r in known}
    cache.update({r.submission_id: r for r in rows})
    rng = random.Random(seed)
    evidence = Evidence(dict(logs or {}), dict(details or {}), dict(items or {}))
    for attempt in range(1, max_attempts + 1):
        result.attempts = attempt
        try:
            if _attempt(hub, rows, cache, evidence, private, result):
                return result
        except HubConflict:
            if on_retry:
                on_retry(attempt, "the repo changed while pushing; retrying on the new head")
            time.sleep(_backoff(attempt, rng))
    raise PublishError(f"gave up after {max_attempts} attempts: {repo_id} kept changing; push again later")


@dataclass
class Board:
    """A Hub leaderboard as read at one commit: its rows, the commit, and its file paths."""

    rows: list[ResultRow]
    revision: str
    files: set[str]
    skipped: list[str] = field(default_factory=list)  # one line per damaged result file left out


def fetch_board(repo_id: str, *, token: str | None = None, endpoint: str | None = None,
                revision: str | None = None, known: Iterable[ResultRow] = (),
                timeout: float | None = DEFAULT_TIMEOUT) -> Board:
    """Every row of a Hub leaderboard repo (history included) with the commit read and its files: one info call
    plus the index when needed."""
    hub = HubRepo(repo_id, token=token, endpoint=endpoint, timeout=timeout, writing=False)
    info = hub.head(revision)
    found = _remote_rows(hub, info, {r.submission_id: r for r in known})
    return Board(list(found.rows.values()), info.sha, {s.rfilename for s in info.siblings or []},
                 list(found.damaged.values()))


def fetch_rows(repo_id: str, *, token: str | None = None, endpoint: str | None = None,
               revision: str | None = None, known: Iterable[ResultRow] = (),
               timeout: float | None = DEFAULT_TIMEOUT) -> list[ResultRow]:
    """Every row of a Hub leaderboard repo (history included): one info call plus the index when needed."""
    return fetch_board(repo_id, token=token, endpoint=endpoint, revision=revision, known=known,
                       timeout=timeout).rows


def open_eval_result_prs(files: dict[str, dict[str, list]], *,
                         timeout: float | None = DEFAULT_TIMEOUT) -> Iterator[str]:
    """Open one pull request per model on its Hub model repo with its "Eval Results" files (one per variant);
    yields one line per model (opened, skipped, or why it failed: the others still get their PR)."""
    import yaml

    for model, variants in files.items():
        target = hub_model_id(model)
        if target is None:
            yield f"skipped {model}: not a Hub model id"
            continue
        try:
            hub = HubRepo(target, repo_type="model", timeout=timeout)
            content = {f".eval_results/{name}": yaml.safe_dump(entries, sort_keys=False).encode()
                       for name, entries in variants.items()}
            info = hub.commit(content, "Add tombench eval results", create_pr=True)
        except Exception as e:  # noqa: BLE001 - one line per model; the others still get their PR
            yield f"could not open a PR on {target}: {str(e).splitlines()[0] if str(e) else type(e).__name__}"
            continue
        yield f"opened {info.pr_url}"
