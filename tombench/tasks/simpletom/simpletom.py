"""SimpleToM (Gu et al., 2024): 1,147 stories, each with a mental-state, a behaviour and a judgment question.

Paper: Gu, Tafjord, Kim, Moore, Le Bras, Clark and Choi, "SimpleToM: Exposing the Gap between Explicit ToM
Inference and Implicit ToM Application in LLMs" (ICLR 2026, https://arxiv.org/abs/2410.13648). Data: the Hub
dataset `allenai/SimpleToM` (configs `mental-state-qa`, `behavior-qa`, `judgment-qa`, split `test`) at a pinned
commit.

    inspect eval tombench/simpletom --model openai/gpt-4o-mini
    inspect eval tombench/simpletom -T question_set=behavior-qa --model tombench/random
    inspect eval tombench/simpletom -T data=path/to/SimpleToM --model ...

Protocol (the authors' `inference/run_inference.py`, no chain of thought): system "You are a helpful assistant.",
the user prompt below, temperature 0, 20 tokens; the answer is the option letter the response names. The headline is
accuracy per question kind: mental state (explicit ToM) vs behaviour prediction vs judgment of behaviour (applied
ToM), the paper's central gap.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.solver import generate, system_message

from tombench.kit.evals import task_data
from tombench.kit.pinning import HubFile, fetch_files
from tombench.kit.reading import convert_records, read_jsonl
from tombench.tasks.shared.suite import one_of, suite_metadata

__all__ = [
    "FILES",
    "LICENSE",
    "PAPER_ITEMS",
    "QUESTION_SETS",
    "SYSTEM_PROMPT",
    "build_prompt",
    "iter_records",
    "record_to_sample",
    "simpletom",
]

TASK_VERSION = "1.0.0"

#: The Hub dataset at its last commit whose full sha is known here (5799bfb, README only; the data files are those
#: of 7f51fed, "Add dataset files", unchanged since).
REPO = "allenai/SimpleToM"
REVISION = "5799bfb5b339ae39df403b26a2bf3e240db2a728"
#: Stories 1,147 (the paper), each with one question per set: 3,441 questions.
PAPER_ITEMS = 3441
#: `run_inference.py` without chain of thought: temperature 0, 20 tokens, system "You are a helpful assistant."
CONFIG = GenerateConfig(temperature=0.0, max_tokens=20)
DIMENSIONS: tuple[str, ...] = ("kind", "severity", "scenario")
SYSTEM_PROMPT = "You are a helpful assistant."

#: The Hub configs (files `{config}/test.jsonl`) and the question kind each asks.
QUESTION_SETS: dict[str, str] = {
    "mental-state-qa": "mental_state",
    "behavior-qa": "behavior",
    "judgment-qa": "judgment",
}
FILES: dict[str, HubFile] = {f"{qs}/test.jsonl": HubFile(REPO, f"{qs}/test.jsonl", revision=REVISION) for qs in QUESTION_SETS}
DATA = task_data(__file__, "simpletom", FILES)
LICENSE = DATA.license  # eval.yaml's, the one place it is written
_ID_SUFFIX = {"mental_state": "_aware", "behavior": "_action", "judgment": "_judge"}
_LETTERS = ("A", "B", "C", "D")
_SEVERITY = re.compile(r"_sev(\d+)_")


def build_prompt(story: str, question: str, choices: list[str]) -> str:
    """The paper's prompt (`question_prompt` in `inference/utils.py`, no extra options, no chain of thought)."""
    labels = [f"({letter})" for letter in _LETTERS[: len(choices)]]
    options = " \n".join(f"{label} {text}" for label, text in zip(labels, choices, strict=True))
    return (
        f"Given the following story, answer the question by giving the correct answer choice, {' or '.join(labels)}."
        f"\n\nStory:\n{story}\n\nQuestion: {question} \n{options}\n\n"
        f"What is the correct answer? Respond with just {' or '.join(chr(34) + lab + chr(34) for lab in labels)}\n"
    )


