"""The cells of a board: the text, sort value and tooltip of every column of one row (numbers formatted here only,
so that every format shows the same text)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from tombench.kit.intervals import wilson_interval

from ._from_log import guess_model_size_b, guess_open_weights
from ._ranking import PairTest, Shown, interval_of
from ._row import Breakdown, ResultRow, shaping_config
from ._text import inert

Kind = Literal["text", "num"]


@dataclass(frozen=True)
class Cell:
    """One cell's text, sort value and tooltip, made `inert` here once so that no format shows a raw control
    character from a log (each format still escapes its own syntax)."""

    text: str
    sort: float | str | None = None  # the value a column sorts by (None sorts last)
    title: str = ""  # extra detail (HTML tooltip)

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", inert(self.text))
        object.__setattr__(self, "title", inert(self.title))


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    kind: Kind = "text"
    breakdown: bool = False

    def __post_init__(self) -> None:  # breakdown columns are named by the log's metrics
        object.__setattr__(self, "title", inert(self.title))


# --- what differs between rows: the config column -------------------------------------------------------------
#: Settings that are the board (task) or the model column already: never repeated in the config column.
_NOT_CONFIG = {"task", "task_version", "model", "scorers", "solver"}
_PREFIX = {"task_args": "T.", "generate_config": "", "model_params": "M.", "model_roles": "role."}


def _settings(row: ResultRow) -> dict[str, Any]:
    """A row's run-shaping settings, flattened to short names (`seed`, `T.seed`, `limit`, `M.device`)."""
    try:
        raw = json.loads(row.run_config or "{}")
    except ValueError:
        raw = {}
    if not raw:  # a row of schema 1: what it has
        raw = {"generate_config": {"temperature": row.temperature, "max_tokens": row.max_tokens, "seed": row.seed},
               "epochs": row.epochs, "task_args": json.loads(row.task_args or "{}")}
    raw = shaping_config(raw)  # a cache or a timeout tells no row apart
    flat: dict[str, Any] = {}
    for key, value in raw.items():
        if key in _NOT_CONFIG:
            continue
        if isinstance(value, dict) and key in _PREFIX:
            for k, v in value.items():
                flat[f"{_PREFIX[key]}{k}"] = v
        else:
            flat[key] = value
    return flat


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"), default=str)
    return text if len(text) <= 24 else text[:21] + "..."


def differing_settings(rows: Sequence[ResultRow]) -> list[str]:
    """The setting names whose values are not the same for every row (a missing setting counts as a value)."""
    flats = [_settings(r) for r in rows]
    keys = sorted({k for f in flats for k in f})
    missing = object()
    return [k for k in keys if len({json.dumps(f.get(k, missing), default=str, sort_keys=True) for f in flats}) > 1]


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


#: Providers whose "models" are rule-based baselines shipped with tombench: open code, no parameters at all.
_BASELINE_PROVIDERS = {"tombench"}


def _model_facts(row: ResultRow) -> tuple[Cell, Cell]:
    """Open weights and size: what the row records, else what its provider and model name tell (the rows' own
    guesses, also for rows pushed before they existed); blank when unknown or when it does not apply (a baseline
    has no weights: "0" or "yes" would read as a model of zero parameters)."""
    if row.provider in _BASELINE_PROVIDERS:  # no weights: neither "open" nor a size applies (blank, never 0)
        why = "a rule-based baseline shipped with tombench: no weights, no parameters"
        return Cell("", None, why), Cell("", None, why)
    open_weights = row.open_weights if row.open_weights is not None else guess_open_weights(row.provider, None)
    size = row.model_size_b if row.model_size_b is not None else guess_model_size_b(row.model)
    open_cell = Cell({True: "yes", False: "no", None: ""}[open_weights], {True: 1, False: 0, None: None}[open_weights],
                     "" if open_weights is not None else "not known: push with --open-weights/--closed-weights")
    size_cell = Cell("" if size is None else f"{size:g}B", size,
                     "" if size is not None else "not known: push with --model-size")
    return open_cell, size_cell


def _ci_text(low: float | None, high: float | None) -> str:
    return "no CI" if low is None or high is None else f"{_pct(low)}–{_pct(high)}"


def _filled_cell(row: ResultRow) -> Cell:
    """Settings filled with a Wilson interval over the settings searched (rows before `settings_total`: no CI)."""
    calls = f"; model calls: {row.model_calls}" if row.model_calls is not None else ""
    if row.settings_filled is None:
        return Cell("–", None, calls.removeprefix("; "))
    if not row.settings_total:
        return Cell(_pct(row.settings_filled), row.settings_filled, f"no CI (number of settings not recorded){calls}")
    n = row.settings_total
    low, high = wilson_interval(row.settings_filled * n, n)
    return Cell(f"{_pct(row.settings_filled)} [{_ci_text(low, high)}] of {n}", row.settings_filled,
                f"{round(row.settings_filled * n)} of {n} settings filled (all requested stories found); "
                f"95% Wilson CI {_ci_text(low, high)}{calls}")


