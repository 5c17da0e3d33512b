"""The files a leaderboard repo carries besides the rows, checked against the Hub's documented formats, not only
against our own key list:

* `eval.yaml`: the "Eval.yaml specification" of https://huggingface.co/docs/hub/eval-results (fields below), and
  Inspect's own reader of it (`inspect_ai._eval.task.hf.HFTask`, which the Hub's `hf/` tasks are built with);
* `.eval_results/*.yaml`: the spec https://github.com/huggingface/hub-docs/blob/main/eval_results.yaml and
  huggingface_hub's parser;
* the dataset card: huggingface_hub's `DatasetCard` / `DatasetCardData` parsing, and the size buckets and metadata
  fields of https://huggingface.co/docs/hub/datasets-cards.

For every task the package registers today.
"""

from __future__ import annotations

import re
from datetime import datetime

import yaml

from tombench.leaderboard import LocalStore, add_logs, row_from_log, site_files
from tombench.leaderboard._details import item_tasks
from tombench.leaderboard._site import INDEX_PATH, eval_result_files, eval_yaml, read_index, size_category

from .rows_factory import row

_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_SHA = re.compile(r"^[0-9a-f]{40}$")

# --- https://huggingface.co/docs/hub/eval-results, "Eval.yaml specification" ---------------------------------------
#: "The eval.yaml should contain the following fields": name, description, evaluation_framework, tasks[].
EVAL_YAML_FIELDS = {"name", "description", "evaluation_framework", "tasks"}
#: "Required fields in each tasks[] item: id"; "Optional fields: config, split".
TASK_REQUIRED, TASK_OPTIONAL = {"id"}, {"config", "split"}
#: "When setting evaluation_framework: inspect-ai, one also requires to set": field_spec, solvers, scorers.
INSPECT_REQUIRED = {"field_spec", "solvers", "scorers"}
#: field_spec "consists of input, target, choices and optional input_image subfields".
FIELD_SPEC_FIELDS = {"input", "target", "choices", "input_image"}

# --- https://github.com/huggingface/hub-docs/blob/main/eval_results.yaml (and the docs page's entry example) -------
ENTRY_REQUIRED = {"dataset", "value"}
ENTRY_OPTIONAL = {"verifyToken", "date", "source", "notes", "evaluation_framework"}
DATASET_REQUIRED, DATASET_OPTIONAL = {"id", "task_id"}, {"revision"}
SOURCE_REQUIRED, SOURCE_OPTIONAL = {"url"}, {"name", "user", "org"}

# --- https://huggingface.co/docs/hub/datasets-cards: size buckets of `size_categories` -------------------------------
SIZE_CATEGORIES = {"n<1K", "1K<n<10K", "10K<n<100K", "100K<n<1M", "1M<n<10M", "10M<n<100M", "100M<n<1B",
                   "1B<n<10B", "10B<n<100B", "100B<n<1T", "n>1T", "n>10M"}


def current_tasks() -> list[str]:
    """Every task the tombench package registers today (read from the registry, not a list kept here)."""
    from inspect_ai._util.registry import is_registry_object, registry_info

    import tombench._registry as registry

    names = {registry_info(obj).name for obj in vars(registry).values()
             if is_registry_object(obj) and registry_info(obj).type == "task"}
    return sorted(n if n.startswith("tombench/") else f"tombench/{n}" for n in names)


def check_eval_yaml(doc: dict, files: set[str]) -> set[str]:
    """eval.yaml against the documented fields and Inspect's reader; each task's config/split must be a config and
    split of evaluation items in this repo. Returns the task ids."""
    from inspect_ai._eval.task.hf import HFTask

    assert set(doc) == EVAL_YAML_FIELDS
    assert isinstance(doc["name"], str) and isinstance(doc["description"], str)
    assert doc["evaluation_framework"] == "inspect-ai"
    ids = set()
    for task in doc["tasks"]:
        assert TASK_REQUIRED | INSPECT_REQUIRED <= set(task) <= TASK_REQUIRED | TASK_OPTIONAL | INSPECT_REQUIRED
        assert set(task["field_spec"]) <= FIELD_SPEC_FIELDS and {"input", "target"} <= set(task["field_spec"])
        assert task["solvers"] and task["scorers"]
        HFTask.model_validate(task)  # Inspect's own reader: known solver/scorer names, no unknown keys
        assert task["config"] == "items" and task["split"] == task["id"]  # evaluation items, not the results
        assert any(f.startswith(f"data/items/{task['id']}/") for f in files)
        assert f"{task['id']}: the " in doc["description"]  # which pinned item set it replays
        assert "/" not in task["id"] and task["id"] not in ids
        ids.add(task["id"])
    return ids


