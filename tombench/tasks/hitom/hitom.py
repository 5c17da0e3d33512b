"""Hi-ToM (Wu, He et al., Findings of EMNLP 2023): higher-order ToM, orders 0-4, stories with and without telling.

Paper: "Hi-ToM: A Benchmark for Evaluating Higher-Order Theory of Mind Reasoning in Large Language Models"
(https://arxiv.org/abs/2310.16755). Data: `Hi-ToM_data.json` of the authors' Hub dataset `Hi-ToM/Hi-ToM_Dataset`
at commit e50470c9 (the same file as in ying-hui-he/Hi-ToM_dataset on GitHub), Apache-2.0. It holds 1,200
questions: 600 for vanilla prompting (VP, the paper's `MC` folder) and 600 for chain-of-thought prompting (CoTP),
each 2 (tell / no tell) x 3 story lengths x 20 stories x 5 orders, with 15 lettered container options.

    inspect eval tombench/hitom --model openai/gpt-4o-mini                 # VP, 600 questions
    inspect eval tombench/hitom -T prompting=cotp --model ...             # the CoTP questions and prompt
    inspect eval tombench/hitom -T order=3,4 -T tell=true --model ...     # a slice
    inspect eval tombench/hitom -T data=Hi-ToM_data.json --model tombench/random

The prompt is the paper's, byte for byte (it rebuilds the released `Hi-ToM_prompts/*/MC/*` files from the JSON):
the instruction line, "Story:", the numbered story, "Question: ...", "Choices: A. x, B. y, ..." on one line, and the
"Note: You should assume the following. ..." paragraph. The answer is read with the robust `letter` matcher (a
letter, "K. green_drawer", or the one container named). Accuracy is reported per `order` (0-4), per `tell`
(stories with agents' public/private claims, the JSON's `deception`), per `length` (chapters) and overall; chance
is 1/15.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.solver import generate

from tombench.kit.errors import OptionError
from tombench.kit.evals import task_data
from tombench.kit.options import check_bool
from tombench.kit.pinning import HubFile, fetch
from tombench.kit.reading import convert_records, read_records
from tombench.scorers.suites.choice import choice_answer, suite_metrics
from tombench.tasks.shared.choices import LETTERS, chance, digest
from tombench.tasks.shared.suite import one_of, suite_metadata

__all__ = ["DIMENSIONS", "PAPER_ITEMS", "SOURCE", "build_prompt", "hitom", "load_records", "parse_choices",
           "record_to_sample"]

TASK_VERSION = "1.0.0"

#: The authors' Hub dataset at a full commit (history: initial commit 5c176ad, "Upload 2 files" 74a2bf2,
#: "Upload README.md" e50470c, Oct 28 2023). The GitHub copy (ying-hui-he/Hi-ToM_dataset@56dda76f) has SHA-256
#: 1c4077bbcdf815b91dbb791b60dbce3920a98bd63317954ebf94a532d43cd573; it is what the loader was verified on.
SOURCE = HubFile("Hi-ToM/Hi-ToM_Dataset", "Hi-ToM_data.json", revision="e50470c90e8f6de63274be5f1ef01f969eb86285")
GITHUB_SHA256 = "1c4077bbcdf815b91dbb791b60dbce3920a98bd63317954ebf94a532d43cd573"
#: what every question record of Hi-ToM_data.json holds (and the task reads)
RECORD_KEYS = ("story", "question", "choices", "answer", "prompting_type", "question_order", "deception", "story_length")
PAPER_ITEMS = {"vp": 600, "cotp": 600}
DATA = task_data(__file__, "hitom", {"data": SOURCE})
LICENSE = DATA.license  # eval.yaml's, the one place it is written

#: The suite's own table: accuracy per ToM order and with / without telling; story length beside them.
DIMENSIONS: tuple[str, ...] = ("order", "tell", "length")

_PROMPTING = {"vp": "VP", "cotp": "CoTP"}
INSTRUCTIONS = {
    "VP": "Read the following story and answer the multiple-choice question. Please provide answer without "
          "explanations.",
    "CoTP": "Read the following story and answer the multiple-choice question. Think step-by-step. Provide the "
            "answer first, and then explain it.",
}
#: The assumptions paragraph every released Hi-ToM prompt ends with (part of the benchmark's format).
NOTE = (
    "Note: You should assume the following. (1) An agent witnesses everything and every movements before exiting a "
    "location. (2) An agent A can infer another agent B's mental state only if A and B have been in the same "
    "location, or have private or public interactions. (3) Note that every agent tend to lie. What a character "
    "tells others doesn't affect his actual belief. An agent tend to trust a agent that exited the room later than "
    "himself. The exit order is known to all agents. (4) Agents in private communications know that others won't "
    "hear them, but they know that anyone can hear any public claims."
)
_CHOICE = re.compile(r"(?:^|,\s+)([A-Z])\.\s+(.*?)(?=,\s+[A-Z]\.\s|$)")


def parse_choices(choices: str) -> tuple[str, list[str]]:
    """"A. red_box, B. blue_jar" -> ("AB", ["red_box", "blue_jar"]); ValueError unless the labels run A, B, C..."""
    found = _CHOICE.findall(choices.strip())
    letters = "".join(lab for lab, _ in found)
    if not found or letters != LETTERS[: len(found)]:
        raise ValueError(f"choices are not a lettered list: {choices[:60]!r}")
    return letters, [text.strip() for _, text in found]


def _story_lines(record: dict[str, Any]) -> str:
    """The numbered story. The VP records of the release begin with the instruction line, and 6 CoTP records end
    with a stray "***" line that their released prompt files lack: both are dropped, as in those files."""
    story = str(record["story"]).strip("\n")
    story = re.sub(r"\n+\*\*\*$", "", story)
    for instruction in INSTRUCTIONS.values():
        if story.startswith(instruction):
            story = story[len(instruction) :].lstrip("\n")
    return story


def build_prompt(record: dict[str, Any]) -> str:
    """The paper's prompt for one record (identical to the released prompt file of the same question)."""
    return (
        f"{INSTRUCTIONS[record['prompting_type']]}\nStory:\n{_story_lines(record)}\n"
        f"Question: {record['question'].strip()}\nChoices: {record['choices'].strip()}\n\n{NOTE}\n"
    )


