"""Inspect logs -> runs and one flat record per scored question with a ToM order (the only I/O of the reports).

ToMi and other suites' questions load too (they have an order but no action set); the ExploreToM tables filter on
the action set (`_tables.exploretom_records`).

**Runs are never pooled**. Every log is one `Run`; its records carry it, and each table gives
each run its own column. Logs that differ in any setting that shapes the numbers (`tombench.kit.logs.run_settings`:
task arguments, model, decoding, data, limits, ...) are different experiments, labelled by what differs
(`people=3`); logs with equal settings are repeats, labelled `run 1 of 2`, `run 2 of 2` by start time. Pooling two
runs of the same questions would double n and narrow the interval without adding a single new question, and
keeping only the newest would hide the run-to-run spread a re-run exists to show, so both are shown, apart.

**Shards are one run**. The N logs of a task run as `-T shard=K/N` on N machines are parts of
one run (`kit.logs.shard_of`; their settings are equal but for the part): their records carry one `Run`, so every
table counts each question once. A shard missing or run twice is said in one line; a doubled shard makes a second,
incomplete run (`run 2 of 2`, tagged with the shards it has), never a doubled count.

Files that are not readable logs (a truncated `.eval`, a `notes.json`) and runs that did not finish are skipped
with one line each through `on_skip`; the others still make the report. Only the log headers and the samples'
summaries (scores and small metadata, not messages or events) are read.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tombench.kit.logs import (
    UnreadableLog,
    log_paths,
    read_log,
    read_sample_summaries,
    run_settings,
    shaping_args,
    shard_groups,
    shard_of,
)

__all__ = ["Run", "SampleRecord", "load_records", "load_runs", "log_paths", "repeat_notes"]

#: Told one line per file left out (unreadable, unfinished).
OnSkip = Callable[[str], None]
#: Wraps the list of log files being read (e.g. in a progress bar) and yields them back; told what is read of them.
Progress = Callable[[Sequence[Path], str], Iterable[Path]]


def no_progress(files: Sequence[Path], what: str) -> Iterable[Path]:
    return files


@dataclass(frozen=True, order=True)
class Run:
    """One eval log: who answered which task, how it differs from the other runs of that model and task, and which
    repeat of its configuration it is (1 of 1 unless the same settings were run again)."""

    model: str
    task: str
    #: the settings that differ from the other runs of this model and task ("people=3"), "" when none do
    variant: str = ""
    repeat: int = 1
    repeats: int = 1
    created: str = ""
    #: the log (a sharded run's first shard's)
    log: str = ""
    #: a sharded run's logs, in shard order (empty for a run of one log)
    logs: tuple[str, ...] = ()
    #: an incomplete sharded run: the shards it has ("shards 1/3, 3/3 only"); "" when complete or not sharded
    partial: str = ""
    #: the -T arguments given on the command line that shape the numbers ("people=[2], moves=[2]"); for a reader,
    #: not an identity (settings that differ are already in `variant`)
    args: str = field(default="", compare=False)

    @property
    def short_tag(self) -> str:
        """What tells this run apart from the other runs of its model and task ("" when it is the only one)."""
        parts = [self.variant] if self.variant else []
        if self.repeats > 1:
            parts.append(f"run {self.repeat} of {self.repeats}")
        if self.partial:
            parts.append(self.partial)
        return ", ".join(parts)

    @property
    def tag(self) -> str:
        """`short_tag`, with the start time of a repeat (which is what tells repeats apart in the log folder)."""
        started = f", started {self.created[:19].replace('T', ' ')}" if self.repeats > 1 else ""
        return self.short_tag + started

    @property
    def label(self) -> str:
        """`model on task`, with its tag in brackets when it has one."""
        return f"{self.model} on {self.task}" + (f" [{self.tag}]" if self.tag else "")


@dataclass(frozen=True)
class SampleRecord:
    """One scored question: who answered it, what it was about, and whether the answer was right."""

    model: str
    task: str
    correct: float
    action_set: str | None = None
    asymmetric: bool | None = None
    interesting: bool | None = None
    order: int | None = None
    people: int | None = None
    moves: int | None = None
    #: the model the story was found against (transfer and adversarial tasks)
    generator_model: str | None = None
    #: how that story was found ("astar-paper", "astar-improved", "over-generate", ...), when the log says
    search_method: str | None = None
    #: the log it came from: records of different runs are never pooled
    run: Run | None = None
    #: the story the question belongs to (sample metadata `story_id`): questions of one story are one cluster for
    #: the interval, as on the leaderboard
    story: str | None = None

    @property
    def column(self) -> Run:
        """The run this record belongs to (a record built by hand, without one, belongs to its model and task)."""
        return self.run if self.run is not None else Run(self.model, self.task)


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 40 else text[:39] + "…"


def _differences(settings: Sequence[dict[str, Any]]) -> list[str]:
    """For each of several runs' settings, what differs from the others ("people=3, limit=5"); task arguments are
    shown one by one, since they are what a user changes most (and the items they select are then not repeated)."""
    def flat(s: dict[str, Any]) -> dict[str, Any]:
        out = {k: v for k, v in s.items() if k not in ("task_args", "task", "model")}
        out.update({k: v for k, v in (s.get("task_args") or {}).items()})
        return out

    flats = [flat(s) for s in settings]
    keys = sorted({k for f in flats for k in f})
    varying = [k for k in keys if len({json.dumps(f.get(k), sort_keys=True, default=str) for f in flats}) > 1]
    # a task argument or the shard count differs: the items differ because of it
    if set(varying) - set(settings[0]) - {"dataset"} or "shards" in varying:
        varying = [k for k in varying if k != "dataset"]
    return [", ".join(f"{k}={_short(f.get(k))}" for k in varying) for f in flats]


@dataclass
class _Header:
    path: Path
    model: str
    task: str
    created: str
    settings: dict[str, Any]
    log: Any

    @property
    def args(self) -> str:
        """The -T arguments passed that shape the numbers (a shard's part left out), as `k=v, ...`."""
        passed = shaping_args(getattr(self.log.eval, "task_args_passed", None) or {})
        return ", ".join(f"{k}={_short(v)}" for k, v in sorted(passed.items()) if k != "shard")


def _sharded_runs(model: str, task: str, variant: str, peers: list[_Header], on_skip: OnSkip) -> dict[Path, Run]:
    """The runs of one configuration's shard logs (`kit.logs.shard_groups`): each log's run, and one line when a
    shard is missing or doubled."""
    sets, problem = shard_groups(peers, lambda h: shard_of(h.log), f"note: {model} on {task}"
                                 + (f" [{variant}]" if variant else ""))
    if problem:
        on_skip(problem)
    runs: dict[Path, Run] = {}
    for r, part in enumerate(sets):
        hs = [part.parts[k] for k in sorted(part.parts)]
        partial = "" if part.complete else \
            f"shard{'s' if len(hs) > 1 else ''} {', '.join(f'{k}/{part.shards}' for k in sorted(part.parts))} only"
        run = Run(model, task, variant, r + 1, len(sets), min(h.created for h in hs), str(hs[0].path),
                  tuple(str(h.path) for h in hs), partial, hs[0].args)
        runs.update({h.path: run for h in hs})
    return runs


def _number(headers: list[_Header], on_skip: OnSkip = lambda line: None) -> dict[Path, Run]:
    """Each log's run: variants and repeats numbered within its model and task; the shard logs of one run share it."""
    groups: dict[tuple[str, str], list[_Header]] = {}
    for h in headers:
        groups.setdefault((h.model, h.task), []).append(h)
    runs: dict[Path, Run] = {}
    for (model, task), hs in groups.items():
        hs.sort(key=lambda h: (h.created, str(h.path)))
        variants = _differences([h.settings for h in hs])
        same = [json.dumps(h.settings, sort_keys=True, default=str) for h in hs]
        for i, h in enumerate(hs):
            if h.path in runs:
                continue
            peers = [j for j in range(len(hs)) if same[j] == same[i]]
            if shard_of(h.log) is not None:
                runs.update(_sharded_runs(model, task, variants[i], [hs[j] for j in peers], on_skip))
                continue
            runs[h.path] = Run(model, task, variants[i], peers.index(i) + 1, len(peers), h.created, str(h.path),
                               args=h.args)
    return runs


def _header(path: Path, on_skip: OnSkip, keep: Callable[[Any], bool]) -> _Header | None:
    """The header of one log, or None (with one line through `on_skip` when the file is unreadable or the run did
    not finish; silently when `keep` says the log is not one this report reads)."""
    try:
        log = read_log(path, header_only=True)
    except UnreadableLog as e:
        on_skip(f"skipped {e}")
        return None
    if not keep(log):
        return None
    if log.status != "success":
        on_skip(f"skipped {path}: the run did not finish (status {log.status!r}); its scores would be partial")
        return None
    spec = log.eval
    return _Header(path, spec.model, spec.task.split("/")[-1], spec.created, run_settings(log), log)


def load_runs(paths: Iterable[str | Path], *, on_skip: OnSkip = lambda line: None,
              progress: Progress = no_progress,
              keep: Callable[[Any], bool] = lambda log: True) -> list[tuple[Run, Any]]:
    """The finished, readable logs among `paths` (files or folders) that `keep` accepts: each as its run and its
    header (an `EvalLog` without samples), in run order (the shard logs of one run: one pair each, one `Run`).

    Raises FileNotFoundError for a path that does not exist; every other bad file is skipped with one line."""
    return [(run, h.log) for run, h in _load_headers(paths, on_skip, progress, keep)]


def _load_headers(paths: Iterable[str | Path], on_skip: OnSkip, progress: Progress,
                  keep: Callable[[Any], bool]) -> list[tuple[Run, _Header]]:
    """`load_runs` with each header's file (the shard logs of one run are several headers with one run)."""
    headers = [h for path in progress(log_paths(paths, on_skip), "log headers")
               if (h := _header(path, on_skip, keep)) is not None]
    runs = _number(headers, on_skip)
    return sorted(((runs[h.path], h) for h in headers), key=lambda pair: (pair[0], str(pair[1].path)))


def _value(scores: dict | None) -> float | None:
    """The first numeric score of a sample (the ToM answer scorer's), skipping unscored (NaN) ones.

    Inspect's own `value_to_float` reads "C"/"I", yes/no and numbers alike.
    """
    from inspect_ai.scorer import value_to_float

    to_float = value_to_float()
    for score in (scores or {}).values():
        if isinstance(score.value, (dict, list)):
            continue
        v = to_float(score.value)
        if not math.isnan(v):
            return v
    return None


def _record(summary: Any, run: Run) -> SampleRecord | None:
    """The record of one sample summary; None for samples without an order or a numeric score (search seeds,
    errors)."""
    if getattr(summary, "error", None):
        return None
    v = _value(summary.scores)
    md = summary.metadata or {}
    if v is None or md.get("order") is None:
        return None
    return SampleRecord(
        model=run.model, task=run.task, correct=v, action_set=md.get("action_set"),
        asymmetric=md.get("asymmetric"), interesting=md.get("interesting"), order=md.get("order"),
        people=md.get("people"), moves=md.get("moves"), generator_model=md.get("generator_model"),
        search_method=md.get("search_method"), run=run,
        story=None if md.get("story_id") is None else str(md.get("story_id")),
    )


def load_records(paths: Iterable[str | Path], *, on_skip: OnSkip = lambda line: None,
                 progress: Progress = no_progress) -> list[SampleRecord]:
    """Every finished log's scored questions as records, each carrying its run. Unreadable files and unfinished
    runs are skipped with one line each through `on_skip`; samples without a numeric score are left out."""
    by_log = {h.path: run for run, h in _load_headers(paths, on_skip, progress, lambda log: True)}
    records: list[SampleRecord] = []
    for path in progress(list(by_log), "samples"):
        run = by_log[path]
        try:
            summaries = read_sample_summaries(path)
        except UnreadableLog as e:  # the header read but the samples do not (a file cut inside its samples)
            on_skip(f"skipped {e}")
            continue
        records += [r for s in summaries if (r := _record(s, run)) is not None]
    return records


def repeat_notes(runs: Iterable[Run]) -> list[str]:
    """One line per model and task with several runs: how many, and that each is shown on its own."""
    groups: dict[tuple[str, str], list[Run]] = {}
    for r in set(runs):
        groups.setdefault((r.model, r.task), []).append(r)
    notes = []
    for (model, task), rs in sorted(groups.items()):
        if len(rs) < 2:
            continue
        repeated = sum(1 for r in rs if r.repeats > 1)
        configs = len({r.variant for r in rs})
        what = [f"{repeated} are repeats of the same settings"] if repeated else []
        if configs > 1:
            what.append(f"{configs} different settings")
        notes.append(f"note: {len(rs)} runs of {model} on {task} ({'; '.join(what)}): each is shown on its own, "
                     "never pooled")
    return notes

