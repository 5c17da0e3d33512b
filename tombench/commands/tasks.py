"""`tombench tasks` and `tombench data download`: what every task reads, whether it is here, and fetching it once.

Both read the `DATA` declaration (`tombench.kit.pinning.TaskData`) beside each task's pinned sources, found through
the Inspect registry module, so a new task shows up here as soon as it declares its data (a test checks that every
registered task does).
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

import click

from tombench.cli import UserError

__all__ = ["catalog", "data", "tasks"]


def catalog() -> list[Any]:
    """The `TaskData` of every registered task, in registry order (imports the task modules: a few seconds)."""
    import inspect

    registry = importlib.import_module("tombench._registry")
    out = []
    for name, fn in vars(registry).items():
        module = getattr(fn, "__module__", "") or ""
        if not (inspect.isfunction(fn) and module.startswith("tombench.tasks.")):
            continue
        declared = getattr(importlib.import_module(module), "DATA", None)
        entry = declared.get(name) if isinstance(declared, dict) else declared
        if entry is None or entry.task != name:
            raise UserError(f"task {name} declares no DATA in {module} (tombench.kit.pinning.TaskData)")
        out.append(entry)
    return out


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
def tasks() -> None:
    """Every task: the data it reads, its size and license, whether it is cached, and how it runs offline."""
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
