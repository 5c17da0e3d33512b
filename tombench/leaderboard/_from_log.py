"""Inspect eval logs -> leaderboard rows.

Everything a row says is read from the log itself (never from the machine that pushes it), so a number can be
traced back to the run that produced it. Only tombench tasks are ranked: a task whose registry name does not start
with `tombench/` (and was not installed by the tombench package) is refused with one line, whatever its name, so
new tombench tasks need no list here. Tasks may record what the log format has no field for in their task metadata
(`Task(metadata=...)`): `dataset_id`, `dataset_revision`, `benchmark`, `tombench_version`, and optionally
`model_revision`, `open_weights`, `model_size_b`. Anything the log cannot know can be set at push time
(`RowOverrides`). Intervals come from the per-sample scores (`_items.py`), never from the logged stderr.
"""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tombench.kit.intervals import Z95
from tombench.kit.logs import shaping_args
from tombench.kit.metrics import parse_breakdown

from ._items import Item, breakdown_intervals, compact, interval, items_digest, read_items, unclustered_interval
from ._row import (
    SCHEMA_VERSION,
    Breakdown,
    MetricValue,
    ResultRow,
    canonical_json,
    config_hash,
    shaping_config,
    utc_iso,
)
from ._stats import Interval

#: Providers that run weights the user holds (so the weights are open, or at least local).
_LOCAL_PROVIDERS = {"hf", "vllm", "sglang", "ollama", "llama-cpp-python", "llama_cpp_python", "transformer_lens",
                    "lmstudio", "tombench-llamacpp"}
#: Providers that only serve closed-weight models through an API.
_CLOSED_PROVIDERS = {"openai", "anthropic", "google", "grok", "perplexity"}

#: Registry-name prefix (and package) of the tasks this leaderboard ranks.
TASK_PREFIX = "tombench/"
PACKAGE = "tombench"

_HF_URI = re.compile(r"^hf://datasets/([A-Za-z0-9][\w.-]*/[\w.-]+?)(?:@([\w.-]+))?(?:/|$)")
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_SHA = re.compile(r"^[0-9a-f]{40}$")

_SIZE = re.compile(r"(?<![\w.])(?:\d+x)?(\d+(?:\.\d+)?)([bBmM])(?![a-zA-Z])")


class LogError(ValueError):
    """A log that cannot become a leaderboard row (not finished, no scores)."""


@dataclass(frozen=True)
class RowOverrides:
    """What the person pushing knows and the log may not (None = keep what the log says)."""

    submitter: str | None = None
    notes: str | None = None
    model_revision: str | None = None
    open_weights: bool | None = None
    model_size_b: float | None = None


def guess_model_size_b(model: str) -> float | None:
    """Parameters in billions from a model name (`Qwen2.5-7B-Instruct` -> 7, `SmolLM2-135M` -> 0.135); else None."""
    name = model.split("/")[-1]
    match = _SIZE.search(name.replace("_", "-"))
    if not match or match.group(0).lower().count("x"):
        return None
    value = float(match.group(1))
    return value / 1000 if match.group(2).lower() == "m" else value


def guess_open_weights(provider: str, base_url: str | None) -> bool | None:
    if provider in _LOCAL_PROVIDERS:
        return True
    if provider in _CLOSED_PROVIDERS and not base_url:
        return False
    return None


def is_tombench_task(registry_name: str | None, packages: dict[str, str] | None, task_file: str | None = None) -> bool:
    """A tombench task: shipped by the tombench package, or registered under the `tombench/` prefix and shipped by
    no other package, or one of the package's own tasks evaluated as a task object.

    Inspect records the distribution that provides a task in `packages` (the package's tasks log `tombench`) and
    the name it was registered under. Both depend on how Inspect resolved the package in the process that ran the
    eval: a task object evaluated in Python from an editable checkout may log its bare name (`exploretom_random`)
    and no distribution. Such a log is the package's task when its name is one of the package's tasks, no other
    distribution is named and it was not read from someone else's file (`task_file`: Inspect names the package's own
    module file when it loaded it from a checkout as a file; another file borrowing the name is refused). A task
    another installed package registers under a borrowed `tombench/` name is refused.
    """
    packages = packages or {}
    if PACKAGE in packages:
        return True
    if set(packages) - {"inspect_ai"} or not registry_name:
        return False
    if registry_name.startswith(TASK_PREFIX):
        return True
    from tombench.kit.evals import task_names

    return registry_name in task_names() and (not task_file or _package_task_file(task_file))


