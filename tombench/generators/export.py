"""Training data from story structures and infilled stories: (story, question, answer) records (ExploreToM §4).

The paper fine-tunes Llama-3.1 8B on (story, question, answer) triples "from both raw story structures and infilled
stories ... with a balanced number of questions per story type", and (Fig. 5) varies the share of stories that
require theory of mind (0/25/50/75/100%). This module makes those records, controls both, and writes JSONL, chat
records for supervised fine-tuning, and a Hugging Face dataset folder with a card.

    from tombench.generators.export import ExportConfig, collect_units, export_records, save_dataset
    units = collect_units(["search.jsonl", "infilled.jsonl"])
    records, stats = export_records(units, ExportConfig(text="both", tom_share=0.5, balance=True))
    save_dataset(records, "train_ds", stats=stats)

Answers come from the DSL (replayed from each line's `story`), never from the input files' question lists, so a
record's label is exactly what the tracked state says.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from tombench.dsl import Story, build_prompt
from tombench.generators.infill import load_story_inputs

__all__ = [
    "FIG5_SHARES",
    "ExportConfig",
    "ExportStats",
    "TextSource",
    "Unit",
    "balance_per_type",
    "collect_units",
    "dataset_card",
    "export_records",
    "save_dataset",
    "select_mixture",
    "to_chat",
    "write_jsonl",
]

TextSource = Literal["raw", "infilled", "both"]
#: the requires-ToM shares of the paper's Figure 5
FIG5_SHARES: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)


@dataclass
class Unit:
    """One story (by id) with its infilled text when an infill run accepted it."""

    id: str
    story: Story
    story_type: str
    requires_tom: bool
    infilled: str | None = None


@dataclass(frozen=True)
class ExportConfig:
    """What to export; see the module docstring and docs/infill-and-export.md for how mixture and balance combine."""

    text: TextSource = "both"
    #: share of stories requiring ToM (None: keep the input's mixture); with `balance`, a share of questions
    tom_share: float | None = None
    #: the same number of questions for every story type
    balance: bool = False
    #: cap on questions per story type when balancing (default: the most every type can give)
    questions_per_type: int | None = None
    orders: tuple[int, ...] = (0, 1, 2)
    #: the paper trains without the +asymmetric story types
    exclude_asymmetric: bool = False
    max_stories: int | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        if self.text not in ("raw", "infilled", "both"):
            raise ValueError(f"Invalid text {self.text!r}. Must be one of: ['raw', 'infilled', 'both']")
        if self.tom_share is not None and not 0.0 <= self.tom_share <= 1.0:
            raise ValueError(f"tom_share must be in [0, 1], got {self.tom_share}")
        if not self.orders or any(o not in (0, 1, 2) for o in self.orders):
            raise ValueError(f"orders must be a non-empty subset of (0, 1, 2), got {self.orders}")


@dataclass
class ExportStats:
    """What an export did, for the summary table and the dataset card."""

    stories_in: int = 0
    with_infill: int = 0
    stories_selected: int = 0
    tom_stories_selected: int = 0
    records: int = 0
    tom_records: int = 0
    by_type: dict[str, int] = field(default_factory=dict)
    by_order: dict[str, int] = field(default_factory=dict)
    by_source: dict[str, int] = field(default_factory=dict)
    #: story types among the chosen stories that balancing left out (no question possible at the requested share)
    types_left_out: list[str] = field(default_factory=list)
    config: dict[str, Any] = field(default_factory=dict)
    inputs: list[dict[str, str]] = field(default_factory=list)

    @property
    def tom_story_share(self) -> float | None:
        return None if not self.stories_selected else self.tom_stories_selected / self.stories_selected

    @property
    def tom_record_share(self) -> float | None:
        return None if not self.records else self.tom_records / self.records

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "tom_story_share": self.tom_story_share, "tom_record_share": self.tom_record_share}


# ---------------------------------------------------------------------------------------------------------- inputs
def collect_units(paths: Iterable[str | Path]) -> tuple[list[Unit], list[dict[str, str]]]:
    """Stories from search outputs and infill outputs, merged by story id (sorted by id), and the inputs' digests.

    An infill line contributes its text only when its status is "ok": a failed infill is never training data.
    """
    units: dict[str, Unit] = {}
    inputs = []
    for path in paths:
        path = Path(path)
        items, _ = load_story_inputs(path)
        inputs.append({"path": str(path), "sha256": hashlib.sha256(path.read_bytes()).hexdigest()})
        for it in items:
            unit = units.get(it.id)
            if unit is None:
                unit = units[it.id] = Unit(it.id, it.story, it.story_type, it.story.requires_tom())
            if unit.story_type == "unknown" and it.story_type != "unknown":
                unit.story_type = it.story_type
            text = it.record.get("text")
            if it.record.get("status") == "ok" and isinstance(text, str) and text.strip():
                unit.infilled = text
    return [units[k] for k in sorted(units)], inputs


# ---------------------------------------------------------------------------------------------------------- selection
def _split_counts(n_tom: int, n_non: int, share: float, cap: int | None) -> tuple[int, int]:
    """The largest (tom, non) with tom / (tom + non) == share (up to rounding), within what is available."""
    if share >= 1.0:
        total = n_tom
    elif share <= 0.0:
        total = n_non
    else:
        total = int(min(n_tom / share, n_non / (1 - share)) + 1e-9)
    if cap is not None:
        total = min(total, cap)
    k_tom = round(total * share)
    return k_tom, total - k_tom


def select_mixture(
    units: Sequence[Unit], share: float | None, rng: random.Random, max_stories: int | None = None
) -> list[Unit]:
    """Stories such that a `share` of them require ToM (Fig. 5), as many as the input allows; sorted by id."""
    if share is None:
        chosen = list(units) if max_stories is None else rng.sample(list(units), min(max_stories, len(units)))
        return sorted(chosen, key=lambda u: u.id)
    tom = [u for u in units if u.requires_tom]
    non = [u for u in units if not u.requires_tom]
    k_tom, k_non = _split_counts(len(tom), len(non), share, max_stories)
    return sorted(rng.sample(tom, k_tom) + rng.sample(non, k_non), key=lambda u: u.id)


def balance_per_type(
    records: Sequence[dict[str, Any]],
    rng: random.Random,
    *,
    per_type: int | None = None,
    tom_share: float | None = None,
) -> list[dict[str, Any]]:
    """The same number of questions for every story type present, drawn at random (order kept).

    With `tom_share`, each type's questions are drawn in that share from stories requiring ToM, so the mixture
    holds at the question level in every type (a story-level share cannot survive per-type question capping); a
    type that cannot give any question at that share is left out (see `ExportStats.types_left_out`).
    """
    by_type: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(records):
        by_type[r["story_type"]].append(i)
    if not by_type:
        return []
    keep: list[int] = []
    if tom_share is None:
        k = min(len(v) for v in by_type.values())
        k = k if per_type is None else min(k, per_type)
        for idx in by_type.values():
            keep += rng.sample(idx, k)
    else:
        split = {
            t: ([i for i in idx if records[i]["requires_tom"]], [i for i in idx if not records[i]["requires_tom"]])
            for t, idx in by_type.items()
        }
        # a type that cannot give a single question at this share (e.g. no ToM story at all) is left out, rather
        # than capping every other type to zero
        feasible = {t: sum(_split_counts(len(a), len(b), tom_share, None)) for t, (a, b) in split.items()}
        split = {t: ab for t, ab in split.items() if feasible[t] > 0}
        if not split:
            return []
        k = min(feasible[t] for t in split)
        k = k if per_type is None else min(k, per_type)
        for a, b in split.values():
            k_tom = round(k * tom_share)
            keep += rng.sample(a, k_tom) + rng.sample(b, k - k_tom)
    return [records[i] for i in sorted(keep)]


# ---------------------------------------------------------------------------------------------------------- records
def _records_for(unit: Unit, source: str, text: str, orders: Sequence[int]) -> list[dict[str, Any]]:
    return [
        {
            "story_id": unit.id,
            "source": source,
            "text": text,
            "question": q.text,
            "answer": q.answer,
            "order": q.order,
            "kind": q.kind,
            "interesting": q.interesting,
            "false_belief": q.false_belief,
            "story_type": unit.story_type,
            "requires_tom": unit.requires_tom,
        }
        for q in unit.story.questions(orders=tuple(orders))
    ]


def export_records(
    units: Sequence[Unit], config: ExportConfig = ExportConfig()
) -> tuple[list[dict[str, Any]], ExportStats]:
    """Records {story_id, text, question, answer, order, interesting, false_belief, story_type, requires_tom, ...}.

    Steps: drop asymmetric types if asked; keep the stories that have the requested text (an infilled text needs an
    accepted infill); apply the story-level ToM mixture (unless balancing, which applies it per question); make one
    record per question and text variant; balance per story type.
    """
    rng = random.Random(config.seed)
    stats = ExportStats(stories_in=len(units), with_infill=sum(u.infilled is not None for u in units))
    stats.config = {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(config).items()}
    pool = [u for u in units if not (config.exclude_asymmetric and u.story_type.endswith("+asymmetric"))]
    if config.text == "infilled":
        pool = [u for u in pool if u.infilled is not None]
    story_share = None if config.balance else config.tom_share
    chosen = select_mixture(pool, story_share, rng, config.max_stories)
    records: list[dict[str, Any]] = []
    for u in chosen:
        if config.text in ("raw", "both"):
            records += _records_for(u, "raw", u.story.text, config.orders)
        if config.text in ("infilled", "both") and u.infilled is not None:
            records += _records_for(u, "infilled", u.infilled, config.orders)
    if config.balance:
        before = {r["story_type"] for r in records}
        records = balance_per_type(records, rng, per_type=config.questions_per_type, tom_share=config.tom_share)
        stats.types_left_out = sorted(before - {r["story_type"] for r in records})
    used = {r["story_id"]: r["requires_tom"] for r in records}
    stats.stories_selected = len(used)
    stats.tom_stories_selected = sum(used.values())
    stats.records = len(records)
    stats.tom_records = sum(r["requires_tom"] for r in records)
    stats.by_type = dict(sorted(Counter(r["story_type"] for r in records).items()))
    stats.by_order = dict(sorted(Counter(str(r["order"]) for r in records).items()))
    stats.by_source = dict(sorted(Counter(r["source"] for r in records).items()))
    return records, stats


def to_chat(record: dict[str, Any]) -> dict[str, Any]:
    """A supervised fine-tuning record: the benchmark's own prompt (system, user) and the answer as the assistant."""
    prompt = build_prompt(record["text"], record["question"])
    return {
        "messages": [
            {"role": "system", "content": prompt.system},
            {"role": "user", "content": prompt.user},
            {"role": "assistant", "content": record["answer"]},
        ]
    }


