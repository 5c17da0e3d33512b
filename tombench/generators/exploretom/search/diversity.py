"""How alike found stories are, and how a setting's kept stories are chosen to be distinct.

A search that keeps each setting's N hardest stories tends to keep N variants of one story: the edits that made a
story hard keep most of its sentences. Two measures, both Jaccard indices of sets (1 = the same, 0 = nothing shared):

* `sentence_jaccard`: the stories' sentences, verbatim. Stories written in different contexts share no sentence
  (the names differ), so this measure alone rewards renaming.
* `shape_similarity`: the stories' *shapes*, every action with each name replaced by its role in order of first
  mention (the first person is P1, the second room R2, ...). Two stories that differ only in names, in another
  context or with the people swapped, have the same shape: this is the measure the similarity cap uses.

`select_distinct` picks a setting's kept stories from candidates ranked hardest first: one per context first, then
(only when fewer than N contexts have a story) other stories; never one whose shape is more similar than the cap to
a story already kept. The search's refinement and the runner's final choice use the same function.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import statistics
from collections.abc import Callable, Iterable, Sequence
from typing import Generic, TypeVar

from tombench.dsl import Fact, StateChange, Story

__all__ = ["story_shape", "shape_similarity", "sentence_jaccard", "select_distinct", "mean_pairwise",
           "DEFAULT_MAX_SIMILARITY"]

T = TypeVar("T")

#: the default cap on `shape_similarity` between two kept stories of a setting (docs/explanation/search.md, "Kept stories")
DEFAULT_MAX_SIMILARITY = 0.6

#: `select_distinct`: rounds of leaving one kept story out (each round that finds a harder set leaves one more out)
EXCHANGE_ROUNDS = 8
#: `select_distinct`: most swaps of a kept story for an equally hard, less alike one (each lowers the set's likeness)
SWAP_ROUNDS = 32


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    union = len(a | b)
    return len(a & b) / union if union else 1.0


@functools.lru_cache(maxsize=256)
def _kind_of_names(people: tuple[str, ...], rooms: tuple[str, ...], containers: tuple[str, ...],
                   objects: tuple[str, ...], topics: tuple[str, ...]) -> dict[str, str]:
    """Each context name's role letter; a name of two kinds takes the first (P, R, C, O, T order)."""
    kind: dict[str, str] = {}
    for letter, names in (("P", people), ("R", rooms), ("C", containers), ("O", objects), ("T", topics)):
        for x in names:
            kind.setdefault(x, letter)
    return kind


@functools.lru_cache(maxsize=64)
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def story_shape(story: Story) -> frozenset[str]:
    """The story's actions with names replaced by roles in order of first mention (P1, R1, C1, O1, T1, S1 ...).

    Refinement computes the shape of every story it draws (its likeness to the kept stories), so the role of a
    name is a dictionary lookup (`_kind_of_names`), not a scan of the context's name lists.
    """
    ctx = story.context
    kind_of = _kind_of_names(ctx.people, ctx.rooms, ctx.containers, ctx.objects, ctx.topics)
    roles: dict[tuple[str, str], str] = {}
    counts: dict[str, int] = {}
    shape = []
    for a in story.actions:
        parts = [a.type]
        for name in _field_names(type(a)):
            v = getattr(a, name)
            if v != ():
                parts.append(f"{name}={_role(v, kind_of, roles, counts)}")
        shape.append(" ".join(parts))
    return frozenset(shape)


def _role(x: object, kind_of: dict[str, str], roles: dict[tuple[str, str], str], counts: dict[str, int]) -> str:
    """`story_shape`'s role of one field value, numbering new roles of a kind in order of first mention.

    A module function, not a closure: a closure that calls itself is a reference cycle, which left a dozen objects per
    shape for the cyclic collector (refinement computes a shape per drawn story)."""
    if isinstance(x, str):
        key = (kind_of.get(x, "X"), x)
    elif isinstance(x, Fact):
        return f"{_role(x.entity, kind_of, roles, counts)}.{x.prop}={_role(x.value, kind_of, roles, counts)}"
    elif isinstance(x, tuple):
        return "+".join(_role(y, kind_of, roles, counts) for y in x)
    elif isinstance(x, StateChange):
        key = ("S", x.property)  # one role per state property: its values are what the story is about
    else:
        key = ("X", str(x))
    r = roles.get(key)
    if r is None:
        n = counts[key[0]] = counts.get(key[0], 0) + 1
        r = roles[key] = f"{key[0]}{n}"
    return r


