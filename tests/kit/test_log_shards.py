"""The N shard logs of one run (`-T shard=K/N`) are one run everywhere (issue #28 point 4): one settings key in
kit.logs, one column in `tombench report`, one row in `tombench leaderboard push` (equal to the unsharded run's),
one set of stories in `export-training`; a missing or doubled shard is one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from inspect_ai import eval

import tombench._registry  # noqa: F401  (registers the tombench/<name> models)
from tombench.cli import main
from tombench.kit.logs import read_log, settings_key, shard_of
from tombench.leaderboard import LocalStore, row_from_log
from tombench.reports import exploretom_records, load_records, repeat_notes
from tombench.tasks.exploretom.adversarial import exploretom_adversarial
from tombench.tasks.exploretom.random import exploretom_random

RANDOM = {"story_types": "tomi,fantom-private", "people": "2,3", "moves": 2}
#: one process for the search: a worker count changes no story (tests/generators/exploretom/search/test_workers.py),
#: and each run would pay its workers' start-up
LIVE = {"action_sets": "tomi", "asymmetric": "both", "people": "2,3", "moves": 2, "budget": 8, "mode": "improved",
        "stories_per_setting": 2, "question_orders": "1", "workers": 1}


def _eval(task, folder: Path) -> Path:
    """One run with a response cache of its own: the runs are compared field by field, token usage included, and a
    response cached by an earlier run (or by another process sharing the user's cache) is served without usage."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("INSPECT_CACHE_DIR", str(folder.parent / f"cache-{folder.name}-{len(list(folder.parent.iterdir()))}"))
        (log,) = eval(task, model="tombench/recency", log_dir=str(folder), display="none")
    assert log.status == "success", log.error
    return Path(log.location)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("shard_logs")
    out = {"whole": _eval(exploretom_random(**RANDOM), root / "whole")}
    for k in (1, 2, 3):
        out[f"{k}/3"] = _eval(exploretom_random(**RANDOM, shard=f"{k}/3"), root / "shards")
    out["2/3 again"] = _eval(exploretom_random(**RANDOM, shard="2/3"), root / "again")
    out["live"] = _eval(exploretom_adversarial(**LIVE), root / "live")
    for k in (1, 2):
        out[f"live {k}/2"] = _eval(exploretom_adversarial(**LIVE, shard=f"{k}/2"), root / "live_shards")
    return out


@pytest.fixture(autouse=True)
def _isolated(isolated_hf: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOMBENCH_LEADERBOARD_HOME", str(tmp_path / "boards"))


def test_shard_logs_share_one_settings_key(logs):
    headers = {k: read_log(p, header_only=True) for k, p in logs.items()}
    assert [shard_of(headers[f"{k}/3"]) for k in (1, 2, 3)] == [(1, 3), (2, 3), (3, 3)]
    assert shard_of(headers["whole"]) is None
    keys = {settings_key(headers[k]) for k in ("1/3", "2/3", "3/3", "2/3 again")}
    assert len(keys) == 1 and settings_key(headers["whole"]) not in keys


def _cells(records) -> list[tuple]:
    return sorted((r.action_set, r.asymmetric, r.order, r.people, r.moves, r.interesting, r.correct)
                  for r in records)


def test_report_reads_the_shards_as_one_run_with_the_unsharded_questions(logs):
    lines: list[str] = []
    recs = exploretom_records(load_records([logs[f"{k}/3"] for k in (1, 2, 3)], on_skip=lines.append))
    whole = exploretom_records(load_records([logs["whole"]]))
    assert lines == [] and len({r.column for r in recs}) == 1
    run = recs[0].column
    assert run.repeats == 1 and run.short_tag == "" and len(run.logs) == 3
    assert _cells(recs) == _cells(whole) and recs  # each question once: no loss, no double count
    assert repeat_notes(r.column for r in recs) == []


def test_report_says_a_missing_or_doubled_shard_in_one_line(logs):
    lines: list[str] = []
    load_records([logs["1/3"], logs["3/3"]], on_skip=lines.append)
    assert lines == ["note: tombench/recency on exploretom_random: shard 2/3 missing; a sharded run needs each of "
                     "its 3 shards' logs once"]
    lines.clear()
    recs = load_records([logs[k] for k in ("1/3", "2/3", "3/3", "2/3 again")], on_skip=lines.append)
    assert len(lines) == 1 and "shard 2/3 more than once" in lines[0] and "missing" not in lines[0]
    runs = {r.column for r in recs}
    assert sorted((r.repeat, r.repeats, r.partial) for r in runs) == [(1, 2, ""), (2, 2, "shard 2/3 only")]


def store_items(ref, log: Path) -> list:
    """The details an unsharded run's submission writes (one per scored item)."""
    from tombench.leaderboard._details import submission_from_log

    return submission_from_log(log).details


def _push(paths, board: Path):
    return CliRunner().invoke(main, ["leaderboard", "push", *map(str, paths), "--local-dir", str(board)])


@pytest.mark.parametrize(("shards", "whole"), [(("1/3", "2/3", "3/3"), "whole"), (("live 1/2", "live 2/2"), "live")])
def test_leaderboard_push_makes_one_row_equal_to_the_unsharded_run(logs, tmp_path, shards, whole):
    res = _push([logs[k] for k in shards], tmp_path / "board")
    assert res.exit_code == 0, res.output
    store = LocalStore(tmp_path / "board")
    (row,) = store.rows()
    ref = row_from_log(logs[whole])
    details = store.details_path(row)  # the per-sample details of all N shards, each sample once
    assert details is not None and len(details.read_text().splitlines()) == len(store_items(ref, logs[whole]))
    assert "shard" not in json.loads(row.task_args)
    for field in ("accuracy", "ci_low", "ci_high", "samples_total", "samples_completed", "items_digest", "stories",
                  "config_hash", "settings_filled", "settings_total", "model_calls", "total_tokens"):
        assert getattr(row, field) == getattr(ref, field), field
    assert [(b.dimension, b.group, b.n, b.value) for b in row.breakdowns] == \
        [(b.dimension, b.group, b.n, b.value) for b in ref.breakdowns]
    again = _push([logs[k] for k in reversed(shards)], tmp_path / "board")
    assert "already kept" in again.output and len(LocalStore(tmp_path / "board").rows()) == 1


@pytest.mark.parametrize(("given", "why"), [(("1/3", "3/3"), "shard 2/3 missing"),
                                            (("1/3", "2/3", "3/3", "2/3 again"), "shard 2/3 more than once")])
def test_leaderboard_push_refuses_missing_or_doubled_shards_in_one_line(logs, tmp_path, given, why):
    res = _push([logs[k] for k in given], tmp_path / "board")
    assert res.exit_code != 0 and "Traceback" not in res.output
    refusals = [line for line in res.output.splitlines() if line.startswith("refused")]
    assert len(refusals) == 1 and why in refusals[0]
    assert LocalStore(tmp_path / "board").rows() == []


def test_export_training_reads_shard_logs_and_search_folders_without_duplicates(logs, tmp_path):
    def export(*inputs) -> list[str]:
        out = tmp_path / "train.jsonl"
        res = CliRunner().invoke(main, ["export-training", *map(str, inputs), "--text", "raw", "-o", str(out)])
        assert res.exit_code == 0, res.output
        return sorted(out.read_text().splitlines())

    whole = export(logs["live"])
    assert whole
    assert export(logs["live 1/2"], logs["live 2/2"]) == whole
    assert export(logs["live 1/2"].parent) == whole  # a folder of shard logs
    assert export(logs["live 1/2"], logs["live 2/2"], logs["live"]) == whole  # a story given twice is one story
    res = CliRunner().invoke(main, ["export-training", str(logs["whole"]), "-o", str(tmp_path / "x.jsonl")])
    assert res.exit_code != 0 and "not a live adversarial log" in res.output


def test_export_training_reads_search_out_folders(tmp_path):
    args = ["search", "--model", "tombench/recency", "--story-types", "tomi", "--people", "2,3", "--moves", "2",
            "--stories-per-setting", "2", "--budget", "10", "--workers", "1"]
    runner = CliRunner()
    for out in ("all", "s1", "s2"):
        shard = [] if out == "all" else ["--shard", f"{out[1]}/2"]
        assert runner.invoke(main, [*args, *shard, "--out", str(tmp_path / out)]).exit_code == 0

    def export(*inputs) -> list[str]:
        res = runner.invoke(main, ["export-training", *map(str, inputs), "--text", "raw", "-o", str(tmp_path / "t")])
        assert res.exit_code == 0, res.output
        return sorted((tmp_path / "t").read_text().splitlines())

    whole = export(tmp_path / "all")
    assert whole and export(tmp_path / "s1", tmp_path / "s2") == whole
    assert export(tmp_path / "s1", tmp_path / "s2" / "stories.jsonl", tmp_path / "s2") == whole
