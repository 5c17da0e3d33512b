"""FANToM (Kim et al., 2023): theory of mind in information-asymmetric conversations, All* sets.

The eval's README.md (beside this file) says what it measures, its data, options, scoring and report."""

from .fantom import fantom

__all__ = ["fantom"]
