"""The local copy of a leaderboard: the same layout as the Hub repo, written before anything is pushed.

Rows land here first, so a missing token or a network failure loses nothing: `tombench leaderboard push --repo X`
with no logs pushes whatever the local copy has that the Hub lacks. Result files are immutable: a submission id
that already exists is never rewritten.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from tombench.kit.logs import UnreadableLog, read_log, settings_key, shard_groups, shard_of

from ._details import (
    DETAILS_DIR,
    ITEMS_DIR,
    Submission,
    details_path,
    items_path,
    jsonl,
    submission_from_log,
    submission_from_shards,
)
from ._from_log import LogError, RowOverrides, row_from_log
from ._row import ResultRow
from ._rowfile import DamagedRow, RowSet, parse_row
from ._site import (
    LOGS_DIR,
    RESULTS_DIR,
    eval_result_files,
    eval_result_text,
    eval_yaml,
    model_slug,
    result_path,
    site_files,
)
from ._text import inert

#: What one part of a path in the local copy may be (the repo's own names: submission ids, digests, task ids).
_PLAIN = re.compile(r"[A-Za-z0-9._-]{1,200}")
#: Environment variable overriding where local copies live (default: ~/.cache/tombench/leaderboard).
HOME_ENV = "TOMBENCH_LEADERBOARD_HOME"


def default_local_dir(repo_id: str | None) -> Path:
    base = Path(os.environ.get(HOME_ENV) or Path.home() / ".cache" / "tombench" / "leaderboard").expanduser()
    return base / (repo_id.replace("/", "__") if repo_id else "local")


class LocalStore:
    """A folder holding `data/results/<submission_id>.json` (+ optional `logs/`) and the rendered views."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def add(self, row: ResultRow, log: str | Path | None = None, submission: Submission | None = None) -> bool:
        """Keep a row (and its log when `row.log_file` names one; its details and evaluation items when given).
        False when the submission was already here, or when its id or log path could not be a file of this folder
        (a row read from someone else's repo may carry any string: it is never used raw as a path)."""
        path = self.local(result_path(row.submission_id))
        if path is None or (row.log_file and self.local(row.log_file) is None):
            return False
        if row.log_file and log is not None:
            dest = self.root / row.log_file
            if not dest.exists():
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(log, dest)
        if submission is not None and submission.details:  # before the row: a kept row never lacks its evidence
            self._write_once(details_path(row.submission_id), jsonl(submission.details))
            self._write_once(items_path(row, submission.items), jsonl(submission.items))
        if path.exists():
            return False
        self._write_once(result_path(row.submission_id), row.to_json() + "\n")
        return True

    def local(self, rel: str) -> Path | None:
        """`rel` (a path in the repo) inside this folder; None when one of its parts is not a plain file name
        (`..`, an absolute path, a control character...), so nothing read from a repo can write or read elsewhere."""
        parts = rel.split("/")
        if not all(_PLAIN.fullmatch(p) and p not in (".", "..") for p in parts):
            return None
        return self.root.joinpath(*parts)

    def _write_once(self, rel: str | None, text: str) -> None:
        """Write an immutable file atomically (a crash never leaves half a file); an existing one is kept."""
        path = self.local(rel) if rel else None
        if path is None or path.exists():
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)

    def details_path(self, row: ResultRow) -> Path | None:
        """The row's per-sample details file here, if kept."""
        path = self.local(details_path(row.submission_id))
        return path if path is not None and path.exists() else None

    def item_files(self) -> dict[str, Path]:
        """The evaluation-item files kept here, by their path in the repo."""
        folder = self.root / ITEMS_DIR
        return {p.relative_to(self.root).as_posix(): p for p in sorted(folder.glob("*/*.jsonl"))}

    def data_files(self) -> set[str]:
        """Repo paths of the details and item files kept here (the card declares configs only for what exists)."""
        details = self.root / DETAILS_DIR
        found = {p.relative_to(self.root).as_posix() for p in details.glob("*.jsonl")} if details.is_dir() else set()
        return found | set(self.item_files())

    def rows(self) -> list[ResultRow]:
        """Every readable row here (a damaged file is left out: `load` says which)."""
        return self.load().rows

    def load(self) -> RowSet:
        """Every row here, and one line per result file that is not a row (truncated, binary, another shape):
        the file is left as it is, never rewritten, and the other rows are read."""
        folder = self.root / RESULTS_DIR
        found = RowSet()
        if not folder.is_dir():
            return found
        for p in sorted(folder.glob("*.json")):
            try:
                found.rows.append(parse_row(p.read_bytes(), f"{RESULTS_DIR}/{p.name}"))
            except DamagedRow as e:
                found.skipped.append(str(e))
            except OSError as e:  # a folder named *.json, a file without read permission
                found.skipped.append(str(DamagedRow(f"{RESULTS_DIR}/{p.name}", f"unreadable ({e.strerror})")))
        return found

    def log_path(self, row: ResultRow) -> Path | None:
        path = self.local(row.log_file) if row.log_file else None
        return path if path is not None and path.exists() else None

    def write_site(self, repo_id: str | None = None) -> None:
        """Regenerate the card and views from every readable row here (the views name the damaged files)."""
        found = self.load()
        for rel, content in site_files(found.rows, repo_id, files=self.data_files(), skipped=found.skipped).items():
            path = self.root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)