def _package_task_file(task_file: str) -> bool:
    """Whether a log's task file is one of the package's own task modules (`tombench/tasks/<eval>/<module>.py`,
    as Inspect records it when it loaded the module from a checkout as a file)."""
    parts = Path(task_file).parts
    return task_file.endswith(".py") and any(parts[i:i + 2] == ("tombench", "tasks") for i in range(len(parts)))


def task_name(registry_name: str | None, task: str) -> str:
    """The task's one name on the board: `tombench/<task>` however it was invoked (by name or as an object)."""
    name = registry_name or task
    return name if name.startswith(TASK_PREFIX) else TASK_PREFIX + name


def _headline(results: Any) -> tuple[Any, str]:
    """The (EvalScore, metric name) of the log's headline: Inspect's resolved `results.headline` when present,
    else the first score reporting `accuracy`."""
    h = results.headline
    if h is not None:
        for score in results.scores:
            if ((h.scorer is None or score.scorer == h.scorer) and (h.score is None or score.name == h.score)
                    and (h.reducer is None or score.reducer == h.reducer)):
                name = h.metric or next(iter(score.metrics), None)
                if name in score.metrics:
                    return score, name
    for score in results.scores:
        if "accuracy" in score.metrics:
            return score, "accuracy"
    raise LogError("the log has no headline metric and no scorer reporting `accuracy`")


def _metric_values(scores: list[Any]) -> dict[str, float]:
    return {name: float(m.value) for score in scores for name, m in score.metrics.items()}


def _hub_identity(location: str | None, meta: dict[str, Any]) -> tuple[str, str | None] | None:
    """The Hub id and revision a log names its data by: an `hf://datasets/...` location (the log's or metadata
    `data`), or metadata `data` = a Hub id pinned to a resolved commit (an unpinned id could be a local path)."""
    revision = meta.get("dataset_revision") or meta.get("revision")
    for loc in (location, meta.get("data")):
        match = _HF_URI.match(str(loc or ""))
        if match:
            return match.group(1), match.group(2) or revision
    data = meta.get("data")
    if isinstance(data, str) and _HUB_ID.match(data) and isinstance(revision, str) and _SHA.match(revision):
        return data, revision
    return None


def _hub_provenance(meta: dict[str, Any]) -> tuple[str, str | None] | None:
    """The Hub id and revision of a provenance record a task logged for its download
    (`{"source": "hub", "repo": ..., "resolved_revision": ...}`)."""
    for value in meta.values():
        if isinstance(value, dict) and value.get("source") == "hub" and value.get("repo"):
            return str(value["repo"]), value.get("resolved_revision") or value.get("revision")
    return None


def dataset_identity(dataset_name: str | None, location: str | None, meta: dict[str, Any],
                     task: str) -> tuple[str, str | None]:
    """(dataset id, revision) of the items a log evaluated.

    A Hub dataset is named by its Hub id (`facebook/ExploreToM`): from task metadata `dataset_id`, an
    `hf://datasets/ORG/NAME` location, metadata `data` = a Hub id with a resolved commit `revision`, or a Hub
    provenance record `{"source": "hub", "repo": ..., "resolved_revision": ...}`. Anything else (generated splits,
    local files, packaged examples) is `<dataset name>:<location>` as the log names it (`exploretom_random:seed=0`):
    not a Hub id, and never passed off as one. Either way the row's `items_digest` is the content identity.
    """
    if meta.get("dataset_id"):
        return str(meta["dataset_id"]), meta.get("dataset_revision")
    hub = _hub_identity(location, meta) or _hub_provenance(meta)
    if hub is not None:
        return hub
    name = dataset_name or task.removeprefix(TASK_PREFIX)
    return (f"{name}:{location}" if location else name), None


