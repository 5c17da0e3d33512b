"""The garbage collector's settings for a process that runs a long search (`tombench search`, a search worker).

Why: Python's cyclic collector ran a third of the search's CPU per model call (docs/design-notes/scale.md).
Every model call through Inspect leaves about a hundred objects in reference cycles (its retry wrapper, a throwaway
transcript, closures), so the young generation fills every few calls, and each full collection walks everything
the imports left (Inspect, pydantic, the context bank: 150,000 objects and more) to find nothing to free. Freezing
what exists once start-up is over takes those out of every later collection, and a larger young generation collects
the same garbage in fewer, larger passes. Neither changes what the search computes: only when unreachable cycles are
freed.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["YOUNG", "search_gc"]

#: objects allocated (less freed) before a young collection; Python's default is 700. At about a hundred cyclic
#: objects per model call, one young collection per 100 calls or so: a few megabytes of garbage at most
YOUNG = 10_000


@contextlib.contextmanager
def search_gc(young: int = YOUNG) -> Iterator[None]:
    """Freeze the objects that exist now (after start-up) and collect young garbage in batches of `young` objects
    while the block runs; the previous settings come back after it."""
    old = gc.get_threshold()
    gc.collect()  # what start-up left unreachable is freed once, not kept frozen
    gc.freeze()
    gc.set_threshold(young, *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)
        gc.unfreeze()
