"""ToMMA persuasion tasks: CToMPersu fixed- and dynamic-persuadee evaluation (paper §4.2, Table 2).

Paper: Zhang, Zhang, Qu, Zhuang, Zhou, "Persuasion Should be Double-Blind: A Multi-Domain Dialogue Dataset With
Faithfulness Based on Causal Theory of Mind" (ToMMA / CToMPersu), https://arxiv.org/abs/2502.21297.
Data: the authors' evaluation file (github.com/DingyiZhang/ToMMA-CToMPersu, Apache-2.0), from the Hub copy
https://huggingface.co/datasets/KamijioTouma/ToMMA-CToMPersu or a local file; the file's SHA-256, record counts and
(for the Hub) the resolved commit are recorded in the log under `persuasion_data`.

    # the model under test writes the persuader's round-3 reply; ROUGE-L + 1-10 persuasive from the grader
    inspect eval tombench/persuasion_fixed --model openai/gpt-4o --model-role grader=openai/gpt-3.5-turbo
    # the model under test persuades a live persuadee that holds the hidden mental state (paper Table 2)
    inspect eval tombench/persuasion_dynamic --model openai/gpt-4o-mini \
        --model-role persuadee=openai/gpt-4o --model-role grader=openai/gpt-3.5-turbo
    # a local copy of the release, the causal-ToM prompted variant, the paper's 525 records with their copies
    inspect eval tombench/persuasion_fixed -T dataset=CToMPersu_Eval.json -T prompting=ctom -T duplicates=keep ...

A role that is not given falls back to the model under test (self-play / self-grading: a different experiment);
the task says so on the console and records every role in the log (`roles` in the task metadata).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageAssistant, ModelOutput, get_model, model_roles
from inspect_ai.solver import Generate, Solver, TaskState, generate, solver

from tombench.generators.persuasion.agents import Persuadee, TestedPersuader
from tombench.generators.persuasion.data import (
    RELEASE_COMMIT,
    RELEASE_FILES,
    RELEASE_REPO,
    LoadedRecords,
    PersuasionDataError,
    load_records,
)
from tombench.generators.persuasion.dialogue import run_dialogue
from tombench.generators.persuasion.prompts import PROMPTING, tested_persuader_messages
from tombench.generators.persuasion.records import PersuasionRecord, record_from_dict
from tombench.generators.persuasion.rounds import FIXED_ROUND
from tombench.kit.errors import OptionError
from tombench.kit.evals import task_data
from tombench.kit.options import check_bool
from tombench.kit.pinning import UrlFile, fetch
from tombench.scorers.persuasion import DIALOG_STORE_KEY, persuasion_dynamic_scorer, persuasion_fixed_scorer

__all__ = ["persuasion_fixed", "persuasion_dynamic", "fixed_sample", "dynamic_sample", "live_persuasion"]

logger = logging.getLogger(__name__)

TASK_VERSION = "2.0.0"

#: Index of the persuader utterance predicted in the fixed test (0-based; rounds 1-2 are 4 utterances).
FIXED_TURN_INDEX = 2 * (FIXED_ROUND - 1)


def _metadata(record: PersuasionRecord) -> dict[str, Any]:
    ms = record.mental_state
    return {
        "record_id": record.id,
        "domain": record.scenario.domains,  # every listed domain: the breakdown counts the record in each
        "has_preventive": ms.has_preventive if ms is not None else None,
        "scenario": record.scenario.to_dict(),
        "mental_state": ms.to_dict() if ms is not None else None,
    }


def fixed_sample(record: PersuasionRecord, prompting: str = "none") -> Sample | None:
    """The fixed-persuadee sample: dialogue up to round 3 as context, the reference round-3 persuader reply as
    target. None for a record without such a turn (e.g. the `_MentalStateOnly` file has no dialogues)."""
    dialog = record.dialog
    if len(dialog) <= FIXED_TURN_INDEX or dialog[FIXED_TURN_INDEX].speaker != "persuader":
        return None
    history = dialog[:FIXED_TURN_INDEX]
    return Sample(
        id=record.id,
        input=tested_persuader_messages(record.scenario, history, prompting),  # type: ignore[arg-type]
        target=dialog[FIXED_TURN_INDEX].text,
        metadata={**_metadata(record), "history": [t.to_line() for t in history]},
    )


def dynamic_sample(record: PersuasionRecord) -> Sample | None:
    """The dynamic-persuadee sample: the scenario and the hidden mental state (for the persuadee agent and the
    grader only; the solver never shows it to the model under test). None without a mental state."""
    if record.mental_state is None:
        return None
    return Sample(id=record.id, input=record.scenario.goal, metadata=_metadata(record))


def _check_options(prompting: str, duplicates: str) -> None:
    if prompting not in PROMPTING:
        raise OptionError(f"Invalid prompting value(s): {prompting!r}. Must be one of: {list(PROMPTING)}")
    if duplicates not in ("drop", "keep"):
        raise OptionError(f"Invalid duplicates value(s): {duplicates!r}. Must be one of: ['drop', 'keep']")


#: The default data: the authors' evaluation file at the release commit, pinned by SHA-256 (an immutable address
#: and a hash, so the default can never drift; the Hub copy, which could not be checked from here, stays available
#: with `-T revision=...`).
RELEASE = UrlFile(
    url=(f"https://raw.githubusercontent.com/{RELEASE_REPO}/{RELEASE_COMMIT}/"
         "dataset/CToMPersu_Eval/CToMPersu_Eval.json"),
    sha256=next(sha for sha, f in RELEASE_FILES.items() if f["file"].endswith("/CToMPersu_Eval.json")),
)
#: the packaged sample in the release's layout, `-T dataset=sample`: runs with no network (and no download), from
#: any folder
SAMPLE = str(Path(__file__).resolve().parents[2] / "data" / "persuasion" / "ctompersu_sample.json")
DATA = {name: task_data(__file__, name, {"release": RELEASE}) for name in ("persuasion_fixed", "persuasion_dynamic")}
_OFFLINE = DATA["persuasion_fixed"].offline


def _load(dataset: str | None, revision: str | None, data_file: str | None, duplicates: str) -> LoadedRecords:
    release = None
    if dataset == "sample":
        dataset = SAMPLE
    if dataset is None and revision is None and data_file is None:
        try:
            path, release = fetch(RELEASE, suite="CToMPersu", offline=_OFFLINE)
        except OptionError as e:  # the suites' advice names their option; these tasks call it `dataset`
            raise OptionError(str(e).replace("-T data=PATH", "-T dataset=PATH")) from None
        dataset = str(path)
    try:
        loaded = load_records(dataset, revision=revision, data_file=data_file, duplicates=duplicates)  # type: ignore[arg-type]
    except PersuasionDataError as e:
        raise OptionError(f"persuasion data: {e}") from None
    if release is None:
        return loaded
    prov = {**loaded.provenance, "source": "release", "url": RELEASE.url, "commit": RELEASE_COMMIT,
            "repo": RELEASE_REPO, "path": None}
    return LoadedRecords(loaded.records, prov)


def _roles(**roles: str) -> dict[str, dict[str, Any]]:
    """The model behind each role (`name=role`), or the model under test when the role was not given.

    Warns once per task when a role falls back: a self-played persuadee or a self-graded score is another
    experiment than the paper's (GPT-4o persuadee, GPT-3.5 grader)."""
    given = model_roles()
    out: dict[str, dict[str, Any]] = {}
    for name, role in roles.items():
        bound = given.get(role)
        model = bound[0] if isinstance(bound, list) else bound
        out[name] = {"role": role, "model": str(model) if model is not None else "(model under test)",
                     "defaulted": model is None}
    defaulted = [f"{name} (--model-role {out[name]['role']}=...)" for name in out if out[name]["defaulted"]]
    if defaulted:
        logger.warning(
            "persuasion: no model given for %s; the model under test plays it (self-play/self-grading, not the "
            "paper's setting)", ", ".join(defaulted),
        )
    return out