def _rankable_log(path: str | Path) -> Any:
    """The log of a finished tombench run, loaded without messages and events (a row needs neither).

    The header is checked first, so a foreign, unfinished or unscored log is refused without reading its samples.
    """
    from inspect_ai.log import read_eval_log

    header = read_eval_log(str(path), header_only=True)
    spec = header.eval
    if not is_tombench_task(spec.task_registry_name, spec.packages, spec.task_file):
        name = spec.task_registry_name or spec.task
        raise LogError(f"{path}: task {name!r} is not a tombench task (only tasks registered as `tombench/...` by "
                       "the tombench package are ranked)")
    if header.status != "success":
        raise LogError(f"{path}: the eval did not finish (status {header.status!r}); only finished runs are ranked")
    if header.results is None or not header.results.scores:
        raise LogError(f"{path}: the log has no scores")
    return read_eval_log(str(path), resolve_attachments=True, exclude_fields={"messages", "events", "store"})


def model_roles(spec: Any, meta: dict[str, Any]) -> dict[str, str]:
    """Who played each model role.

    A task that resolves its roles (e.g. a persuadee defaulting to the model under test) records them in its
    metadata, which then wins over the roles given on the command line.
    """
    roles = {k: str(v.get("model") if isinstance(v, dict) else v) for k, v in (meta.get("roles") or {}).items()}
    return roles or {k: str(getattr(v, "model", v)) for k, v in (spec.model_roles or {}).items()}


def effective_generate_config(spec: Any, plan: Any) -> dict[str, Any]:
    """The decoding the run really used: the model's config, overridden by the plan's (task config merged with the
    CLI's), so a task that sets temperature 0 in its own GenerateConfig is reported as such."""
    config = spec.model_generate_config.model_dump(exclude_none=True)
    if plan is not None:
        config.update(plan.config.model_dump(exclude_none=True))
    return config


def run_settings(spec: Any, *, task: str, dataset: tuple[str, str | None], model_revision: str | None,
                 model_params: dict[str, Any], model_roles: dict[str, str], generate_config: dict[str, Any],
                 epochs: int) -> dict[str, Any]:
    """Every setting of a run, kept whole in `run_config`: two rows with equal settings, once the ones that cannot
    change a number are left out (`_row.shaping_config`), are re-runs of one configuration (their `config_hash`),
    so only the newest is ranked."""
    config = spec.config
    return {
        "task": task, "task_version": str(spec.task_version),
        # `shard` unset is the whole run: a log that predates the argument has the same configuration
        "task_args": {k: v for k, v in shaping_args(spec.task_args).items() if not (k == "shard" and v is None)},
        "dataset_id": dataset[0], "dataset_revision": dataset[1],
        "model": spec.model, "model_revision": model_revision, "model_params": model_params,
        "model_roles": model_roles,
        "generate_config": generate_config, "epochs": epochs, "epochs_reducer": config.epochs_reducer,
        "limit": config.limit, "sample_id": config.sample_id, "solver": spec.solver, "solver_args": spec.solver_args,
        "scorers": [(s.name, s.options) for s in spec.scorers or []],
        "message_limit": config.message_limit, "token_limit": config.token_limit,
    }


def _errored_samples(log: Any) -> int:
    """Samples that ended in an error; a log written without samples can only tell it from its counts."""
    if not log.samples:
        return max(0, log.results.total_samples - log.results.completed_samples)
    return sum(1 for s in log.samples if s.error is not None)


def _intervals(items: list[Any], value: float, logged: list[Breakdown],
               completed: int) -> tuple[Interval | None, list[Breakdown]]:
    """The headline's interval and the breakdowns with theirs: from the per-sample scores (story-clustered) when
    the log has them, else Wilson on the logged counts (no story adjustment possible)."""
    if not items:
        breakdowns = [replace(b, ci_low=bi.low, ci_high=bi.high) if (bi := unclustered_interval(b.value, b.n))
                      else b for b in logged]
        return unclustered_interval(value, completed), breakdowns
    ci = interval(items)
    if ci is not None and abs(ci.value - value) > 1e-9:
        ci = None  # the headline is not the mean of the per-sample scores: no interval can be derived from them
    return ci, breakdown_intervals(items, logged)


def _suite_headline(meta: dict[str, Any], all_metrics: dict[str, float], completed: int) -> Breakdown | None:
    """A suite task's own headline (tombench.tasks.shared, e.g. macro_f1, all_star) as a `headline` breakdown, so
    the board shows it next to the accuracy it ranks by; None for tasks whose headline is accuracy."""
    headline = meta.get("headline")
    if not headline or headline == "accuracy" or headline not in all_metrics:
        return None
    lo, hi = all_metrics.get(f"{headline}_ci_low"), all_metrics.get(f"{headline}_ci_high")
    spread = (hi - lo) / (2 * Z95) if lo is not None and hi is not None else None
    return Breakdown("headline", str(headline), all_metrics[headline], spread, completed, ci_low=lo, ci_high=hi)