def log_repo_path(submission_id: str, log: str | Path) -> str:
    return f"{LOGS_DIR}/{submission_id}{Path(str(log)).suffix or '.eval'}"


def read_row(path: Path, overrides: RowOverrides | None = None) -> ResultRow:
    """Read a row, turning unreadable files into `LogError` (a folder may hold other JSON files)."""
    return read_submission(path, overrides, row_from_log)


def read_submission(path: Path, overrides: RowOverrides | None = None, read=submission_from_log):  # noqa: ANN001
    """Read a log's submission (row, details, items), turning unreadable files into `LogError`."""
    try:
        return read(path, overrides)
    except LogError:
        raise
    except Exception as e:  # not an Inspect log at all
        raise LogError(str(UnreadableLog.from_error(path, e))) from e


#: Prints one line of the add report: (rich markup, whether rich may highlight numbers and paths in it).
Say = Callable[[str, bool], None]


def _shown(text: str) -> str:
    """A string from a log or a file name inside a `Say` line: inert, and its `[...]` never read as rich markup."""
    from rich.markup import escape

    return escape(inert(text))


@dataclass
class AddReport:
    """What adding a batch of logs to the local copy did."""

    given: int = 0
    added: int = 0
    kept: int = 0  # already in the local copy
    refused: list[str] = field(default_factory=list)  # one line per log that could not become a row

    @property
    def partial(self) -> str:
        """The error line when some logs were refused (the others were added), else ''."""
        if not self.refused:
            return ""
        return f"{len(self.refused)} of {len(self.refused) + self.added + self.kept} log(s) refused (see above)"

    @property
    def nothing(self) -> str:
        """The error line when none of the given logs could be added, else ''."""
        if self.added or self.kept:
            return ""
        why = f"; first: {self.refused[0]}" if self.refused else ""
        return f"none of the {self.given} given log(s) could be added{why}"


def add_logs(store: LocalStore, paths: Iterable[Path], overrides: RowOverrides | None = None, *,
             explicit: Iterable[Path] = (), with_logs: bool = False, say: Say = lambda text, highlight: None
             ) -> AddReport:
    """Turn eval logs into rows kept in `store`, one line each through `say`.

    A file found inside a given folder that is not an Inspect log at all is skipped quietly (folders hold other
    JSON files); any other log that cannot become a row is refused with its reason. `explicit` are the files the
    user named, never skipped quietly. With `with_logs` each row also names its log's place in the repo.

    The shard logs of a sharded run (`-T shard=K/N`) become one row (`row_from_shards`); a configuration whose
    shards are missing or doubled is refused in one line, since its row would miss or double
    count questions. A sharded row names no log file (it has N)."""
    named = set(explicit)
    report = AddReport()
    singles, sharded = _split_shards(list(paths))
    for path in singles:
        report.given += 1
        try:
            submission = read_submission(path, overrides)
        except LogError as e:
            if path not in named and "not a readable Inspect eval log" in str(e):
                say(f"[dim]ignored {_shown(path.name)}: not an Inspect eval log[/]", True)
            else:
                report.refused.append(str(e))
                say(f"[yellow]refused[/] {_shown(str(e))}", False)
            continue
        row = submission.row
        if with_logs:
            row = replace(row, log_file=log_repo_path(row.submission_id, path))
        _keep(store, report, row, path, say, submission)
    for group in sharded:
        report.given += len(group)
        _add_sharded(store, report, group, overrides, say)
    return report


