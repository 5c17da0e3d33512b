"""The evidence behind a row: its per-sample details and the evaluation items it answered.

Researchers expect, beside a results table, the items behind each row (lighteval's details datasets, the Open LLM
Leaderboard's `details_*` repos). So every submission that logged its samples also publishes

* `data/details/<submission_id>.jsonl`: one `Detail` per scored sample (sample id, story id, input digest, target,
  the scorer's extracted answer, the model's whole completion, the score, the breakdown groups): anyone can
  recompute the row (the mean of `score` is the row's headline), pair two models on `item_key`, or audit a matcher
  decision (`answer` and `explanation` against `completion` and `target`);
* `data/items/<task id>/<items digest>.jsonl`: the evaluation items themselves (input text, target, choices),
  named by the row's items digest, so a task's items are stored once however many models answered them. The
  benchmark's `eval.yaml` points at these (config `items`, one split per task), never at the results table.

Both are immutable, like the result files: a file that exists is never rewritten. With several epochs a detail's
score is the reduced score the row averages; its answer and completion are the first epoch's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ._from_log import RowOverrides, row_and_items, shard_row_and_items
from ._items import Item
from ._row import ResultRow

DETAILS_DIR = "data/details"
ITEMS_DIR = "data/items"
#: Breakdown dimensions that are not sample metadata (a suite task's own headline).
_NOT_SAMPLE_DIMENSIONS = {"headline"}


@dataclass(frozen=True)
class Group:
    """The group a sample falls in along one breakdown dimension (`action_set` = `tomi`)."""

    dimension: str
    group: str


@dataclass(frozen=True)
class Detail:
    """One scored sample of one submission (a line of `data/details/<submission_id>.jsonl`)."""

    submission_id: str
    task: str
    model: str
    config_hash: str
    sample_id: str
    item_key: str  # the row's `items.key`: digest of (sample id, input digest); equal keys asked the same question
    story_id: str | None
    input_digest: str  # SHA-256 of what the model was shown (the text, or each message's role and text)
    target: str  # several targets are joined with " | "
    answer: str | None  # what the scorer read from the completion
    explanation: str | None  # the scorer's reason, when it gives one
    completion: str  # the model's whole output
    score: float
    breakdown: list[Group] = field(default_factory=list)


@dataclass(frozen=True)
class EvalItem:
    """One evaluation item of a task (a line of `data/items/<task id>/<items digest>.jsonl`)."""

    task: str
    dataset_id: str | None
    item_key: str
    sample_id: str
    story_id: str | None
    input: str  # the text the model was shown (messages joined by blank lines)
    target: str
    choices: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Submission:
    """What one log adds to a leaderboard: the row, its details and its evaluation items (empty without samples)."""

    row: ResultRow
    details: list[Detail]
    items: list[EvalItem]


def task_id(task: str) -> str:
    """The id of a task in `eval.yaml`, Eval Results and the items' split: its name without `tombench/`."""
    return task.removeprefix("tombench/")


def details_path(submission_id: str) -> str:
    return f"{DETAILS_DIR}/{submission_id}.jsonl"


def items_path(row: ResultRow, items: Sequence[EvalItem]) -> str | None:
    """Where the row's evaluation items live (None: the log had no samples). Multiple-choice items (every item
    has choices) end in `.mc.jsonl`: the file list alone tells `eval.yaml` which solver and scorer replay them."""
    if not row.items_digest or not items:
        return None
    kind = ".mc" if all(i.choices for i in items) else ""
    return f"{ITEMS_DIR}/{task_id(row.task)}/{row.items_digest}{kind}.jsonl"


def item_tasks(files: Iterable[str]) -> dict[str, bool]:
    """{task id: multiple choice} of the tasks whose evaluation items are among the repo's `files`."""
    out: dict[str, bool] = {}
    for path in files:
        parts = path.split("/")
        if path.startswith(ITEMS_DIR + "/") and len(parts) == 4 and path.endswith(".jsonl"):
            out[parts[2]] = out.get(parts[2], True) and path.endswith(".mc.jsonl")
    return out


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return "\n\n".join(str(getattr(m, "text", m)) for m in value)


def _target(value: Any) -> str:
    return value if isinstance(value, str) else " | ".join(str(v) for v in value or [])


def _groups(md: dict[str, Any], dimensions: Sequence[str]) -> list[Group]:
    return [Group(d, str(md[d])) for d in dimensions if md.get(d) is not None]


def _detail(row: ResultRow, item: Item, scorer: str, dimensions: Sequence[str]) -> Detail:
    from ._items import input_digest

    sample = item.sample
    score = (sample.scores or {}).get(scorer)
    return Detail(
        submission_id=row.submission_id, task=row.task, model=row.model, config_hash=row.config_hash,
        sample_id=str(sample.id), item_key=item.key, story_id=item.story, input_digest=input_digest(sample.input),
        target=_target(sample.target), answer=None if score is None or score.answer is None else str(score.answer),
        explanation=getattr(score, "explanation", None),
        completion=sample.output.completion if sample.output is not None else "", score=item.score,
        breakdown=_groups(item.metadata, dimensions))


def _eval_item(row: ResultRow, item: Item) -> EvalItem:
    sample = item.sample
    return EvalItem(task=row.task, dataset_id=row.dataset_id, item_key=item.key, sample_id=str(sample.id),
                    story_id=item.story, input=_text(sample.input), target=_target(sample.target),
                    choices=[str(c) for c in sample.choices or []])


def submission_from_log(path: str | Path, overrides: RowOverrides | None = None) -> Submission:
    """A log's row with its per-sample details and evaluation items, from one reading of the log."""
    return _submission(*row_and_items(path, overrides))


def submission_from_shards(paths: list[Path], overrides: RowOverrides | None = None) -> Submission:
    """`submission_from_log` of a sharded run's N logs (`shard_row_and_items`): one row, all the shards' items."""
    return _submission(*shard_row_and_items(paths, overrides))


def _submission(row: ResultRow, items: list[Item], scorer: str) -> Submission:
    dimensions = list(dict.fromkeys(b.dimension for b in row.breakdowns if b.dimension not in _NOT_SAMPLE_DIMENSIONS))
    details = [_detail(row, i, scorer, dimensions) for i in items]
    return Submission(row, details, [_eval_item(row, i) for i in items])


def jsonl(records: Iterable[Detail | EvalItem]) -> str:
    """Records as JSON lines (the published format of details and items)."""
    return "".join(json.dumps(asdict(r), ensure_ascii=False, allow_nan=False) + "\n" for r in records)


def read_details(text: str) -> list[Detail]:
    out = []
    for line in text.splitlines():
        if line.strip():
            data = json.loads(line)
            data["breakdown"] = [Group(**g) for g in data.get("breakdown") or []]
            out.append(Detail(**data))
    return out