def check_entries(entries: list, task_ids: set[str], benchmark: str) -> None:
    """An `.eval_results/*.yaml` file: a list of entries with the documented keys and types."""
    from huggingface_hub import parse_eval_result_entries

    assert isinstance(entries, list) and len(entries) == 1  # one variant per file
    for e in entries:
        assert ENTRY_REQUIRED <= set(e) <= ENTRY_REQUIRED | ENTRY_OPTIONAL
        ds = e["dataset"]
        assert DATASET_REQUIRED <= set(ds) <= DATASET_REQUIRED | DATASET_OPTIONAL
        assert _REPO_ID.match(ds["id"]) and ds["id"] == benchmark  # the benchmark dataset (hosts eval.yaml)
        assert ds["task_id"] in task_ids  # "ID of the Task, as defined in the dataset's eval.yaml"
        assert "revision" not in ds or _SHA.match(ds["revision"])
        assert isinstance(e["value"], (int, float)) and 0 <= e["value"] <= 100
        assert isinstance(e["date"], str) and datetime.fromisoformat(e["date"])
        if "source" in e:
            assert SOURCE_REQUIRED <= set(e["source"]) <= SOURCE_REQUIRED | SOURCE_OPTIONAL
            assert e["source"]["url"].startswith(("https://", "http://"))
        assert isinstance(e.get("notes", ""), str)
    assert len(parse_eval_result_entries(entries)) == len(entries)  # huggingface_hub reads them back


def _items_files(tasks: list[str], mc: set[str] = frozenset()) -> set[str]:
    return {f"data/items/{t.removeprefix('tombench/')}/{'d' * 32}{'.mc' if t in mc else ''}.jsonl" for t in tasks}


def test_every_current_task_gets_eval_yaml_and_eval_results():
    """Issue #18.4/#18.5 and #30.4: no doubled prefix, every model of every current task, to the documented spec,
    one file per variant, the revision pinned and the links on the given Hub."""
    tasks = current_tasks()
    assert {"tombench/exploretom_static", "tombench/exploretom_random", "tombench/tomi"} <= set(tasks)
    identities = {  # what each task's logs record (see test_rows.test_dataset_identity_of_every_current_task)
        "tombench/exploretom_static": ("facebook/ExploreToM", "a" * 40),
        "tombench/exploretom_random": ("exploretom_random:seed=0", None),
        "tombench/tomi": ("tomi:inspect_ai example_dataset('theory_of_mind')", None),
    }
    rows = [row(f"hf/org/model-{i % 3}", 0.3 + 0.01 * i, task=t, submission_id=f"s{i}", config_hash=f"c{i:07d}",
                items_digest="d" * 32, dataset_id=identities.get(t, (None, None))[0], dataset_revision=identities.get(t, (None, None))[1])
            for i, t in enumerate(tasks)]
    files = _items_files(tasks, mc={"tombench/tomsynth"})
    text = eval_yaml(rows, files)
    assert "tombench/tombench/" not in text
    doc = yaml.safe_load(text)
    ids = check_eval_yaml(doc, files)
    assert ids == {t.removeprefix("tombench/") for t in tasks}
    assert "`inspect eval tombench/exploretom_random`" in doc["description"]
    by_id = {t["id"]: t for t in doc["tasks"]}
    if "tomsynth" in by_id:  # multiple-choice items are replayed with Inspect's multiple-choice solver and scorer
        assert by_id["tomsynth"]["field_spec"]["choices"] == "choices"
        assert by_id["tomsynth"]["solvers"] == [{"name": "multiple_choice"}]

    commit = "b" * 40
    out = eval_result_files(rows, "my-org/tombench-leaderboard", files, endpoint="http://hub.test:8080",
                            revision=commit)
    assert sorted(out) == sorted({r.model for r in rows})  # every model, none dropped for its dataset id
    for variants in out.values():
        for entries in variants.values():
            check_entries(entries, ids, "my-org/tombench-leaderboard")
            assert entries[0]["dataset"]["revision"] == commit
            assert entries[0]["source"]["url"].startswith(
                f"http://hub.test:8080/datasets/my-org/tombench-leaderboard/blob/{commit}/data/results/")
    static = next(es[0] for v in out.values() for es in v.values() if es[0]["dataset"]["task_id"] ==
                  "exploretom_static")
    assert "data facebook/ExploreToM@aaaaaaaaaaaa" in static["notes"] and "95% CI" in static["notes"]
    assert eval_result_files(rows, None, files) == {}  # no benchmark repo: nothing an entry could point to
    # a task whose items the repo lacks is not defined in eval.yaml, so it gets no entry pointing at it
    assert eval_result_files(rows, "my-org/b", set()) == {}


def test_two_configurations_of_one_model_get_two_files(logs):
    """The Hub's guidance: one `.eval_results` file per variant (here two temperatures of one model)."""
    rows = [row_from_log(logs[k]) for k in ("strong", "strong_hot")]
    files = {f"data/items/tiny_tom/{r.items_digest}.jsonl" for r in rows}
    out = eval_result_files(rows, "my-org/board", files)
    assert list(out) == ["mockllm/strong-7b"] and len(out["mockllm/strong-7b"]) == 2
    names = sorted(out["mockllm/strong-7b"])
    assert names == sorted(f"tombench_tiny_tom_{r.config_hash[:8]}.yaml" for r in rows)


