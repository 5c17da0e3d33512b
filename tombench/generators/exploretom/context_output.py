"""The record of a context generation run: its report, the attempts log beside the output, and the output file
itself, where accepted contexts are appended one at a time (so a run can stop anywhere and resume)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tombench.dsl.context import Context


@dataclass
class GenerationReport:
    """What a `generate_contexts` run did; every failure is counted, none is fatal."""

    requested: int
    existing: int = 0
    generated: int = 0
    attempts: int = 0
    malformed: int = 0
    judge_rejections: int = 0
    judge_unclear: int = 0
    duplicates: int = 0
    too_few_state_changes: int = 0
    quality_rejections: int = 0
    state_change_rejections: int = 0
    list_fallbacks: int = 0
    budget: int = 0
    reasons: Counter = field(default_factory=Counter)

    @property
    def total(self) -> int:
        return self.existing + self.generated

    @property
    def complete(self) -> bool:
        return self.total >= self.requested

    def summary(self) -> str:
        return (
            f"{self.total}/{self.requested} contexts ({self.generated} new, {self.existing} already there) in "
            f"{self.attempts} attempts: {self.malformed} malformed, {self.judge_rejections} judge rejections "
            f"({self.judge_unclear} unclear verdicts), {self.duplicates} duplicates, {self.too_few_state_changes} "
            f"with too few state changes, {self.quality_rejections} failing quality checks"
        )


class Rejected(Exception):
    """An attempt that produced no context: `counter` names the report's count it adds to, `reason` says why."""

    def __init__(self, counter: str, reason: str) -> None:
        super().__init__(reason)
        self.counter, self.reason = counter, reason


def dedup_key(ctx: Context | dict) -> tuple[str, frozenset[str]]:
    """Two contexts with the same object and the same two rooms would make near-identical stories."""
    if isinstance(ctx, Context):
        return ctx.objects[0] if ctx.objects else "", frozenset(ctx.rooms)
    return (ctx["objects"] or [""])[0], frozenset(ctx["rooms"])


def attempts_log(out: str | Path) -> Path:
    """Where `generate_contexts` records every attempt it made for `out` (`<out>.attempts.jsonl`), so a re-run
    continues numbering after the last attempt made, accepted or not, instead of after the last accepted one."""
    out = Path(out)
    return out.with_name(out.name + ".attempts.jsonl")


def last_attempt(out: Path, existing: Sequence[Context], id_prefix: str) -> int:
    """The number of the last attempt made for `out`: the highest in its attempts log or among its contexts."""
    last = max((int(c.metadata.get("attempt", -1)) for c in existing if c.id.startswith(id_prefix)), default=-1)
    log = attempts_log(out)
    if log.exists():
        for line in log.read_text(encoding="utf-8").splitlines():
            try:
                last = max(last, int(json.loads(line)["attempt"]))
            except (ValueError, KeyError, TypeError):
                continue  # a line cut by an interrupted run
    return last


@dataclass
class Sink:
    """Where a run's attempts end: the attempts log (every attempt), the report's counters, and the output file
    (accepted contexts, refusing one that duplicates a context already there or accepted in the same batch)."""

    out: Path
    missing: int
    report: GenerationReport
    #: the dedup keys and ids in the output (the attempts read `taken` too, to reject duplicates early)
    taken: set[tuple[str, frozenset[str]]]
    used_ids: set[str]

    def commit(self, i: int, result: Context | BaseException) -> None:
        """Record attempt `i`; an error other than a rejection (a bug, an interrupt) stops the run."""
        self.report.attempts += 1
        if not isinstance(result, (Rejected, Context)):
            raise result
        with attempts_log(self.out).open("a", encoding="utf-8") as f:
            why = result.reason if isinstance(result, Rejected) else None
            f.write(json.dumps({"attempt": i, "rejected": why}, ensure_ascii=False) + "\n")
        if isinstance(result, Rejected):
            self._count(result)
        else:
            self._keep(result)

    def _count(self, rejected: Rejected) -> None:
        report = self.report
        setattr(report, rejected.counter, getattr(report, rejected.counter) + 1)
        if rejected.counter == "judge_unclear":
            report.judge_rejections += 1
        report.reasons[rejected.reason] += 1

    def _keep(self, ctx: Context) -> None:
        report = self.report
        if dedup_key(ctx) in self.taken or ctx.id in self.used_ids:
            report.duplicates += 1
            report.reasons["duplicate of a context accepted in the same batch"] += 1
        elif report.generated < self.missing:
            self.taken.add(dedup_key(ctx))
            self.used_ids.add(ctx.id)
            with self.out.open("a", encoding="utf-8") as f:
                f.write(json.dumps(ctx.to_dict(), ensure_ascii=False) + "\n")
            report.generated += 1
