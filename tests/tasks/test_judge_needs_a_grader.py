"""`-T check=judge` without `--model-role grader=...` is refused in one line when the task is built, before any model
call (issue #48 point 5): the live task used to run its whole search and then fail every question sample, and the
fixed tasks ended in Inspect's traceback panel, both exiting 0."""

from __future__ import annotations

import inspect as pyinspect
import subprocess
import sys
import typing
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

import tombench._registry as registry
from tombench.kit.errors import OptionError
from tombench.scorers.story_questions import NO_GRADER

STATIC = Path(__file__).parent / "exploretom" / "fixtures" / "exploretom_sample.csv"

#: every task that takes check=judge, with the options it needs to be built offline (the refusal comes before any
#: data is read: `stories` need not exist)
JUDGE_TASKS = {
    "exploretom_random": {},
    "exploretom_adversarial": {},
    "exploretom_static": {"data": str(STATIC)},
    "exploretom_transfer": {"stories": "found.jsonl"},
    "tomi": {"split": "example"},
}


def _takes_judge(fn: object) -> bool:
    """Whether a task function's `check` option offers "judge" (its annotation is a Literal holding it)."""
    param = pyinspect.signature(fn).parameters.get("check")
    if param is None:
        return False
    hints = typing.get_type_hints(fn)
    return "judge" in typing.get_args(hints.get("check"))


def test_every_task_that_takes_check_judge_is_covered_here() -> None:
    tasks = {name for name, fn in vars(registry).items() if callable(fn) and not name.startswith("_")
             and _takes_judge(fn)}
    assert tasks == set(JUDGE_TASKS)


def _cli(tmp_path: Path, task: str, *args: str) -> subprocess.CompletedProcess[str]:
    options = [x for k, v in JUDGE_TASKS[task].items() for x in ("-T", f"{k}={v}")]
    cmd = [sys.executable, "-m", "inspect_ai", "eval", f"tombench/{task}", *options, "-T", "check=judge",
           "--model", "tombench/recency", "--log-dir", str(tmp_path / "logs"), *args]
    # from tmp_path: in the repository root `tombench.egg-info` makes Inspect read tombench/... as a path
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=tmp_path)


@pytest.mark.timeout(600)
# through the CLI: the live task and one fixed task (each `inspect eval` costs a process start-up; every task's
# refusal is checked in process below)
@pytest.mark.parametrize("task", ["exploretom_adversarial", "tomi"])
def test_inspect_eval_refuses_judge_without_a_grader_in_one_line(tmp_path: Path, task: str) -> None:
    res = _cli(tmp_path, task)
    out = (res.stdout + res.stderr).strip()
    assert res.returncode != 0 and "Traceback" not in out and "╭" not in out, out
    assert " ".join(out.split()) == NO_GRADER  # one line (the terminal wraps it at its width)
    assert not (tmp_path / "logs").exists() or not any((tmp_path / "logs").iterdir())  # no eval started


@pytest.mark.parametrize("task", sorted(JUDGE_TASKS))
def test_eval_refuses_judge_without_a_grader(tmp_path: Path, task: str) -> None:
    with pytest.raises(OptionError, match="check=judge needs a grader model"):
        # the task function (as by name: Inspect builds it inside the eval, with the eval's roles bound)
        inspect_eval(getattr(registry, task), task_args={**JUDGE_TASKS[task], "check": "judge"},
                     model="tombench/recency", log_dir=str(tmp_path), display="none")
    assert not list(tmp_path.iterdir())


def test_a_task_built_outside_an_eval_is_refused_with_the_way_to_do_it() -> None:
    from tombench.tasks.tomi import tomi

    with pytest.raises(OptionError) as e:
        tomi(split="example", check="judge")
    assert "model_roles={'grader': MODEL}) with the task given by name" in str(e.value)


@pytest.mark.timeout(300)
def test_with_a_grader_the_questions_are_graded_by_it(tmp_path: Path) -> None:
    """With `--model-role grader=...` the same task runs, and the grader scores (the oracle grader replies the
    expected answer: no GRADE, so strict decides and `judge_failed` says so)."""
    [log] = inspect_eval(registry.tomi, task_args={"split": "example", "check": "judge"}, model="tombench/recency",
                         model_roles={"grader": "tombench/oracle"}, limit=3, log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    assert log.eval.model_roles["grader"].model == "tombench/oracle"
    scores = [s.scores["tom_answer"] for s in log.samples]
    assert len(scores) == 3 and all(s.metadata["check"] == "judge" for s in scores)
    assert all(s.metadata["judge_failed"] is True for s in scores)


@pytest.mark.timeout(600)
def test_the_live_task_with_a_grader_grades_its_question_samples(tmp_path: Path) -> None:
    [log] = inspect_eval(registry.exploretom_adversarial, model="tombench/recency",
                         model_roles={"grader": "tombench/oracle"},
                         task_args={"action_sets": "tomi", "asymmetric": "plain", "people": 2, "moves": 2,
                                    "budget": 10, "workers": 1, "check": "judge"},
                         log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    questions = [s for s in log.samples if s.metadata.get("tombench_kind") == "question"]
    assert questions, "the search found no story to ask about"
    assert all(s.scores["adversarial_answer"].metadata["check"] == "judge" for s in questions)