def _task_metadata(loaded: LoadedRecords, prompting: str, roles: dict[str, Any]) -> dict[str, Any]:
    prov = loaded.provenance
    return {
        "benchmark": "tomma",
        "dataset_id": prov.get("url") or prov.get("repo") or prov.get("path"),
        "dataset_revision": prov.get("resolved_revision") or prov.get("commit") or f"sha256:{prov['sha256']}",
        "persuasion_data": prov,
        "prompting": prompting,
        "roles": roles,
    }


@task
def persuasion_fixed(
    dataset: str | None = None,
    revision: str | None = None,
    data_file: str | None = None,
    duplicates: str = "drop",
    prompting: str = "none",
    grader_role: str = "grader",
    cache: bool = True,
) -> Task:
    """Fixed persuadee: predict the persuader's round-3 reply (ROUGE-L, persuasive 1-10).

    Args:
        dataset: the records to run: a local CToMPersu `.json` / `.jsonl` file (the `_MentalStateOnly` file too,
            for persuasion_dynamic), or `sample`, the packaged 4-record sample (offline, from any folder); default: the
            authors' evaluation file at `RELEASE_COMMIT` of their repository, pinned by SHA-256 (`RELEASE`; cached after
            the first download).
        revision: read the Hub copy `KamijioTouma/ToMMA-CToMPersu` instead, at this branch, tag or commit (resolved
            to a commit, recorded).
        data_file: which file of the Hub copy to read (default: the evaluation dialogue file,
            `dataset/CToMPersu_Eval/CToMPersu_Eval.json`).
        duplicates: `drop` exact copies of a record (counted in the log), or `keep` them (the paper's 525 records, ids
            `{id}~2`, `{id}~3`).
        prompting: `none` (the paper's setting, no hint about theory of mind) or `ctom` (the causal-ToM definitions
            and the instruction to infer and address belief and desire are added).
        grader_role: the model role that judges (`--model-role grader=...`; unbound, the model under test judges,
            with a warning).
        cache: use Inspect's response cache for every call (model under test, persuadee, grader; `true` or `false`).
    """
    cache = check_bool("cache", cache)
    _check_options(prompting, duplicates)
    loaded = _load(dataset, revision, data_file, duplicates)
    samples = [s for s in (fixed_sample(r, prompting) for r in loaded.records) if s is not None]
    if not samples:
        raise OptionError(
            f"persuasion_fixed: none of the {len(loaded.records)} records has a dialogue reaching round {FIXED_ROUND} "
            "(a _MentalStateOnly file has no dialogues: use it with persuasion_dynamic)"
        )
    roles = _roles(grader=grader_role)
    return Task(
        dataset=MemoryDataset(samples, name="ctompersu_fixed", location=str(loaded.provenance.get("data_file") or
                                                                          loaded.provenance.get("path"))),
        solver=generate(cache=cache),
        scorer=persuasion_fixed_scorer(grader_role=grader_role, cache=cache),
        metadata=_task_metadata(loaded, prompting, roles),
        version=TASK_VERSION,
    )