# ---------------------------------------------------------------------------------------------------------- writing
def write_jsonl(records: Iterable[dict[str, Any]], path: str | Path, *, chat: bool = False) -> int:
    """Write records (or their chat form) to `path`, replacing it; the number written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with path.open("w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(to_chat(r) if chat else r, ensure_ascii=False) + "\n")
            n += 1
    return n


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def dataset_card(stats: ExportStats, *, chat: bool = False, name: str = "tombench-exploretom-training") -> str:
    """A README.md for the dataset folder: what it is, how it was made, what is in it."""
    rows = "\n".join(f"| {t} | {n} |" for t, n in stats.by_type.items())
    inputs = "\n".join(f"- `{i['path']}` (sha256 `{i['sha256'][:16]}…`)" for i in stats.inputs) or "- (none recorded)"
    fields = (
        "`messages`: system, user (`{story}\\n{question} Short Answer.`), assistant (the answer)"
        if chat
        else "`story_id`, `source` (raw/infilled), `text`, `question`, `answer`, `order` (0 = state tracking), "
        "`kind`, `interesting`, `false_belief`, `story_type`, `requires_tom`"
    )
    return f"""---
pretty_name: {name}
language:
- en
task_categories:
- question-answering
tags:
- theory-of-mind
- synthetic
- exploretom
size_categories:
- {"n<1K" if stats.records < 1000 else "1K<n<10K" if stats.records < 10000 else "10K<n<100K" if stats.records < 100000 else "n>100K"}
---

