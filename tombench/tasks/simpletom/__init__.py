"""SimpleToM (Gu et al., 2024): mental state, behaviour and judgment questions on short stories.

The eval's README.md (beside this file) says what it measures, its data, options, scoring and report."""

from .simpletom import simpletom

__all__ = ["simpletom"]
