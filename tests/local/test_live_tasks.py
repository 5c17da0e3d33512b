"""The ExploreToM tasks and the search CLI against the REAL local model (SmolLM2-135M via llama.cpp), offline.

Run by default and in CI (which installs the `local` extra and the model); they skip with the reason otherwise.
Budgets are tiny: each model call costs up to 40 generated tokens on 2 CPU cores.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from inspect_ai import eval

import tombench._registry  # noqa: F401
from tombench.generators.exploretom.search.runner import read_jsonl
from tombench.tasks.exploretom.adversarial import exploretom_adversarial
from tombench.tasks.exploretom.random import exploretom_random

pytestmark = pytest.mark.local_model


def _metrics(log, scorer: str) -> dict[str, float]:
    score = next(s for s in log.results.scores if s.name == scorer)
    return {k: v.value for k, v in score.metrics.items()}


def test_live_adversarial_task_against_the_real_model(local_model_server, tmp_path):
    task = exploretom_adversarial(action_sets="tomi", asymmetric="plain", people=2, moves=2, budget=6,
                                  question_orders="1,2")
    (log,) = eval(task, model=local_model_server.get_model(), log_dir=str(tmp_path), display="none",
                  max_connections=2)
    assert log.status == "success", log.error
    outcome = _metrics(log, "search_outcome")
    assert outcome["model_calls"] > 0  # the real model drove the search
    (search,) = [s for s in log.samples if s.metadata.get("tombench_kind") == "search"]
    assert search.metadata["search"]["nodes_evaluated"] > 0
    usage = log.stats.model_usage
    assert usage and sum(u.output_tokens for u in usage.values()) > 0
    questions = [s for s in log.samples if s.metadata.get("tombench_kind") == "question"]
    if search.metadata["search"]["found"]:
        assert questions and all(q.scores for q in questions)
        answers = _metrics(log, "adversarial_answer")
        assert "action_set=tomi" in answers and "order=1" in answers and 0 <= answers["accuracy"] < 1
    else:
        assert outcome["settings_filled"] == 0 and not questions


def test_random_split_against_the_real_model(local_model_server, tmp_path):
    task = exploretom_random(story_types="tomi", people=2, moves=2, stories_per_setting=4, question_orders="1,2")
    (log,) = eval(task, model=local_model_server.get_model(), log_dir=str(tmp_path), display="none", limit=6)
    assert log.status == "success", log.error
    m = _metrics(log, "tom_answer")
    assert 0 <= m["accuracy"] <= 1 and m.get("order=1:n", 0) + m.get("order=2:n", 0) == 6
    assert all(s.output.completion for s in log.samples)


def test_search_cli_resumes_after_a_kill(local_model_server, tmp_path):
    out = tmp_path / "run"
    env = {**os.environ, **local_model_server.env}
    cmd = [sys.executable, "-m", "tombench", "search", "--model", local_model_server.model, "--story-types", "tomi",
           "--asymmetric", "plain", "--people", "2", "--moves", "2", "--stories-per-setting", "3", "--budget", "3",
           "--out", str(out)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None:
        if len(read_jsonl(out / "attempts.jsonl")) >= 1:
            break
        time.sleep(0.5)
    proc.kill()  # SIGKILL: no clean-up at all
    proc.wait()
    before = read_jsonl(out / "attempts.jsonl")
    assert before, "the first run finished no search before the deadline"
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    after = read_jsonl(out / "attempts.jsonl")
    assert after[: len(before)] == before  # nothing finished before the kill was redone or lost
    assert len({a["attempt"] for a in after}) == len(after)
    assert sum(a["spent"] for a in after) == 9  # the whole setting budget, 3 stories x 3, spent exactly once