# {name}

(story, question, answer) training data made with `tombench export-training` from ExploreToM-style story structures
(Sclar et al., 2024, [arXiv:2412.12175](https://arxiv.org/abs/2412.12175)) and their LLM infillings. Answers are
computed by the tombench story DSL from the tracked world and mental states, not by a model. Infilled texts passed a
per-step LLM judge; they may still carry ambiguity, so, as in the paper, use them for training, not for evaluation.

Fields: {fields}.

## Contents

- records: {stats.records} from {stats.stories_selected} stories ({stats.stories_in} read, {stats.with_infill} with an accepted infill)
- stories requiring theory of mind: {_pct(stats.tom_story_share)} of stories, {_pct(stats.tom_record_share)} of records
- by source: {", ".join(f"{k} {v}" for k, v in stats.by_source.items()) or "-"}
- by question order: {", ".join(f"{k} {v}" for k, v in stats.by_order.items()) or "-"}

| story type | records |
|---|---|
{rows}

## How it was made

Export settings: `{json.dumps(stats.config, sort_keys=True)}`

Inputs:
{inputs}
"""


def save_dataset(
    records: Sequence[dict[str, Any]], out_dir: str | Path, *, stats: ExportStats, chat: bool = False
) -> Path:
    """`datasets.Dataset.save_to_disk(out_dir)` plus a README.md card; loads back with `datasets.load_from_disk`."""
    import datasets

    rows = [to_chat(r) for r in records] if chat else list(records)
    ds = datasets.Dataset.from_list(rows) if rows else datasets.Dataset.from_dict({})
    out = Path(out_dir)
    ds.save_to_disk(str(out))
    (out / "README.md").write_text(dataset_card(stats, chat=chat), encoding="utf-8")
    return out
