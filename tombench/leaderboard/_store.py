"""The local copy of a leaderboard: the same layout as the Hub repo, written before anything is pushed.

Rows land here first, so a missing token or a network failure loses nothing: `tombench leaderboard push --repo X`
with no logs pushes whatever the local copy has that the Hub lacks. Result files are immutable: a submission id
that already exists is never rewritten.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from tombench.kit.logs import UnreadableLog

from ._from_log import LogError, RowOverrides, row_from_log
from ._row import ResultRow
from ._site import LOGS_DIR, RESULTS_DIR, eval_result_entries, eval_yaml, model_slug, result_path, site_files

#: Environment variable overriding where local copies live (default: ~/.cache/tombench/leaderboard).
HOME_ENV = "TOMBENCH_LEADERBOARD_HOME"


def default_local_dir(repo_id: str | None) -> Path:
    base = Path(os.environ.get(HOME_ENV) or Path.home() / ".cache" / "tombench" / "leaderboard").expanduser()
    return base / (repo_id.replace("/", "__") if repo_id else "local")


class LocalStore:
    """A folder holding `data/results/<submission_id>.json` (+ optional `logs/`) and the rendered views."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def add(self, row: ResultRow, log: str | Path | None = None) -> bool:
        """Keep a row (and its log when `row.log_file` names one). False when the submission was already here."""
        path = self.root / result_path(row.submission_id)
        if row.log_file and log is not None:
            dest = self.root / row.log_file
            if not dest.exists():
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(log, dest)
        if path.exists():
            return False
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(row.to_json() + "\n", encoding="utf-8")
        tmp.replace(path)  # atomic: a crash never leaves a half-written row
        return True

    def rows(self) -> list[ResultRow]:
        folder = self.root / RESULTS_DIR
        if not folder.is_dir():
            return []
        return [ResultRow.from_json(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]

    def log_path(self, row: ResultRow) -> Path | None:
        if not row.log_file:
            return None
        path = self.root / row.log_file
        return path if path.exists() else None

    def write_site(self, repo_id: str | None = None) -> None:
        """Regenerate the card and views from every row here."""
        for rel, content in site_files(self.rows(), repo_id).items():
            path = self.root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)


def log_repo_path(submission_id: str, log: str | Path) -> str:
    return f"{LOGS_DIR}/{submission_id}{Path(str(log)).suffix or '.eval'}"


def read_row(path: Path, overrides: RowOverrides | None = None) -> ResultRow:
    """Read a row, turning unreadable files into `LogError` (a folder may hold other JSON files)."""
    try:
        return row_from_log(path, overrides)
    except LogError:
        raise
    except Exception as e:  # not an Inspect log at all
        raise LogError(str(UnreadableLog.from_error(path, e))) from e


#: Prints one line of the add report: (rich markup, whether rich may highlight numbers and paths in it).
Say = Callable[[str, bool], None]


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
    user named, never skipped quietly. With `with_logs` each row also names its log's place in the repo."""
    named = set(explicit)
    report = AddReport()
    for path in paths:
        report.given += 1
        try:
            row = read_row(path, overrides)
        except LogError as e:
            if path not in named and "not a readable Inspect eval log" in str(e):
                say(f"[dim]ignored {path.name}: not an Inspect eval log[/]", True)
            else:
                report.refused.append(str(e))
                say(f"[yellow]refused[/] {e}", False)
            continue
        if with_logs:
            row = replace(row, log_file=log_repo_path(row.submission_id, path))
        if store.add(row, path):
            report.added += 1
            say(f"added {row.submission_id}: {row.model} on {row.task} = {100 * row.accuracy:.1f}%", False)
        else:
            report.kept += 1
            say(f"[dim]already kept[/] {row.submission_id} ({path.name})", True)
    return report


def keep_fetched(store: LocalStore, fetched: Iterable[ResultRow], repo_id: str) -> None:
    """Keep rows read from the Hub in the local copy too (rows are immutable: never fetched twice)."""
    fetched = list(fetched)
    for r in fetched:
        store.add(r)
    if fetched:
        store.write_site(repo_id)


def write_eval_results(rows: list[ResultRow], benchmark: str, out: str | Path) -> dict[str, list]:
    """Write the Hub "Eval Results" files under `out`: the benchmark's eval.yaml and one
    `<model>/.eval_results/tombench.yaml` per model. Returns the entries by model (for pull requests)."""
    import yaml

    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    (root / "eval.yaml").write_text(eval_yaml(rows), encoding="utf-8")
    entries = eval_result_entries(rows, benchmark)
    for model, items in entries.items():
        path = root / model_slug(model) / ".eval_results" / "tombench.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(items, sort_keys=False), encoding="utf-8")
    return entries
