"""ToMMA / CToMPersu persuasion (Zhang et al., "Persuasion Should be Double-Blind", arXiv:2502.21297).

Data loading, the persuadee's mental state, the double-blind persuader/persuadee agents with an observer, the
round structure, the judges and the causal-ToM dataset audit. No Inspect task lives here (see
`tombench.tasks.persuasion.persuasion`); models are Inspect `Model`s or async callables.
"""

from tombench.generators.persuasion.agents import (
    Guess,
    Observer,
    Persuadee,
    Persuader,
    Review,
    TestedPersuader,
    generate_mental_state,
)
from tombench.generators.persuasion.data import HUB_REPO, LoadedRecords, PersuasionDataError, load_records
from tombench.generators.persuasion.dialogue import Dialogue, RoundLog, run_dialogue
from tombench.generators.persuasion.evaluate import DialogueJudgement, EvaluationSummary, evaluate_dataset, summarise
from tombench.generators.persuasion.generate import ToMMAModels, generate_dataset, generate_record
from tombench.generators.persuasion.records import (
    Behaviour,
    MentalState,
    PersuasionRecord,
    Scenario,
    Turn,
    causal_tom_success,
    record_from_dict,
    record_to_dict,
)
from tombench.generators.persuasion.rouge import rouge_l
from tombench.generators.persuasion.rounds import Round, round_plan

__all__ = [
    "Behaviour",
    "Dialogue",
    "DialogueJudgement",
    "EvaluationSummary",
    "HUB_REPO",
    "LoadedRecords",
    "MentalState",
    "Guess",
    "Observer",
    "Persuadee",
    "Persuader",
    "PersuasionDataError",
    "PersuasionRecord",
    "Review",
    "Round",
    "RoundLog",
    "Scenario",
    "TestedPersuader",
    "ToMMAModels",
    "Turn",
    "causal_tom_success",
    "evaluate_dataset",
    "generate_dataset",
    "generate_mental_state",
    "generate_record",
    "load_records",
    "record_from_dict",
    "record_to_dict",
    "rouge_l",
    "round_plan",
    "run_dialogue",
    "summarise",
]