@solver
def live_persuasion(persuadee_role: str = "persuadee", prompting: str = "none", cache: bool = True) -> Solver:
    """The model under test persuades a persuadee agent live, for the paper's number of rounds (3, or 4 with a
    preventive behaviour). The model sees the public scenario and the dialogue only; the persuadee agent
    (model role `persuadee`) holds the hidden mental state and follows the authors' per-round rules."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        md = state.metadata
        record = record_from_dict({"id": md["record_id"], "scenario": {**md["scenario"], **md["mental_state"]}})
        assert record.mental_state is not None
        model = get_model()
        persuader = TestedPersuader(model, prompting, cache=cache)  # type: ignore[arg-type]
        # an unbound role is self-play, deliberately (the task warned and recorded it: `_roles`)
        persuadee = Persuadee(get_model(role=persuadee_role, default=model), record.mental_state, cache=cache)
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
    revision: str | None = None,
    data_file: str | None = None,
    duplicates: str = "drop",
    prompting: str = "none",
    persuadee_role: str = "persuadee",
    grader_role: str = "grader",
    cache: bool = True,
) -> Task:
    """Dynamic persuadee: persuade a live persuadee agent; CToM success, preventive, generative, persuasive.

    Args:
        dataset: the records to run: a local CToMPersu `.json` / `.jsonl` file (the `_MentalStateOnly` file too,
            for persuasion_dynamic), or `sample`, the packaged 4-record sample (offline, from any folder); default: the
            authors' evaluation file at `RELEASE_COMMIT` of their repository, pinned by SHA-256 (`RELEASE`; cached after
            the first download).
        revision: read the Hub copy `KamijioTouma/ToMMA-CToMPersu` instead, at this branch, tag or commit (resolved
            to a commit, recorded).
        data_file: which file of the Hub copy to read (default: the evaluation dialogue file,
            `dataset/CToMPersu_Eval/CToMPersu_Eval.json`).
        duplicates: `drop` exact copies of a record (counted in the log), or `keep` them (the paper's 525 records, ids
            `{id}~2`, `{id}~3`).
        prompting: `none` (the paper's setting, no hint about theory of mind) or `ctom` (the causal-ToM definitions
            and the instruction to infer and address belief and desire are added).
        persuadee_role: the model role that plays the persuadee agent (`--model-role persuadee=...`; unbound, the
            model under test plays it, with a warning).
        grader_role: the model role that judges (`--model-role grader=...`; unbound, the model under test judges,
            with a warning).
        cache: use Inspect's response cache for every call (model under test, persuadee, grader; `true` or `false`).
    """
    cache = check_bool("cache", cache)
    _check_options(prompting, duplicates)
    loaded = _load(dataset, revision, data_file, duplicates)
    samples = [s for s in map(dynamic_sample, loaded.records) if s is not None]
    if not samples:
        raise OptionError(f"persuasion_dynamic: none of the {len(loaded.records)} records has a mental state")
    roles = _roles(persuadee=persuadee_role, grader=grader_role)
    return Task(
        dataset=MemoryDataset(samples, name="ctompersu_dynamic", location=str(loaded.provenance.get("data_file") or
                                                                            loaded.provenance.get("path"))),
        solver=live_persuasion(persuadee_role=persuadee_role, prompting=prompting, cache=cache),
        scorer=persuasion_dynamic_scorer(grader_role=grader_role, cache=cache),
        metadata=_task_metadata(loaded, prompting, roles),
        version=TASK_VERSION,
    )
