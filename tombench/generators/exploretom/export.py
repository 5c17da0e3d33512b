"""Training data from story structures and infilled stories: (story, question, answer) records (ExploreToM §4).

The paper fine-tunes Llama-3.1 8B on (story, question, answer) triples "from both raw story structures and infilled
stories ... with a balanced number of questions per story type", on sequences of at most 300 tokens, and (Fig. 5)
trains five models of the same size (85,000 samples each) on data where 0/25/50/75/100% of the stories require
theory of mind. This module makes those records and controls all of it:

    from tombench.generators.exploretom.export import ExportConfig, collect_units, export_records, save_dataset
    units, inputs = collect_units(["astar.jsonl", "random.jsonl", "infilled.jsonl"])
    records, stats = export_records(units, ExportConfig(size=85_000, tom_share=0.5, balance=True))
    save_dataset(records, "train_ds", stats=stats)

Stories are joined across files by their content digest (`tombench.generators.exploretom.identity`), so any number of runs
can be merged in any order. Answers come from the DSL (replayed from each line's `story`), never from the input
files' question lists; an infilled text is labelled only with the questions its final judge confirmed (see
`tombench.generators.exploretom.infill_checks.final_checks`).

**The ToM share** (`tom_share`) is the share of *records* that come from stories requiring theory of mind (a story
property: at least one interesting first- or second-order question; all of such a story's questions count, as in
the paper's "even if some of the individual questions ... do not require theory of mind"). It is exact:
`round(share * size)` records. Records are spread over stories at the same rate in every class (at most `r` records
per story, the smallest `r` that fills every quota), so the share of *stories* requiring ToM comes out at the same
value, up to rounding (reported as `tom_story_share`). `balance` keeps exactly this meaning and adds one constraint:
every story type gets the same number of records (±1), each type at the same share.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from tombench.dsl import Story, build_prompt
from tombench.generators.exploretom.story_inputs import (
    NotAdversarialLog,
    StoryInput,
    expand_story_paths,
    load_story_inputs,
)
from tombench.generators.exploretom.tokens import TokenCounter, load_token_counter

__all__ = [
    "FIG5_SHARES",
    "ExportConfig",
    "ExportError",
    "ExportStats",
    "TextSource",
    "Unit",
    "collect_units",
    "dataset_card",
    "export_files",
    "export_records",
    "record_tokens",
    "save_dataset",
    "select_mixture",
    "to_chat",
    "write_jsonl",
]

TextSource = Literal["raw", "infilled", "both"]
#: the requires-ToM shares of the paper's Figure 5
FIG5_SHARES: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)


class ExportError(ValueError):
    """An export that cannot be made as asked (e.g. more records than the inputs hold at that share)."""


@dataclass
class Infill:
    """An accepted infilled text and the (question, answer) labels its final judge confirmed."""

    text: str
    #: None: an infill made before the final label check existed (not exported)
    verified: frozenset[tuple[str, str]] | None


@dataclass
class Unit:
    """One story (by content digest) with its accepted, judge-verified infilled texts."""

    id: str
    story: Story
    story_type: str
    requires_tom: bool
    infills: list[Infill] = field(default_factory=list)
    #: the ids the input files gave it (search ids repeat across runs; kept for reference only)
    source_ids: list[str] = field(default_factory=list)

    @property
    def infilled(self) -> str | None:
        """The first accepted infilled text (None without one)."""
        return self.infills[0].text if self.infills else None


@dataclass(frozen=True)
class ExportConfig:
    """What to export; see the module docstring for what the ToM share means and how balance keeps it."""

    text: TextSource = "both"
    #: share of records from stories requiring ToM (None: keep the input's mixture)
    tom_share: float | None = None
    #: the same number of records for every story type
    balance: bool = False
    #: exactly this many records (None: as many as the inputs allow under the other settings)
    size: int | None = None
    #: with balance and no size: at most this many records per story type
    questions_per_type: int | None = None
    orders: tuple[int, ...] = (0, 1, 2)
    #: the paper trains without the +asymmetric story types
    exclude_asymmetric: bool = False
    #: draw at most this many stories (at the ToM share) before making records
    max_stories: int | None = None
    #: drop records longer than this many tokens (needs `token_counter`)
    max_tokens: int | None = None
    #: a name for the tokenizer, for the dataset card
    tokenizer: str | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        if self.text not in ("raw", "infilled", "both"):
            raise ValueError(f"Invalid text {self.text!r}. Must be one of: ['raw', 'infilled', 'both']")
        if self.tom_share is not None and not 0.0 <= self.tom_share <= 1.0:
            raise ValueError(f"tom_share must be in [0, 1], got {self.tom_share}")
        if not self.orders or any(o not in (0, 1, 2) for o in self.orders):
            raise ValueError(f"orders must be a non-empty subset of (0, 1, 2), got {self.orders}")
        for name in ("size", "questions_per_type", "max_stories", "max_tokens"):
            v = getattr(self, name)
            if v is not None and v < 1:
                raise ValueError(f"{name} must be >= 1, got {v}")


@dataclass
class ExportStats:
    """What an export did, for the summary table and the dataset card."""

    stories_in: int = 0
    with_infill: int = 0
    #: accepted infills without a final label check (written before it existed): their text is not exported
    unverified_infills: int = 0
    #: infilled records left out because the final judge did not confirm their label
    unconfirmed_labels: int = 0
    too_long: int = 0
    stories_selected: int = 0
    tom_stories_selected: int = 0
    records: int = 0
    tom_records: int = 0
    max_records_per_story: int = 0
    by_type: dict[str, int] = field(default_factory=dict)
    by_order: dict[str, int] = field(default_factory=dict)
    by_source: dict[str, int] = field(default_factory=dict)
    #: story types that balancing left out (no record possible at the requested share)
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
def collect_units(paths: Iterable[str | Path], on_skip: Callable[[str], None] = lambda line: None
                  ) -> tuple[list[Unit], list[dict[str, str]]]:
    """Stories from search and infill outputs, merged by content digest (sorted by it), and the inputs' digests.

    Any number of files in any order give the same units: a story listed by several runs is one unit, and an
    infill line attaches its text to the story it was made from (its own `story`), never to another story that
    shares a search id. An infill line contributes only when its status is "ok"; one without a final label check
    (an older infill) is counted in `unverified` and not used. A folder's files that hold no stories (an `inspect
    eval-set` folder's bookkeeping, other tasks' logs) are skipped with one line each through `on_skip`.
    """
    units: dict[str, Unit] = {}
    inputs = []
    paths = [Path(p) for p in paths]
    named = {p.resolve() for p in paths if not p.is_dir()}
    for path in expand_story_paths(paths, on_skip):  # search output folders and live task logs too (e.g. N shards)
        try:
            items, _ = load_story_inputs(path)
        except NotAdversarialLog as e:
            if path.resolve() in named:
                raise
            on_skip(f"skipped {e}")
            continue
        inputs.append({"path": str(path), "sha256": hashlib.sha256(path.read_bytes()).hexdigest()})
        for it in items:
            _merge_input(units, it)
    out = [units[k] for k in sorted(units)]
    for u in out:  # deterministic whatever the file order: verified texts first, each group sorted by text
        u.infills.sort(key=lambda i: (i.verified is None, i.text))
    return out, inputs


def _merge_input(units: dict[str, Unit], it: StoryInput) -> None:
    """Join one input line to its story's unit (by digest, so the same story from several runs is one unit)."""
    unit = units.get(it.digest)
    if unit is None:
        unit = units[it.digest] = Unit(it.digest, it.story, it.story_type, it.story.requires_tom())
    if it.id not in unit.source_ids:
        unit.source_ids.append(it.id)
    infill = _accepted_infill(it.record)
    if infill is not None and all(i.text != infill.text for i in unit.infills):
        unit.infills.append(infill)


def _accepted_infill(rec: dict[str, Any]) -> Infill | None:
    """The text an infill line gives its story: only an accepted ("ok"), non-empty one; search lines give none."""
    text = rec.get("text")
    if rec.get("status") != "ok" or not isinstance(text, str) or not text.strip():
        return None
    return Infill(text, _confirmed_labels(rec.get("verified")))


def _confirmed_labels(checked: Any) -> frozenset[tuple[str, str]] | None:
    """The (question, answer) pairs the final judge said yes to; None for a line written before that check existed,
    so the export can tell "nothing confirmed" from "never checked"."""
    if not isinstance(checked, list):
        return None
    return frozenset((v["question"], v["answer"]) for v in checked if isinstance(v, dict) and v.get("verdict"))


def _unverified(i: Infill) -> bool:
    return i.verified is None


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
    """At most `max_stories` stories, a `share` of them requiring ToM (as many as the input allows); by id."""
    if share is None:
        chosen = list(units) if max_stories is None else rng.sample(list(units), min(max_stories, len(units)))
        return sorted(chosen, key=lambda u: u.id)
    tom = [u for u in units if u.requires_tom]
    non = [u for u in units if not u.requires_tom]
    k_tom, k_non = _split_counts(len(tom), len(non), share, max_stories)
    return sorted(rng.sample(tom, k_tom) + rng.sample(non, k_non), key=lambda u: u.id)


# ---------------------------------------------------------------------------------------------------------- records
def _records_for(unit: Unit, source: str, text: str, orders: Sequence[int], allowed: frozenset | None) -> list[dict]:
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
        if allowed is None or (q.text, q.answer) in allowed
    ]


def record_tokens(record: dict[str, Any], count: TokenCounter) -> int:
    """A record's length as the fine-tuned model sees it: the chat messages' text (system, user, answer)."""
    prompt = build_prompt(record["text"], record["question"])
    return count(f"{prompt.system}\n{prompt.user}\n{record['answer']}")


def _pool(unit: Unit, config: ExportConfig, stats: ExportStats) -> list[dict[str, Any]]:
    """Every record this story can give: its questions over its text variants."""
    out: list[dict[str, Any]] = []
    if config.text in ("raw", "both"):
        out += _records_for(unit, "raw", unit.story.text, config.orders, None)
    if config.text in ("infilled", "both"):
        for inf in unit.infills:
            if _unverified(inf):
                continue
            every = len(unit.story.questions(orders=tuple(config.orders)))
            recs = _records_for(unit, "infilled", inf.text, config.orders, inf.verified)
            stats.unconfirmed_labels += every - len(recs)
            out += recs
    return out


def _largest_remainder(total: int, weights: dict[str, float]) -> dict[str, int]:
    """Integers summing to `total`, proportional to `weights` (ties broken by key, so it is deterministic)."""
    wsum = sum(weights.values())
    if wsum <= 0:
        return {k: 0 for k in weights}
    ideal = {k: total * w / wsum for k, w in weights.items()}
    out = {k: int(v) for k, v in ideal.items()}
    rest = total - sum(out.values())
    for k in sorted(ideal, key=lambda k: (-(ideal[k] - out[k]), k))[:rest]:
        out[k] += 1
    return out


Cell = tuple[str, bool | None]


def _quotas(n: int, groups: Sequence[str], share: float | None) -> dict[Cell, int]:
    """Records per (group, requires ToM) cell: groups equal (±1), the ToM records exactly round(share * n)."""
    per_group = _largest_remainder(n, {g: 1.0 for g in groups})
    if share is None:
        return {(g, None): q for g, q in per_group.items()}
    n_tom = round(share * n)
    tom = _largest_remainder(n_tom, {g: float(q) for g, q in per_group.items()}) if n_tom else dict.fromkeys(groups, 0)
    out: dict[Cell, int] = {}
    for g in groups:
        out[(g, True)] = tom[g]
        out[(g, False)] = per_group[g] - tom[g]
    return out


def _capacity(sizes: Sequence[int], r: int) -> int:
    return sum(min(r, s) for s in sizes)


def _feasible(quotas: dict[Cell, int], sizes: dict[Cell, list[int]], r: int) -> bool:
    return all(_capacity(sizes.get(c, []), r) >= q for c, q in quotas.items())


@dataclass
class _Cells:
    """The stories' candidate records grouped into the cells the quotas are set on (story type when balancing,
    requires ToM or not when a share is given), with what is needed to ask whether a quota can be filled."""

    share: float | None
    #: per cell, each member story's number of candidate records
    sizes: dict[Cell, list[int]]
    #: per cell, its member stories' ids (sorted)
    members: dict[Cell, list[str]]
    #: the groups (story types, or "*") that get a quota
    groups: list[str]
    #: the most records any one story can give
    cap: int

    def feasible(self, n: int) -> bool:
        """Whether `n` records can be split into the quotas at all (no limit per story beyond its own pool)."""
        return bool(self.groups) and _feasible(_quotas(n, self.groups, self.share), self.sizes, self.cap)

    def per_story_limit(self, quotas: dict[Cell, int]) -> int:
        """The smallest `r` (records per story) that fills every quota: spreads records over as many stories as
        possible, at the same rate in every cell, which is what keeps the story share equal to the record share."""
        if not quotas:
            return 0
        return next((r for r in range(1, self.cap + 1) if _feasible(quotas, self.sizes, r)), self.cap)


def _group_cells(
    pools: dict[str, list[dict[str, Any]]], by_id: dict[str, Unit], config: ExportConfig, stats: ExportStats
) -> _Cells:
    """Put each story with candidate records in its cell; with balance and a share, a story type that cannot give
    a record of each kind the share needs is left out (and named in `stats.types_left_out`)."""
    share = config.tom_share
    sizes: dict[Cell, list[int]] = defaultdict(list)
    members: dict[Cell, list[str]] = defaultdict(list)
    for sid in sorted(pools):
        u = by_id[sid]
        c = (u.story_type if config.balance else "*", None if share is None else u.requires_tom)
        sizes[c].append(len(pools[sid]))
        members[c].append(sid)
    groups = sorted({c[0] for c in sizes})
    if config.balance and share is not None:
        ok = _groups_at_share(groups, sizes, share)
        stats.types_left_out = sorted(set(groups) - set(ok))
        groups = ok
    cap = max((s for v in sizes.values() for s in v), default=0)
    return _Cells(share, sizes, members, groups, cap)


def _groups_at_share(groups: Sequence[str], sizes: dict[Cell, list[int]], share: float) -> list[str]:
    """The story types that have stories of each kind the share needs (ToM and/or not): balancing gives every type
    the same share, so a type without one of them could not get a single record at it."""
    need = [flag for flag, w in ((True, share), (False, 1 - share)) if w > 0]
    return [g for g in groups if all(sizes.get((g, f)) for f in need)]


def _eligible_units(units: Sequence[Unit], config: ExportConfig, rng: random.Random) -> list[Unit]:
    """The stories records may come from: without the asymmetric types if asked, then `max_stories` of them drawn
    at the ToM share (drawing first keeps the story mixture when only some stories are wanted)."""
    out = [u for u in units if not (config.exclude_asymmetric and u.story_type.endswith("+asymmetric"))]
    if config.max_stories is not None:
        out = select_mixture(out, config.tom_share, rng, config.max_stories)
    return out


def _candidate_pools(
    units: Sequence[Unit], config: ExportConfig, stats: ExportStats, token_counter: TokenCounter | None
) -> dict[str, list[dict[str, Any]]]:
    """Each story's candidate records within the token limit, by story id; a story left with none is left out, so
    it cannot take a place in a cell it cannot fill."""
    pools: dict[str, list[dict[str, Any]]] = {}
    for u in units:
        recs = _pool(u, config, stats)
        if config.max_tokens is not None and token_counter is not None:
            kept = [r for r in recs if record_tokens(r, token_counter) <= config.max_tokens]
            stats.too_long += len(recs) - len(kept)
            recs = kept
        if recs:
            pools[u.id] = recs
    return pools


def _record_count(cells: _Cells, available: int, config: ExportConfig) -> int:
    """How many records to make: exactly `size` (or an `ExportError` saying how many the inputs allow), else the
    most the cells allow, capped by `questions_per_type` when balancing."""
    if config.size is not None:
        if not cells.feasible(config.size):
            hi = _max_feasible(cells.feasible, available)
            shape = f"balanced over {len(cells.groups)} story types" if config.balance else "unbalanced"
            raise ExportError(
                f"the inputs give at most {hi} records under these settings (share {config.tom_share}, {shape}), "
                f"not {config.size}: add stories, or lower --size"
            )
        return config.size
    n = _max_feasible(cells.feasible, available)
    if config.balance and config.questions_per_type is not None:
        n = min(n, config.questions_per_type * len(cells.groups))
    return n


def _draw_records(
    cells: _Cells, quotas: dict[Cell, int], pools: dict[str, list[dict[str, Any]]], r: int, rng: random.Random
) -> list[dict[str, Any]]:
    """Fill each cell's quota from its stories in random order, at most `r` records from each, drawn at random;
    the result is sorted so that it does not show the order of the draws."""
    records: list[dict[str, Any]] = []
    for c in sorted(quotas, key=lambda c: (c[0], str(c[1]))):
        want = quotas[c]
        order = list(cells.members.get(c, []))
        rng.shuffle(order)
        for sid in order:
            if want <= 0:
                break
            take = min(r, len(pools[sid]), want)
            records += rng.sample(pools[sid], take)
            want -= take
    records.sort(key=lambda x: (x["story_id"], x["source"], x["text"], x["order"], x["question"]))
    return records


def _count_records(stats: ExportStats, records: Sequence[dict[str, Any]], r: int) -> None:
    """What the export made, for the summary table and the dataset card."""
    used = {x["story_id"]: x["requires_tom"] for x in records}
    stats.stories_selected = len(used)
    stats.tom_stories_selected = sum(used.values())
    stats.records = len(records)
    stats.tom_records = sum(x["requires_tom"] for x in records)
    stats.max_records_per_story = r
    stats.by_type = dict(sorted(Counter(x["story_type"] for x in records).items()))
    stats.by_order = dict(sorted(Counter(str(x["order"]) for x in records).items()))
    stats.by_source = dict(sorted(Counter(x["source"] for x in records).items()))


def export_records(
    units: Sequence[Unit], config: ExportConfig = ExportConfig(), *, token_counter: TokenCounter | None = None
) -> tuple[list[dict[str, Any]], ExportStats]:
    """Records {story_id, source, text, question, answer, order, kind, interesting, false_belief, story_type,
    requires_tom}, exactly `config.size` of them when given (else as many as the inputs allow).

    Steps: drop asymmetric types if asked; draw `max_stories` stories at the ToM share if asked; make every story's
    candidate records (raw text, verified infilled texts) and drop those over `max_tokens`; split the size into
    cells (story type when balancing, requires ToM or not when a share is given); fill each cell from randomly
    ordered stories, at most `r` records per story, `r` the smallest that fills every cell. Raises `ExportError`
    when the inputs cannot give the size asked for.
    """
    if config.max_tokens is not None and token_counter is None:
        raise ExportError("max_tokens needs a token counter (tombench.generators.exploretom.tokens.load_token_counter)")
    rng = random.Random(config.seed)
    stats = ExportStats(stories_in=len(units), with_infill=sum(bool(u.infills) for u in units))
    stats.unverified_infills = sum(1 for u in units for i in u.infills if _unverified(i))
    stats.config = {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(config).items()}
    eligible = _eligible_units(units, config, rng)
    pools = _candidate_pools(eligible, config, stats, token_counter)
    cells = _group_cells(pools, {u.id: u for u in eligible}, config, stats)
    n = _record_count(cells, sum(len(p) for p in pools.values()), config)
    quotas = _quotas(n, cells.groups, config.tom_share) if cells.groups else {}
    r = cells.per_story_limit(quotas)
    records = _draw_records(cells, quotas, pools, r, rng)
    _count_records(stats, records, r)
    return records, stats


def export_files(paths: Sequence[str | Path], config: ExportConfig, on_skip: Callable[[str], None] = lambda line: None
                 ) -> tuple[list[dict[str, Any]], ExportStats]:
    """`export_records` over input files: the tokenizer `config` names is loaded only when a token limit needs it,
    and the stats record the inputs' digests, so the dataset card says exactly which files it was made from."""
    counter = (
        load_token_counter(config.tokenizer) if config.tokenizer is not None and config.max_tokens is not None else None
    )
    units, digests = collect_units(paths, on_skip)
    records, stats = export_records(units, config, token_counter=counter)
    stats.inputs = digests
    return records, stats


def _max_feasible(feasible: Any, upper: int) -> int:
    """The largest n in [0, upper] with feasible(n) (binary search, then a short scan down for rounding bumps)."""
    lo, hi = 0, upper
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if feasible(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


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


_CHAT_FIELDS = "`messages`: system, user (`{story}\\n{question} Short Answer.`), assistant (the answer)"
_RECORD_FIELDS = (
    "`story_id`, `source` (raw/infilled), `text`, `question`, `answer`, `order` (0 = state tracking), "
    "`kind`, `interesting`, `false_belief`, `story_type`, `requires_tom`"
)


def _size_category(records: int) -> str:
    """The Hugging Face Hub's size bucket for the card's metadata (the Hub filters datasets by it)."""
    if records < 1000:
        return "n<1K"
    if records < 10000:
        return "1K<n<10K"
    if records < 100000:
        return "10K<n<100K"
    return "n>100K"


def dataset_card(stats: ExportStats, *, chat: bool = False, name: str = "tombench-exploretom-training") -> str:
    """A README.md for the dataset folder: what it is, how it was made, what is in it."""
    rows = "\n".join(f"| {t} | {n} |" for t, n in stats.by_type.items())
    inputs = "\n".join(f"- `{i['path']}` (sha256 `{i['sha256'][:16]}…`)" for i in stats.inputs) or "- (none recorded)"
    fields = _CHAT_FIELDS if chat else _RECORD_FIELDS
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
- {_size_category(stats.records)}
---

# {name}

(story, question, answer) training data made with `tombench export-training` from ExploreToM-style story structures
(Sclar et al., 2024, [arXiv:2412.12175](https://arxiv.org/abs/2412.12175)) and their LLM infillings. Answers are
computed by the tombench story DSL from the tracked world and mental states, not by a model. Infilled texts passed a
per-step LLM judge, and each carries only the labels a final judge confirmed on the finished text; they may still
carry ambiguity, so, as in the paper, use them for training, not for evaluation. `story_id` is the story's content
digest (structure, context, story type), the same in every file made from it.

Fields: {fields}.

## Contents

- records: {stats.records} from {stats.stories_selected} stories ({stats.stories_in} read, {stats.with_infill} with an accepted infill)
- from stories requiring theory of mind: {stats.tom_records} of {stats.records} records, {stats.tom_stories_selected} of {stats.stories_selected} stories
- at most {stats.max_records_per_story} records per story; {stats.too_long} candidate records dropped as longer than {stats.config.get("max_tokens")} tokens ({stats.config.get("tokenizer") or "no tokenizer"})
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
