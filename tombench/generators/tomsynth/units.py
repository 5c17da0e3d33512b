"""Social units: the factorial space M x S x P of ToM-Synth (paper §3.1, Eq. 1).

A unit is one combination (mental state, social situation, presentation format). Its id is built from slugs of the
paper's names, not from list positions, so ids stay stable if a list is ever reordered or extended, and a reader can
tell the unit from the id (`mixed-emotions.education.school-bullying.dialogue`). Items generated for a unit are
`{unit_id}#{k}`.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from tombench.generators.tomsynth._space import FORMATS, MENTAL_STATES, NAMES, SOCIAL_SITUATIONS

__all__ = [
    "MentalState",
    "Situation",
    "Unit",
    "mental_states",
    "situations",
    "formats",
    "all_units",
    "unit_by_id",
    "select_units",
    "item_id",
    "split_item_id",
    "draw_characters",
    "slug",
    "NAMES",
]


def slug(name: str) -> str:
    """Lower-case, ascii, dash-separated form of a paper name (`Irony/sarcasm` -> `irony-sarcasm`)."""
    s = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return s


@dataclass(frozen=True)
class MentalState:
    """One of the 36 values of dimension M: a sub-dimension under one of the six mental-state dimensions."""

    dimension: str
    sub_dimension: str
    definition: str

    @property
    def slug(self) -> str:
        return slug(self.sub_dimension)


@dataclass(frozen=True)
class Situation:
    """One of the 96 values of dimension S: a granular situation inside a social domain."""

    domain: str
    situation: str

    @property
    def slug(self) -> str:
        return f"{slug(self.domain)}.{slug(self.situation)}"


@dataclass(frozen=True)
class Unit:
    """A social unit (m, s, p): the configuration one synthesis prompt is conditioned on."""

    mental_state: MentalState
    situation: Situation
    format: str
    format_description: str

    @property
    def id(self) -> str:
        return f"{self.mental_state.slug}.{self.situation.slug}.{slug(self.format)}"

    def metadata(self) -> dict[str, str]:
        """The grouping fields every item row and Inspect sample carries (one schema for all of them)."""
        return {
            "unit_id": self.id,
            "dimension": self.mental_state.dimension,
            "sub_dimension": self.mental_state.sub_dimension,
            "domain": self.situation.domain,
            "situation": self.situation.situation,
            "format": self.format,
        }


@lru_cache(maxsize=1)
def mental_states() -> tuple[MentalState, ...]:
    return tuple(MentalState(d, s, definition) for d, s, definition in MENTAL_STATES)


@lru_cache(maxsize=1)
def situations() -> tuple[Situation, ...]:
    return tuple(Situation(domain, s) for domain, sits in SOCIAL_SITUATIONS for s in sits)


def formats() -> tuple[str, ...]:
    return tuple(name for name, _ in FORMATS)


@lru_cache(maxsize=1)
def all_units() -> tuple[Unit, ...]:
    """All 6,912 units, mental state slowest and format fastest (the order generation and cards use)."""
    return tuple(
        Unit(m, s, fmt, desc) for m in mental_states() for s in situations() for fmt, desc in FORMATS
    )


@lru_cache(maxsize=1)
def _units_index() -> dict[str, Unit]:
    return {u.id: u for u in all_units()}


def unit_by_id(unit_id: str) -> Unit:
    try:
        return _units_index()[unit_id]
    except KeyError:
        raise KeyError(f"unknown ToM-Synth unit id: {unit_id!r}") from None


def select_units(
    spec: str | int = "all",
    *,
    seed: int = 0,
    dimensions: Iterable[str] | None = None,
    domains: Iterable[str] | None = None,
    formats_: Iterable[str] | None = None,
) -> list[Unit]:
    """Units for a generation run.

    `spec` is `"all"`, a number N (a seeded random sample of N units, so a small pilot still spans the space), or a
    comma-separated list of unit ids. The filters (case-insensitive names) narrow the space before sampling.
    """
    pool: Sequence[Unit] = all_units()
    for values, key in ((dimensions, "dimension"), (domains, "domain"), (formats_, "format")):
        if values is None:
            continue
        wanted = {v.lower() for v in values}
        pool = [u for u in pool if u.metadata()[key].lower() in wanted]
    if isinstance(spec, int) or (isinstance(spec, str) and spec.strip().isdigit()):
        n = int(spec)
        if n <= 0:
            raise ValueError(f"unit sample size must be positive, got {n}")
        if n >= len(pool):
            return list(pool)
        return sorted(random.Random(seed).sample(list(pool), n), key=all_units().index)
    if spec.strip().lower() == "all":
        return list(pool)
    return [unit_by_id(part.strip()) for part in spec.split(",") if part.strip()]


def item_id(unit: Unit, k: int) -> str:
    return f"{unit.id}#{k}"


def split_item_id(item: str) -> tuple[str, int]:
    unit_id, _, k = item.rpartition("#")
    return unit_id, int(k)


def draw_characters(rng: random.Random, n: int = 4) -> list[str]:
    """The names offered to the generator for one item (paper: at most 4 characters, drawn from Figure 8)."""
    return rng.sample(NAMES, n)
