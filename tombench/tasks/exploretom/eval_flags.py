"""Inspect's `--limit` and `--sample-id` on the live task: a search whose questions they would drop is refused.

The live task adds its question samples as its searches finish (a `SampleSource`). Inspect counts those against
`--limit` and filters them by `--sample-id` too, and drops what does not fit: `inspect eval
tombench/exploretom_adversarial --limit 2` searched two settings, then dropped all 31 questions they found ("Sample
limit (2) reached: ignoring 31 sample(s)"), and ended with `accuracy nan`, nothing saying why. A task cannot lift
Inspect's cap, and Inspect tells it neither option when it builds it, but it tells hooks (`inspect_ai.hooks`, public):
the eval's config (`TaskStart.spec.config`) when a task starts, then each sample's id (`SampleInit.sample_id`, the
`TaskState.uuid` its solver sees) before the sample runs. So `EvalFlagsHook` notes the two options of every eval
that sets one, and which running samples belong to it; the live task's solver asks `refusal` before a search, and a
search that would be scored for nothing ends at once with one line saying what to use instead (`-T settings_limit`),
before any model call. Every other task and eval is left alone (the hook only keeps two small maps).

The hook is registered when the live task is first built (`watch`), not when this module is imported: Inspect prints
every hook registered at its start-up in a banner ("hooks enabled: 1 ..."), and tombench's tasks are imported by
every `inspect` command of an environment that has tombench installed. Inspect looks for hooks again when it emits
an event, so one registered while the task is built still hears the task start.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatch
from typing import Any

from inspect_ai.hooks import Hooks, SampleEnd, SampleInit, TaskEnd, TaskStart, hooks

__all__ = ["EvalFlags", "EvalFlagsHook", "eval_flags", "refusal", "watch"]

#: what a search sample of an eval run with `--limit` ends with
LIMIT_REFUSAL = ("--limit {limit} cannot limit exploretom_adversarial: Inspect counts the question samples each search "
                 "adds against it and drops them unscored. Use -T settings_limit=N instead: the first N settings "
                 "searched and all their questions scored")

#: what a search sample that `--sample-id` selects, without the questions it would add, ends with
SAMPLE_ID_REFUSAL = ("--sample-id selects {search} but not the question samples it adds ({question}, ...), which "
                     "Inspect would drop unscored: add '{setting}|*' to --sample-id, or choose the settings with "
                     "-T action_sets, asymmetric, people and moves")


@dataclass(frozen=True)
class EvalFlags:
    """The sample-selecting options of one eval, as Inspect applies them (`EvalConfig.limit`, `.sample_id`)."""

    limit: int | tuple[int, int] | None
    sample_id: str | int | Sequence[str | int] | None


#: eval id -> its flags, while the eval's task runs (only evals that set one)
_EVALS: dict[str, EvalFlags] = {}
#: sample uuid -> its eval's flags, while the sample runs
_SAMPLES: dict[str, EvalFlags] = {}


class EvalFlagsHook(Hooks):
    """Keeps `--limit` and `--sample-id` where the live task's solver can read them (`eval_flags`)."""

    async def on_task_start(self, data: TaskStart) -> None:
        config = data.spec.config
        if config.limit is not None or config.sample_id is not None:
            _EVALS[data.eval_id] = EvalFlags(config.limit, config.sample_id)

    async def on_task_end(self, data: TaskEnd) -> None:
        _EVALS.pop(data.eval_id, None)

    async def on_sample_init(self, data: SampleInit) -> None:
        flags = _EVALS.get(data.eval_id)
        if flags is not None:
            _SAMPLES[data.sample_id] = flags

    async def on_sample_end(self, data: SampleEnd) -> None:
        _SAMPLES.pop(data.sample_id, None)


_WATCHING: list[bool] = []


def watch() -> None:
    """Register `EvalFlagsHook` with Inspect, once per process (the live task calls this when it is built)."""
    if not _WATCHING:
        hooks(name="eval_flags", description="tombench: notes --limit and --sample-id for the live task")(EvalFlagsHook)
        _WATCHING.append(True)


def eval_flags(sample_uuid: str) -> EvalFlags | None:
    """The flags of the eval running the sample with this uuid (`TaskState.uuid`); None where it set neither."""
    return _SAMPLES.get(sample_uuid)


def _patterns(sample_id: str | int | Sequence[str | int]) -> list[str]:
    """`--sample-id` as fnmatch patterns, Inspect's way; a `task:` selector prefix is also tried without it."""
    items = [sample_id] if isinstance(sample_id, (str, int)) else list(sample_id)
    out = []
    for item in map(str, items):
        out.append(item)
        if ":" in item:
            out.append(item.split(":", 1)[1])
    return out


def refusal(flags: EvalFlags | None, sample_id: str | int, metadata: Mapping[str, Any]) -> str | None:
    """Why the search sample `sample_id` (its `metadata`) must not run under these flags, in one line; None if it
    may. `--limit` always drops question samples (any limit counts them); `--sample-id` drops them unless it
    matches the questions' ids too (`{story id}|qNN`, a story id being `{setting id}|{attempt}`)."""
    if flags is None:
        return None
    if flags.limit is not None:
        limit = flags.limit if isinstance(flags.limit, int) else "-".join(map(str, flags.limit))
        return LIMIT_REFUSAL.format(limit=limit)
    if flags.sample_id is None:
        return None
    setting = str(metadata["setting_id"])
    question = f"{setting}|{metadata.get('attempt', 0)}|q00"
    if any(fnmatch(question, p) for p in _patterns(flags.sample_id)):
        return None
    return SAMPLE_ID_REFUSAL.format(search=sample_id, question=question, setting=setting)
