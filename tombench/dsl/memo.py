"""What the DSL remembers about the stories of one context: `Context.memo`, a `ContextMemo`.

The sampler and the tracker compute the same small immutable values again and again for one context: the action
records of the same argument tuples (the search's lookahead draws 50 rollouts from one story), the peeking/distracted
options of the same few (actor, witnesses), the sentences of the same steps, one `NotIn` per place. Building them
costs several times looking them up. They are pure functions of the context's names, so they live with the context:
every story over the context shares them, and they go when the context goes. Their size is bounded by the context's
names (a few people, rooms, objects, containers), so no entry is ever evicted.

A memo never changes a result: each entry equals what computing it again gives. It is left out when a context is
pickled (worker processes) or deep-copied: the copy starts with an empty one (a shallow copy, with the same names,
shares it).
"""

from __future__ import annotations

from typing import Any

__all__ = ["ContextMemo"]


class ContextMemo:
    """The memo tables of one context; each is filled on first use (see the module docstring)."""

    __slots__ = ("restricted", "static", "records", "modifier_options", "steps", "not_in", "modifier_sentences")

    def __init__(self) -> None:
        #: `setting_context`'s restrictions of this context, by (people, rooms, containers)
        self.restricted: dict[tuple[int, int, int], Any] = {}
        #: the candidate tuples of the action types that depend on the context alone, by type
        self.static: dict[str, list[tuple]] = {}
        #: the action record of each (type, argument tuple) the sampler accepted
        self.records: dict[str, dict[tuple, Any]] = {}
        #: the modifier options of an action, by (actor, witnesses)
        self.modifier_options: dict[tuple[str, tuple[str, ...]], tuple] = {}
        #: the deferred rollouts' rendered steps, by record content and the world value the sentence reads
        self.steps: dict[tuple, Any] = {}
        #: `NotIn(place)`, one shared instance per place
        self.not_in: dict[str, Any] = {}
        #: the modifier sentence of (peekers, distracted)
        self.modifier_sentences: dict[tuple[tuple[str, ...], tuple[str, ...]], str | None] = {}

    def __reduce__(self) -> tuple[type[ContextMemo], tuple[()]]:
        """Pickled and deep-copied empty: a memo is cheap to refill and may hold thousands of records."""
        return (ContextMemo, ())
