"""ToMMA / CToMPersu: persuasion dialogues scored by an observer, fixed and dynamic rounds.

The eval's README.md (beside this file) says what it measures, its data, options, scoring and report."""

from .persuasion import persuasion_dynamic, persuasion_fixed

__all__ = ["persuasion_dynamic", "persuasion_fixed"]
