"""Inspect scorers and metrics for tombench tasks."""

from tombench.kit.metrics import breakdown, parse_breakdown

__all__ = ["breakdown", "parse_breakdown"]
