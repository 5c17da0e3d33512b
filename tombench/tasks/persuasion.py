"""ToMMA persuasion tasks: CToMPersu fixed- and dynamic-persuadee evaluation.

Paper: Zhang, Zhang, Qu, Zhuang, Zhou, "Persuasion Should be Double-Blind: A Multi-Domain Dialogue Dataset With
Faithfulness Based on Causal Theory of Mind" (ToMMA / CToMPersu), https://arxiv.org/abs/2502.21297.
Data: https://huggingface.co/datasets/KamijioTouma/ToMMA-CToMPersu (evaluation split; the resolved commit is
recorded in the eval log's task metadata under `persuasion_data`).

    # the model under test writes the persuader's round-3 reply; ROUGE-L + 1-10 persuasive from the grader
    inspect eval tombench/persuasion_fixed --model openai/gpt-4o --model-role grader=openai/gpt-4o-mini
    # the model under test persuades a live persuadee that holds the hidden mental state (paper Table 2)
    inspect eval tombench/persuasion_dynamic --model openai/gpt-4o-mini \
        --model-role persuadee=openai/gpt-4o --model-role grader=openai/gpt-4o
    # pin the data, or run on a generated file (`tombench persuasion generate`)
    inspect eval tombench/persuasion_fixed -T revision=<commit> ...
    inspect eval tombench/persuasion_dynamic -T dataset=out/tomma.jsonl ...

Roles default to the model under test when not given.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageAssistant, ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, generate, solver

from tombench._errors import OptionError
from tombench.generators.persuasion.agents import Persuadee, Persuader
from tombench.generators.persuasion.data import LoadedRecords, PersuasionDataError, load_records
from tombench.generators.persuasion.dialogue import run_dialogue
from tombench.generators.persuasion.prompts import persuader_messages
from tombench.generators.persuasion.records import PersuasionRecord, record_from_dict
from tombench.generators.persuasion.rounds import FIXED_ROUND
from tombench.scorers.persuasion import DIALOG_STORE_KEY, persuasion_dynamic_scorer, persuasion_fixed_scorer

__all__ = ["persuasion_fixed", "persuasion_dynamic", "fixed_sample", "dynamic_sample", "live_persuasion"]

#: Index of the persuader utterance predicted in the fixed test (0-based; rounds 1-2 are 4 utterances).
FIXED_TURN_INDEX = 2 * (FIXED_ROUND - 1)


def _metadata(record: PersuasionRecord) -> dict[str, Any]:
    ms = record.mental_state
    return {
        "record_id": record.id,
        "domain": record.scenario.primary_domain,
        "domains": list(record.scenario.domain),
        "has_preventive": ms.has_preventive if ms is not None else None,
        "scenario": record.scenario.to_dict(),
        "mental_state": ms.to_dict() if ms is not None else None,
    }


def fixed_sample(record: PersuasionRecord) -> Sample | None:
    """The fixed-persuadee sample: dialogue up to round 3 as context, the reference round-3 persuader reply as
    target. None for a record too short or not alternating as expected."""
    dialog = record.dialog
    if len(dialog) <= FIXED_TURN_INDEX or dialog[FIXED_TURN_INDEX].speaker != "persuader":
        return None
    history = dialog[:FIXED_TURN_INDEX]
    return Sample(
        id=record.id,
        input=persuader_messages(record.scenario, history),
        target=dialog[FIXED_TURN_INDEX].text,
        metadata={**_metadata(record), "history": [t.to_line() for t in history]},
    )


def dynamic_sample(record: PersuasionRecord) -> Sample | None:
    """The dynamic-persuadee sample: the scenario and the hidden mental state (for the persuadee agent and the
    grader only; the solver never shows it to the model under test). None without a mental state."""
    if record.mental_state is None:
        return None
    return Sample(id=record.id, input=record.scenario.goal, metadata=_metadata(record))


def _load(dataset: str | None, revision: str, data_file: str | None) -> LoadedRecords:
    try:
        return load_records(dataset, revision=revision, data_file=data_file)
    except PersuasionDataError as e:
        raise OptionError(f"persuasion data: {e}") from None


@task
def persuasion_fixed(
    dataset: str | None = None,
    revision: str = "main",
    data_file: str | None = None,
    grader_role: str = "grader",
    cache: bool = True,
) -> Task:
    """Fixed persuadee: predict the persuader's round-3 reply (ROUGE-L, persuasive 1-10).

    Args:
        dataset: a local CToMPersu JSON/JSONL file; None loads the Hub evaluation split.
        revision: Hub branch, tag or commit (resolved to a commit, recorded in the log).
        data_file: file of the Hub repository to read (default: its eval/test file).
        grader_role: model role of the persuasive judge (defaults to the model under test).
        cache: cache model calls with Inspect's cache.
    """
    loaded = _load(dataset, revision, data_file)
    samples = [s for s in map(fixed_sample, loaded.records) if s is not None]
    return Task(
        dataset=MemoryDataset(samples, name="ctompersu_fixed"),
        solver=generate(cache=cache),
        scorer=persuasion_fixed_scorer(grader_role=grader_role, cache=cache),
        metadata={"persuasion_data": loaded.provenance},
        version="1.0.0",
    )


@solver
def live_persuasion(persuadee_role: str = "persuadee", cache: bool = True) -> Solver:
    """The model under test persuades a persuadee agent live, for the paper's number of rounds (3, or 4 with a
    preventive behaviour). The model sees the public scenario and the dialogue only; the persuadee agent
    (model role `persuadee`) holds the hidden mental state."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        md = state.metadata
        record = record_from_dict({"id": md["record_id"], "scenario": {**md["scenario"], **md["mental_state"]}})
        assert record.mental_state is not None
        model = get_model()
        persuader = Persuader(model, guided=False, infer=False, cache=cache)
        persuadee = Persuadee(get_model(role=persuadee_role), record.mental_state, cache=cache)
        dialogue = await run_dialogue(record.scenario, record.mental_state, persuader, persuadee)
        lines = [t.to_line() for t in dialogue.turns]
        state.store.set(DIALOG_STORE_KEY, lines)
        transcript = "\n".join(lines)
        state.messages.append(ChatMessageAssistant(content=transcript, model=str(model)))
        state.output = ModelOutput.from_content(model=str(model), content=transcript)
        return state

    return solve


@task
def persuasion_dynamic(
    dataset: str | None = None,
    revision: str = "main",
    data_file: str | None = None,
    persuadee_role: str = "persuadee",
    grader_role: str = "grader",
    cache: bool = True,
) -> Task:
    """Dynamic persuadee: persuade a live persuadee agent; persuasive, preventive, generative, CToM (by domain).

    Args:
        dataset: a local CToMPersu JSON/JSONL file; None loads the Hub evaluation split.
        revision: Hub branch, tag or commit (resolved to a commit, recorded in the log).
        data_file: file of the Hub repository to read (default: its eval/test file).
        persuadee_role: model role of the persuadee agent (defaults to the model under test).
        grader_role: model role of the judge (defaults to the model under test).
        cache: cache the persuadee's and the judge's calls with Inspect's cache.
    """
    loaded = _load(dataset, revision, data_file)
    samples = [s for s in map(dynamic_sample, loaded.records) if s is not None]
    return Task(
        dataset=MemoryDataset(samples, name="ctompersu_dynamic"),
        solver=live_persuasion(persuadee_role=persuadee_role, cache=cache),
        scorer=persuasion_dynamic_scorer(grader_role=grader_role, cache=cache),
        metadata={"persuasion_data": loaded.provenance},
        version="1.0.0",
    )
