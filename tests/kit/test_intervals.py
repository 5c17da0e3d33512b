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


def test_t_quantile_matches_the_tables() -> None:
    from tombench.kit.intervals import Z95, t_quantile

    # two-sided 95% quantiles of Student's t (standard tables)
    for df, q in [(1, 12.7062), (2, 4.3027), (3, 3.1824), (9, 2.2622), (17, 2.1098), (30, 2.0423), (120, 1.9799)]:
        assert t_quantile(0.95, df) == pytest.approx(q, abs=1e-4)
    assert t_quantile(0.95, 10**6) == pytest.approx(Z95)
    assert t_quantile(0.99, 17) == pytest.approx(2.8982, abs=1e-4)
    with pytest.raises(ValueError):
        t_quantile(0.95, 0)


def test_clustered_interval_keeps_its_width_at_the_edges() -> None:
    """Issue #30.3: 396/396 in 18 stories of 22 used to be Wilson on 396 items, [99.0, 100], which a true 97-99%
    model lands on a quarter of the time when its misses cluster in stories."""
    from tombench.kit.intervals import PRIOR_ICC, clustered_interval, t_quantile

    full = clustered_interval([(22.0, 22.0)] * 18)
    assert full.design_effect == pytest.approx(1 + 21 * PRIOR_ICC) and full.quantile == t_quantile(0.95, 17)
    assert full.high == 1.0 and full.low == pytest.approx(0.9663, abs=1e-4) and full.low < 0.97
    one_miss = clustered_interval([(21.0, 22.0)] + [(22.0, 22.0)] * 17)  # no jump when one answer flips
    assert abs(one_miss.low - full.low) < 0.005
    # many misses: the estimate stands (a story effect this large is seen, not assumed)
    clustered = clustered_interval([(0.0, 22.0)] * 3 + [(22.0, 22.0)] * 15)
    assert clustered.design_effect > 15
    # every item its own cluster: plain Wilson with z
    assert (clustered_interval([(1.0, 1.0)] * 57 + [(0.0, 1.0)] * 3).low, 0.0) == pytest.approx(
        (wilson_interval(57, 60)[0], 0.0))
