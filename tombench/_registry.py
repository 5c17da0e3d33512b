"""Inspect AI entry point: importing this module registers every tombench task and model provider.

Keep it light: it is imported by every `inspect` command. Heavy libraries (torch, vllm, datasets) are imported
inside task functions, never here.
"""

# ruff: noqa: F401, E402
from tombench._platform import require_posix

require_posix()  # POSIX only: Inspect shows this one line when it loads tombench elsewhere

from tombench.models.provider import tombench_baselines
from tombench.tasks.bigtom import bigtom
from tombench.tasks.exploretom import exploretom_adversarial, exploretom_random, exploretom_static, exploretom_transfer
from tombench.tasks.fantom import fantom
from tombench.tasks.hitom import hitom
from tombench.tasks.opentom import opentom
from tombench.tasks.persuasion import persuasion_dynamic, persuasion_fixed
from tombench.tasks.simpletom import simpletom
from tombench.tasks.tom_bench import tom_bench
from tombench.tasks.tomi import tomi
from tombench.tasks.tomsynth import tomsynth
