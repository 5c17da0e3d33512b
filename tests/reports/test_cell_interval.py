"""`tombench report` cells use the leaderboard's clustered interval: questions of one story are one cluster."""

from __future__ import annotations

import pytest

from tombench.kit.intervals import clustered_interval, wilson_interval
from tombench.reports._load import SampleRecord
from tombench.reports._tables import _cell


def _records(scores_by_story: dict[str, list[float]]) -> list[SampleRecord]:
    return [SampleRecord(model="m", task="t", correct=c, order=1, story=story)
            for story, scores in scores_by_story.items() for c in scores]


def test_all_right_in_few_stories_is_wider_than_independent_questions() -> None:
    """396/396 in 18 stories: the old plain Wilson said [99.0, 100]; 18 stories cannot show that much."""
    recs = _records({f"s{i}": [1.0] * 22 for i in range(18)})
    cell = _cell(recs)
    assert cell is not None and cell.mean == 1.0 and cell.n == 396
    plain_low, _ = wilson_interval(396, 396)
    assert cell.high == pytest.approx(1.0)
    assert cell.low < plain_low - 0.01
    expected = clustered_interval([(22.0, 22.0)] * 18)
    assert (cell.low, cell.high) == pytest.approx((expected.low, expected.high))


def test_misses_in_one_story_widen_the_interval_more_than_spread_misses() -> None:
    together = _records({"a": [0.0] * 3 + [1.0] * 2, **{f"s{i}": [1.0] * 5 for i in range(11)}})
    spread = _records({**{f"s{i}": [0.0] + [1.0] * 4 for i in range(3)}, **{f"t{i}": [1.0] * 5 for i in range(9)}})
    c1, c2 = _cell(together), _cell(spread)
    assert c1.mean == c2.mean == pytest.approx(57 / 60)
    assert c1.high - c1.low > c2.high - c2.low


def test_records_without_a_story_are_independent_questions() -> None:
    recs = [SampleRecord(model="m", task="t", correct=c, order=1) for c in [1.0] * 9 + [0.0]]
    cell = _cell(recs)
    assert (cell.low, cell.high) == pytest.approx(wilson_interval(9, 10))
