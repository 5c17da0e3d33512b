"""The one Wilson interval (tombench.kit.intervals): honest at the edges, fractional n, the same everywhere."""

import pytest

from tombench.kit.intervals import wilson_interval


def test_edges_keep_a_width_and_exact_bounds() -> None:
    assert wilson_interval(0, 5) == pytest.approx((0.0, 0.4345), abs=1e-4)  # 0/5 is not [0, 0]
    low, high = wilson_interval(40, 40)
    assert high == 1.0 and low == pytest.approx(0.9124, abs=1e-4)  # 40/40 is not [1, 1]
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_fractional_effective_n_is_wider() -> None:
    lo_full, hi_full = wilson_interval(57, 60)
    lo_eff, hi_eff = wilson_interval(57 / 60 * 19, 19)  # 60 items worth 19 independent ones
    assert lo_eff < lo_full and hi_eff > hi_full


def test_every_layer_uses_the_same_interval() -> None:
    for k, n in [(0, 7), (3, 7), (7, 7), (50, 100)]:
        expected = wilson_interval(k, n)
        assert wilson_interval((k / n) * n, n) == pytest.approx(expected)
