"""Rows read from real Inspect logs: values, intervals from the samples, provenance, only tombench tasks, config
hashing and the declared features."""

from __future__ import annotations

import json

import pytest

from tombench.kit.intervals import clustered_interval, t_quantile, wilson_interval
from tombench.leaderboard import LogError, ResultRow, row_from_log
from tombench.leaderboard._from_log import RowOverrides, dataset_identity, guess_model_size_b, is_tombench_task
from tombench.leaderboard._row import SCHEMA_VERSION, card_features, features


def test_row_reads_scores_breakdowns_and_provenance(logs):
    row = row_from_log(logs["middle"])
    assert row.schema_version == SCHEMA_VERSION
    assert (row.task, row.task_version, row.model, row.provider) == (
        "tombench/tiny_tom", "2", "mockllm/middle-1.5b", "mockllm")
    assert row.accuracy == pytest.approx(0.5) and row.metric == "match/accuracy"
    assert row.stderr == pytest.approx(0.2236, abs=1e-4)  # kept as logged, not used for the interval
    # 3/6 right in two stories of three: the variance comes from two stories, one degree of freedom (t = 12.7), so
    # the interval is nearly everything; the design effect is the prior 1.2 pulled down by the estimate
    totals = sorted((sum(v for v, s in zip(row.items.score, row.items.story, strict=True) if s == st), 3.0)
                    for st in set(row.items.story))
    expected = clustered_interval(totals)
    assert (row.ci_low, row.ci_high) == pytest.approx((expected.low, expected.high))
    assert (row.ci_low, row.ci_high) == pytest.approx((0.0084, 0.9916), abs=1e-4)
    assert (row.ci_method, row.stories) == ("wilson-story-deff-t", 2)
    assert row.design_effect == pytest.approx(expected.design_effect, abs=1e-6)
    assert 1.0 < row.design_effect < 1.2
    assert (row.samples_total, row.samples_completed, row.samples_errored) == (6, 6, 0)
    assert len(row.items.key) == 6 and sorted(row.items.score) == [0, 0, 0, 1, 1, 1]
    assert len(set(row.items.story)) == 2 and row.items_digest
    groups = {(b.dimension, b.group): (b.value, b.n) for b in row.breakdowns}
    # samples 0, 2, 3 right: tomi = {0,1,2} -> 2/3, tomi+info = {3,4,5} -> 1/3, order 2 = {1} -> 0
    assert groups[("action_set", "tomi")] == (pytest.approx(2 / 3), 3)
    assert groups[("action_set", "tomi+info")] == (pytest.approx(1 / 3), 3)
    assert groups[("order", "2")] == (0.0, 1)
    assert groups[("interesting", "True")] == (pytest.approx(0.5), 4)
    assert {d for d, _ in groups} == {"action_set", "asymmetric", "interesting", "order", "people", "moves"}
    assert (row.input_tokens, row.output_tokens, row.total_tokens) == (120, 18, 138)
    assert row.temperature == 0.0 and row.epochs == 1 and row.harness == "inspect-ai" and row.harness_version
    assert row.dataset_id == "tombench-test/tiny-tom" and row.dataset_revision.startswith("0123456789ab")
    tomi = next(b for b in row.breakdowns if (b.dimension, b.group) == ("action_set", "tomi"))
    assert (tomi.ci_low, tomi.ci_high) == pytest.approx(wilson_interval((2 / 3) * 3, 3)) and tomi.stories == 1
    assert json.loads(row.task_args) == {"dataset_revision": row.dataset_revision, "live": False}
    assert row.model_size_b == 1.5 and row.open_weights is None  # mockllm: unknown
    assert row.eval_id and row.run_id and row.submission_id.startswith(row.created_at[:4])
    assert row.settings_filled is None and row.model_calls is None and row.settings_total is None


def test_config_hash_separates_settings_not_reruns(logs):
    strong, rerun, hot = (row_from_log(logs[k]) for k in ("strong", "strong_rerun", "strong_hot"))
    assert strong.config_hash == rerun.config_hash  # same configuration, run twice
    assert strong.dedup_key == rerun.dedup_key and strong.submission_id != rerun.submission_id
    assert hot.config_hash != strong.config_hash  # temperature shapes the run


def test_same_log_gives_the_same_row(logs):
    assert row_from_log(logs["weak"]) == row_from_log(logs["weak"])


def test_overrides_fill_what_the_log_cannot_know(logs):
    row = row_from_log(logs["weak"], RowOverrides(submitter="ada", notes="n", model_revision="abc", open_weights=True,
                                                  model_size_b=0.2))
    assert (row.submitter, row.notes, row.model_revision, row.open_weights, row.model_size_b) == (
        "ada", "n", "abc", True, 0.2)