def _other_metrics(results: Any, primary: Any, metric_name: str) -> list[MetricValue]:
    """Every other scalar metric, so tasks with other headline metrics lose nothing (grouped `dimension=group`
    entries are the breakdowns' business)."""
    return [MetricValue(s.name, n, _finite(m.value)) for s in results.scores for n, m in s.metrics.items()
            if "=" not in n and not (s is primary and n in (metric_name, "stderr"))]


def _finite(value: Any) -> float | None:
    """A metric's value for the row; None where the log holds NaN or an infinity: a mean over no readable scores
    (e.g. a persuasion grader whose every verdict was unreadable), which JSON cannot carry and no reader may take
    for a number."""
    x = float(value)
    return x if math.isfinite(x) else None


def _search_fields(all_metrics: dict[str, float], results: Any, meta: dict[str, Any]) -> dict[str, Any]:
    """The live adversarial task's counts (settings filled, of how many, model calls): None for every other task.
    They are metrics in newer logs and results metadata in older ones."""
    model_calls = all_metrics.get("model_calls", (results.metadata or {}).get("model_calls"))
    settings_filled = all_metrics.get("settings_filled", (results.metadata or {}).get("settings_filled"))
    return {
        "settings_filled": float(settings_filled) if settings_filled is not None else None,
        "settings_total": int(meta["settings"]) if settings_filled is not None and meta.get("settings") else None,
        "model_calls": int(model_calls) if model_calls is not None else None,
    }


def _interval_fields(ci: Interval | None, items: list[Any]) -> dict[str, Any]:
    """The row's interval and per-item columns; story counts and the design effect exist only where the interval
    came from the per-sample scores."""
    from_items = bool(ci and items)
    return {
        "ci_low": ci.low if ci else None,
        "ci_high": ci.high if ci else None,
        "ci_method": ci.method if ci else None,
        "stories": ci.stories if from_items else None,
        "design_effect": round(ci.design_effect, 6) if from_items else None,
        "items_digest": items_digest(items) if items else None,
        "items": compact(items),
    }


def _token_fields(log: Any) -> dict[str, int]:
    usage = list(log.stats.model_usage.values())
    return {"input_tokens": sum(u.input_tokens for u in usage), "output_tokens": sum(u.output_tokens for u in usage),
            "total_tokens": sum(u.total_tokens for u in usage)}


def _open_weights(overrides: RowOverrides, meta: dict[str, Any], provider: str, base_url: str | None) -> bool | None:
    """Whether the model's weights are open: the pusher's word, else the task's, else a guess from the provider."""
    if overrides.open_weights is not None:
        return overrides.open_weights
    return meta.get("open_weights", guess_open_weights(provider, base_url))


def _model_size_b(overrides: RowOverrides, meta: dict[str, Any], model: str) -> float | None:
    """Parameters in billions: the pusher's word, else the task's, else a guess from the model name."""
    size = overrides.model_size_b or meta.get("model_size_b") or guess_model_size_b(model)
    return float(size) if size is not None else None


def _submission_id(spec: Any) -> str:
    """The run's date and a digest of what identifies it (eval, task, model): stable when the same log is pushed
    again."""
    digest = hashlib.sha256(f"{spec.eval_id}|{spec.task_id}|{spec.model}".encode()).hexdigest()[:12]
    return f"{spec.created[:10].replace('-', '')}-{digest}"


def row_from_log(path: str | Path, overrides: RowOverrides | None = None) -> ResultRow:
    """The leaderboard row of one finished tombench eval log (one log holds one task)."""
    return row_and_items(path, overrides)[0]


def row_and_items(path: str | Path, overrides: RowOverrides | None = None) -> tuple[ResultRow, list[Item], str]:
    """The row, its scored items (each with its sample) and the headline scorer's name, from one reading of the
    log: the per-sample details are written from the same items the row's interval was computed from."""
    return _row_and_items(_rankable_log(path), overrides or RowOverrides())


def row_from_shards(paths: list[Path], overrides: RowOverrides | None = None) -> ResultRow:
    """The one row of a sharded run (`-T shard=K/N`): see `shard_row_and_items`."""
    return shard_row_and_items(paths, overrides)[0]


