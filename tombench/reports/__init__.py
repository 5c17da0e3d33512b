"""Paper-style reports from Inspect logs: Table 1, Table 6, accuracy vs people and moves, the transfer matrix."""

from tombench.reports._load import SampleRecord, load_records, log_paths
from tombench.reports._tables import (
    ReportTable,
    by_people_and_moves,
    exploretom_records,
    interesting_table,
    per_action_set_table,
    transfer_matrix,
)

__all__ = [
    "ReportTable",
    "SampleRecord",
    "by_people_and_moves",
    "exploretom_records",
    "interesting_table",
    "load_records",
    "log_paths",
    "per_action_set_table",
    "transfer_matrix",
]
