"""Every ExploreToM task end to end through `inspect_ai.eval` on `mockllm/model` with scripted replies, offline.

A reply that is the expected answer scores 1, a reply that names no answer ("Purple elephant.") scores 0. The data:
`exploretom_random` draws its stories itself (a small grid), `exploretom_static` reads
`fixtures/exploretom_sample.csv` (30 rows of the public schema), `exploretom_transfer` reads
`fixtures/found_stories.jsonl` (two stories written by `tombench search --model tombench/primacy --story-types tomi
--asymmetric both --people 2 --moves 2 --stories-per-setting 1 --budget 10 --workers 1 --out DIR`), and
`exploretom_adversarial` searches against the mock model. `adversarial_solver` is also run on its own, in a task
without the live task's sample source.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai import Task, eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, ModelUsage, get_model

from tombench.dsl import Story
from tombench.models import answer
from tombench.scorers.exploretom import adversarial_answer, search_outcome
from tombench.tasks.exploretom import (
    exploretom_adversarial,
    exploretom_random,
    exploretom_static,
    exploretom_transfer,
)
from tombench.tasks.exploretom.adversarial import adversarial_settings, adversarial_solver, search_samples
from tombench.tasks.shared.story_questions import TOM_CONFIG, story_samples

FIXTURES = Path(__file__).parent / "fixtures"
STATIC = FIXTURES / "exploretom_sample.csv"
FOUND = FIXTURES / "found_stories.jsonl"
#: a reply that names no container, room, yes/no or knowledge answer: wrong under every check
WRONG = "Purple elephant."


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cold response cache per test: the live and transfer tasks cache their calls, and a reply cached by another
    test (the same prompt to `mockllm/model`) would be read back instead of this test's script."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))


def _output(text: str) -> ModelOutput:
    """A mockllm output with explicit token usage (mockllm's own count would need a tokenizer download)."""
    out = ModelOutput.from_content(model="mockllm/model", content=text)
    out.usage = ModelUsage(input_tokens=50, output_tokens=2, total_tokens=52)
    return out


def _mock(reply: Callable[[str], str]) -> Model:
    """`mockllm/model` answering each prompt with `reply(user message)`."""

    def fn(messages: list[ChatMessage], tools: object, tool_choice: object, config: GenerateConfig) -> ModelOutput:
        return _output(reply(messages[-1].text))

    return get_model("mockllm/model", custom_outputs=fn, memoize=False)


def _answering(task: Task) -> Model:
    """`mockllm/model` replying with each sample's target (the prompts of a task's samples are distinct)."""
    targets = {str(s.input): s.target for s in task.dataset}
    return _mock(lambda user: str(targets[user]))


def _run(task: Task, model: Model, tmp_path: Path) -> EvalLog:
    [log] = eval(task, model=model, log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    assert log.results is not None
    return log


def _metrics(log: EvalLog, scorer: str | None = None) -> dict[str, float]:
    assert log.results is not None
    score = log.results.scores[0] if scorer is None else next(s for s in log.results.scores if s.name == scorer)
    return {k: m.value for k, m in score.metrics.items()}


SMALL_GRID = {"story_types": "tomi,tomi+asymmetric", "people": "2", "moves": "2,3"}


@pytest.mark.parametrize(("right", "accuracy"), [(True, 1.0), (False, 0.0)])
def test_random_right_and_wrong_replies(tmp_path: Path, right: bool, accuracy: float) -> None:
    task = exploretom_random(**SMALL_GRID)
    n = len(task.dataset)
    assert n > 4  # 4 settings, one story each, every question of orders 0-2
    log = _run(task, _answering(task) if right else _mock(lambda _: WRONG), tmp_path)
    assert log.results.total_samples == log.results.completed_samples == n
    metrics = _metrics(log)
    assert metrics["accuracy"] == accuracy
    assert metrics["action_set=tomi"] == accuracy and metrics["asymmetric=True"] == accuracy
    assert metrics["action_set=tomi:n"] == n
    assert log.eval.task_version == "1.0.0"


@pytest.mark.parametrize(("right", "accuracy"), [(True, 1.0), (False, 0.0)])
def test_static_on_the_fixture(tmp_path: Path, right: bool, accuracy: float) -> None:
    task = exploretom_static(data=str(STATIC))
    assert len(task.dataset) == 30
    log = _run(task, _answering(task) if right else _mock(lambda _: WRONG), tmp_path)
    assert log.results.total_samples == 30
    metrics = _metrics(log)
    assert metrics["accuracy"] == accuracy
    assert metrics["order=0"] == metrics["order=1"] == metrics["order=2"] == accuracy
    assert log.eval.metadata["rows"] == 30 and log.eval.metadata["check"] == "strict"


@pytest.mark.parametrize(("right", "accuracy"), [(True, 1.0), (False, 0.0)])
def test_transfer_on_found_stories(tmp_path: Path, right: bool, accuracy: float) -> None:
    task = exploretom_transfer(stories=str(FOUND))
    rows = [json.loads(line) for line in FOUND.read_text(encoding="utf-8").splitlines()]
    n = sum(len(Story.from_dict(r["story"]).questions()) for r in rows)  # every question of both stories
    assert len(rows) == 2 and len(task.dataset) == n > 0
    log = _run(task, _answering(task) if right else _mock(lambda _: WRONG), tmp_path)
    assert log.results.total_samples == n
    assert _metrics(log)["accuracy"] == accuracy
    assert log.eval.metadata["generator_models"] == ["tombench/primacy"]
    assert {s.metadata["generator_model"] for s in log.samples or []} == {"tombench/primacy"}


ADVERSARIAL = {"action_sets": "tomi", "asymmetric": "plain", "people": 2, "moves": 2, "budget": 15, "workers": 1}


def test_adversarial_finds_a_story_the_model_fails_and_scores_its_questions(tmp_path: Path) -> None:
    log = _run(exploretom_adversarial(**ADVERSARIAL), _mock(lambda _: WRONG), tmp_path)
    samples = log.samples or []
    [search] = [s for s in samples if s.metadata["tombench_kind"] == "search"]
    questions = [s for s in samples if s.metadata["tombench_kind"] == "question"]
    summary = search.metadata["search"]
    [kept] = summary["stories"]
    # every question of the kept story (orders 0-2) became a sample, and nothing else did
    assert len(questions) == len(Story.from_dict(kept["story"]).questions()) > 0
    assert log.results.total_samples == 1 + len(questions)
    assert {q.metadata["story_id"] for q in questions} == {kept["id"]}
    assert _metrics(log, "adversarial_answer")["accuracy"] == 0.0
    outcome = _metrics(log, "search_outcome")
    assert outcome["settings_filled"] == 1.0 and outcome["mean"] == 1.0
    assert outcome["model_calls"] == summary["model_calls"] > 0
    assert search.output.completion == "kept 1 of 1 stories; first-order accuracy 0.00"


def test_adversarial_finds_nothing_against_a_model_that_is_always_right(tmp_path: Path) -> None:
    # the offline oracle's answer (the DSL's tracker reading the story) behind mockllm/model
    log = _run(exploretom_adversarial(**ADVERSARIAL), _mock(lambda user: answer("oracle", user)), tmp_path)
    assert log.results.total_samples == 1  # the search sample alone: no story, no question samples
    outcome = _metrics(log, "search_outcome")
    assert outcome["settings_filled"] == 0.0 and outcome["mean"] == 0.0 and outcome["model_calls"] > 0
    [search] = log.samples or []
    assert search.metadata["search"]["found"] is False
    assert search.output.completion == "no adversarial story found within the budget"


def test_adversarial_solver_on_its_own(tmp_path: Path) -> None:
    """The solver in a plain task: a search sample runs the search against the model under test and keeps its
    summary; a question sample is asked the paper's way. Without the live task's sample source, the found story's
    questions are not added."""
    import random

    from tombench.dsl import DEFAULT_CONTEXT, Setting, random_story

    [setting] = adversarial_settings("tomi", "plain", [2], [2])
    searches = search_samples([setting], stories_per_setting=1, seed=0)
    story = random_story(DEFAULT_CONTEXT, Setting.make("tomi", 2, 2), random.Random(0))
    assert story is not None
    question = story_samples(story, story_id="extra", setting=setting, orders=(1,))[0]
    options = {"method": "astar", "stories_per_setting": 1, "budget": 15, "seed": 0, "check": "strict"}
    assert question.metadata is not None
    question.metadata["tombench_kind"] = "question"
    task = Task(dataset=[*searches, question],
                solver=adversarial_solver(options, workers=1), scorer=[adversarial_answer(), search_outcome()],
                config=TOM_CONFIG)
    log = _run(task, _mock(lambda _: WRONG), tmp_path)
    assert log.results.total_samples == 2
    by_kind = {s.metadata["tombench_kind"]: s for s in log.samples or []}
    summary = by_kind["search"].metadata["search"]
    assert summary["found"] is True and summary["wanted"] == 1 and len(summary["stories"]) == 1
    assert summary["method"] == "astar-paper" and summary["g"] == 0.0
    assert summary["calls"]["where"] == "main"  # mockllm stays in the eval's process
    assert by_kind["search"].scores["search_outcome"].value == 1.0
    asked = by_kind["question"]
    assert asked.output.completion == WRONG and asked.scores["adversarial_answer"].value == "I"
    system = next(m for m in asked.messages if m.role == "system")
    assert system.text == "You are a helpful assistant."
