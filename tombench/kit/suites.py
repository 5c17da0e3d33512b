"""The registry of the established ToM suites: one record per suite, read by every list that names them.

The suites' task packages (`tombench/tasks/<task>/`), `tombench report suites`, `tombench tasks` and the benchmarks
all read the records here, so a suite is added once: its module, its record below (and its task's import in
`tombench/_registry.py`, which registers the task with Inspect). The records live in the kit, not beside the task
modules, because the reports read them and may import only the kit: a report never imports a task.

    from tombench.kit.suites import suite_info, suites
    suite_info("tombench").task      # 'tom_bench': the Inspect task is `tombench/tom_bench`
    [s.label for s in suites()]      # the column titles of `tombench report suites`, in its order
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["SuiteInfo", "register_suite", "suite_info", "suite_label", "suites"]


@dataclass(frozen=True)
class SuiteInfo:
    """What every list needs to know about one suite.

    `name` is the key in a log's task metadata (`suite`) and of the report's column; `task` the Inspect task name
    (`inspect eval tombench/<task>`); `label` the paper's spelling, the column title; `headline` the metric the
    suite's paper reports (a metric name in the log) and `groups` the breakdown dimensions of its own table
    (`tombench report suites --groups`). `fixture` is the suite's test file (or folder) in the authors' layout, relative to
    `tests/tasks/` (`<task>/fixtures/...`, convention 7 of `tombench.tasks.shared`), and `fixture_args` any other task
    argument that its offline run needs: the benchmarks run every registered suite on it.
    """

    name: str
    task: str
    label: str
    fixture: str
    headline: str = "accuracy"
    groups: tuple[str, ...] = ()
    fixture_args: Mapping[str, Any] = field(default_factory=dict)


#: the registered suites by name, in registration order: the column order of `tombench report suites`
_REGISTRY: dict[str, SuiteInfo] = {}


def register_suite(info: SuiteInfo) -> SuiteInfo:
    """Add a suite (after those already registered); a name or a task name registered twice is a programming error."""
    clash = [s.name for s in _REGISTRY.values() if info.name == s.name or info.task == s.task]
    if clash:
        raise ValueError(f"suite {info.name!r} (task {info.task!r}) clashes with the registered suite {clash[0]!r}")
    _REGISTRY[info.name] = info
    return info


def suites() -> tuple[SuiteInfo, ...]:
    """Every registered suite, in the report's column order."""
    return tuple(_REGISTRY.values())


def suite_info(name: str) -> SuiteInfo:
    """The record of a registered suite, by its metadata name."""
    if name not in _REGISTRY:
        raise ValueError(f"unknown suite {name!r}: register it in tombench/kit/suites.py (known: {list(_REGISTRY)})")
    return _REGISTRY[name]


def suite_label(name: str) -> str:
    """The column title of a suite: its label when registered, else its name (a log of a suite not known here)."""
    info = _REGISTRY.get(name)
    return info.label if info is not None else name


# ExploreToM Table 3's five, then ToM-Synth Table 1's others: the column order of the cross-suite table.
for _info in (
    SuiteInfo("tomi", task="tomi", label="ToMi", fixture="tomi/fixtures/fb_all_test.txt", groups=("question_type", "story_type")),
    SuiteInfo("hitom", task="hitom", label="Hi-ToM", fixture="hitom/fixtures/Hi-ToM_data.json", groups=("order", "tell")),
    SuiteInfo("bigtom", task="bigtom", label="BigToM", fixture="bigtom/fixtures/bigtom.csv", groups=("cell",)),
    SuiteInfo("opentom", task="opentom", label="OpenToM", fixture="opentom/fixtures", headline="macro_f1", groups=("genre",)),
    SuiteInfo("fantom", task="fantom", label="FANToM", fixture="fantom/fixtures/fantom_v1.json", headline="all_star",
              groups=("kind",)),
    SuiteInfo("simpletom", task="simpletom", label="SimpleToM", fixture="simpletom/fixtures", groups=("kind",)),
    SuiteInfo("tombench", task="tom_bench", label="ToMBench", fixture="tom_bench/fixtures", headline="avg",
              groups=("task_language", "category_language"), fixture_args={"tries": 1}),
):
    register_suite(_info)
del _info
