"""BigToM (Gandhi et al., 2023): causal-template belief and action questions, two options.

The eval's README.md (beside this file) says what it measures, its data, options, scoring and report."""

from .bigtom import bigtom

__all__ = ["bigtom"]
