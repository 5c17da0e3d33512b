"""ExploreToM (Sclar et al., 2024): stories from the belief-tracking DSL, live adversarial search, static and transfer splits.

The eval's README.md (beside this file) says what it measures, its data, options, scoring and report."""

from .adversarial import exploretom_adversarial
from .random import exploretom_random
from .static import exploretom_static
from .transfer import exploretom_transfer

__all__ = ["exploretom_adversarial", "exploretom_random", "exploretom_static", "exploretom_transfer"]