def vs_cell(t: PairTest | None, other: ResultRow | None) -> Cell:
    """The test of a row against another one of its board: difference in points, the pair's own p, `*` where it
    separates them, `(u)` where they answered different items (unpaired test from the two intervals)."""
    if other is None:
        return Cell("", None)
    if t is None:
        return Cell("–", None, f"no test against {other.model}: one of the two rows has no interval")
    mark = " *" if t.significant else ""
    p = t.paired
    if p is None:
        return Cell(f"{100 * t.diff:+.1f} p={t.p_value:.2g}{mark} (u)", t.p_value,
                    f"against {other.model}: not paired, the rows answered different items ({t.n_a} vs {t.n_b}: "
                    "other arguments, limit, dataset or samples); unpaired normal test, each row's standard error "
                    f"from its printed interval; p={t.p_value:.3g}")
    detail = (f"against {other.model} ({p.method}): the same {p.n} items in {p.stories} stories; this row alone "
              f"right on {p.a_only:g}, the other alone on {p.b_only:g}; p={t.p_value:.3g}")
    if p.low is not None and p.high is not None:
        detail += f"; 95% CI of the difference {100 * p.low:+.1f} to {100 * p.high:+.1f} points"
    return Cell(f"{100 * t.diff:+.1f} p={t.p_value:.2g}{mark}", t.p_value, detail)


def _samples_text(row: ResultRow) -> str:
    """Completed of total samples, the errored ones, and the stories when questions share them (fewer stories than
    items: the interval is wider than the sample count suggests)."""
    text = f"{row.samples_completed}/{row.samples_total}"
    if row.samples_errored:
        text += f" ({row.samples_errored} err)"
    if row.stories is not None and row.stories < len(row.items.key):
        text += f", {row.stories} stories"
    return text


def _headline_cells(row: ResultRow, shown: Shown | None, rank: int | None, shared: bool) -> dict[str, Cell]:
    """The ranking columns: rank, model, headline with its interval, samples, weights and size."""
    deff = f"; design effect {shown.design_effect:.2f}" if shown and shown.design_effect is not None else ""
    low, high, method = interval_of(shown)
    open_cell, size_cell = _model_facts(row)
    rank_cell = (Cell("–", None, "not ranked: no interval") if rank is None
                 else Cell(f"={rank}" if shared else str(rank), rank))
    return {
        "rank": rank_cell,
        "model": Cell(row.model, row.model.lower(),
                      f"{row.model}; provider {row.provider}; revision {row.model_revision or 'unknown'}; "
                      f"params {row.model_params}"),
        "accuracy": Cell(_pct(row.accuracy), row.accuracy, f"metric {row.metric}; logged stderr {_pct(row.stderr)}"),
        "ci": Cell(_ci_text(low, high), low, f"{method}{deff}"),
        "n": Cell(_samples_text(row), row.samples_completed),
        "open_weights": open_cell,
        "size": size_cell,
    }


def _breakdown_cell(b: Breakdown | None) -> Cell:
    """One group's value with its interval and n (a dash where the row does not report the group)."""
    if b is None:
        return Cell("–", None)
    n = "" if b.n is None else f" n={b.n}"
    ci = "" if b.ci_low is None or b.ci_high is None else f" [{_ci_text(b.ci_low, b.ci_high)}]"
    stories = f"; {b.stories} stories" if b.stories is not None else ""
    return Cell(f"{_pct(b.value)}{ci}{n}", b.value,
                f"95% CI {_ci_text(b.ci_low, b.ci_high)}; logged stderr {_pct(b.stderr)}{n}{stories}")


def _config_cell(row: ResultRow, config_keys: Sequence[str]) -> Cell:
    """The settings that tell this row apart from the board's others (temperature and epochs when none differ);
    the tooltip lists every setting."""
    settings = _settings(row)
    if config_keys:
        text = " ".join(f"{k}={_short(settings[k]) if k in settings else '–'}" for k in config_keys)
    else:
        text = f"T={row.temperature if row.temperature is not None else '?'} ep={row.epochs}"
    return Cell(text, text, f"config {row.config_hash}; " + "; ".join(
        f"{k}={_short(v)}" for k, v in sorted(settings.items())))


def _provenance_cells(row: ResultRow) -> dict[str, Cell]:
    """Where the number comes from: package and harness versions, dataset, eval, and who submitted it when."""
    return {
        "versions": Cell(
            f"{row.benchmark} {row.package_version or '?'} / {row.harness} {row.harness_version or '?'}",
            row.harness_version or "",
            f"dataset {row.dataset_id} @ {row.dataset_revision or 'unpinned'}; eval {row.eval_id}; run {row.run_id}"),
        "submitted": Cell(row.created_at[:10], row.created_at,
                          f"{row.submission_id} by {row.submitter or 'unknown'}"
                          + (f"; {row.notes}" if row.notes else "")),
    }


def row_cells(row: ResultRow, shown: Shown | None, rank: int | None, shared: bool, breakdown_cols: list[Column],
              config_keys: Sequence[str] = ()) -> dict[str, Cell]:
    """Every column of one row but "vs next" (a test against another row), given its shown interval and rank."""
    cells = _headline_cells(row, shown, rank, shared)
    groups = {f"{b.dimension}={b.group}": b for b in row.breakdowns}
    for col in breakdown_cols:
        cells[col.key] = _breakdown_cell(groups.get(col.key))
    cells["filled"] = _filled_cell(row)
    cells["tokens"] = Cell(f"{row.total_tokens:,}", row.total_tokens,
                           f"input {row.input_tokens:,}; output {row.output_tokens:,}")
    cells["config"] = _config_cell(row, config_keys)
    cells.update(_provenance_cells(row))
    return cells

