"""ToM-Synth: multiple-choice items synthesised from social units, grouped by mental state, domain, format.

The eval's README.md (beside this file) says what it measures, its data, options, scoring and report."""

from .tomsynth import tomsynth

__all__ = ["tomsynth"]
