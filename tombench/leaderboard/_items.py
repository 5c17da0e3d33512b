"""Per-sample scores of an Inspect log: what the leaderboard's intervals and paired tests are computed from.

The logged `stderr` is not used: it is 0 at 0% and 100% and ignores that questions of one story are not
independent. Instead every scored sample of the headline scorer becomes an `Item` (reduced over epochs with the
log's own reductions when present), identified by content, with its story and its breakdown groups.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tombench.kit.intervals import wilson_interval

from ._row import Breakdown, Items
from ._stats import Interval, proportion_interval

#: The sample metadata key naming the story a question belongs to (every tombench task sets it, see
#: tombench/tasks/shared/story_questions.py); questions sharing it are one cluster.
STORY_KEY = "story_id"


@dataclass(frozen=True)
class Item:
    key: str  # digest of (sample id, input digest)
    story: str | None  # the sample's story id, if any
    score: float
    metadata: dict[str, Any] = field(default_factory=dict)
    #: the sample it was read from (its first epoch): what the per-sample details are written from
    sample: Any = field(default=None, compare=False, repr=False)


def _digest(text: str, size: int = 16) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:size]


def input_digest(value: Any) -> str:
    """A digest of what the model was shown: the input text, or each message's role and text (never message ids,
    which are random per run)."""
    if isinstance(value, str):
        return _digest(value, 64)
    parts = [(getattr(m, "role", ""), getattr(m, "text", str(m))) for m in value]
    return _digest(json.dumps(parts, ensure_ascii=False), 64)


def item_key(sample_id: Any, digest: str) -> str:
    return _digest(f"{sample_id}\x00{digest}")


def _as_float(value: Any) -> float | None:
    from inspect_ai.scorer import value_to_float

    if isinstance(value, (dict, list)):
        return None
    v = value_to_float()(value)
    return None if math.isnan(v) else float(v)


def _reduced_scores(log: Any, scorer: str, reducer: str | None) -> dict[str, float]:
    """{sample id: score} of the log's own reduction over epochs for `scorer` (the first that matches `reducer`),
    so an item scores what Inspect's metric averaged; empty when the log has none."""
    for red in log.reductions or []:
        if red.scorer == scorer and (reducer is None or red.reducer == reducer):
            return {str(s.sample_id): v for s in red.samples
                    if (v := _as_float(s.value)) is not None and s.sample_id is not None}
    return {}


def _scored_samples(log: Any, scorer: str) -> tuple[dict[str, list[float]], dict[str, Any]]:
    """({sample id: the score of each epoch}, {sample id: its first epoch}) of the samples `scorer` scored.

    Samples with an error or without a score are left out: they are not in the logged metrics either."""
    per_sample: dict[str, list[float]] = {}
    first: dict[str, Any] = {}
    for sample in log.samples or []:
        if sample.error is not None:
            continue
        score = (sample.scores or {}).get(scorer)
        v = _as_float(score.value) if score is not None else None
        if v is None:
            continue
        sid = str(sample.id)
        per_sample.setdefault(sid, []).append(v)
        first.setdefault(sid, sample)
    return per_sample, first


def _item(sample: Any, score: float) -> Item:
    """A sample as an item: keyed by what it asked, clustered by its story."""
    md = dict(sample.metadata or {})
    story = md.get(STORY_KEY)
    return Item(item_key(sample.id, input_digest(sample.input)), None if story is None else str(story), score, md,
                sample)


def read_items(log: Any, scorer: str, reducer: str | None = None) -> list[Item]:
    """The scored samples of `scorer` in a loaded log (with samples), one per sample id.

    Samples with an error or without a score are left out (they are not in the logged metrics either). With
    several epochs a sample's score is the log's reduced score for it, or the mean over its epochs.
    """
    reduced = _reduced_scores(log, scorer, reducer)
    per_sample, first = _scored_samples(log, scorer)
    items = [_item(first[sid], reduced.get(sid, sum(values) / len(values))) for sid, values in per_sample.items()]
    items.sort(key=lambda i: i.key)
    return items


def items_digest(items: Sequence[Item]) -> str:
    """The content identity of an item set: two rows with equal digests asked exactly the same questions."""
    return _digest("\n".join(sorted(i.key for i in items)), 32)


def compact(items: Sequence[Item]) -> Items:
    """The row's form: keys, story digests (short: they only group), scores."""
    return Items(key=[i.key for i in items], story=[_digest(i.story, 10) if i.story else "" for i in items],
                 score=[i.score for i in items])


def interval(items: Sequence[Item]) -> Interval | None:
    """The 95% interval of the mean score (None when there are no items or a score lies outside [0, 1])."""
    if not items or any(not 0.0 <= i.score <= 1.0 for i in items):
        return None
    return proportion_interval([i.score for i in items], [i.story for i in items])


def unclustered_interval(value: float, n: int | None) -> Interval | None:
    """Wilson on the logged counts, for logs written without samples (no per-story data: no adjustment)."""
    if not n or not 0.0 <= value <= 1.0:
        return None
    low, high = wilson_interval(value * n, n)
    return Interval(value, low, high, n, n, 1.0, "wilson-no-samples")


def breakdown_intervals(items: Sequence[Item], logged: Iterable[Breakdown]) -> list[Breakdown]:
    """The logged breakdown groups, each with the interval of its items (the samples whose metadata puts them in
    the group, exactly as the `breakdown` metric groups them: `str(metadata[dimension]) == group`)."""
    out = []
    for b in logged:
        members = [i for i in items if i.metadata.get(b.dimension) is not None
                   and str(i.metadata[b.dimension]) == b.group]
        ci = interval(members)
        if ci is None or (b.n is not None and b.n != ci.n) or abs(ci.value - b.value) > 1e-9:
            out.append(b)  # cannot be reproduced from the samples: keep what was logged, without an interval
            continue
        out.append(Breakdown(b.dimension, b.group, b.value, b.stderr, b.n if b.n is not None else ci.n,
                             ci.low, ci.high, ci.stories))
    return out
