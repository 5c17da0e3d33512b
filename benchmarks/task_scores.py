"""Every task's offline baseline run, scored: the same numbers before and after a refactor (issue #29, point 4).

Runs each registered tombench task through Inspect on offline data (the embedded default, the package's own
sample files, and the test fixtures in the authors' layouts) with the offline baseline models, and prints one row
per (task, model): samples, accuracy and a digest of every logged metric and every per-sample score. `--write F`
saves the rows as JSON; `--check F` compares a run with a saved one and exits 1 naming each row that differs, so a
layout move or a merge of duplicated mechanisms can show that nothing a user sees changed.

    python benchmarks/task_scores.py --write /tmp/before.json     # on the old code
    python benchmarks/task_scores.py --check /tmp/before.json     # on the new code
    python benchmarks/task_scores.py --check benchmarks/task_scores.baseline.json

`task_scores.baseline.json` was written on the code before the layout move of issue #29 (commit 095b971): any
later change that is meant to change no score checks against it (about a minute on two cores).

Referenced by name (registry strings such as "tombench/hitom"), never by module path, so the same script runs on
both sides of a move. It asserts nothing about the numbers themselves: the tests do that.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import tempfile
from collections.abc import Collection
from pathlib import Path
from typing import Any

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
SUITES = ROOT / "tests" / "tasks"
PERSUASION = ROOT / "tombench" / "data" / "persuasion" / "ctompersu_sample.json"
MODELS = ("tombench/recency", "tombench/primacy", "tombench/random")
ROLES = {"persuadee": "tombench/primacy", "grader": "tombench/random"}


def _tomsynth_items(folder: Path) -> Path:
    """Twelve ToM-Synth items in the released row layout, keys spread over A-D (our own words)."""
    from tombench.generators.tomsynth.items import LETTERS, Item, append_jsonl
    from tombench.generators.tomsynth.units import all_units

    units = list(all_units())[::577][:6]
    items = [
        Item(id=f"{u.id}#{n}", **u.metadata(), text=f"Story {n}: Ann left; Tom moved the report to the shelf.",
             question=f"Where does Ann think the report is? ({n})",
             options={letter: f"Place {letter}{n}" for letter in LETTERS}, answer=LETTERS[n % 4])
        for n, u in enumerate(units + units)
    ]
    path = folder / "items.jsonl"
    append_jsonl(path, (i.to_row() for i in items))
    return path


def _suite_cases() -> list[tuple[str, dict[str, Any], dict[str, str]]]:
    """Every registered suite (`tombench.kit.suites`) on its test fixture in the authors' layout."""
    from tombench.kit.suites import suites

    return [(f"tombench/{s.task}", {"data": str(SUITES / s.fixture), **s.fixture_args}, {}) for s in suites()]


def _cases(tmp: Path) -> list[tuple[str, dict[str, Any], dict[str, str]]]:
    """(task, task arguments, model roles) for every task, on offline data."""
    search = {"action_sets": "tomi,fantom-private", "asymmetric": "both", "people": 2, "moves": 2, "budget": 15}
    return [
        ("tombench/exploretom_random", {"story_types": "tomi,all", "people": 2, "moves": "2,3"}, {}),
        ("tombench/exploretom_static", {"data": str(ROOT / "tests/tasks/exploretom/fixtures/exploretom_sample.csv")}, {}),
        ("tombench/exploretom_static", {"data": str(ROOT / "tests/tasks/exploretom/fixtures/exploretom_sample.csv"),
                                        "relabel": True}, {}),
        ("tombench/exploretom_adversarial", search, {}),
        ("tombench/exploretom_adversarial", {**search, "mode": "improved", "stories_per_setting": 2,
                                             "budget": 12, "budget_unit": "calls"}, {}),
        ("tombench/exploretom_transfer", {"stories": "{adversarial_log}"}, {}),
        *_suite_cases(),
        ("tombench/tomsynth", {"data": str(_tomsynth_items(tmp))}, {}),
        ("tombench/persuasion_fixed", {"dataset": str(PERSUASION)}, ROLES),
        ("tombench/persuasion_dynamic", {"dataset": str(PERSUASION)}, ROLES),
    ]


def _clean(value: Any) -> Any:
    if isinstance(value, float):
        return None if math.isnan(value) else round(value, 12)
    return value