def test_json_round_trip_and_old_files_load(logs):
    row = row_from_log(logs["strong"])
    assert ResultRow.from_json(row.to_json()) == row
    data = row.to_dict()
    del data["notes"]  # a file from before a field existed
    data["future_field"] = 1  # or written by a newer schema
    assert ResultRow.from_dict(data).notes is None


def test_card_features_are_what_datasets_reads():
    from datasets import Features

    declared = Features._from_yaml_list(card_features())
    assert list(declared) == list(features())
    assert declared["breakdowns"].feature["n"].dtype == "int64"
    assert declared["open_weights"].dtype == "bool" and declared["accuracy"].dtype == "float64"
    assert declared["created_at"].dtype == "timestamp[us, tz=UTC]"


@pytest.mark.parametrize("name, size", [("hf/Qwen/Qwen2.5-7B-Instruct", 7.0), ("vllm/HuggingFaceTB/SmolLM2-135M", 0.135),
                                        ("openai/gpt-4o", None), ("hf/mistralai/Mixtral-8x7B", None),
                                        ("hf/meta-llama/Llama-3.1-70B", 70.0)])
def test_model_size_from_name(name, size):
    assert guess_model_size_b(name) == size


def test_intervals_are_honest_at_zero_and_one_hundred_percent(logs):
    """Issue #18.1: a logged stderr of 0 used to give [1, 1] for all right and [0, 0] for all wrong."""
    strong, weak = row_from_log(logs["strong"]), row_from_log(logs["weak"])
    assert strong.accuracy == 1.0 and strong.stderr == 0.0
    # 6/6 and 0/6 in two stories of three: the prior design effect 1.2 (the data cannot show one) and t on 1 df
    full = clustered_interval([(3.0, 3.0), (3.0, 3.0)])
    assert full.design_effect == pytest.approx(1.2) and full.quantile == pytest.approx(12.706, abs=1e-3)
    assert strong.ci_high == 1.0 and strong.ci_low == pytest.approx(full.low) and full.low > 0
    assert weak.accuracy == 0.0 and weak.ci_low == 0.0 and weak.ci_high == pytest.approx(1 - full.low)
    for b in strong.breakdowns + weak.breakdowns:  # every breakdown group too
        assert b.ci_low is not None and b.ci_high is not None and b.ci_high - b.ci_low > 0.2


def test_questions_of_one_story_widen_the_interval(logs):
    # 5/6 right; the miss is in the key story: the stories differ, the design effect is 1.2, n_eff = 5, t on 1 df
    row = row_from_log(logs["strong_rerun"])
    assert row.design_effect == pytest.approx(1.2)
    assert (row.ci_low, row.ci_high) == pytest.approx(wilson_interval((5 / 6) * 5, 5, z=t_quantile(0.95, 1)))
    assert row.ci_high - row.ci_low > wilson_interval((5 / 6) * 6, 6)[1] - wilson_interval((5 / 6) * 6, 6)[0]


def test_only_tombench_tasks_are_ranked(tmp_path):
    """Issue #18.3: a log of an unrelated task (`hello`, `includes()`) is refused with one line."""
    from .tiny_task import make_hello_log

    with pytest.raises(LogError, match="'hello' is not a tombench task") as err:
        row_from_log(make_hello_log(tmp_path))
    assert "\n" not in str(err.value)
    # decided by the registry prefix and the package that ships the task, not by a list of today's task names
    assert is_tombench_task("tombench/fantom_future_task", {"inspect_ai": "0.3", "tombench": "0.2"})
    assert is_tombench_task("exploretom_random", {"inspect_ai": "0.3", "tombench": "0.2"})  # run as an object
    assert not is_tombench_task("hello", {"inspect_ai": "0.3"})
    assert not is_tombench_task("tombench/x", {"inspect_ai": "0.3", "someone_else": "1.0"})  # a borrowed prefix
    assert not is_tombench_task(None, {"inspect_ai": "0.3"})
    # a task object of the package, evaluated where Inspect resolved no distribution for it: its bare name
    assert is_tombench_task("exploretom_adversarial", {"inspect_ai": "0.3"})
    assert not is_tombench_task("exploretom_adversarial", {"inspect_ai": "0.3"}, task_file="mine.py")  # borrowed
    # ... or loaded by Inspect as a file of the checkout
    assert is_tombench_task("exploretom_adversarial", {"inspect_ai": "0.3"},
                            task_file="tombench/tasks/exploretom/adversarial.py")
    assert not is_tombench_task("exploretom_adversarial", {"inspect_ai": "0.3", "someone_else": "1.0"})
    assert not is_tombench_task("my_task", {"inspect_ai": "0.3"})


