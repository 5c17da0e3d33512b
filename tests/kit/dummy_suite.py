"""A dummy suite with what a new suite brings: its record, its task with the suite metadata, its data declaration.

`tests/kit/test_suites.py` registers it in-process (the record in `tombench.kit.suites`, the task in the Inspect
entry point) and checks that it appears in every list that names the suites.
"""

from __future__ import annotations

import json
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.solver import generate

from tombench.kit.pinning import TaskData
from tombench.kit.suites import SuiteInfo
from tombench.scorers.suites.choice import choice_answer, suite_metrics
from tombench.tasks.shared import digest, format_options, letters_for, suite_metadata

INFO = SuiteInfo("dummy", task="dummy_suite", label="Dummy-ToM", fixture="../kit/fixtures/dummy_suite.jsonl", groups=("kind",))
DATA = TaskData("dummy_suite", "nothing: three items in tests/kit/fixtures", items=3, offline="always")


def record_to_sample(record: dict) -> Sample:
    letters = letters_for(len(record["options"]))
    text = f"{record['story']}\n{record['question']}\n{format_options(record['options'])}"
    return Sample(input=text, target=record["answer"], id=digest(text),
                  metadata={"letters": letters, "options": record["options"], "chance": 1 / len(letters),
                            "kind": record["kind"]})


@task(name="tombench/dummy_suite")
def dummy_suite(data: str) -> Task:
    records = [json.loads(line) for line in Path(data).read_text(encoding="utf-8").splitlines()]
    samples = [record_to_sample(r) for r in records]
    return Task(
        dataset=MemoryDataset(samples, name="dummy"),
        solver=generate(),
        scorer=choice_answer(),
        metrics=suite_metrics(INFO.groups),
        metadata=suite_metadata("dummy", provenance={"dataset_id": data}, records=len(records), chance=0.5),
    )
