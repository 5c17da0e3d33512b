"""The tombench leaderboard: rows from Inspect logs, publishing to the Hub, and rendered views.

Data flows one way: eval log -> `row_from_log` -> `ResultRow` -> `LocalStore` (`add_logs`) -> `push_rows` (Hub
dataset repo, written through `tombench.kit.hub`), and any set of rows -> `build_view` (`_view.py`) -> `render`
(`_terminal.py`, `_markdown.py`, `_html.py`). Ranks and paired tests: `_ranking.py` over `_stats.py`. See
docs/design-notes/leaderboard.md.
"""

from ._details import Detail, EvalItem, Submission, read_details, submission_from_log
from ._from_log import LogError, RowOverrides, is_tombench_task, row_from_log
from ._publish import (
    Board,
    HubTimeout,
    PublishError,
    PushResult,
    fetch_board,
    fetch_rows,
    open_eval_result_prs,
    push_rows,
    set_hub_timeout,
)
from ._ranking import compare, latest_rows, shared_ranks
from ._render import render
from ._row import SCHEMA_VERSION, Breakdown, Items, MetricValue, ResultRow, features
from ._rowfile import DamagedRow, RowSet, parse_row
from ._site import site_files
from ._stats import Interval, Paired, mcnemar_exact, paired_comparison, proportion_interval
from ._store import AddReport, LocalStore, add_logs, default_local_dir, keep_fetched, read_row, write_eval_results
from ._terminal import TERMINAL_WIDTH
from ._view import build_view

__all__ = [
    "SCHEMA_VERSION", "Breakdown", "Items", "MetricValue", "ResultRow", "features", "row_from_log", "RowOverrides",
    "LogError", "is_tombench_task", "push_rows", "fetch_rows", "PushResult", "PublishError", "HubTimeout",
    "set_hub_timeout", "render", "build_view", "latest_rows", "shared_ranks", "compare", "site_files", "LocalStore",
    "default_local_dir", "add_logs", "AddReport", "keep_fetched", "read_row", "write_eval_results", "open_eval_result_prs",
    "Interval", "Paired", "proportion_interval", "mcnemar_exact", "paired_comparison", "Board", "fetch_board",
    "Detail", "EvalItem", "Submission", "read_details", "submission_from_log", "TERMINAL_WIDTH", "DamagedRow",
    "RowSet", "parse_row",
]
