"""The tombench leaderboard: rows from Inspect logs, publishing to the Hub, and rendered views.

Data flows one way: eval log -> `row_from_log` -> `ResultRow` -> `LocalStore` (`add_logs`) -> `push_rows` (Hub
dataset repo, written through `tombench.kit.hub`), and any set of rows -> `render` (terminal, Markdown, HTML). Intervals and paired tests: `_stats.py`. See
docs/leaderboard.md.
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
from ._render import build_view, compare, latest_rows, render, shared_ranks
from ._row import SCHEMA_VERSION, Breakdown, Items, MetricValue, ResultRow, features
from ._site import site_files
from ._stats import Interval, Paired, mcnemar_exact, paired_comparison, proportion_interval
from ._store import AddReport, LocalStore, add_logs, default_local_dir, keep_fetched, read_row, write_eval_results

__all__ = [
    "SCHEMA_VERSION", "Breakdown", "Items", "MetricValue", "ResultRow", "features", "row_from_log", "RowOverrides",
    "LogError", "is_tombench_task", "push_rows", "fetch_rows", "PushResult", "PublishError", "HubTimeout",
    "set_hub_timeout", "render", "build_view", "latest_rows", "shared_ranks", "compare", "site_files", "LocalStore",
    "default_local_dir", "add_logs", "AddReport", "keep_fetched", "read_row", "write_eval_results", "open_eval_result_prs",
    "Interval", "Paired", "proportion_interval", "mcnemar_exact", "paired_comparison", "Board", "fetch_board",
    "Detail", "EvalItem", "Submission", "read_details", "submission_from_log",
]
