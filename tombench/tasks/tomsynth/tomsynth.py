"""ToM-Synth: multiple-choice theory-of-mind items across 36 mental states x 96 social situations x 2 formats.

Paper: ToM-Synth: Scaling Robust Theory of Mind in LLMs via 6,912 Structured Social Units (anonymous ACL
submission, 2025). Items come from `tombench tomsynth generate` + `tombench tomsynth qc` (a local jsonl), an exported
folder (`tombench tomsynth export-hf`), or a Hub dataset with the same columns.

    inspect eval tombench/tomsynth -T data=tomsynth.qc.jsonl --model openai/gpt-4o-mini
    inspect eval tombench/tomsynth -T data=org/tomsynth -T revision=<sha> -T dimension=Emotion --model ...
    inspect eval tombench/tomsynth -T data=... -T answer_format=think --model ...   # the paper's RL reward

Accuracy is reported overall and by mental-state dimension, sub-dimension, social domain and format (the shared
`breakdown` metric). With `answer_format=think` the model must answer `<think>...</think><answer>X</answer>` and the
score is the paper's reward in {-1, 0, 1}.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.solver import Generate, Solver, TaskState, multiple_choice, solver

from tombench.kit.errors import OptionError
from tombench.kit.evals import task_data
from tombench.kit.options import check_bool, check_int, list_items
from tombench.kit.pinning import load_hub_dataset
from tombench.kit.reading import read_jsonl, require_keys

__all__ = ["tomsynth", "record_to_sample", "rl_prompt", "RL_TEMPLATE", "load_records"]

TASK_VERSION = "1.0.0"
_LETTERS = ("A", "B", "C", "D")

#: The paper's RL prompt convention (§4, following DeepSeek-R1): reason in <think>, answer in <answer>.
RL_TEMPLATE = """\
{question}

{choices}

Think about the characters' mental states step by step inside <think> </think> tags, then give only the letter of \
the correct option inside <answer> </answer> tags, e.g. <think>...</think><answer>A</answer>."""


def _question_text(record: dict[str, Any]) -> str:
    return f"{record['format']}:\n{record['text'].strip()}\n\nQuestion: {record['question'].strip()}"


def record_to_sample(record: dict[str, Any]) -> Sample:
    """One item row (see `tombench.generators.tomsynth.items.Item`) as a multiple-choice Sample."""
    options = record["options"]
    return Sample(
        id=record["id"],
        input=_question_text(record),
        choices=[str(options[letter]) for letter in _LETTERS],
        target=str(record["answer"]).strip().upper(),
        metadata={
            "unit_id": record.get("unit_id"),
            "dimension": record["dimension"],
            "sub_dimension": record["sub_dimension"],
            "domain": record["domain"],
            "situation": record.get("situation"),
            "format": record["format"],
            "space": record.get("space") or "full",
        },
    )


def _render_think(question: str, options: list[str]) -> str:
    choices = "\n".join(f"{letter}) {opt}" for letter, opt in zip(_LETTERS, options, strict=True))
    return RL_TEMPLATE.format(question=question, choices=choices)


def rl_prompt(record: dict[str, Any]) -> str:
    """The think/answer prompt for one item row: the same text the task sends, for use as a GRPO training prompt."""
    return _render_think(_question_text(record), [str(record["options"][letter]) for letter in _LETTERS])


@solver
def _think_answer() -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.user_prompt.text = _render_think(state.input_text, [c.value for c in state.choices])
        return await generate(state)

    return solve


#: what every item row holds (tombench.generators.tomsynth.items.Item); `options` maps each letter to its text
ITEM_KEYS = ("id", "text", "question", "options", "answer", "dimension", "sub_dimension", "domain", "format")
_WHAT = "ToM-Synth data"
DATA = task_data(__file__, "tomsynth")


def _checked(rows: list[dict[str, Any]], where: str, unit: str) -> list[dict[str, Any]]:
    """The rows, each with every item key and an option per letter; else one line naming the row."""
    for n, row in enumerate(rows, start=1):
        require_keys(row, ITEM_KEYS, what=_WHAT, path=where, where=f"{unit} {n}")
        options = row["options"]
        if not isinstance(options, dict) or any(letter not in options for letter in _LETTERS):
            raise OptionError(f"{_WHAT} file {where!r}, {unit} {n}: 'options' must map each of {', '.join(_LETTERS)} "
                              "to an option's text")
    return rows


def load_records(data: str, *, split: str = "train", revision: str | None = None) -> tuple[list[dict], dict]:
    """Rows from a jsonl file, an exported folder or a Hub dataset id; also returns provenance for the log.

    Hub datasets are resolved to a commit sha first, so the log records exactly which revision was evaluated.
    """
    path = Path(data).expanduser()
    if path.is_file():
        rows = read_jsonl(path, what=_WHAT, required_keys=ITEM_KEYS, option="-T data=FILE")
        return _checked(rows, str(path), "line"), {"data": str(path)}
    if path.is_dir():
        # Read the parquet files with pyarrow, not `datasets.load_dataset(folder)`: the latter's cache does not notice
        # a folder re-exported in place and serves the old rows.
        import pyarrow.parquet as pq

        files = sorted(path.glob(f"data/{split}-*.parquet")) or sorted(path.glob(f"**/{split}*.parquet"))
        if not files:
            raise OptionError(f"no {split} parquet files in {str(path)!r} (expected data/{split}-*.parquet)")
        rows = [row for f in files for row in pq.read_table(f).to_pylist()]
        return _checked(rows, str(path), "row"), {"data": str(path)}
    if data.endswith((".jsonl", ".json")) or "/" not in data or data.startswith((".", "/")):
        raise OptionError(f"ToM-Synth data {data!r} does not exist: give an existing .jsonl file, folder, or Hub dataset id")
    rows, rev = load_hub_dataset(data, revision, split=split, option="-T data=FILE")
    return _checked(rows, data, "row"), {"data": data, "revision": rev.sha, "split": split}