@pytest.mark.parametrize("name, location, meta, expected", [
    # exploretom_static, public sample: the Hub id and the pinned commit from its hf:// location and provenance
    ("exploretom_static", "hf://datasets/facebook/ExploreToM/data.csv",
     {"data": "hf://datasets/facebook/ExploreToM/data.csv", "revision": "a" * 40},
     ("facebook/ExploreToM", "a" * 40)),
    # exploretom_static / tomsynth with a Hub id resolved to a commit
    ("tomsynth", "org/tomsynth-items", {"data": "org/tomsynth-items", "revision": "b" * 40, "split": "train"},
     ("org/tomsynth-items", "b" * 40)),
    # a local file is not a Hub id (and a path with one slash is not passed off as one: no resolved revision)
    ("tomsynth", "runs/items.jsonl", {"data": "runs/items.jsonl"}, ("tomsynth:runs/items.jsonl", None)),
    # persuasion: a Hub provenance record
    ("ctompersu_fixed", None, {"persuasion_data": {"source": "hub", "repo": "org/CToMPersu", "revision": "main",
                                                   "resolved_revision": "c" * 40}}, ("org/CToMPersu", "c" * 40)),
    # generated splits and packaged examples: named by the log's dataset name and location, never a Hub id
    ("exploretom_random", "seed=0", {"benchmark": "exploretom", "seed": 0}, ("exploretom_random:seed=0", None)),
    ("tomi", "inspect_ai example_dataset('theory_of_mind')", {"benchmark": "tomi"},
     ("tomi:inspect_ai example_dataset('theory_of_mind')", None)),
    (None, None, {"benchmark": "exploretom", "live_adversarial": True}, ("exploretom_adversarial", None)),
    # explicit task metadata wins
    ("x", "y", {"dataset_id": "org/explicit", "dataset_revision": "d" * 40}, ("org/explicit", "d" * 40)),
])
def test_dataset_identity_of_every_current_task(name, location, meta, expected):
    assert dataset_identity(name, location, meta, "tombench/exploretom_adversarial") == expected


def test_real_tombench_task_log_gets_story_clustered_intervals(tmp_path):
    """A real package task (ExploreToM random split, 30 questions) answered by the offline `recency` baseline."""
    from inspect_ai import eval as inspect_eval

    from tombench.tasks.exploretom.random import exploretom_random

    [log] = inspect_eval(exploretom_random(), model="tombench/recency", limit=30, log_dir=str(tmp_path),
                         display="none")
    row = row_from_log(log.location)
    assert row.task == "tombench/exploretom_random" and row.package_version
    assert row.dataset_id == "exploretom_random:seed=0" and row.dataset_revision is None
    assert row.samples_completed == len(row.items.key) == 30
    assert row.stories is not None and 1 < row.stories < 30 and row.ci_method == "wilson-story-deff-t"
    assert row.design_effect >= 1 and row.ci_low < row.accuracy < row.ci_high
    n_eff = 30 / row.design_effect
    assert (row.ci_low, row.ci_high) == pytest.approx(
        wilson_interval(row.accuracy * n_eff, n_eff, z=t_quantile(0.95, row.stories - 1)))


def test_live_task_metrics_and_errored_samples(tmp_path):
    from .tiny_task import make_log

    row = row_from_log(make_log(tmp_path, (0, 1, 2), "mockllm/live", task_args={"live": True}, errors=(5,)))
    assert (row.samples_total, row.samples_errored) == (6, 1)
    assert row.samples_completed == 5 and row.accuracy == pytest.approx(3 / 5)
    assert row.settings_filled == pytest.approx(3 / 5)  # samples 0, 2, 4 of the 5 scored are `filled`
    assert row.settings_total == 5  # the task's `settings` metadata: the interval's n
    assert row.model_calls == 35
    assert json.loads(row.task_args)["live"] is True


def test_a_log_without_samples_gets_wilson_on_its_counts(tmp_path):
    from inspect_ai import eval as inspect_eval

    from .tiny_task import mock_model, tiny_tom

    [log] = inspect_eval(tiny_tom(), model=mock_model((0, 1, 2, 3, 4, 5), "mockllm/all-right"), log_dir=str(tmp_path),
                         display="none", log_samples=False)
    row = row_from_log(log.location)
    assert row.accuracy == 1.0 and row.ci_method == "wilson-no-samples" and row.stories is None
    assert (row.ci_low, row.ci_high) == pytest.approx(wilson_interval(1.0 * 6, 6)) and row.items.key == []
    tomi = next(b for b in row.breakdowns if (b.dimension, b.group) == ("action_set", "tomi"))
    assert (tomi.ci_low, tomi.ci_high) == pytest.approx(wilson_interval(1.0 * 3, 3))
