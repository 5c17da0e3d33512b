"""Inspect's `--limit` and `--sample-id` on the live task (issue #48 point 5): never `accuracy nan` in silence.

`--limit N` used to search N settings and then drop every question sample they added (Inspect counts added samples
against the limit). A search sample of such a run now ends before any model call with one line naming
`-T settings_limit=N`, which searches the first N settings and scores all their questions; `--sample-id` that
selects a search without its questions is refused the same way (tombench.tasks.exploretom.eval_flags)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from tombench.kit.errors import OptionError
from tombench.tasks.exploretom import eval_flags
from tombench.tasks.exploretom.adversarial import exploretom_adversarial
from tombench.tasks.exploretom.eval_flags import EvalFlags, refusal

#: two settings (tomi, tomi+asymmetric), the recency model fails both: a few seconds in one process
SMALL = {"action_sets": "tomi", "asymmetric": "both", "people": 2, "moves": 2, "budget": 10, "workers": 1}
SEARCH_MD = {"setting_id": "tomi|p2|m2|r1", "attempt": 0}


def _kinds(log) -> dict[str, list]:  # noqa: ANN001 - an EvalLog
    out: dict[str, list] = {"search": [], "question": []}
    for s in log.samples:
        out[s.metadata["tombench_kind"]].append(s)
    return out


# --- the rule -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("limit", [2, (0, 2)])
def test_any_limit_refuses_a_search_and_names_settings_limit(limit: int | tuple[int, int]) -> None:
    message = refusal(EvalFlags(limit, None), "search|tomi|p2|m2|r1|0", SEARCH_MD)
    assert message is not None and message.startswith(f"--limit {2 if limit == 2 else '0-2'} cannot limit")
    assert "-T settings_limit=N" in message and "\n" not in message


@pytest.mark.parametrize(("sample_id", "refused"), [
    ("search|tomi|p2|m2|r1|0", True),  # the search alone: its questions would be dropped
    (["search|tomi|p2|m2|r1|0", "tomi|p2|m2|r1|*"], False),  # what the refusal says to add
    ("*tomi|p2|m2|r1|*", False),
    ("*", False),
    ("exploretom_adversarial:*", False),  # a task-scoped selector
    ("search|*", True),
])
def test_sample_id_must_select_the_questions_of_the_searches_it_selects(sample_id, refused: bool) -> None:  # noqa: ANN001
    message = refusal(EvalFlags(None, sample_id), "search|tomi|p2|m2|r1|0", SEARCH_MD)
    assert (message is not None) is refused
    if refused:
        assert "'tomi|p2|m2|r1|*'" in message and "tomi|p2|m2|r1|0|q00" in message


def test_no_flags_no_refusal() -> None:
    assert refusal(None, "search|x|0", SEARCH_MD) is None
    assert refusal(EvalFlags(None, None), "search|x|0", SEARCH_MD) is None


def test_settings_limit_is_checked_when_the_task_is_built() -> None:
    with pytest.raises(OptionError, match=r"Invalid settings_limit value: 0\. Must be"):
        exploretom_adversarial(**SMALL, settings_limit=0)
    task = exploretom_adversarial(**SMALL, settings_limit=1)
    assert [s.metadata["setting_id"] for s in task.dataset] == ["tomi|p2|m2|r1"]
    assert task.metadata["settings"] == 1  # the run's settings: settings_filled's denominator in the leaderboard


# --- end to end ---------------------------------------------------------------------------------------------------


@pytest.mark.timeout(300)
def test_limit_ends_every_search_before_any_model_call(tmp_path: Path) -> None:
    [log] = inspect_eval(exploretom_adversarial(**SMALL), model="tombench/recency", limit=2, log_dir=str(tmp_path),
                         display="none")
    kinds = _kinds(log)
    assert len(kinds["search"]) == 2 and kinds["question"] == []
    for s in kinds["search"]:
        assert s.error is not None and "--limit 2 cannot limit exploretom_adversarial" in s.error.message
        assert not s.model_usage and not [e for e in s.events if e.event == "model"]  # nothing was asked
    assert eval_flags._EVALS == {} and eval_flags._SAMPLES == {}  # the hook keeps nothing once the eval ends


@pytest.mark.timeout(300)
def test_settings_limit_scores_every_question_of_the_first_settings(tmp_path: Path) -> None:
    """`-T settings_limit=1` is the whole run's first setting: its search and every question of it, the same
    samples and scores as in the run of both settings."""
    [whole] = inspect_eval(exploretom_adversarial(**SMALL), model="tombench/recency", log_dir=str(tmp_path / "a"),
                           display="none")
    [first] = inspect_eval(exploretom_adversarial(**SMALL, settings_limit=1), model="tombench/recency",
                           log_dir=str(tmp_path / "b"), display="none")
    assert first.status == "success" and whole.status == "success"
    kinds = _kinds(first)
    assert [s.id for s in kinds["search"]] == ["search|tomi|p2|m2|r1|0"] and kinds["question"]

    def scores(log, setting: str) -> dict:  # noqa: ANN001
        return {s.id: s.scores["adversarial_answer"].value for s in log.samples
                if s.metadata["tombench_kind"] == "question" and s.metadata["setting_id"] == setting}

    assert scores(first, "tomi|p2|m2|r1") == scores(whole, "tomi|p2|m2|r1")
    assert len(first.samples) == 1 + len(scores(whole, "tomi|p2|m2|r1"))
    accuracy = next(s for s in first.results.scores if s.name == "adversarial_answer").metrics["accuracy"].value
    assert 0 <= accuracy < 1


@pytest.mark.timeout(300)
def test_sample_id_with_the_questions_scores_them_and_without_them_is_refused(tmp_path: Path) -> None:
    search = "search|tomi|p2|m2|r1|0"
    [alone] = inspect_eval(exploretom_adversarial(**SMALL), model="tombench/recency", sample_id=search,
                           log_dir=str(tmp_path / "a"), display="none")
    assert [s.id for s in alone.samples] == [search]
    assert "--sample-id selects search|tomi|p2|m2|r1|0" in alone.samples[0].error.message
    [both] = inspect_eval(exploretom_adversarial(**SMALL), model="tombench/recency",
                          sample_id=[search, "tomi|p2|m2|r1|*"], log_dir=str(tmp_path / "b"), display="none")
    assert both.status == "success", both.error
    kinds = _kinds(both)
    assert len(kinds["search"]) == 1 and kinds["question"]
    assert all(s.metadata["setting_id"] == "tomi|p2|m2|r1" for s in kinds["question"])


@pytest.mark.timeout(300)
def test_inspect_eval_with_limit_says_so_in_one_line(tmp_path: Path) -> None:
    """What the user typed in the issue: `inspect eval tombench/exploretom_adversarial --limit 2`."""
    options = [x for k, v in SMALL.items() for x in ("-T", f"{k}={v}")]
    res = subprocess.run([sys.executable, "-m", "inspect_ai", "eval", "tombench/exploretom_adversarial", *options,
                          "--model", "tombench/recency", "--limit", "2", "--display", "plain", "--log-dir",
                          str(tmp_path / "logs")], capture_output=True, text=True, timeout=280, cwd=tmp_path,
                         env={**os.environ, "COLUMNS": "400"})
    out = res.stdout + res.stderr
    assert "Traceback" not in out and not re.search(r"accuracy\s+nan", out), out  # no silent nan
    refusals = [line for line in out.splitlines() if "cannot limit exploretom_adversarial" in line]
    assert len(refusals) == 2 and all("-T settings_limit=N" in line for line in refusals), out
    assert "2 of 2 executed samples (100%) had errors" in out
    assert "hooks enabled" not in out  # the hook is registered when the task is built: after Inspect's start-up banner
