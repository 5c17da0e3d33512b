"""ToM-Synth: multiple-choice ToM items synthesised per social unit, with a three-stage quality control.

Paper: ToM-Synth: Scaling Robust Theory of Mind in LLMs via 6,912 Structured Social Units (anonymous ACL
submission). Usage: `tombench tomsynth generate|qc|export-hf|units`, then `inspect eval tombench/tomsynth -T data=...`.
See docs/how-to/tomsynth.md.
"""

from tombench.generators.tomsynth.generation import GenerationStats, generate_items
from tombench.generators.tomsynth.items import LETTERS, Item, read_items
from tombench.generators.tomsynth.parsing import ParseError, parse_entry, parse_verdict
from tombench.generators.tomsynth.prompts import synthesis_prompt, verification_prompt
from tombench.generators.tomsynth.qc import QCReport, Stage1Limits, run_qc, stage1_format, stage2_balance, stage3_verify
from tombench.generators.tomsynth.units import Unit, all_units, select_units, unit_by_id

__all__ = [
    "LETTERS",
    "GenerationStats",
    "Item",
    "ParseError",
    "QCReport",
    "Stage1Limits",
    "Unit",
    "all_units",
    "generate_items",
    "parse_entry",
    "parse_verdict",
    "read_items",
    "run_qc",
    "select_units",
    "stage1_format",
    "stage2_balance",
    "stage3_verify",
    "synthesis_prompt",
    "unit_by_id",
    "verification_prompt",
]