def shard_row_and_items(paths: list[Path], overrides: RowOverrides | None = None
                        ) -> tuple[ResultRow, list[Item], str]:
    """`row_and_items` of a sharded run: the logs of its N shards, in shard order, each once (the caller checks that
    with `kit.logs.shard_groups`), combined into one log (`kit.logs.combine_shards`: the samples together, the
    metrics recomputed from them), so the row is the one an unsharded run would give."""
    from tombench.kit.logs import combine_shards

    return _row_and_items(combine_shards([_rankable_log(p) for p in paths]), overrides or RowOverrides())


def _row_and_items(log: Any, overrides: RowOverrides) -> tuple[ResultRow, list[Item], str]:
    """`row_and_items` of one finished tombench log (read whole, without messages and events)."""
    spec, results = log.eval, log.results
    name = task_name(spec.task_registry_name, spec.task)
    meta = dict(spec.metadata or {})
    primary, metric_name = _headline(results)
    metrics = {n: float(m.value) for n, m in primary.metrics.items()}
    all_metrics = _metric_values(results.scores)

    provider = spec.model.split("/", 1)[0]
    model_params = {k: v for k, v in (spec.model_args or {}).items() if v is not None}
    roles = model_roles(spec, meta)
    generate_config = effective_generate_config(spec, log.plan)
    model_revision = overrides.model_revision or model_params.get("revision") or meta.get("model_revision")
    dataset_id, dataset_revision = dataset_identity(spec.dataset.name, spec.dataset.location, meta, name)
    epochs = spec.config.epochs or 1
    settings = run_settings(spec, task=name, dataset=(dataset_id, dataset_revision), model_revision=model_revision,
                            model_params=model_params, model_roles=roles, generate_config=generate_config,
                            epochs=epochs)

    completed = results.completed_samples
    value = metrics[metric_name]
    if not math.isfinite(value):
        raise LogError(f"its headline {primary.name}/{metric_name} is not a number ({value}): no sample has a "
                       "readable score")
    items = read_items(log, primary.name, primary.reducer)
    # a group whose every score is unreadable (NaN) has no value to show
    logged = [Breakdown(e.dimension, e.group, e.value, _finite(e.stderr) if e.stderr is not None else None, e.n)
              for e in parse_breakdown(metrics) if math.isfinite(e.value)]
    ci, breakdowns = _intervals(items, value, logged, completed)
    if (suite_headline := _suite_headline(meta, all_metrics, completed)) is not None:
        breakdowns.append(suite_headline)

    row = ResultRow(
        schema_version=SCHEMA_VERSION,
        submission_id=_submission_id(spec),
        created_at=utc_iso(spec.created),
        benchmark=str(meta.get("benchmark", PACKAGE)),
        package_version=meta.get("tombench_version") or spec.packages.get(PACKAGE),
        task=name,
        task_version=str(spec.task_version),
        task_args=canonical_json(shaping_args(spec.task_args)),
        dataset_id=dataset_id,
        dataset_revision=dataset_revision,
        model=spec.model,
        provider=provider,
        model_revision=model_revision,
        model_params=canonical_json(model_params),
        open_weights=_open_weights(overrides, meta, provider, spec.model_base_url),
        model_size_b=_model_size_b(overrides, meta, spec.model),
        temperature=generate_config.get("temperature"),
        max_tokens=generate_config.get("max_tokens"),
        seed=generate_config.get("seed"),
        epochs=epochs,
        harness="inspect-ai",
        harness_version=spec.packages.get("inspect_ai"),
        config_hash=config_hash(shaping_config(settings)),
        samples_total=results.total_samples,
        samples_completed=completed,
        samples_errored=_errored_samples(log),
        metric=f"{primary.name}/{metric_name}",
        accuracy=value,
        stderr=_finite(metrics["stderr"]) if metrics.get("stderr") is not None else None,
        breakdowns=breakdowns,
        **_token_fields(log),
        **_search_fields(all_metrics, results, meta),
        eval_id=spec.eval_id,
        run_id=spec.run_id,
        log_file=None,
        submitter=overrides.submitter,
        notes=overrides.notes,
        **_interval_fields(ci, items),
        run_config=canonical_json(settings),
        model_roles=canonical_json(roles),
        other_metrics=_other_metrics(results, primary, metric_name),
    )
    return row, items, primary.name
