"""The interval and paired-test rules, with the worked example of docs/leaderboard.md (same numbers, so the docs
cannot drift from the code)."""

from __future__ import annotations

import pytest

from tombench.kit.intervals import wilson_interval
from tombench.leaderboard import mcnemar_exact, paired_comparison, proportion_interval
from tombench.leaderboard._stats import design_effect


def _stories(misses: dict[int, int], stories: int = 12, per_story: int = 5) -> tuple[list[float], list[str]]:
    """Scores of `stories` stories of `per_story` questions, with `misses[s]` wrong answers in story s."""
    values, clusters = [], []
    for s in range(stories):
        for q in range(per_story):
            values.append(0.0 if q < misses.get(s, 0) else 1.0)
            clusters.append(f"story-{s}")
    return values, clusters


def test_wilson_is_honest_at_the_edges():
    assert wilson_interval(1.0 * 40, 40) == pytest.approx((0.9124, 1.0), abs=1e-4)  # 40/40: not [1, 1]
    assert wilson_interval(0.0 * 5, 5) == pytest.approx((0.0, 0.4345), abs=1e-4)  # 0/5: not [0, 0]
    assert wilson_interval(0.5 * 0, 0) == (0.0, 1.0)  # nothing observed: nothing known
    low, high = wilson_interval(0.5 * 100, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)


def test_worked_example_intervals():
    # A: 40/40, ten stories of four questions
    a = proportion_interval(*_stories({}, stories=10, per_story=4))
    assert (a.value, a.design_effect) == (1.0, 1.0) and (a.low, a.high) == pytest.approx((0.9124, 1.0), abs=1e-4)
    # B: 57/60 in twelve stories of five, its three misses in one story it misread: design effect 3.16
    b = proportion_interval(*_stories({0: 3}))
    assert b.design_effect == pytest.approx(3.158, abs=1e-3) and b.stories == 12
    assert (b.low, b.high) == pytest.approx((0.7572, 0.9914), abs=1e-4)
    # the same 57/60 with the misses in three different stories: no clustering visible, plain Wilson on 60
    spread = proportion_interval(*_stories({0: 1, 1: 1, 2: 1}))
    assert spread.design_effect == 1.0 and (spread.low, spread.high) == pytest.approx(wilson_interval(0.95 * 60, 60))
    assert (spread.low, spread.high) == pytest.approx((0.8630, 0.9829), abs=1e-4)
    # A and B overlap: they share rank 1
    assert a.low < b.high


def test_design_effect_is_one_without_clusters_or_variance():
    assert design_effect([1, 0, 1, 0], ["a", "b", "c", "d"]) == 1.0  # independent items: never below 1
    assert design_effect([1, 1, 1], ["a", "a", "b"]) == 1.0  # 100%: cannot be estimated
    assert design_effect([1, 0, 1], ["a", "a", "a"]) == 1.0  # one cluster
    assert proportion_interval([1, 0, 1, 0]).method == "wilson"
    with pytest.raises(ValueError):
        proportion_interval([1.5, 0.0])


def test_mcnemar_exact_values():
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(0, 5) == pytest.approx(0.0625)  # 2 / 2^5
    assert mcnemar_exact(3, 0) == pytest.approx(0.25)
    assert mcnemar_exact(9, 2) == pytest.approx(0.0654, abs=1e-4)  # worked example: +7 points, not significant
    assert mcnemar_exact(10, 1) == pytest.approx(0.0117, abs=1e-4)  # worked example: significant
    assert mcnemar_exact(2, 9) == mcnemar_exact(9, 2)


def test_paired_comparison_uses_mcnemar_for_independent_items():
    a = {f"q{i}": (None, 1.0 if i < 60 else 0.0) for i in range(100)}
    b = {f"q{i}": (None, 1.0 if 9 <= i < 62 else 0.0) for i in range(100)}  # A alone on 9, B alone on 2
    p = paired_comparison(a, b)
    assert (p.method, p.n, p.a_only, p.b_only) == ("mcnemar-exact", 100, 9, 2)
    assert p.diff == pytest.approx(0.07) and p.p_value == pytest.approx(mcnemar_exact(9, 2))
    assert not p.significant()
    assert paired_comparison(a, {"other": (None, 1.0)}) is None  # nothing shared: no test


def test_worked_example_story_bootstrap_is_deterministic():
    values_b, clusters = _stories({0: 3})  # B from the interval example
    values_c, _ = _stories({1: 2, 2: 3, 3: 2, 4: 1})  # C: 52/60, misses in four stories
    b = {f"k{i}": (c, v) for i, (c, v) in enumerate(zip(clusters, values_b, strict=True))}
    c = {f"k{i}": (cl, v) for i, (cl, v) in enumerate(zip(clusters, values_c, strict=True))}
    p = paired_comparison(b, c)
    assert (p.method, p.n, p.stories, p.a_only, p.b_only) == ("story-bootstrap", 60, 12, 8, 3)
    assert p.diff == pytest.approx(5 / 60)
    assert p.p_value == pytest.approx(0.3686, abs=1e-4) and not p.significant()  # fixed seed: always this value
    assert (p.low, p.high) == pytest.approx((-0.0833, 0.2333), abs=1e-4)
    assert paired_comparison(b, c) == p
    same = paired_comparison(b, b)
    assert same.diff == 0 and same.p_value == 1.0
