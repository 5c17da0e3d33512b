"""Everything derived from the rows that a leaderboard repo carries besides the rows themselves.

`site_files(rows, files=...)` is pure: the dataset card (so `datasets.load_dataset(repo)` returns the table with
declared features, and `load_dataset(repo, "details")` / `load_dataset(repo, "items", split=<task>)` the per-sample
details and evaluation items that `files` says exist), the Markdown and HTML views, the benchmark's `eval.yaml`, the
Hub "Eval Results" entries and `data/index.jsonl` (every row in one file, so a push or a `show` reads one file
instead of one per submission). Both the local store and the Hub publisher write exactly these files, so a local
folder and the Hub repo look the same.

Eval Results (https://huggingface.co/docs/hub/eval-results): an entry's `dataset.id` must be a *benchmark* dataset
whose `eval.yaml` defines the entry's `task_id`; with `evaluation_framework: inspect-ai` each task also needs
`field_spec`, `solvers` and `scorers`, and its `config`/`split` name the evaluation items (Inspect's `hf/` loader
builds the task from them). The only such dataset tombench controls is the leaderboard repo itself, so its
`eval.yaml` defines one task per task whose items it holds (config `items`, split = the task id), and entries
point there, one file per variant (task and configuration), as the Hub asks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

import yaml

from ._details import DETAILS_DIR, ITEMS_DIR, Detail, EvalItem, task_id
from ._ranking import interval, latest_rows
from ._render import render
from ._row import ResultRow, card_features, dataclass_features
from ._rowfile import DamagedRow, parse_row
from ._text import safe_name

RESULTS_DIR = "data/results"
#: Every row at a commit, one JSON line each, sorted by submission id (derived; the result files are the record).
INDEX_PATH = "data/index.jsonl"
LOGS_DIR = "logs"
EVAL_RESULTS_DIR = "eval_results"
#: Inspect model providers whose model names are Hugging Face Hub repo ids (so an Eval Results PR can target them).
HUB_MODEL_PROVIDERS = {"hf", "vllm", "sglang", "transformer_lens"}
_SHA = re.compile(r"^[0-9a-f]{40}$")


def result_path(submission_id: str) -> str:
    return f"{RESULTS_DIR}/{submission_id}.json"


def model_slug(model: str) -> str:
    """The folder of a model's Eval Results files: any model name (a log may carry any string) as a short,
    portable name that no other model shares (`_text.safe_name`); the name itself is inside each file."""
    return safe_name(model)


def eval_result_text(model: str, entries: list) -> str:
    """One Eval Results file: its entries, after a comment naming the model exactly (as a JSON string, so that no
    character of the name can end the comment or the file's YAML)."""
    return f"# model: {json.dumps(model)}\n" + yaml.safe_dump(entries, sort_keys=False)


def hub_model_id(model: str) -> str | None:
    """The Hub repo id behind an Inspect model name (`vllm/Qwen/Qwen2.5-7B` -> `Qwen/Qwen2.5-7B`), if any."""
    provider, _, rest = model.partition("/")
    return rest if provider in HUB_MODEL_PROVIDERS and rest.count("/") == 1 else None


#: Hub dataset-card size buckets (https://huggingface.co/docs/hub/datasets-cards), by number of records.
_SIZES = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
          (10_000_000, "1M<n<10M")]
#: What the card says about licenses: the rows and details are tombench's output; items keep their source's terms.
LICENSE_NOTE = ("The results table and the per-sample details are released under Apache-2.0, like tombench. The "
                "evaluation items under `data/items/` are copies of the questions the runs asked and keep the license "
                "of the dataset they come from (each item names it in `dataset_id`; e.g. `facebook/ExploreToM` items "
                "follow that dataset's card).")


def size_category(records: int) -> str:
    return next((name for limit, name in _SIZES if records < limit), "n>10M")