def shape_similarity(a: Story | frozenset[str], b: Story | frozenset[str]) -> float:
    """Jaccard index of two stories' shapes (`story_shape`)."""
    sa = a if isinstance(a, frozenset) else story_shape(a)
    sb = b if isinstance(b, frozenset) else story_shape(b)
    return _jaccard(sa, sb)


def sentence_jaccard(a: Story | Sequence[str], b: Story | Sequence[str]) -> float:
    """Jaccard index of two stories' sets of sentences, verbatim (the issue's diversity measure)."""
    sa = frozenset(a.sentences if isinstance(a, Story) else a)
    sb = frozenset(b.sentences if isinstance(b, Story) else b)
    return _jaccard(sa, sb)


def mean_pairwise(items: Sequence[T], sim: Callable[[T, T], float]) -> float | None:
    """Mean similarity over all pairs, or None for fewer than two items."""
    if len(items) < 2:
        return None
    return statistics.mean(sim(a, b) for a, b in itertools.combinations(items, 2))


def select_distinct(
    ranked: Iterable[T],
    n: int,
    *,
    context_of: Callable[[T], str],
    shape_of: Callable[[T], frozenset[str]],
    max_similarity: float = DEFAULT_MAX_SIMILARITY,
    g_of: Callable[[T], float] | None = None,
    swap: bool = True,
) -> list[T]:
    """Up to `n` of `ranked` (hardest first): distinct contexts first, never two too-similar shapes, hardest in total.

    Greedy first: pass 1 takes a candidate when its context has no kept story yet and its shape is at most
    `max_similarity` from every kept one; pass 2 (only when pass 1 kept fewer than `n`, e.g. a single context) drops
    the context rule. With `g_of`, candidates of equal accuracy are taken most-different-first (the lowest maximum
    similarity to the stories already kept, then rank order): a search often finds many stories at accuracy 0, and
    any of them is as hard as another. Then, with `g_of`, exchanges: greedy alone can get *worse* when a candidate
    is added (a new hard story whose shape is near two kept ones pushes both out for easier ones; measured: a
    setting's 5 kept stories went from mean 0.433 to 0.500 in the search's last round), so each kept story is left
    out in turn and the greedy set without it taken when it has no fewer stories, no fewer contexts and a lower
    total accuracy. Last, swaps: a kept story is replaced by an equally hard candidate less like the others (same
    accuracy, no fewer contexts, within the cap) while that lowers the set's summed pairwise likeness (`swap=False`
    leaves them out: the search's own aim, where only the accuracies matter). The result keeps the ranked order.
    """
    sel = _Selector(list(ranked), n, context_of, shape_of, max_similarity, g_of)
    best = sel.greedy(frozenset())
    if g_of is not None:
        best = sel.exchange(best)
        if swap:
            best = sel.swap_alike(best)
    return [sel.items[i] for i in sorted(best)]


