"""Sharding the settings grid (issue #28 point 4): the N shards' outputs together are the unsharded run's, for the
CLI runner, the live adversarial task and the random split; bad shard specs are one line."""

from __future__ import annotations

import asyncio
import json

import pytest
from click.testing import CliRunner
from inspect_ai import eval

import tombench._registry  # noqa: F401  (registers the tombench/<name> models)
from tombench.cli import main
from tombench.dsl import Setting, settings_grid
from tombench.generators.exploretom.contexts import load_context_bank
from tombench.generators.exploretom.search.astar import AStar
from tombench.generators.exploretom.search.run_options import shard_grid
from tombench.generators.exploretom.search.runner import RunConfig, read_jsonl, run_searches
from tombench.kit.errors import OptionError
from tombench.kit.options import check_shard
from tombench.models._baselines import answer
from tombench.tasks.exploretom.adversarial import exploretom_adversarial
from tombench.tasks.exploretom.random import exploretom_random

GRID = settings_grid(["tomi", "tomi+asymmetric", "fantom-private"], [2, 3], [2])


async def _recency(prompts):
    return [answer("recency", p.user) for p in prompts]


def test_shards_partition_the_grid_round_robin():
    parts = [shard_grid(GRID, (k, 4)) for k in (1, 2, 3, 4)]
    places = sorted(j for idx, _ in parts for j in idx)
    assert places == list(range(len(GRID)))  # every setting once, none twice
    assert parts[1][0] == [1, 5] and parts[1][1] == [GRID[1], GRID[5]]
    assert shard_grid(GRID, (1, 1)) == (list(range(len(GRID))), GRID)


@pytest.mark.parametrize("spec", ["0/2", "3/2", "a/b", "2", "1/0", "-1/2", "1/2/3"])
def test_bad_shard_specs_are_one_line(spec):
    with pytest.raises(OptionError, match=r"^Invalid shard value: .* Must be K/N with 1 <= K <= N") as err:
        check_shard("shard", spec)
    assert "\n" not in str(err.value)
    with pytest.raises(OptionError, match="Invalid shard value"):
        exploretom_random(story_types="tomi", people=2, moves=2, shard=spec)
    with pytest.raises(OptionError, match="Invalid shard value"):
        exploretom_adversarial(action_sets="tomi", people=2, moves=2, shard=spec)
    r = CliRunner().invoke(main, ["search", "--story-types", "tomi", "--people", "2", "--moves", "2",
                                  "--shard", spec, "--out", "unused"])
    assert r.exit_code != 0 and "Invalid --shard value" in r.output and "Traceback" not in r.output


def _no_ids(rec: dict) -> str:
    return json.dumps(rec, sort_keys=True)


@pytest.mark.parametrize("mode", ["paper", "improved"])
def test_runner_shards_union_is_the_unsharded_run(tmp_path, mode):
    """Stories and per-setting attempt records of shards 1/3, 2/3, 3/3 are, as sets, those of the whole run (slot
    contexts follow a setting's place in the whole grid, seeds follow the setting)."""
    run = RunConfig(stories_per_setting=2, budget_per_story=8, seed=5, model="recency",
                    search=AStar(budget=8, mode=mode, budget_unit="calls"))
    bank = load_context_bank()
    asyncio.run(run_searches(GRID, bank, _recency, run, tmp_path / "all"))
    for k in (1, 2, 3):
        idx, part = shard_grid(GRID, (k, 3))
        asyncio.run(run_searches(part, bank, _recency, run, tmp_path / f"s{k}", setting_indices=idx))
    for name in ("stories.jsonl", "attempts.jsonl"):
        whole = [_no_ids(r) for r in read_jsonl(tmp_path / "all" / name)]
        shards = [_no_ids(r) for k in (1, 2, 3) for r in read_jsonl(tmp_path / f"s{k}" / name)]
        assert sorted(shards) == sorted(whole) and len(set(shards)) == len(shards)
    assert read_jsonl(tmp_path / "all" / "stories.jsonl")  # the comparison is not between two empty runs
    for k in (2, 1, 3):  # one machine, the shards one after another into one folder: the same run again
        idx, part = shard_grid(GRID, (k, 3))
        asyncio.run(run_searches(part, bank, _recency, run, tmp_path / "seq", setting_indices=idx))
    for name in ("stories.jsonl", "attempts.jsonl"):
        assert sorted(map(_no_ids, read_jsonl(tmp_path / "seq" / name))) == \
            sorted(map(_no_ids, read_jsonl(tmp_path / "all" / name)))