@dataclass(frozen=True)
class ReplaySet:
    """The one item set `eval.yaml` replays for a task: a file of the repo's `data/items/<task>/`, the set that
    `rows` (newest submission per configuration) were measured on."""

    task: str  # the task id (eval.yaml's `id`, the items' split)
    path: str
    digest: str
    items: int
    rows: tuple[ResultRow, ...]

    @property
    def multiple_choice(self) -> bool:
        return self.path.endswith(".mc.jsonl")


def replay_sets(rows: Iterable[ResultRow], files: Collection[str]) -> dict[str, ReplaySet]:
    """Per task, the item set that the most board rows were measured on (ties: the larger set, then the file
    name), among the sets whose file is in `files`. One pinned, deduplicated set per task, so `inspect eval
    hf/<repo>/<task>` asks exactly the questions of those rows, however many other sets were pushed."""
    present = set(files)
    candidates: dict[tuple[str, str], list[ResultRow]] = {}
    for r in latest_rows(rows)[0]:
        if not r.items_digest:
            continue
        tid = task_id(r.task)
        for suffix in (".jsonl", ".mc.jsonl"):
            path = f"{ITEMS_DIR}/{tid}/{r.items_digest}{suffix}"
            if path in present:
                candidates.setdefault((tid, path), []).append(r)
    out: dict[str, ReplaySet] = {}
    ranked = sorted(candidates.items(), key=lambda kv: (kv[0][0], -len(kv[1]),
                                                        -max(len(r.items.key) for r in kv[1]), kv[0][1]))
    for (tid, path), measured in ranked:
        if tid not in out:
            size = max(len(r.items.key) or r.samples_completed for r in measured)
            out[tid] = ReplaySet(tid, path, measured[0].items_digest or "", size,
                                 tuple(sorted(measured, key=lambda r: r.submission_id)))
    return out


def _configs(files: Collection[str], replay: dict[str, ReplaySet]) -> tuple[list[dict], list[dict]]:
    """The card's `configs` and `dataset_info`: the results table, plus details and items where files exist (the
    items config: one split per task, the task's replay set)."""
    configs = [{"config_name": "default", "default": True,
                "data_files": [{"split": "train", "path": f"{RESULTS_DIR}/*.json"}]}]
    info = [{"config_name": "default", "features": card_features()}]
    if any(f.startswith(DETAILS_DIR + "/") for f in files):
        configs.append({"config_name": "details",
                        "data_files": [{"split": "train", "path": f"{DETAILS_DIR}/*.jsonl"}]})
        info.append({"config_name": "details", "features": card_features(dataclass_features(Detail))})
    if replay:
        configs.append({"config_name": "items",
                        "data_files": [{"split": t, "path": replay[t].path} for t in sorted(replay)]})
        info.append({"config_name": "items", "features": card_features(dataclass_features(EvalItem))})
    return configs, info


def card_metadata(rows: list[ResultRow], files: Collection[str] = ()) -> dict:
    """The dataset card's YAML header (checked with huggingface_hub's DatasetCardData in the tests)."""
    configs, info = _configs(files, replay_sets(rows, files))
    records = max(len(rows), sum(len(r.items.key) for r in rows))
    return {
        "pretty_name": "tombench leaderboard",
        "license": "other",
        "license_name": "tombench-leaderboard",
        "license_link": "LICENSE.md",
        "language": ["en"],
        "task_categories": ["question-answering", "text-generation"],
        "size_categories": [size_category(records)],
        "tags": ["leaderboard", "theory-of-mind", "tombench", "inspect-ai", "eval-results"],
        "configs": configs,
        "dataset_info": info,
    }


