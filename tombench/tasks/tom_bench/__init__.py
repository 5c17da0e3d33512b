"""ToMBench (Chen et al., 2024): 8 ToM tasks, 31 abilities, Chinese and English, multiple choice.

The eval's README.md (beside this file) says what it measures, its data, options, scoring and report."""

from .tom_bench import tom_bench

__all__ = ["tom_bench"]