def test_cli_shards_union_is_the_unsharded_run(tmp_path):
    args = ["search", "--model", "tombench/recency", "--story-types", "tomi,fantom-private", "--people", "2,3",
            "--moves", "2", "--stories-per-setting", "2", "--budget", "10", "--seed", "2",
            "--workers", "1"]  # one process: a worker count changes no story (test_workers.py), it costs start-ups
    assert CliRunner().invoke(main, [*args, "--out", str(tmp_path / "all")]).exit_code == 0
    for k in (1, 2):
        r = CliRunner().invoke(main, [*args, "--shard", f"{k}/2", "--out", str(tmp_path / f"s{k}")])
        assert r.exit_code == 0, r.output
    whole = sorted(_no_ids(r) for r in read_jsonl(tmp_path / "all" / "stories.jsonl"))
    parts = sorted(_no_ids(r) for k in (1, 2) for r in read_jsonl(tmp_path / f"s{k}" / "stories.jsonl"))
    assert parts == whole and whole
    settings = [{r["setting_id"] for r in read_jsonl(tmp_path / f"s{k}" / "stories.jsonl")} for k in (1, 2)]
    assert not settings[0] & settings[1]


def test_random_task_shards_union_is_the_unsharded_split():
    def ids_and_inputs(task):
        return {(s.id, s.input, s.target) for s in task.dataset}

    whole = ids_and_inputs(exploretom_random(story_types="tomi,fantom-private", stories_per_setting=2))
    parts = [ids_and_inputs(exploretom_random(story_types="tomi,fantom-private", stories_per_setting=2,
                                              shard=f"{k}/3")) for k in (1, 2, 3)]
    assert set().union(*parts) == whole and sum(map(len, parts)) == len(whole)
    assert exploretom_random(story_types="tomi", shard="2/3").metadata["shard"] == "2/3"


def test_adversarial_task_shards_union_is_the_unsharded_run(tmp_path):
    """The live task's search samples and the stories each shard's searches keep: together the unsharded run's."""
    def run(**kw):
        task = exploretom_adversarial(action_sets="tomi", asymmetric="both", people="2,3", moves=2, budget=8,
                                      mode="improved", stories_per_setting=2, question_orders="1", workers=1, **kw)
        (log,) = eval(task, model="tombench/recency", log_dir=str(tmp_path), display="none")
        assert log.status == "success", log.error
        # the search's record without its calls' account (seconds spent in calls differ from run to run)
        return {(s.id, json.dumps({k: v for k, v in (s.metadata.get("search") or {}).items() if k != "calls"},
                                  sort_keys=True),
                 s.scores["adversarial_answer"].value if "adversarial_answer" in (s.scores or {}) else None)
                for s in log.samples}

    whole = run()
    parts = [run(shard=f"{k}/3") for k in (1, 2, 3)]
    assert set().union(*parts) == whole and sum(map(len, parts)) == len(whole)
    assert any(i.startswith("search|tomi+asymmetric|p3") for i, _, _ in parts[0])  # place 3 of 4 -> shard 1/3
    with pytest.raises(OptionError, match="shard 3/3 has no settings"):
        exploretom_adversarial(action_sets="tomi", asymmetric="plain", people=2, moves=2, shard="3/3")


def test_settings_keep_their_place_in_the_whole_grid():
    _, part = shard_grid(GRID, (2, 2))
    assert part == [GRID[1], GRID[3], GRID[5]] and all(isinstance(s, Setting) for s in part)
