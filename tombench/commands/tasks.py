"""`tombench tasks` and `tombench data download`: what every task reads, whether it is here, and fetching it once.

Both read the `DATA` declaration (`tombench.kit.pinning.TaskData`) beside each task's pinned sources, found through
the Inspect registry module, so a new task shows up here as soon as it declares its data (a test checks that every
registered task does).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from tombench.cli import UserError

__all__ = ["catalog", "data", "tasks"]


def _is_task(obj: object) -> bool:
    """Whether an object of the entry point is an Inspect task (not the model provider, not a module)."""
    from inspect_ai.util import registry_info

    try:
        return callable(obj) and registry_info(obj).type == "task"
    except ValueError:
        return False


def _registered() -> list[tuple[str, str]]:
    """(task name, module) of every task the Inspect entry point registers, in its order."""
    registry = importlib.import_module("tombench._registry")
    return [(name, fn.__module__) for name, fn in vars(registry).items() if _is_task(fn)]


def eval_facts() -> list[tuple[str, Any, Path]]:
    """(task name, its `TaskFacts`, the eval folder) of every registered task: what its eval.yaml says of it."""
    from tombench.kit.evals import read_eval_yaml

    out = []
    for name, module in _registered():
        folder = Path(importlib.import_module(module).__file__ or "").parent
        out.append((name, read_eval_yaml(folder / "eval.yaml").task(name), folder))
    return out


def task_table() -> str:
    """README's task table (Markdown), from the eval folders' eval.yaml: one row per task, linked to its README."""
    root = Path(__file__).resolve().parents[1]
    rows = ["| task | what | data, license | docs |", "|---|---|---|---|"]
    for name, facts, folder in eval_facts():
        readme = (folder / "README.md").relative_to(root.parent).as_posix()
        data = "; ".join(x for x in (facts.items, (facts.license or "").split(";")[0].split(" (")[0]) if x) or "-"
        rows.append(f"| `{name}` | {facts.summary} | {data} | [README]({readme}) |")
    return "\n".join(rows)


def catalog() -> list[Any]:
    """The `TaskData` of every task the Inspect entry point registers, in its order (imports the task modules: a
    few seconds)."""
    out = []
    for name, module in _registered():
        declared = getattr(importlib.import_module(module), "DATA", None)
        entry = declared.get(name) if isinstance(declared, dict) else declared
        if entry is None or entry.task != name:
            raise UserError(f"task {name} declares no DATA in {module} (tombench.kit.pinning.TaskData)")
        out.append(entry)
    _check_suites({entry.task for entry in out})
    return out


def _check_suites(tasks: set[str]) -> None:
    """Every suite of the registry (`tombench.kit.suites`) must be a task of the entry point, or a list that reads
    the registry would name a task that `inspect eval` cannot find."""
    from tombench.kit.suites import suites

    missing = [f"{s.name} (task {s.task})" for s in suites() if s.task not in tasks]
    if missing:
        raise UserError(f"suite(s) {', '.join(missing)} registered in tombench/kit/suites.py but not imported in "
                        "tombench/_registry.py")


def _cached(entry: Any) -> tuple[str, int]:
    """"yes" / "no" / "k of n files" / "-" (nothing to download), and the bytes cached."""
    from tombench.kit.pinning import cached_path

    if not entry.sources:
        return "-", 0
    paths = [cached_path(src) for src in entry.sources.values()]
    here = [p for p in paths if p is not None]
    size = sum(p.stat().st_size for p in here)
    if len(here) == len(paths):
        return "yes", size
    return ("no" if not here else f"{len(here)} of {len(paths)} files"), size


def _mb(size: int) -> str:
    return f", {size / 1e6:.1f} MB on disk" if size else ""


@click.command()
@click.option("--markdown", is_flag=True, help="Print README's task table (from each eval's eval.yaml) instead.")
def tasks(markdown: bool) -> None:
    """Every task: the data it reads, its size and license, whether it is cached, and how it runs offline."""
    if markdown:
        click.echo(task_table())
        return
    for entry in catalog():
        cached, size = _cached(entry)
        facts = " | ".join(str(x) for x in (entry.items, entry.license) if x)
        click.echo(f"{entry.task:<24} cached: {cached}{_mb(size)}" + (f"   {facts}" if facts else ""))
        click.echo(f"  data: {entry.needs}")
        if entry.offline:
            click.echo(f"  offline: {entry.offline}")
    click.echo("\n`tombench data download [TASK...]` fetches and verifies the pinned files once; runs are then offline.")


def _select(names: Sequence[str]) -> list[Any]:
    entries = catalog()
    if not names:
        return [e for e in entries if e.sources]
    by_name = {e.task: e for e in entries}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise UserError(f"unknown task(s) {', '.join(unknown)}; known: {', '.join(by_name)}")
    return [by_name[n] for n in names]


@click.group()
def data() -> None:
    """Pinned task data: download and verify it once, so that later runs need no network."""


@data.command()
@click.argument("task_names", nargs=-1, metavar="[TASK]...")
def download(task_names: tuple[str, ...]) -> None:
    """Fetch and verify (SHA-256 or Hub commit) the pinned files of TASKs (default: every task that has some)."""
    from tombench.kit.pinning import fetch

    for entry in _select(task_names):
        if not entry.sources:
            click.echo(f"{entry.task}: nothing to download ({entry.needs})")
            continue
        for name, source in entry.sources.items():
            path, provenance = fetch(source, suite=entry.task, offline=entry.offline)
            click.echo(f"{entry.task}: {name} ok, sha256 {provenance['dataset_sha256'][:12]}... -> {path}")