def dataset_card(rows: list[ResultRow], repo_id: str | None, files: Collection[str] = ()) -> str:
    meta = card_metadata(rows, files)
    body = render(rows, "markdown", title="tombench leaderboard")
    repo = f'"{repo_id}"' if repo_id else "REPO"
    names = {c["config_name"] for c in meta["configs"]}
    loads = [f"`datasets.load_dataset({repo}, split=\"train\")` (every submission, history included)"]
    if "details" in names:
        loads.append(f"`datasets.load_dataset({repo}, \"details\", split=\"train\")` (one record per scored "
                     "sample: sample and story id, input digest, target, answer, completion, score, breakdown "
                     "groups; filter on `submission_id` to recompute a row, join on `item_key` to pair two models)")
    if "items" in names:
        loads.append(f"`datasets.load_dataset({repo}, \"items\", split=TASK)` (the questions, as `eval.yaml` "
                     "points at them)")
    return (
        "---\n" + yaml.safe_dump(meta, sort_keys=False) + "---\n\n"
        "Results of the tombench theory-of-mind tasks (the `tombench` Python package of Inspect AI tasks), one "
        f"immutable file per submission in `{RESULTS_DIR}/`. Load with " + "; ".join(loads) + ". The tables below "
        "show the newest submission per (model, model revision, task, task version, config hash). Also rendered as "
        "`leaderboard.html`.\n\n## License\n\n" + LICENSE_NOTE + "\n\n"
        + body.split("\n", 1)[1]
    )


def _eval_task(tid: str, multiple_choice: bool) -> dict:
    """One `tasks[]` entry of eval.yaml, with the fields `evaluation_framework: inspect-ai` requires.

    The solvers and scorers are the Inspect built-ins that replay the items (Inspect's `hf/` loader only takes
    built-ins); the ranked scores come from the tombench task itself, with its own prompt and answer matcher."""
    spec = {"input": "input", "target": "target"}
    if multiple_choice:
        spec["choices"] = "choices"
    return {"id": tid, "config": "items", "split": tid, "field_spec": spec,
            "solvers": [{"name": "multiple_choice"}] if multiple_choice else [{"name": "generate"}],
            "scorers": [{"name": "choice"}] if multiple_choice else [{"name": "includes"}]}


def eval_yaml(rows: list[ResultRow], files: Collection[str] = ()) -> str:
    """The benchmark registration file (`eval.yaml`): one task per task with a replay set (`replay_sets`), each
    pointing at that one pinned item set; the description says which rows it reproduces.

    How to run each task as ranked (`inspect eval tombench/<task>`) is said in the description: the `hf/` replay of
    the items with built-in solvers and scorers approximates it, it does not reproduce the board's numbers.
    """
    replay = replay_sets(rows, files)
    names = sorted({r.task for r in rows if task_id(r.task) in replay})
    runs = "; ".join(f"`inspect eval {t}`" for t in names)
    sets = " ".join(f"{t}: the {s.items} items of item set {s.digest[:12]} ({s.path}), the items {len(s.rows)} "
                    "board row(s) were measured on." for t, s in sorted(replay.items()))
    doc = {
        "name": "tombench",
        "description": "Theory-of-mind benchmarks as Inspect AI tasks (pip install tombench). The board's scores "
                       "come from the tombench tasks, run with " + (runs or "`inspect eval tombench/<task>`")
                       + "; the tasks below replay one pinned item set each with Inspect's built-in solvers and "
                       "scorers, an approximation of tombench's own prompt and answer matcher. " + sets,
        "evaluation_framework": "inspect-ai",
        "tasks": [_eval_task(t, replay[t].multiple_choice) for t in sorted(replay)],
    }
    return yaml.safe_dump(doc, sort_keys=False)


def _entry_notes(r: ResultRow) -> str:
    low, high, _ = interval(r)
    ci = "no CI" if low is None or high is None else f"95% CI {100 * low:.1f}-{100 * high:.1f}"
    stories = f" in {r.stories} stories" if r.stories is not None and r.stories < len(r.items.key) else ""
    data = r.dataset_id + (f"@{r.dataset_revision[:12]}" if r.dataset_revision else "") if r.dataset_id else "?"
    return (f"{r.metric} in %, {ci}, n={r.samples_completed}{stories}; data {data}; config {r.config_hash}"
            + (f"; items {r.items_digest[:12]}" if r.items_digest else ""))


