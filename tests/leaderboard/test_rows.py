"""Rows read from real Inspect logs: values, provenance, config hashing and the declared features."""

from __future__ import annotations

import json

import pytest

from tombench.leaderboard import ResultRow, row_from_log
from tombench.leaderboard._from_log import RowOverrides, guess_model_size_b
from tombench.leaderboard._row import SCHEMA_VERSION, card_features, confidence_interval, features


def test_row_reads_scores_breakdowns_and_provenance(logs):
    row = row_from_log(logs["middle"])
    assert row.schema_version == SCHEMA_VERSION
    assert (row.task, row.task_version, row.model, row.provider) == ("tiny_tom", "2", "mockllm/middle-1.5b", "mockllm")
    assert row.accuracy == pytest.approx(0.5)
    assert row.stderr == pytest.approx(0.2236, abs=1e-4)
    assert row.ci_low == pytest.approx(0.5 - 1.96 * 0.2236, abs=1e-3) and row.ci_high == pytest.approx(0.938, abs=1e-3)
    assert (row.samples_total, row.samples_completed, row.samples_errored) == (6, 6, 0)
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
    assert json.loads(row.task_args) == {"dataset_revision": row.dataset_revision, "live": False}
    assert row.model_size_b == 1.5 and row.open_weights is None  # mockllm: unknown
    assert row.eval_id and row.run_id and row.submission_id.startswith(row.created_at[:4])
    assert row.settings_filled is None and row.model_calls is None


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


def test_confidence_interval_without_stderr_is_binomial_and_clipped():
    low, high = confidence_interval(1.0, None, 10)
    assert (low, high) == (1.0, 1.0)
    low, high = confidence_interval(0.5, None, 100)
    assert low == pytest.approx(0.402, abs=1e-3) and high == pytest.approx(0.598, abs=1e-3)


def test_live_task_metrics_and_errored_samples(tmp_path):
    from .tiny_task import make_log

    row = row_from_log(make_log(tmp_path, (0, 1, 2), "mockllm/live", task_args={"live": True}, errors=(5,)))
    assert (row.samples_total, row.samples_errored) == (6, 1)
    assert row.samples_completed == 5 and row.accuracy == pytest.approx(3 / 5)
    assert row.settings_filled == pytest.approx(3 / 5)  # samples 0, 2, 4 of the 5 scored are `filled`
    assert row.model_calls == 35
    assert json.loads(row.task_args)["live"] is True