class _Selector(Generic[T]):
    """`select_distinct`'s candidates (by rank index) and the three steps it runs on them: greedy, exchanges, swaps.
    Shapes are computed once per candidate."""

    def __init__(self, items: list[T], n: int, context_of: Callable[[T], str],
                 shape_of: Callable[[T], frozenset[str]], max_similarity: float,
                 g_of: Callable[[T], float] | None) -> None:
        self.items, self.n, self.context_of, self.shape_of = items, n, context_of, shape_of
        self.max_similarity, self.g_of = max_similarity, g_of
        self.cache: dict[int, frozenset[str]] = {}

    def sh(self, i: int) -> frozenset[str]:
        if i not in self.cache:
            self.cache[i] = self.shape_of(self.items[i])
        return self.cache[i]

    def context(self, i: int) -> str:
        return self.context_of(self.items[i])

    def g(self, i: int) -> float:
        assert self.g_of is not None
        return self.g_of(self.items[i])

    def greedy(self, excluded: frozenset[int]) -> list[int]:
        """Pass 1 with distinct contexts, pass 2 (while fewer than n) without; ties in g most-different-first."""
        state = _Greedy(self)
        for distinct_contexts in (True, False):
            i = 0
            while i < len(self.items) and len(state.kept) < self.n:
                j = self._run_end(i)
                state.take_from([k for k in range(i, j) if k not in state.kept and k not in excluded],
                                distinct_contexts)
                i = j
            if len(state.kept) >= self.n:
                break
        return state.kept

    def _run_end(self, i: int) -> int:
        """The end of the run of candidates as hard as items[i] (just items[i] without g_of)."""
        j = i + 1
        if self.g_of is not None:
            while j < len(self.items) and self.g(j) == self.g(i):
                j += 1
        return j

    def worth(self, sel: list[int]) -> tuple[int, int, float, float]:
        """More stories, then more contexts, then the lowest total accuracy (a missing story counts as 1.0), then
        the least alike (the lowest sum of pairwise shape similarities)."""
        total = sum(self.g(k) for k in sel) + (self.n - len(sel))
        alike = sum(_jaccard(self.sh(a), self.sh(b)) for a, b in itertools.combinations(sel, 2))
        return len(sel), len({self.context(k) for k in sel}), -round(total, 9), -round(alike, 9)

    def exchange(self, best: list[int]) -> list[int]:
        """Greedy can lose: one hard story whose shape is near two others' keeps both of them out. Leave out each
        kept story in turn (hardest first) and take the greedy set without it when it has no fewer stories, no
        fewer contexts and a lower total accuracy, or the same total and less alike stories; repeat until none is
        better (each round leaves one more story out, so it ends)."""
        excluded: frozenset[int] = frozenset()
        for _ in range(EXCHANGE_ROUNDS):
            base = self.worth(best)
            for k in sorted(best, key=lambda k: (self.g(k), k)):
                trial = self.greedy(excluded | {k})
                w = self.worth(trial)
                if w[0] >= base[0] and w[1] >= base[1] and w[2:] > base[2:]:
                    best, excluded = trial, excluded | {k}
                    break
            else:
                break
        return best

    def swap_alike(self, sel: list[int]) -> list[int]:
        """The greedy sets differ by whole greedy passes; a kept story can still have an equally hard twin outside
        them that is less like the others (a search finds many stories at accuracy 0, often variations of one
        pattern). Swap the kept story whose replacement lowers the set's summed likeness most, keeping the
        accuracy, the number of contexts and the similarity cap; repeat while a swap helps."""
        by_g: dict[float, list[int]] = {}
        for i in range(len(self.items)):
            by_g.setdefault(round(self.g(i), 9), []).append(i)
        sel = list(sel)
        for _ in range(SWAP_ROUNDS):
            move = self._best_swap(sel, by_g)
            if move is None:
                break
            sel = [move[1] if x == move[0] else x for x in sel]
        return sel

    def _best_swap(self, sel: list[int], by_g: dict[float, list[int]]) -> tuple[int, int] | None:
        best_gain, move = 1e-9, None
        for k in sel:
            others = [o for o in sel if o != k]
            contexts = {self.context(o) for o in others}
            need = len(contexts | {self.context(k)})
            here = sum(_jaccard(self.sh(k), self.sh(o)) for o in others)
            for c in by_g[round(self.g(k), 9)]:
                if c in sel or len(contexts | {self.context(c)}) < need:
                    continue
                sims = [_jaccard(self.sh(c), self.sh(o)) for o in others]
                if max(sims, default=0.0) <= self.max_similarity and here - sum(sims) > best_gain:
                    best_gain, move = here - sum(sims), (k, c)
        return move


class _Greedy(Generic[T]):
    """One greedy pass's kept stories, their shapes and contexts, and each candidate's closest kept shape."""

    def __init__(self, sel: _Selector[T]) -> None:
        self.sel = sel
        self.kept: list[int] = []
        self.shapes: list[frozenset[str]] = []
        self.used: set[str] = set()
        #: closest(i) only grows as stories are kept: each candidate's maximum is brought up to date with the
        #: stories kept since it was last asked (the search builds its kept set anew every round, over hundreds of
        #: goals, so recomputing it against every kept shape each time was most of the selection's cost)
        self.seen: dict[int, tuple[int, float]] = {}

    def closest(self, i: int) -> float:
        done, best = self.seen.get(i, (0, 0.0))
        if done < len(self.shapes):
            si = self.sel.sh(i)
            for other in self.shapes[done:]:
                x = _jaccard(si, other)
                if x > best:
                    best = x
            self.seen[i] = (len(self.shapes), best)
        return best

    def take_from(self, group: list[int], distinct_contexts: bool) -> None:
        """Keep candidates of one equally hard run while they fit (context rule, similarity cap, n)."""
        sel = self.sel
        while group and len(self.kept) < sel.n:
            ok = [k for k in group if not (distinct_contexts and sel.context(k) in self.used)
                  and self.closest(k) <= sel.max_similarity]
            if not ok:
                break
            k = min(ok, key=lambda k: (self.closest(k), k)) if sel.g_of is not None else ok[0]
            self.kept.append(k)
            self.shapes.append(sel.sh(k))
            self.used.add(sel.context(k))
            group.remove(k)