def _endpoint(endpoint: str | None) -> str:
    """The Hub the links point to: the given one, else huggingface_hub's (`HF_ENDPOINT`)."""
    if endpoint:
        return endpoint.rstrip("/")
    from huggingface_hub import constants

    return constants.ENDPOINT.rstrip("/")


def eval_result_files(rows: Iterable[ResultRow], benchmark_repo: str | None, files: Collection[str] = (), *,
                      endpoint: str | None = None, revision: str | None = None) -> dict[str, dict[str, list]]:
    """Hub "Eval Results" files for the model repos: {model: {file name: entries}}, one file per variant.

    A variant is one configuration of a model on one task (newest submission per configuration): the Hub's
    guidance is one `.eval_results/*.yaml` file per variant, so two configurations of one model never share a
    file. `benchmark_repo` is the dataset whose `eval.yaml` defines the task ids (the leaderboard repo); entries
    exist only for tasks it defines (their items are in `files`). `revision` is that repo's commit, when known: it
    becomes `dataset.revision` and the commit the source links point at.
    """
    from huggingface_hub import EvalResultEntry, eval_result_entries_to_yaml

    if not benchmark_repo:
        return {}
    rows = list(rows)
    defined = replay_sets(rows, files)
    pinned = revision if revision and _SHA.match(revision) else None
    base = f"{_endpoint(endpoint)}/datasets/{benchmark_repo}/blob/{pinned or 'main'}"
    out: dict[str, dict[str, list]] = {}
    for r in sorted(latest_rows(rows)[0], key=lambda r: (r.model, r.task, r.config_hash)):
        if task_id(r.task) not in defined:
            continue
        entry = EvalResultEntry(
            dataset_id=benchmark_repo, task_id=task_id(r.task), value=round(100 * r.accuracy, 2),
            dataset_revision=pinned, date=r.created_at, source_url=f"{base}/{result_path(r.submission_id)}",
            source_name="tombench leaderboard row", notes=_entry_notes(r))
        name = f"tombench_{task_id(r.task)}_{r.config_hash[:8]}.yaml"
        out.setdefault(r.model, {})[name] = eval_result_entries_to_yaml([entry])
    return out


def index_jsonl(rows: Iterable[ResultRow]) -> str:
    return "".join(r.to_json() + "\n" for r in sorted({r.submission_id: r for r in rows}.values(),
                                                       key=lambda r: r.submission_id))


def read_index(text: str) -> dict[str, ResultRow]:
    """The rows of `data/index.jsonl` by submission id. A damaged line is left out: the index is a cache of the
    result files, so the row is read from its own file instead (where a damage is reported)."""
    out: dict[str, ResultRow] = {}
    for line in text.splitlines():
        if line.strip():
            try:
                r = parse_row(line, INDEX_PATH)
            except DamagedRow:
                continue
            out[r.submission_id] = r
    return out


def site_files(rows: Iterable[ResultRow], repo_id: str | None = None, endpoint: str | None = None,
               files: Collection[str] = (), skipped: Sequence[str] = ()) -> dict[str, bytes]:
    """Every derived file of a leaderboard repo, keyed by path in the repo. `files` are the repo's details and
    item files (after the commit these views go into): the card and eval.yaml declare only what exists. `skipped`:
    one line per damaged result file left out (the views name them)."""
    rows = list(rows)
    out = {
        "README.md": dataset_card(rows, repo_id, files),
        "LICENSE.md": "# License\n\n" + LICENSE_NOTE + "\n",
        "leaderboard.md": render(rows, "markdown", skipped=skipped),
        "leaderboard.html": render(rows, "html", skipped=skipped),
        "eval.yaml": eval_yaml(rows, files),
        INDEX_PATH: index_jsonl(rows),
    }
    for model, variants in eval_result_files(rows, repo_id, files, endpoint=endpoint).items():
        for name, entries in variants.items():
            out[f"{EVAL_RESULTS_DIR}/{model_slug(model)}/{name}"] = eval_result_text(model, entries)
    return {k: v.encode() for k, v in out.items()}
