"""How a rate is shown to a user: the share, its 95% Wilson interval and the counts (one formatter for everything).

The Wilson score interval stays inside [0, 1] and is honest at the edges: 0 of 20 is "0.0% (95% CI 0.0-16.1%,
0/20)", not a bare 0% that claims certainty a small sample cannot give.
"""

from __future__ import annotations

from tombench.kit.intervals import wilson_interval

__all__ = ["percent"]


def percent(k: int, n: int) -> str:
    """`k/n` as "40.0% (95% CI 30.9-49.8%, 40/100)"; "n/a (0/0)" when there is nothing to count."""
    if n <= 0:
        return "n/a (0/0)"
    lo, hi = wilson_interval(k, n)
    return f"{100 * k / n:.1f}% (95% CI {100 * lo:.1f}-{100 * hi:.1f}%, {k}/{n})"
