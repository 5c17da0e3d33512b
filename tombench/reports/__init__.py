"""Paper-style reports from Inspect logs: Table 1, Table 6, accuracy vs people and moves, the transfer matrix."""

from tombench.reports._load import Run, SampleRecord, load_records, load_runs, log_paths, repeat_notes
from tombench.reports._suites import load_suite_results, suite_groups_tables, suites_table
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
    "Run",
    "SampleRecord",
    "by_people_and_moves",
    "exploretom_records",
    "interesting_table",
    "load_records",
    "load_runs",
    "load_suite_results",
    "log_paths",
    "per_action_set_table",
    "repeat_notes",
    "suite_groups_tables",
    "suites_table",
    "transfer_matrix",
]
