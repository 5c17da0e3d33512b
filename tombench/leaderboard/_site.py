"""Everything derived from the rows that a leaderboard repo carries besides the rows themselves.

`site_files(rows)` is pure: the dataset card (so `datasets.load_dataset(repo)` returns the table with declared
features), the Markdown and HTML views, the benchmark's `eval.yaml` and the Hub "Eval Results" entries. Both the
local store and the Hub publisher write exactly these files, so a local folder and the Hub repo look the same.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import yaml

from ._render import latest_rows, render
from ._row import ResultRow, card_features

RESULTS_DIR = "data/results"
LOGS_DIR = "logs"
EVAL_RESULTS_DIR = "eval_results"
#: Inspect model providers whose model names are Hugging Face Hub repo ids (so an Eval Results PR can target them).
HUB_MODEL_PROVIDERS = {"hf", "vllm", "sglang", "transformer_lens"}
_SHA = re.compile(r"^[0-9a-f]{40}$")


def result_path(submission_id: str) -> str:
    return f"{RESULTS_DIR}/{submission_id}.json"


def model_slug(model: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "__", model)


def hub_model_id(model: str) -> str | None:
    """The Hub repo id behind an Inspect model name (`vllm/Qwen/Qwen2.5-7B` -> `Qwen/Qwen2.5-7B`), if any."""
    provider, _, rest = model.partition("/")
    return rest if provider in HUB_MODEL_PROVIDERS and rest.count("/") == 1 else None


def dataset_card(rows: list[ResultRow], repo_id: str | None) -> str:
    meta = {
        "pretty_name": "tombench leaderboard",
        "tags": ["leaderboard", "theory-of-mind", "tombench", "inspect-ai"],
        "configs": [{"config_name": "default", "data_files": [{"split": "train", "path": f"{RESULTS_DIR}/*.json"}]}],
        "dataset_info": {"config_name": "default", "features": card_features()},
    }
    body = render(rows, "markdown", title="tombench leaderboard")
    load = f'datasets.load_dataset("{repo_id}", split="train")' if repo_id else "datasets.load_dataset(REPO)"
    return (
        "---\n" + yaml.safe_dump(meta, sort_keys=False) + "---\n\n"
        "Results of [tombench](https://github.com/) theory-of-mind tasks, one immutable file per submission in "
        f"`{RESULTS_DIR}/`. Load the full table (every submission, history included) with `{load}`; the tables "
        "below show the newest submission per (model, model revision, task, task version, config hash). "
        "Also rendered as `leaderboard.html`.\n\n"
        + body.split("\n", 1)[1]
    )


def eval_yaml(rows: list[ResultRow]) -> str:
    """The benchmark registration file (`eval.yaml`): framework and task ids.

    tombench tasks are Python tasks (`inspect eval tombench/<task>`), not the declarative field_spec/solver tasks
    of Inspect's `hf/` loader, so the entries carry ids and how to run them, not a generic solver spec.
    """
    tasks = sorted({r.task for r in rows})
    doc = {
        "name": "tombench",
        "description": "Theory-of-mind benchmarks (ExploreToM, ToM-Synth, ToMMA) as Inspect AI tasks.",
        "evaluation_framework": "inspect-ai",
        "tasks": [{"id": t, "run": f"inspect eval tombench/{t}"} for t in tasks],
    }
    return yaml.safe_dump(doc, sort_keys=False)


def eval_result_entries(rows: Iterable[ResultRow], leaderboard_repo: str | None = None,
                        endpoint: str = "https://huggingface.co") -> dict[str, list[dict]]:
    """Hub "Eval Results" entries (`.eval_results/*.yaml` on a model repo), per model, newest per configuration."""
    from huggingface_hub import EvalResultEntry, eval_result_entries_to_yaml

    out: dict[str, list] = {}
    for r in sorted(latest_rows(rows)[0], key=lambda r: (r.model, r.task)):
        if not r.dataset_id or "/" not in r.dataset_id:
            continue
        source = {}
        if leaderboard_repo:
            source = {"source_url": f"{endpoint}/datasets/{leaderboard_repo}/blob/main/{result_path(r.submission_id)}",
                      "source_name": "tombench leaderboard"}
        entry = EvalResultEntry(
            dataset_id=r.dataset_id, task_id=r.task, value=round(100 * r.accuracy, 2),
            dataset_revision=r.dataset_revision if r.dataset_revision and _SHA.match(r.dataset_revision) else None,
            date=r.created_at, notes=f"accuracy %, 95% CI {100 * r.ci_low:.1f}-{100 * r.ci_high:.1f}, "
                                     f"n={r.samples_completed}, config {r.config_hash}", **source)
        out.setdefault(r.model, []).append(entry)
    return {m: eval_result_entries_to_yaml(es) for m, es in out.items()}


def site_files(rows: Iterable[ResultRow], repo_id: str | None = None,
               endpoint: str = "https://huggingface.co") -> dict[str, bytes]:
    """Every derived file of a leaderboard repo, keyed by path in the repo."""
    rows = list(rows)
    files = {
        "README.md": dataset_card(rows, repo_id),
        "leaderboard.md": render(rows, "markdown"),
        "leaderboard.html": render(rows, "html"),
        "eval.yaml": eval_yaml(rows),
    }
    for model, entries in eval_result_entries(rows, repo_id, endpoint).items():
        files[f"{EVAL_RESULTS_DIR}/{model_slug(model)}.yaml"] = yaml.safe_dump(entries, sort_keys=False)
    return {k: v.encode() for k, v in files.items()}
