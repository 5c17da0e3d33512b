"""The tombench leaderboard: rows from Inspect logs, publishing to the Hub, and rendered views.

Data flows one way: eval log -> `row_from_log` -> `ResultRow` -> `LocalStore` -> `push_rows` (Hub dataset repo),
and any set of rows -> `render` (terminal, Markdown, HTML). See docs/leaderboard.md.
"""

from ._from_log import LogError, RowOverrides, row_from_log
from ._publish import PublishError, PushResult, fetch_rows, push_rows
from ._render import build_view, latest_rows, render, shared_ranks
from ._row import SCHEMA_VERSION, Breakdown, ResultRow, features
from ._site import site_files
from ._store import LocalStore, default_local_dir

__all__ = [
    "SCHEMA_VERSION", "Breakdown", "ResultRow", "features", "row_from_log", "RowOverrides", "LogError",
    "push_rows", "fetch_rows", "PushResult", "PublishError", "render", "build_view", "latest_rows", "shared_ranks",
    "site_files", "LocalStore", "default_local_dir",
]