def _filter(records: list[dict], key: str, wanted: str | list[str] | None, valid: list[str]) -> list[dict]:
    values = [str(v) for v in list_items(wanted)]
    if not values:
        return records
    lower = {v.lower(): v for v in valid}
    bad = [v for v in values if v.lower() not in lower]
    if bad:
        raise OptionError(f"Invalid {key} value(s): {bad}. Must be one of: {valid}")
    keep = {lower[v.lower()] for v in values}
    return [r for r in records if r[key] in keep]


@task
def tomsynth(
    data: str | None = None,
    split: str = "train",
    revision: str | None = None,
    dimension: str | list[str] | None = None,
    sub_dimension: str | list[str] | None = None,
    domain: str | list[str] | None = None,
    format: str | list[str] | None = None,
    answer_format: Literal["letter", "think"] = "letter",
    cot: bool = False,
    limit_per_unit: int | None = None,
) -> Task:
    """ToM-Synth multiple-choice evaluation.

    Args:
        data: the items to ask (required): a `.jsonl` of items (`tombench tomsynth generate` / `qc`), a folder written
            by `tombench tomsynth export-hf`, or a Hub dataset id `ORG/NAME`; a missing file or a row without the item
            keys is one line naming it.
        split: the split of a folder or Hub dataset.
        revision: the Hub revision, a branch, tag or commit (default: the Hub's default branch); it is resolved to a
            commit, which the task metadata records.
        dimension: keep items of these mental-state dimensions: `Emotion`, `Desire`, `Intention`, `Knowledge`,
            `Non-literal Communication`, `Belief` (comma-separated, any case; default: all).
        sub_dimension: keep items of these sub-dimensions, the paper's names, e.g. `Hidden Emotions`,
            `Content False Beliefs`, `Second-order Beliefs (Belief about desire)` (comma-separated, any case; default:
            all).
        domain: keep items of these social domains: `Workplace`, `Family`, `Education`, `Healthcare`, `Business`,
            `Social Gatherings`, `Public Services`, `Romantic Relationships`, `Community`, `Friendship`,
            `Stranger Interactions`, `Crisis Response` (comma-separated, any case; default: all).
        format: keep items of these formats: `Narrative`, `Dialogue` (comma-separated, any case; default: both).
        answer_format: `letter` (Inspect's multiple-choice prompt, scored by accuracy) or `think` (the paper's
            `<think>...</think><answer>X</answer>` prompt, scored by its RL reward in {-1, 0, 1}).
        cot: ask for step-by-step reasoning before the letter (`letter` format only; `true` or `false`).
        limit_per_unit: keep at most this many items (at least 1) per social unit, e.g. 1 for a quick sweep over every
            unit (default: no limit).
    """
    cot = check_bool("cot", cot)
    from tombench.generators.tomsynth import units as U
    from tombench.scorers.tomsynth import tomsynth_choice, tomsynth_rl

    if not data:
        raise OptionError("ToM-Synth needs data: -T data=FILE.jsonl | FOLDER | org/dataset")
    if answer_format not in ("letter", "think"):
        raise OptionError(f"Invalid answer_format value(s): {answer_format!r}. Must be one of: ['letter', 'think']")
    limit_per_unit = None if limit_per_unit is None else check_int("limit_per_unit", limit_per_unit, lo=1)
    records, provenance = load_records(data, split=split, revision=revision)
    records = _filter(records, "dimension", dimension, list(dict.fromkeys(m.dimension for m in U.mental_states())))
    values = list(dict.fromkeys(m.sub_dimension for space in U.SPACES for m in U.mental_states(space)))
    records = _filter(records, "sub_dimension", sub_dimension, values)
    records = _filter(records, "domain", domain, list(dict.fromkeys(s.domain for s in U.situations())))
    records = _filter(records, "format", format, list(U.formats()))
    if limit_per_unit is not None:
        seen: dict[str, int] = {}
        kept = []
        for r in records:
            unit = r.get("unit_id") or r["id"]
            n = seen.get(unit, 0)
            if n < limit_per_unit:
                kept.append(r)
            seen[unit] = n + 1
        records = kept
    if not records:
        raise OptionError(f"no ToM-Synth items left in {data!r} after filtering")

    dataset = MemoryDataset([record_to_sample(r) for r in records], name="tomsynth", location=str(data))
    if answer_format == "think":
        solver_, scorer_ = _think_answer(), tomsynth_rl()
    else:
        solver_, scorer_ = multiple_choice(cot=cot), tomsynth_choice()
    return Task(
        dataset=dataset,
        solver=solver_,
        scorer=scorer_,
        version=TASK_VERSION,
        metadata={"benchmark": "tomsynth", "answer_format": answer_format, **provenance},
    )
