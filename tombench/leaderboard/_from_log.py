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
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tombench.kit.intervals import Z95
from tombench.kit.metrics import parse_breakdown

from ._items import breakdown_intervals, compact, interval, items_digest, read_items, unclustered_interval
from ._row import SCHEMA_VERSION, Breakdown, MetricValue, ResultRow, canonical_json, config_hash, utc_iso

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


def is_tombench_task(registry_name: str | None, packages: dict[str, str] | None) -> bool:
    """A tombench task: shipped by the tombench package, or registered under the `tombench/` prefix and shipped by
    no other package.

    Inspect records the distribution that provides a task in `packages` (the package's tasks log `tombench`, also
    when they were evaluated as task objects, whose registry name then lacks the prefix); a task another installed
    package registers under a borrowed `tombench/` name is refused.
    """
    packages = packages or {}
    if PACKAGE in packages:
        return True
    others = set(packages) - {"inspect_ai"}
    return bool(registry_name) and registry_name.startswith(TASK_PREFIX) and not others


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
    revision = meta.get("dataset_revision") or meta.get("revision")
    for loc in (location, meta.get("data")):
        match = _HF_URI.match(str(loc or ""))
        if match:
            return match.group(1), match.group(2) or revision
    data = meta.get("data")
    if isinstance(data, str) and _HUB_ID.match(data) and isinstance(revision, str) and _SHA.match(revision):
        return data, revision
    for value in meta.values():
        if isinstance(value, dict) and value.get("source") == "hub" and value.get("repo"):
            return str(value["repo"]), value.get("resolved_revision") or value.get("revision")
    name = dataset_name or task.removeprefix(TASK_PREFIX)
    return (f"{name}:{location}" if location else name), None


