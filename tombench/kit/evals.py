"""An eval folder's facts, read from its `eval.yaml`: the one place a task's title, data, size and license are written.

Every eval under `tombench/tasks/<eval>/` has an `eval.yaml` in the layout the inspect_evals register reads
(`title`, `description`, `arxiv`, `group`, `contributors`, `tasks` with each task's `name` and `dataset_samples`),
and tombench's own keys per task: `summary` (the line of README's task table), `data` (what the task reads, in
words), `items` (its size as released), `license` (and the authors' terms), `offline` (how it runs with no network,
when it can) and `version` (the Task's version). `tombench tasks`, `tombench data download`, README's task table and
the eval's own README read these facts from here, so they are written once. What code must know (the pinned files,
their SHA-256 or Hub commit) stays in the task module beside the code that downloads them (`kit.pinning`); a test
checks that the two agree.

    from tombench.kit.evals import read_eval_yaml
    facts = read_eval_yaml(Path("tombench/tasks/bigtom/eval.yaml"))
    facts.task("bigtom").license          # 'MIT'
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tombench.kit.pinning import Source, TaskData

__all__ = ["EvalFacts", "REQUIRED", "TaskFacts", "read_eval_yaml", "task_data", "task_names"]

#: the top-level keys inspect-evals-lint requires of every eval.yaml (its `eval-yaml-required-fields`)
REQUIRED = ("title", "description", "group", "contributors", "tasks")
#: the keys every task entry must have
TASK_REQUIRED = ("name", "dataset_samples", "summary", "data", "version")


@dataclass(frozen=True)
class TaskFacts:
    """One task of an eval, as its eval.yaml describes it."""

    name: str
    dataset_samples: int | None
    summary: str
    data: str
    version: str
    items: str | None = None
    license: str | None = None
    offline: str | None = None


@dataclass(frozen=True)
class EvalFacts:
    """An eval folder's eval.yaml: the eval (title, paper, group, contributors) and its tasks."""

    path: Path
    title: str
    description: str
    group: str
    contributors: tuple[str, ...]
    tasks: tuple[TaskFacts, ...]
    arxiv: str | None = None

    @property
    def folder(self) -> str:
        """The eval's folder name (`tombench/tasks/<folder>/`)."""
        return self.path.parent.name

    def task(self, name: str) -> TaskFacts:
        """The facts of one of its tasks; ValueError naming the file when it has no such task."""
        for t in self.tasks:
            if t.name == name:
                return t
        raise ValueError(f"{self.path}: no task {name!r} (tasks: {', '.join(t.name for t in self.tasks)})")


def _text(value: Any) -> str | None:
    """A scalar as text (YAML reads `2,860` as a string, `5000` as an int); None stays None."""
    return None if value is None else " ".join(str(value).split())


def _task(path: Path, entry: Any) -> TaskFacts:
    if not isinstance(entry, Mapping):
        raise ValueError(f"{path}: each entry of `tasks` must be a mapping, got {entry!r}")
    missing = [k for k in TASK_REQUIRED if k not in entry]
    if missing:
        raise ValueError(f"{path}: task {entry.get('name', '?')!r} lacks {', '.join(missing)}")
    samples = entry["dataset_samples"]
    if samples is not None and not isinstance(samples, int):
        raise ValueError(f"{path}: task {entry['name']!r}: dataset_samples must be a whole number or null")
    return TaskFacts(name=str(entry["name"]), dataset_samples=samples, summary=_text(entry["summary"]) or "",
                     data=_text(entry["data"]) or "", version=str(entry["version"]), items=_text(entry.get("items")),
                     license=_text(entry.get("license")), offline=_text(entry.get("offline")))


def _one_line(error: Exception) -> str:
    """A YAML error's problem and line (its own text spans lines and draws a caret), else the error folded."""
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None)
    if problem and mark is not None:
        return f"{problem}, line {mark.line + 1}"
    return " ".join(str(error).split())


@functools.cache
def read_eval_yaml(path: Path) -> EvalFacts:
    """An eval.yaml's facts (read once per process); ValueError naming the file and the key for a file that is not
    one."""
    import yaml

    try:
        raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as e:
        raise ValueError(f"{path}: cannot read eval.yaml ({_one_line(e)})") from None
    if not isinstance(raw, Mapping):
        raise ValueError(f"{path}: eval.yaml must be a mapping")
    missing = [k for k in REQUIRED if k not in raw]
    if missing:
        raise ValueError(f"{path}: eval.yaml lacks {', '.join(missing)}")
    if not isinstance(raw["tasks"], list) or not raw["tasks"]:
        raise ValueError(f"{path}: `tasks` must be a non-empty list")
    contributors = raw["contributors"]
    return EvalFacts(path=Path(path), title=str(raw["title"]), description=" ".join(str(raw["description"]).split()),
                     group=str(raw["group"]),
                     contributors=tuple(str(c) for c in (contributors if isinstance(contributors, list)
                                                         else [contributors])),
                     tasks=tuple(_task(Path(path), e) for e in raw["tasks"]), arxiv=_text(raw.get("arxiv")))


@functools.cache
def task_names() -> frozenset[str]:
    """The name of every task the package ships (their eval.yaml files), without the `tombench/` prefix."""
    folders = Path(__file__).resolve().parents[1] / "tasks"
    return frozenset(t.name for path in sorted(folders.glob("*/eval.yaml")) for t in read_eval_yaml(path).tasks)


def task_data(module_file: str, task: str, sources: Mapping[str, Source] | None = None) -> TaskData:
    """A task module's data declaration (`tombench tasks`, `tombench data download`): its pinned `sources`, which
    the module downloads, with the facts of the eval.yaml beside it (what it reads, its size, license, offline way).

        DATA = task_data(__file__, "bigtom", {"data": SOURCE})
    """
    facts = read_eval_yaml(Path(module_file).with_name("eval.yaml")).task(task)
    return TaskData(task, facts.data, dict(sources or {}), items=facts.items, license=facts.license,
                    offline=facts.offline)
