"""Inspect AI entry point: importing this module registers every tombench task and model provider.

Keep it light: it is imported by every `inspect` command. Heavy libraries (torch, vllm, datasets) are imported
inside task functions, never here.
"""

# ruff: noqa: F401
from tombench.models.provider import tombench_baselines
from tombench.tasks.exploretom.adversarial import exploretom_adversarial
from tombench.tasks.exploretom.random import exploretom_random
from tombench.tasks.exploretom.static import exploretom_static
from tombench.tasks.exploretom.transfer import exploretom_transfer
from tombench.tasks.persuasion import persuasion_dynamic, persuasion_fixed
from tombench.tasks.suites.bigtom import bigtom
from tombench.tasks.suites.fantom import fantom
from tombench.tasks.suites.hitom import hitom
from tombench.tasks.suites.opentom import opentom
from tombench.tasks.suites.simpletom import simpletom
from tombench.tasks.suites.tom_bench import tom_bench
from tombench.tasks.suites.tomi import tomi
from tombench.tasks.tomsynth import tomsynth
