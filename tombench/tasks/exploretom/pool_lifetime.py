"""The live task's search workers end with the eval that started them, not only with the process.

Why: the searches' worker processes are one pool for the whole process (`search.pool.shared_pool`), started by the
first search sample. A process that goes on after `inspect_ai.eval(...)` returns (a notebook, a script running
several evals, eval-set) kept them alive and idle, holding their memory, until it exited. Inspect tells a hook when
a run ends (`inspect_ai.hooks`, public: `on_run_end`, also after a failed or cancelled run), and only one eval runs
at a time in a process, so `WorkersHook` stops the shared pools then; the next eval's first search starts new ones.

As `eval_flags` does, the hook is registered when the live task is first built (`watch`), never at import: Inspect
prints every hook registered at its start-up in a banner, and every `inspect` command imports tombench's tasks.
"""

from __future__ import annotations

from inspect_ai.hooks import Hooks, RunEnd, hooks

__all__ = ["WorkersHook", "watch"]


class WorkersHook(Hooks):
    """Stops the search workers when an eval ends (`search.pool.close_shared`)."""

    async def on_run_end(self, data: RunEnd) -> None:
        from tombench.generators.exploretom.search.pool import close_shared  # not at import: `inspect` starts fast

        close_shared()


_WATCHING: list[bool] = []


def watch() -> None:
    """Register `WorkersHook` with Inspect, once per process (the live task calls this when it is built)."""
    if not _WATCHING:
        hooks(name="search_workers", description="tombench: stops the live task's search workers when an eval ends")(
            WorkersHook)
        _WATCHING.append(True)