def _row(log: EvalLog) -> dict[str, Any]:
    if log.status != "success":
        return {"status": log.status, "error": str(log.error.message if log.error else "")[:200]}
    metrics = {f"{s.name}.{k}": _clean(m.value) for s in log.results.scores for k, m in s.metrics.items()}
    samples = sorted(
        json.dumps([str(s.id), s.epoch, {k: [v.value, v.answer] for k, v in sorted((s.scores or {}).items())}],
                   sort_keys=True, default=str)
        for s in (log.samples or [])
    )
    accuracy = next((v for k, v in metrics.items() if k.endswith(".accuracy")), None)
    return {
        "status": "success",
        "samples": len(samples),
        "accuracy": accuracy,
        "metrics": metrics,
        "scores_sha256": hashlib.sha256("\n".join(samples).encode()).hexdigest(),
    }


def run(only: Collection[str] | None = None) -> dict[str, dict[str, Any]]:
    """The rows of every case, or of the cases of the tasks named in `only` ("tombench/hitom")."""
    import tombench._registry  # noqa: F401  (the tasks and the offline models)

    rows: dict[str, dict[str, Any]] = {}
    found: dict[str, str] = {}  # the first live-search log (recency's): the transfer task's stories
    with tempfile.TemporaryDirectory() as tmp:
        for task, args, roles in _cases(Path(tmp)):
            if only is not None and task not in only:
                continue
            real = {k: found.get(v, v) if isinstance(v, str) else v for k, v in args.items()}
            logs = inspect_eval(task, task_args=real, model=list(MODELS), model_roles=roles or None,
                                log_dir=str(Path(tmp) / "logs"), display="none", max_tasks=1)
            found.setdefault("{adversarial_log}", logs[0].location) if "adversarial" in task else None
            for model, log in zip(MODELS, logs, strict=True):
                key = f"{task} {json.dumps(args, sort_keys=True)} {model}"
                rows[key.replace(str(ROOT) + "/", "").replace(tmp + "/", "")] = _row(log)
    return rows


def _show(rows: dict[str, dict[str, Any]], diffs: set[str]) -> None:
    table = Table(title="offline baseline scores per task")
    for col in ("task, arguments, model", "n", "accuracy", "metrics", "scores sha256", "same"):
        table.add_column(col)
    for key, row in rows.items():
        acc = row.get("accuracy")
        table.add_row(key, str(row.get("samples", "-")), "-" if acc is None else f"{acc:.4f}",
                      str(len(row.get("metrics", {}))), row.get("scores_sha256", row.get("error", ""))[:12],
                      "NO" if key in diffs else "yes")
    Console(width=200).print(table)


def _what_differs(saved: dict[str, Any] | None, now: dict[str, Any] | None) -> str:
    """What moved in one row: each metric with both values, the sample count, the per-sample scores (the saved
    row keeps only their digest), or the whole row when one side has none."""
    if saved is None or now is None:
        return "only in this run" if saved is None else "not run now"
    parts = [f"{k} {saved.get(k)} -> {now.get(k)}" for k in ("status", "samples", "error") if saved.get(k) != now.get(k)]
    metrics, was = now.get("metrics", {}), saved.get("metrics", {})
    parts += [f"{k} {was.get(k)} -> {metrics.get(k)}" for k in sorted(was.keys() | metrics.keys())
              if was.get(k) != metrics.get(k)]
    if saved.get("scores_sha256") != now.get("scores_sha256"):
        parts.append("per-sample scores (digest)")
    return "; ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", type=Path, help="save this run's rows as JSON")
    parser.add_argument("--check", type=Path, help="compare this run with saved rows; exit 1 on any difference")
    opts = parser.parse_args(argv)
    rows = run()
    diffs: set[str] = set()
    if opts.check:
        saved = json.loads(opts.check.read_text())
        diffs = {k for k in saved.keys() | rows.keys() if saved.get(k) != rows.get(k)}
    _show(rows, diffs)
    if opts.write:
        opts.write.write_text(json.dumps(rows, indent=1, sort_keys=True))
    if opts.check:
        print(f"{len(rows) - len(diffs & rows.keys())} of {len(rows)} rows identical to {opts.check}"
              + (f"; differ: {sorted(diffs)}" if diffs else ""))
        for key in sorted(diffs):
            print(f"  {key}: {_what_differs(saved.get(key), rows.get(key))}")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
