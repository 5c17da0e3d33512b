"""The `tombench/<baseline>` Inspect provider: get_model, generate with usage, and a tiny inline eval."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import Task, eval, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig, get_model
from inspect_ai.scorer import match
from inspect_ai.solver import generate

import tombench._registry  # noqa: F401  (registers the provider, as the inspect_ai entry point does)
from tombench.dsl import SYSTEM_PROMPT, build_prompt

SALLY_ANNE = (
    "Sally entered the kitchen. Anne entered the kitchen. "
    "Sally moved the marble to the basket, which is also located in the kitchen. Sally left the kitchen. "
    "Anne moved the marble to the box, which is also located in the kitchen."
)
QUESTIONS = [
    ("In which container will Sally search for the marble?", "basket"),
    ("In which container will Anne search for the marble?", "box"),
    ("In which container does Anne think that Sally will search for the marble?", "basket"),
]


def _messages(question: str) -> list:
    return [ChatMessageSystem(content=SYSTEM_PROMPT), ChatMessageUser(content=build_prompt(SALLY_ANNE, question).user)]


@pytest.mark.parametrize(("name", "expected"), [("oracle", "basket"), ("reality", "box"), ("primacy", "basket")])
def test_generate(name: str, expected: str) -> None:
    model = get_model(f"tombench/{name}")
    output = asyncio.run(model.generate(_messages(QUESTIONS[0][0])))
    assert output.completion == expected
    assert output.usage is not None
    assert output.usage.output_tokens == len(expected.split())
    assert output.usage.input_tokens == len(SYSTEM_PROMPT.split()) + len(build_prompt(SALLY_ANNE, QUESTIONS[0][0]).user.split())


def test_random_seed_model_arg() -> None:
    answers = set()
    for seed in range(12):
        model = get_model("tombench/random", seed=seed, memoize=False)
        out = asyncio.run(model.generate(_messages(QUESTIONS[0][0]), config=GenerateConfig()))
        answers.add(out.completion)
    assert answers == {"basket", "box"}


def test_contexts_model_arg(tmp_path: Path) -> None:
    """`-M contexts=FILE` adds state-change templates the packaged bank lacks ("peeled")."""
    from tests.dsl.worked import context
    from tombench.generators.exploretom.contexts import save_contexts

    path = tmp_path / "ctx.jsonl"
    save_contexts(path, [context("marble")])
    story = SALLY_ANNE.replace("Sally left the kitchen.", "Sally left the kitchen. Anne peeled the marble.")
    question = "Does Anne believe that the marble is peeled? Answer yes or no."
    msgs = [ChatMessageUser(content=build_prompt(story, question).user)]
    with_ctx = get_model("tombench/oracle", contexts=str(path), memoize=False)
    without = get_model("tombench/oracle", memoize=False)
    assert asyncio.run(with_ctx.generate(msgs)).completion == "yes"  # Anne peeled it herself
    # without the template the sentence is dropped, so the world state the fallback reads has no peel: a wrong "no"
    assert asyncio.run(without.generate(msgs)).completion == "no"


def test_bad_model_name_and_args() -> None:
    with pytest.raises(ValueError, match="Unknown tombench model .tombench/.*Known tombench models: tombench/oracle"):
        get_model("tombench/psychic", memoize=False)
    with pytest.raises(ValueError, match="Unknown model args"):
        get_model("tombench/oracle", temperature_hack=1, memoize=False)


@task
def sally_anne() -> Task:
    return Task(
        dataset=[Sample(input=build_prompt(SALLY_ANNE, q).user, target=a, id=i) for i, (q, a) in enumerate(QUESTIONS)],
        solver=generate(),
        scorer=match(location="exact"),
    )


def test_inline_eval_oracle_scores_one(tmp_path: Path) -> None:
    (log,) = eval(sally_anne(), model="tombench/oracle", log_dir=str(tmp_path), display="none")
    assert log.status == "success"
    assert log.results is not None
    assert log.results.scores[0].metrics["accuracy"].value == 1.0
    assert log.stats.model_usage["tombench/oracle"].output_tokens == 3  # "basket", "box", "basket": one word each


def test_inline_eval_reality_misses_false_beliefs(tmp_path: Path) -> None:
    (log,) = eval(sally_anne(), model="tombench/reality", log_dir=str(tmp_path), display="none")
    assert log.results is not None
    assert log.results.scores[0].metrics["accuracy"].value == pytest.approx(1 / 3)


def test_inspect_cli_resolves_provider(tmp_path: Path) -> None:
    """`inspect eval ... --model tombench/recency` from the command line, through the package entry point."""
    task_file = tmp_path / "sally.py"
    task_file.write_text(
        "from inspect_ai import Task, task\n"
        "from inspect_ai.dataset import Sample\n"
        "from inspect_ai.scorer import match\n"
        "@task\n"
        "def sally():\n"
        f"    return Task(dataset=[Sample(input={build_prompt(SALLY_ANNE, QUESTIONS[0][0]).user!r}, target='box')],"
        " scorer=match(location='exact'))\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "inspect_ai", "eval", task_file.name, "--model", "tombench/recency",
         "--log-dir", str(tmp_path / "logs"), "--display", "none"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    logs = list((tmp_path / "logs").glob("*.eval"))
    assert len(logs) == 1


def _tomsynth_items(path: Path) -> Path:
    """Eight ToM-Synth items whose keys cycle A, B, C, D (so `primacy` is right on a quarter of them)."""
    from tombench.generators.tomsynth.items import LETTERS, Item, append_jsonl
    from tombench.generators.tomsynth.units import unit_by_id

    unit = unit_by_id("content-false-beliefs.family.family-dinner.narrative")
    items = [
        Item(id=f"i{n}", **unit.metadata(), text=f"Story {n}. Ann left; Tom moved the report.",
             question="Where does Ann think the report is?", options={x: f"Place {x}{n}" for x in LETTERS},
             answer=LETTERS[n % 4])
        for n in range(8)
    ]
    append_jsonl(path, (i.to_row() for i in items))
    return path


@pytest.mark.parametrize(("answer_format", "metric"), [("letter", "accuracy"), ("think", "reward/mean")])
def test_tomsynth_task_with_primacy(tmp_path: Path, answer_format: str, metric: str) -> None:
    """A real tombench task runs offline on a baseline: multiple choice in the format the task asks for."""
    from tombench.tasks.tomsynth.tomsynth import tomsynth

    data = _tomsynth_items(tmp_path / "items.jsonl")
    (log,) = eval(tomsynth(data=str(data), answer_format=answer_format), model="tombench/primacy",
                  log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success"
    assert log.results is not None
    metrics = {k: m.value for s in log.results.scores for k, m in s.metrics.items()}
    metrics.update({f"{s.name}/{k}": m.value for s in log.results.scores for k, m in s.metrics.items()})
    # 2 of 8 keys are A; in "think" format the reward is 1 when right and 0 when wrong but well-formed (-1 if not)
    assert metrics[metric] == pytest.approx(0.25)
