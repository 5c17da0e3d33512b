"""Statistics of random stories: the paper's §5 / App. B.4 (Tables 7–9), computed with tombench's tracker.

For each people x movements cell, N random `tomi` stories (1 room, default names sampled at random, one rollout with
stop = S and at most 10 sentences, kept whether or not it is desired) give: the share of stories that require ToM
(at least one interesting question), and the shares of order-1 and order-2 questions that are interesting and that
are false beliefs. The semantics document (§8) lists the paper's values beside the original code's and a prototype's.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from tombench.dsl import DEFAULT_CONTEXT, Conditions, Setting, Story, derive_seed, rollout, setting_context

__all__ = ["CellStats", "random_story_stats", "PAPER_TABLES"]

#: paper Table 7 / 8 / 9 values, keyed by (people, moves): (requires ToM, interesting, false belief)
PAPER_TABLES: dict[tuple[int, int], tuple[float, float, float]] = {
    (2, 2): (0.131, 0.090, 0.059),
    (2, 3): (0.208, 0.123, 0.084),
    (2, 4): (0.235, 0.124, 0.086),
    (3, 2): (0.195, 0.120, 0.065),
    (3, 3): (0.234, 0.109, 0.065),
    (3, 4): (0.288, 0.121, 0.072),
    (4, 2): (0.210, 0.111, 0.056),
    (4, 3): (0.259, 0.101, 0.049),
    (4, 4): (0.315, 0.112, 0.058),
}


@dataclass(frozen=True)
class CellStats:
    people: int
    moves: int
    stories: int
    requires_tom: float
    interesting: float
    false_belief: float
    questions_order1: float
    questions_order2: float
    desired: float

    @property
    def paper(self) -> tuple[float, float, float] | None:
        return PAPER_TABLES.get((self.people, self.moves))


def random_story_stats(
    people: Iterable[int] = (2, 3, 4),
    moves: Iterable[int] = (2, 3, 4),
    *,
    n: int = 1000,
    max_sentences: int = 10,
    seed: int = 0,
    story_type: str = "tomi",
    on_story: Callable[[], None] | None = None,
) -> list[CellStats]:
    """Compute the statistics for each (people, moves) cell; `on_story` is called after each story (progress)."""
    out = []
    for p in people:
        for m in moves:
            setting = Setting(story_type, p, m, rooms=1, max_sentences=max_sentences)
            cond = Conditions.of(setting)
            tom = q_int = q_fb = q_total = n1 = n2 = desired = 0
            for i in range(n):
                rng = random.Random(derive_seed(seed, story_type, p, m, i))
                ctx = setting_context(DEFAULT_CONTEXT, setting, rng)
                s = rollout(Story(ctx), cond, rng, copy=False)
                qs = s.questions(orders=(1, 2))
                desired += cond.is_desired(s)
                if any(q.interesting for q in qs):
                    tom += 1
                for q in qs:
                    q_total += 1
                    q_int += bool(q.interesting)
                    q_fb += bool(q.false_belief)
                    if q.order == 1:
                        n1 += 1
                    else:
                        n2 += 1
                if on_story is not None:
                    on_story()
            out.append(
                CellStats(
                    people=p,
                    moves=m,
                    stories=n,
                    requires_tom=tom / n,
                    interesting=q_int / q_total if q_total else 0.0,
                    false_belief=q_fb / q_total if q_total else 0.0,
                    questions_order1=n1 / n,
                    questions_order2=n2 / n,
                    desired=desired / n,
                )
            )
    return out