def record_to_sample(record: Mapping[str, Any], *, question_set: str) -> Sample:
    """One SimpleToM question (`id`, `story`, `question`, `scenario_name`, `choices.text`, `answerKey`) as a
    multiple-choice Sample; texts are kept as released (the authors' prompt does not strip them)."""
    kind = QUESTION_SETS[question_set]
    # texts exactly as released: the authors' prompt keeps them (every judgment question ends in a space)
    choices = [str(c) for c in record["choices"]["text"]]
    labels = list(record["choices"].get("label") or _LETTERS[: len(choices)])
    answer = str(record["answerKey"]).strip()
    if answer not in labels:
        raise ValueError(f"SimpleToM {record.get('id')}: answerKey {answer!r} not among labels {labels}")
    target = _LETTERS[labels.index(answer)]
    story, question = str(record["story"]), str(record["question"])
    record_id = str(record["id"])
    severity = _SEVERITY.search(record_id + "_")
    digest = hashlib.sha256(json.dumps([story, question, choices]).encode()).hexdigest()[:12]
    return Sample(
        id=f"simpletom-{kind}-{digest}",
        input=build_prompt(story, question, choices),
        choices=choices,
        target=target,
        metadata={
            "kind": kind,
            "record_id": record_id,
            "id_matches_kind": record_id.endswith(_ID_SUFFIX[kind]),
            "severity": int(severity.group(1)) if severity else None,
            "scenario": record.get("scenario_name"),
            "k": len(choices),
            "letters": "".join(_LETTERS[: len(choices)]),
            "options": choices,
            "chance": 1 / len(choices),
        },
    )


def iter_records(paths: Mapping[str, Path], question_sets: list[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(question set, record) from each asked config's `test.jsonl`."""
    for qs in question_sets:
        for record in read_jsonl(paths[f"{qs}/test.jsonl"], what="SimpleToM data"):
            yield qs, record


@task
def simpletom(data: str | None = None, question_set: str | list[str] | None = None) -> Task:
    """SimpleToM as in the paper (no chain of thought); accuracy per question kind.

    Args:
        data: read this local copy instead of the pinned Hub revision (default): a folder holding
            `mental-state-qa/test.jsonl`, `behavior-qa/test.jsonl` and `judgment-qa/test.jsonl`; each file's SHA-256
            is recorded (the module pins the Hub commit, not file hashes, so a local copy is logged as not pinned).
        question_set: keep the questions of these sets: `mental-state-qa`, `behavior-qa`, `judgment-qa`
            (comma-separated; default: all three).
    """
    from tombench.scorers.suites.choice import choice_answer, suite_metrics

    sets = one_of("question_set", question_set, list(QUESTION_SETS)) or list(QUESTION_SETS)
    paths, provenance = fetch_files(FILES, data, suite="SimpleToM", release=f"hf://datasets/{REPO}@{REVISION}")
    records = list(iter_records(paths, list(QUESTION_SETS)))
    samples = [s for qs in sets for s in convert_records(
        (r for q, r in records if q == qs), functools.partial(record_to_sample, question_set=qs),
        what="SimpleToM data", path=paths[f"{qs}/test.jsonl"], expected="a SimpleToM record (id, story, question, "
        "choices, answerKey)")]
    return Task(
        dataset=MemoryDataset(samples, name="simpletom", location=provenance["dataset_id"]),
        solver=[system_message(SYSTEM_PROMPT), generate()],
        scorer=choice_answer("letter"),
        metrics=suite_metrics(DIMENSIONS),
        config=CONFIG,
        version=TASK_VERSION,
        metadata=suite_metadata(
            "simpletom",
            provenance=provenance,
            records=len(records),
            chance=sum(s.metadata["chance"] for s in samples) / len(samples) if samples else None,
            paper_items=PAPER_ITEMS,
            question_sets=sets,
            license=LICENSE,
        ),
    )
