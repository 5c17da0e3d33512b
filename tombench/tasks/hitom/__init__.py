"""Hi-ToM (Wu et al., 2023): higher-order theory of mind, multiple choice.

The eval's README.md (beside this file) says what it measures, its data, options, scoring and report."""

from .hitom import hitom

__all__ = ["hitom"]
