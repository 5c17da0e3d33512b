"""ToMi (Le et al., 2019): the released test split, asked and scored the ExploreToM way.

The eval's README.md (beside this file) says what it measures, its data, options, scoring and report."""

from .tomi import tomi

__all__ = ["tomi"]
