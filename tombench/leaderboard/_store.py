"""The local copy of a leaderboard: the same layout as the Hub repo, written before anything is pushed.

Rows land here first, so a missing token or a network failure loses nothing: `tombench leaderboard push --repo X`
with no logs pushes whatever the local copy has that the Hub lacks. Result files are immutable: a submission id
that already exists is never rewritten.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ._row import ResultRow
from ._site import LOGS_DIR, RESULTS_DIR, result_path, site_files

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
