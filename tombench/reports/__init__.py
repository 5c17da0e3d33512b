"""Paper-style reports from Inspect logs: Table 1, Table 6, accuracy by order and vs people and moves, the transfer
matrix; as text tables or one HTML page of figures."""

from tombench.reports._html import FIGURES, report_page
from tombench.reports._html_suites import suites_page
from tombench.reports._load import Run, SampleRecord, load_records, load_runs, log_paths, repeat_notes
from tombench.reports._suites import load_suite_results, suite_groups_tables, suites_table
from tombench.reports._tables import (
    Cell,
    Grid,
    ReportTable,
    action_set_grid,
    by_order_table,
    by_people_and_moves,
    exploretom_records,
    interesting_grid,
    interesting_table,
    order_grid,
    people_moves_grids,
    per_action_set_table,
    run_keys,
    transfer_grid,
    transfer_matrix,
)

__all__ = [
    "FIGURES",
    "Cell",
    "Grid",
    "ReportTable",
    "Run",
    "SampleRecord",
    "action_set_grid",
    "by_order_table",
    "by_people_and_moves",
    "exploretom_records",
    "interesting_grid",
    "interesting_table",
    "load_records",
    "load_runs",
    "load_suite_results",
    "log_paths",
    "order_grid",
    "people_moves_grids",
    "per_action_set_table",
    "repeat_notes",
    "report_page",
    "run_keys",
    "suite_groups_tables",
    "suites_page",
    "suites_table",
    "transfer_grid",
    "transfer_matrix",
]
