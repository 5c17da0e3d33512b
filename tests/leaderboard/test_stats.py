"""The interval, paired-test and rank rules, with the worked example of docs/explanation/statistics.md (same numbers, so the docs
cannot drift from the code)."""

from __future__ import annotations

from statistics import NormalDist

import pytest

from tombench.kit.intervals import PRIOR_ICC, t_quantile, wilson_interval
from tombench.leaderboard import mcnemar_exact, paired_comparison, proportion_interval
from tombench.leaderboard._stats import design_effect, sign_flip_test, unpaired_p


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
    # A: 40/40, ten stories of four questions: the design effect cannot be seen, the prior 1 + 3 x 0.1 is used
    a = proportion_interval(*_stories({}, stories=10, per_story=4))
    assert (a.value, a.design_effect) == (1.0, pytest.approx(1.3))
    assert (a.low, a.high) == pytest.approx((0.8574, 1.0), abs=1e-4)
    assert a.method == "wilson-story-deff-t"
    # B: 57/60 in twelve stories of five, its three misses in one story it misread: design effect 3.16 (estimated;
    # the prior 1.4 only ever raises it), t on 11 df
    b = proportion_interval(*_stories({0: 3}))
    assert b.design_effect == pytest.approx(3.158, abs=1e-3) and b.stories == 12
    assert (b.low, b.high) == pytest.approx((0.7244, 0.9928), abs=1e-4)
    assert (b.low, b.high) == pytest.approx(wilson_interval(0.95 * 60 / b.design_effect, 60 / b.design_effect,
                                                            z=t_quantile(0.95, 11)))
    # the same 57/60 with the misses in three different stories: estimate 0.86, raised to (3 x 0.86 + 10 x 1.4) / 13
    spread = proportion_interval(*_stories({0: 1, 1: 1, 2: 1}))
    assert spread.design_effect == pytest.approx((3 * 0.8636 + 10 * 1.4) / 13, abs=1e-3)
    assert (spread.low, spread.high) == pytest.approx((0.8292, 0.9867), abs=1e-4)
    assert a.low < b.high


def test_design_effect_is_one_without_clusters_and_a_prior_at_the_edges():
    assert design_effect([1, 0, 1, 0], ["a", "b", "c", "d"]) == 1.0  # independent items: never below 1
    assert design_effect([1, 1, 1], ["a", "a", "b"]) == pytest.approx(1 + (5 / 3 - 1) * PRIOR_ICC)  # 100%: the prior
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


def test_worked_example_sign_flip_over_stories():
    values_b, clusters = _stories({0: 3})  # B from the interval example
    values_c, _ = _stories({1: 2, 2: 3, 3: 2, 4: 1})  # C: 52/60, misses in four stories
    b = {f"k{i}": (c, v) for i, (c, v) in enumerate(zip(clusters, values_b, strict=True))}
    c = {f"k{i}": (cl, v) for i, (cl, v) in enumerate(zip(clusters, values_c, strict=True))}
    p = paired_comparison(b, c)
    assert (p.method, p.n, p.stories, p.a_only, p.b_only) == ("story-sign-flip-exact", 60, 12, 8, 3)
    assert p.diff == pytest.approx(5 / 60)
    # story totals of B - C: -3, +2, +3, +2, +1 (sum 5): 16 of the 32 sign patterns reach |sum| >= 5
    assert p.p_value == pytest.approx(0.5) and not p.significant()
    assert (p.low, p.high) == pytest.approx((-0.1079, 0.2746), abs=1e-4)  # cluster-robust, t on 11 df
    assert paired_comparison(b, c) == p
    same = paired_comparison(b, b)
    assert same.diff == 0 and same.p_value == 1.0


def _brute_sign_flip(totals: list[float]) -> float:
    observed = abs(sum(totals))
    hits = sum(abs(sum(t if (mask >> i) & 1 else -t for i, t in enumerate(totals))) >= observed - 1e-9
               for mask in range(2 ** len(totals)))
    return hits / 2 ** len(totals)


def test_sign_flip_is_exact_up_to_sixteen_stories_and_seeded_above():
    diffs = [1.0, -1.0, 1.0, 1.0, 0.0, 1.0, 0.5, 1.0, -1.0, 1.0, 1.0]
    stories = ["a", "a", "b", "c", "c", "d", "e", "f", "g", "h", "i"]
    totals = [0.0, 1.0, 1.0, 1.0, 0.5, 1.0, -1.0, 1.0, 1.0]  # per story; a sums to 0 and cannot flip anything
    p, method = sign_flip_test(diffs, stories)
    assert method == "story-sign-flip-exact" and p == pytest.approx(_brute_sign_flip([t for t in totals if t]))
    many = [1.0 if s % 3 else -1.0 for s in range(30)]
    p1, m1 = sign_flip_test(many, [f"s{s}" for s in range(30)])
    assert m1 == "story-sign-flip" and sign_flip_test(many, [f"s{s}" for s in range(30)]) == (p1, m1)
    assert 0.05 < p1 < 0.2  # 20 up, 10 down: |sum| = 10 of sd sqrt(30); the normal tail is about 0.07
    assert sign_flip_test([0.0, 0.0], ["a", "b"]) == (1.0, "story-sign-flip-exact")


def test_unpaired_tests():
    # two rows on different items: the standard errors are the printed half widths over their quantiles
    a, b = (0.80, 0.70, 0.88, 1.96), (0.60, 0.50, 0.70, 1.96)
    se = ((0.18 / 3.92) ** 2 + (0.20 / 3.92) ** 2) ** 0.5
    assert unpaired_p(a, b) == pytest.approx(2 * (1 - NormalDist().cdf(0.2 / se)))
    assert unpaired_p(a, a) == 1.0


def test_sign_flip_takes_the_normal_limit_with_many_stories():
    from math import erfc, sqrt

    totals = [1.0 if s % 5 else -1.0 for s in range(150)]  # 120 up, 30 down: sum 90, in steps of 2
    p, method = sign_flip_test(totals, [f"s{s}" for s in range(150)])
    assert method == "story-sign-flip-normal" and p == pytest.approx(erfc((90 - 1) / sqrt(2 * 150)))
    fractional, _ = sign_flip_test([t / 2 for t in totals], [f"s{s}" for s in range(150)])  # no lattice: no correction
    assert fractional == pytest.approx(erfc(45 / sqrt(2 * 150 / 4)))
    # just below the limit the random patterns agree with it: 55 up, 44 down over 99 stories
    near = [1.0] * 55 + [-1.0] * 44
    random_p, method = sign_flip_test(near, [f"s{s}" for s in range(99)])
    assert method == "story-sign-flip" and random_p == pytest.approx(erfc((11 - 1) / sqrt(2 * 99)), abs=0.01)