def row_from_log(path: str | Path, overrides: RowOverrides | None = None) -> ResultRow:
    """The leaderboard row of one finished tombench eval log (one log holds one task)."""
    from inspect_ai.log import read_eval_log

    overrides = overrides or RowOverrides()
    header = read_eval_log(str(path), header_only=True)
    spec = header.eval
    name = spec.task_registry_name or spec.task
    if not is_tombench_task(spec.task_registry_name, spec.packages):
        raise LogError(f"{path}: task {name!r} is not a tombench task (only tasks registered as `tombench/...` by "
                       "the tombench package are ranked)")
    if header.status != "success":
        raise LogError(f"{path}: the eval did not finish (status {header.status!r}); only finished runs are ranked")
    if header.results is None or not header.results.scores:
        raise LogError(f"{path}: the log has no scores")
    name = task_name(spec.task_registry_name, spec.task)
    log = read_eval_log(str(path), resolve_attachments=True, exclude_fields={"messages", "events", "store"})
    results = log.results
    meta = dict(spec.metadata or {})
    primary, metric_name = _headline(results)
    metrics = {n: float(m.value) for n, m in primary.metrics.items()}
    all_metrics = _metric_values(results.scores)

    provider = spec.model.split("/", 1)[0]
    model_params = {k: v for k, v in (spec.model_args or {}).items() if v is not None}
    # who played each model role; a task that resolves its roles (e.g. a persuadee defaulting to the model under
    # test) records them in its metadata, which then wins over the roles given on the command line
    model_roles = {k: str(v.get("model") if isinstance(v, dict) else v) for k, v in (meta.get("roles") or {}).items()}
    model_roles = model_roles or {k: str(getattr(v, "model", v)) for k, v in (spec.model_roles or {}).items()}
    # the effective decoding: the model's config, overridden by the plan's (task config merged with the CLI's),
    # so a task that sets temperature 0 in its own GenerateConfig is reported as such
    generate_config = spec.model_generate_config.model_dump(exclude_none=True)
    if log.plan is not None:
        generate_config.update(log.plan.config.model_dump(exclude_none=True))
    model_revision = overrides.model_revision or model_params.get("revision") or meta.get("model_revision")
    dataset_id, dataset_revision = dataset_identity(spec.dataset.name, spec.dataset.location, meta, name)
    config = spec.config
    epochs = config.epochs or 1
    settings = {
        "task": name, "task_version": str(spec.task_version),
        "task_args": spec.task_args, "dataset_id": dataset_id, "dataset_revision": dataset_revision,
        "model": spec.model, "model_revision": model_revision, "model_params": model_params,
        "model_roles": model_roles,
        "generate_config": generate_config, "epochs": epochs, "epochs_reducer": config.epochs_reducer,
        "limit": config.limit, "sample_id": config.sample_id, "solver": spec.solver, "solver_args": spec.solver_args,
        "scorers": [(s.name, s.options) for s in spec.scorers or []],
        "message_limit": config.message_limit, "token_limit": config.token_limit,
    }

    total, completed = results.total_samples, results.completed_samples
    errored = sum(1 for s in log.samples or [] if s.error is not None)
    if not log.samples:
        errored = max(0, total - completed)
    value = metrics[metric_name]
    items = read_items(log, primary.name, primary.reducer)
    logged = [Breakdown(e.dimension, e.group, e.value, e.stderr, e.n) for e in parse_breakdown(metrics)]
    if items:
        ci = interval(items)
        if ci is not None and abs(ci.value - value) > 1e-9:
            ci = None  # the headline is not the mean of the per-sample scores: no interval can be derived from them
        breakdowns = breakdown_intervals(items, logged)
    else:  # a log written without samples: Wilson on the counts, no story adjustment possible
        ci = unclustered_interval(value, completed)
        breakdowns = [replace(b, ci_low=bi.low, ci_high=bi.high) if (bi := unclustered_interval(b.value, b.n))
                      else b for b in logged]
    headline = meta.get("headline")  # a suite task's own headline (tombench.tasks.suites), e.g. macro_f1, all_star
    if headline and headline != "accuracy" and headline in all_metrics:
        lo, hi = all_metrics.get(f"{headline}_ci_low"), all_metrics.get(f"{headline}_ci_high")
        spread = (hi - lo) / (2 * Z95) if lo is not None and hi is not None else None
        breakdowns.append(Breakdown("headline", str(headline), all_metrics[headline], spread, completed,
                                    ci_low=lo, ci_high=hi))
    usage = list(log.stats.model_usage.values())
    model_calls = all_metrics.get("model_calls", (results.metadata or {}).get("model_calls"))
    settings_filled = all_metrics.get("settings_filled", (results.metadata or {}).get("settings_filled"))
    # every other scalar metric (grouped `dimension=group` entries are the breakdowns' business)
    others = [MetricValue(s.name, n, float(m.value)) for s in results.scores for n, m in s.metrics.items()
              if "=" not in n and not (s is primary and n in (metric_name, "stderr"))]

    digest = hashlib.sha256(f"{spec.eval_id}|{spec.task_id}|{spec.model}".encode()).hexdigest()[:12]
    open_weights = overrides.open_weights
    if open_weights is None:
        open_weights = meta.get("open_weights", guess_open_weights(provider, spec.model_base_url))
    size = overrides.model_size_b or meta.get("model_size_b") or guess_model_size_b(spec.model)

    return ResultRow(
        schema_version=SCHEMA_VERSION,
        submission_id=f"{spec.created[:10].replace('-', '')}-{digest}",
        created_at=utc_iso(spec.created),
        benchmark=str(meta.get("benchmark", PACKAGE)),
        package_version=meta.get("tombench_version") or spec.packages.get(PACKAGE),
        task=name,
        task_version=str(spec.task_version),
        task_args=canonical_json(spec.task_args),
        dataset_id=dataset_id,
        dataset_revision=dataset_revision,
        model=spec.model,
        provider=provider,
        model_revision=model_revision,
        model_params=canonical_json(model_params),
        open_weights=open_weights,
        model_size_b=float(size) if size is not None else None,
        temperature=generate_config.get("temperature"),
        max_tokens=generate_config.get("max_tokens"),
        seed=generate_config.get("seed"),
        epochs=epochs,
        harness="inspect-ai",
        harness_version=spec.packages.get("inspect_ai"),
        config_hash=config_hash(settings),
        samples_total=total,
        samples_completed=completed,
        samples_errored=errored,
        metric=f"{primary.name}/{metric_name}",
        accuracy=value,
        stderr=metrics.get("stderr"),
        ci_low=ci.low if ci else None,
        ci_high=ci.high if ci else None,
        breakdowns=breakdowns,
        input_tokens=sum(u.input_tokens for u in usage),
        output_tokens=sum(u.output_tokens for u in usage),
        total_tokens=sum(u.total_tokens for u in usage),
        settings_filled=float(settings_filled) if settings_filled is not None else None,
        settings_total=int(meta["settings"]) if settings_filled is not None and meta.get("settings") else None,
        model_calls=int(model_calls) if model_calls is not None else None,
        eval_id=spec.eval_id,
        run_id=spec.run_id,
        log_file=None,
        submitter=overrides.submitter,
        notes=overrides.notes,
        ci_method=ci.method if ci else None,
        stories=ci.stories if ci and items else None,
        design_effect=round(ci.design_effect, 6) if ci and items else None,
        items_digest=items_digest(items) if items else None,
        items=compact(items),
        run_config=canonical_json(settings),
        model_roles=canonical_json(model_roles),
        other_metrics=others,
    )
