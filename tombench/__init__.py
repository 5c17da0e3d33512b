"""tombench: theory-of-mind benchmarks and adversarial story search for Inspect AI."""

__version__ = "0.1.0"
__all__ = ["__version__"]