def record_to_sample(record: dict[str, Any]) -> Sample:
    """One Hi-ToM question as a lettered multiple-choice Sample (target: the letter of `answer` among the choices)."""
    letters, options = parse_choices(record["choices"])
    answer = str(record["answer"]).strip()
    if options.count(answer) != 1:
        raise ValueError(f"answer {answer!r} is not exactly one of the choices of {record['question']!r}")
    key = digest(record["prompting_type"], _story_lines(record), record["question"])
    return Sample(
        id=f"hitom-{key[:12]}",
        input=build_prompt(record),
        target=letters[options.index(answer)],
        metadata={
            "suite": "hitom",
            "order": int(record["question_order"]),
            "tell": bool(record["deception"]),
            "length": int(record["story_length"]),
            "prompting": record["prompting_type"],
            "sample_id": record.get("sample_id"),
            "question": record["question"],
            "answer_text": answer,
            "letters": letters,
            "options": options,
            "chance": chance(len(options)),
        },
    )


def load_records(path: Path) -> list[dict[str, Any]]:
    """The question records of `Hi-ToM_data.json` ({"data": [...]}, or a bare list)."""
    return read_records(path, what="Hi-ToM data", option="-T data=PATH", required_keys=RECORD_KEYS)


@task
def hitom(
    prompting: Literal["vp", "cotp"] = "vp",
    order: str | list[str] | None = None,
    tell: bool | None = None,
    length: str | list[str] | None = None,
    data: str | None = None,
    cache: bool = False,
) -> Task:
    """Hi-ToM multiple choice with the paper's prompt; accuracy per order (0-4) and with/without telling.

    Args:
        prompting: which half of the release to run, with its instruction line (the release holds separate questions
            for each): `vp` (vanilla prompting) or `cotp` (chain-of-thought prompting).
        order: keep questions of these ToM orders, `0` to `4` (comma-separated or repeated, e.g. `3,4`; default: all
            five).
        tell: keep only stories with (`true`) or without (`false`) agents telling each other where things are
            (default: both).
        length: keep stories of these lengths in chapters, `1`, `2`, `3` (comma-separated or repeated; default: all
            three).
        data: read this local `Hi-ToM_data.json` (`{"data": [...]}` or a bare list of records) instead of the pinned
            Hub file (default); its SHA-256 is recorded.
        cache: use Inspect's response cache for the model's calls (`true` or `false`).
    """
    tell = check_bool("tell", tell, allow_none=True)
    cache = check_bool("cache", cache)
    if prompting not in _PROMPTING:
        raise OptionError(f"Invalid prompting value: {prompting!r}. Must be one of: {list(_PROMPTING)}")
    orders = one_of("order", order, [0, 1, 2, 3, 4])
    lengths = one_of("length", length, [1, 2, 3])
    path, provenance = fetch(SOURCE, data, suite="Hi-ToM")
    records = load_records(path)
    samples = convert_records((r for r in records if r.get("prompting_type") == _PROMPTING[prompting]),
                              record_to_sample, what="Hi-ToM data", path=path,
                              expected="a Hi-ToM question record (story, question, choices, answer, ...)")
    samples = [
        s for s in samples
        if (orders is None or str(s.metadata["order"]) in orders)
        and (tell is None or s.metadata["tell"] is tell)
        and (lengths is None or str(s.metadata["length"]) in lengths)
    ]
    if not samples:
        raise OptionError("no Hi-ToM questions left after the filters (prompting, order, tell, length)")
    mean_chance = sum(s.metadata["chance"] for s in samples) / len(samples)
    return Task(
        dataset=MemoryDataset(samples, name=f"hitom-{prompting}", location=str(provenance["dataset_id"])),
        solver=generate(cache=cache),
        scorer=choice_answer("letter"),
        metrics=suite_metrics(DIMENSIONS),
        config=GenerateConfig(temperature=0.0),
        version=TASK_VERSION,
        metadata=suite_metadata(
            "hitom", provenance=provenance, records=len(records),
            chance=mean_chance, prompting=prompting, protocol="letter",
        ),
    )