def test_site_files_from_real_logs_pass_the_schema(logs, tmp_path):
    store = LocalStore(tmp_path / "board")
    add_logs(store, [logs[k] for k in ("strong", "middle", "weak")])
    rows = store.rows()
    data = store.data_files()
    assert item_tasks(data) == {"tiny_tom": False}
    files = site_files(rows, "my-org/board", files=data)
    ids = check_eval_yaml(yaml.safe_load(files["eval.yaml"]), data)
    assert ids == {"tiny_tom"}
    result_files = [p for p in files if p.startswith("eval_results/")]
    assert len(result_files) == 3
    for p in result_files:
        check_entries(yaml.safe_load(files[p]), ids, "my-org/board")
    assert read_index(files[INDEX_PATH].decode()) == {r.submission_id: r for r in rows}


def test_dataset_card_metadata_parses_with_huggingface_hub(logs, tmp_path):
    """Issue #30.4: license, task categories, language and size in the card, read by huggingface_hub's own card
    parser; no placeholder link."""
    from huggingface_hub import DatasetCard, DatasetCardData

    store = LocalStore(tmp_path / "board")
    add_logs(store, [logs["strong"], logs["weak"]])
    store.write_site("my-org/board")
    text = (tmp_path / "board" / "README.md").read_text()
    card = DatasetCard(text)
    assert isinstance(card.data, DatasetCardData)
    meta = card.data.to_dict()
    assert meta["license"] == "other" and meta["license_name"] and meta["license_link"] == "LICENSE.md"
    assert (tmp_path / "board" / "LICENSE.md").read_text().startswith("# License")
    assert meta["language"] == ["en"] and meta["task_categories"] == ["question-answering", "text-generation"]
    assert set(meta["size_categories"]) <= SIZE_CATEGORIES and meta["size_categories"] == ["n<1K"]
    assert {c["config_name"] for c in meta["configs"]} == {"default", "details", "items"}
    assert {i["config_name"] for i in meta["dataset_info"]} == {"default", "details", "items"}
    assert "https://github.com/)" not in text and "](https://github.com/" not in text
    assert DatasetCardData(**meta).to_dict() == meta  # round trip through the typed metadata


def test_size_categories_follow_the_hub_buckets():
    assert [size_category(n) for n in (0, 999, 1000, 12_000, 250_000, 2_000_000)] == [
        "n<1K", "n<1K", "1K<n<10K", "10K<n<100K", "100K<n<1M", "1M<n<10M"]


def test_eval_yaml_never_doubles_the_prefix():
    files = {"data/items/exploretom_random/x.jsonl"}
    text = eval_yaml([row("m", 0.5, task="tombench/exploretom_random", items_digest="x")], files)
    (task,) = yaml.safe_load(text)["tasks"]
    assert task["id"] == "exploretom_random" and task["config"] == "items" and task["split"] == "exploretom_random"
    assert "tombench/tombench" not in text and "inspect eval tombench/exploretom_random" in text


def test_eval_yaml_replays_one_pinned_item_set_of_the_board():
    """Issue #41.3: after seed 0, seed 1 and a --limit run, the items split was the union of all three (476 rows,
    416 distinct inputs), measured by no row. Now each task points at one item set: the one most board rows were
    measured on (ties: the larger set)."""
    from tombench.leaderboard._site import card_metadata, replay_sets

    seed0 = [row(f"hf/org/m{i}", 0.5, submission_id=f"s0-{i}", items_digest="a" * 32, config_hash=f"a{i}")
             for i in range(2)]
    seed1 = row("hf/org/m0", 0.6, submission_id="s1", items_digest="b" * 32, config_hash="b")
    limit = row("hf/org/m1", 0.7, submission_id="lim", items_digest="c" * 32, config_hash="c")
    rows = [*seed0, seed1, limit]
    files = {f"data/items/exploretom_random/{d * 32}.jsonl" for d in "abc"}
    (replay,) = replay_sets(rows, files).values()
    assert replay.path == f"data/items/exploretom_random/{'a' * 32}.jsonl" and len(replay.rows) == 2
    doc = yaml.safe_load(eval_yaml(rows, files))
    assert [t["split"] for t in doc["tasks"]] == ["exploretom_random"]
    assert f"item set {'a' * 12}" in doc["description"] and "2 board row(s)" in doc["description"]
    (items,) = [c for c in card_metadata(rows, files)["configs"] if c["config_name"] == "items"]
    assert items["data_files"] == [{"split": "exploretom_random", "path": replay.path}]  # one file, no glob
    # a set whose file the repo lacks is never chosen; a task with no such file is not defined
    assert replay_sets(rows, {f"data/items/exploretom_random/{'c' * 32}.jsonl"})["exploretom_random"].rows == (limit,)
    assert replay_sets(rows, set()) == {}
