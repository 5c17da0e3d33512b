"""OpenToM (Xu et al., 2024): characters with personalities, coarse and fine beliefs, macro-F1.

The eval's README.md (beside this file) says what it measures, its data, options, scoring and report."""

from .opentom import opentom

__all__ = ["opentom"]