def _keep(store: LocalStore, report: AddReport, row: ResultRow, path: Path | None, say: Say,
          submission: Submission | None = None) -> None:
    """Keep one row (with its details and items) in the store and say so (or that it was kept before)."""
    if store.add(row, path, submission):
        report.added += 1
        say(f"added {row.submission_id}: {_shown(row.model)} on {_shown(row.task)} = {100 * row.accuracy:.1f}%", False)
    else:
        report.kept += 1
        say(f"[dim]already kept[/] {row.submission_id} ({_shown(path.name) if path else 'sharded run'})", True)


def _split_shards(paths: list[Path]) -> tuple[list[Path], list[list[tuple[Path, object]]]]:
    """The logs that are rows of their own, and the shard logs grouped by configuration (`settings_key`), each
    group in start order with its headers. A file whose header does not read is left to `read_row` to refuse."""
    singles: list[Path] = []
    groups: dict[str, list[tuple[Path, object]]] = {}
    for path in paths:
        try:
            header = read_log(path, header_only=True)
        except UnreadableLog:
            singles.append(path)
            continue
        if shard_of(header) is None:
            singles.append(path)
        else:
            groups.setdefault(settings_key(header), []).append((path, header))
    return singles, [sorted(g, key=lambda x: (x[1].eval.created, str(x[0]))) for g in groups.values()]


def _add_sharded(store: LocalStore, report: AddReport, group: list[tuple[Path, object]],
                 overrides: RowOverrides | None, say: Say) -> None:
    """One row per complete sharded run of one configuration, or one refusal line when a shard is missing or
    doubled (then nothing of it is added: which of two copies of a shard is the right one is the user's call)."""
    spec = group[0][1].eval
    label = f"{spec.model} on {spec.task}, {len(group)} shard log(s)"
    sets, problem = shard_groups(group, lambda x: shard_of(x[1]), label)
    if problem:
        names = ", ".join(p.name for p, _ in group)
        report.refused.append(f"{problem}: {names}")
        say(f"[yellow]refused[/] {_shown(f'{problem}: {names}')}", False)
        return
    for part in sets:
        try:
            submission = read_submission([part.parts[k][0] for k in sorted(part.parts)], overrides,  # type: ignore[arg-type]
                                         submission_from_shards)
        except LogError as e:
            report.refused.append(str(e))
            say(f"[yellow]refused[/] {_shown(str(e))}", False)
            continue
        _keep(store, report, submission.row, None, say, submission)


def keep_fetched(store: LocalStore, fetched: Iterable[ResultRow], repo_id: str) -> None:
    """Keep rows read from the Hub in the local copy too (rows are immutable: never fetched twice)."""
    fetched = list(fetched)
    for r in fetched:
        store.add(r)
    if fetched:
        store.write_site(repo_id)


def write_eval_results(rows: list[ResultRow], benchmark: str, out: str | Path, *, files: Iterable[str] = (),
                       revision: str | None = None, endpoint: str | None = None) -> dict[str, dict[str, list]]:
    """Write the Hub "Eval Results" files under `out`: the benchmark's eval.yaml and, per model, one
    `<model>/.eval_results/<file>.yaml` per variant (task and configuration: the Hub's guidance is one file per
    variant). `files` are the benchmark repo's details and item files (eval.yaml defines the tasks whose items
    exist), `revision` its commit. Returns {model: {file name: entries}} (for pull requests)."""
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    files = set(files)
    (root / "eval.yaml").write_text(eval_yaml(rows, files), encoding="utf-8")
    by_model = eval_result_files(rows, benchmark, files, endpoint=endpoint, revision=revision)
    for model, variants in by_model.items():
        for name, entries in variants.items():
            path = root / model_slug(model) / ".eval_results" / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(eval_result_text(model, entries), encoding="utf-8")
    return by_model
