"""A tiny test-only Inspect task and a mock model, used to make real eval logs for the leaderboard tests.

It carries the metadata dimensions every tombench task reports (`action_set`, `interesting`, `order`, ...) and the
shared `breakdown` metric, so the logs it writes look like the real tasks' logs without needing them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from inspect_ai import Task, eval, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import Metric, SampleScore, accuracy, includes, match, metric, stderr
from inspect_ai.solver import generate

from tombench.kit.metrics import breakdown

DIMENSIONS = ["action_set", "asymmetric", "interesting", "order", "people", "moves"]

#: (question, target, metadata). Answers: the question text names the right answer after "->".
_SAMPLES: list[tuple[str, str, dict]] = [
    ("Where does Anne think the apple is? -> basket", "basket",
     {"action_set": "tomi", "asymmetric": False, "interesting": True, "order": 1, "people": 2, "moves": 2}),
    ("Where does Bob think Anne thinks the apple is? -> box", "box",
     {"action_set": "tomi", "asymmetric": False, "interesting": True, "order": 2, "people": 2, "moves": 2}),
    ("Where is the apple? -> box", "box",
     {"action_set": "tomi", "asymmetric": False, "interesting": False, "order": 0, "people": 2, "moves": 2}),
    ("Does Carl know the key is in the drawer? -> yes", "yes",
     {"action_set": "tomi+info", "asymmetric": True, "interesting": True, "order": 1, "people": 3, "moves": 3}),
    ("Where does Dana think the key is? -> shelf", "shelf",
     {"action_set": "tomi+info", "asymmetric": True, "interesting": True, "order": 1, "people": 3, "moves": 3}),
    ("Where was the key at the start? -> drawer", "drawer",
     {"action_set": "tomi+info", "asymmetric": True, "interesting": False, "order": 0, "people": 3, "moves": 3}),
]


@metric
def tiny_search_outcome() -> Metric:
    """Stands in for the live adversarial task's `settings_filled` and `model_calls` metrics (here: the share of
    samples marked `filled`, and 7 calls a sample), logged under those keys by one dict-valued metric of another
    name: a test module that registered metrics named like the package's would shadow them in Inspect's registry
    for every later test of the session (recomputing a real log's metrics by name would then run these)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        filled = sum(bool((s.sample_metadata or {}).get("filled")) for s in scores) / max(1, len(scores))
        return {"settings_filled": filled, "model_calls": float(7 * len(scores))}

    return compute


@task(name="tombench/tiny_tom")  # registered like the package's tasks, so the leaderboard ranks it
def tiny_tom(dataset_revision: str = "0123456789abcdef0123456789abcdef01234567", live: bool = False) -> Task:
    """Six samples over two action sets, with the dimensions the breakdown metric groups by.

    `live=True` adds the live adversarial task's extra metrics (`settings_filled`, `model_calls`).
    """
    extra = [tiny_search_outcome()] if live else []
    # two stories of three questions each (the apple story and the key story), as tombench tasks record them
    samples = [Sample(id=f"s{i}", input=q, target=t,
                      metadata={**md, "filled": i % 2 == 0, "story_id": "apple" if i < 3 else "key"})
               for i, (q, t, md) in enumerate(_SAMPLES)]
    return Task(
        dataset=samples,
        solver=generate(),
        scorer=match(location="any"),
        metrics=[accuracy(), stderr(), breakdown(DIMENSIONS), *extra],
        version=2,
        metadata={"dataset_id": "tombench-test/tiny-tom", "dataset_revision": dataset_revision,
                  "benchmark": "tombench", **({"settings": 5} if live else {})},
    )


def mock_model(correct: Sequence[int] = (0, 1, 2, 3, 4, 5), name: str = "mockllm/model", errors: Sequence[int] = (),
               **config) -> Model:
    """A mock model that answers sample `i` right iff `i` is in `correct` (and fails on `errors`), with usage.

    Answers are looked up from the prompt (not from call order) so concurrency cannot change the scores.
    """
    answers = {q: t for q, t, _ in _SAMPLES}
    keys = [q for q, _, _ in _SAMPLES]

    def respond(input: list[ChatMessage], tools, tool_choice, config: GenerateConfig) -> ModelOutput:  # noqa: ANN001
        text = input[-1].text
        q = next(k for k in keys if k in text)
        if keys.index(q) in set(errors):
            raise RuntimeError("mock provider failure")
        content = answers[q] if keys.index(q) in set(correct) else "no idea"
        out = ModelOutput.from_content(model=name, content=content)
        out.usage = ModelUsage(input_tokens=20, output_tokens=3, total_tokens=23)
        return out

    return get_model(name, custom_outputs=respond, config=GenerateConfig(**config))


@task
def hello() -> Task:
    """An unrelated task (not tombench): its logs must be refused by the leaderboard."""
    return Task(dataset=[Sample(input=_SAMPLES[0][0], target=_SAMPLES[0][1])], solver=generate(), scorer=includes())


def make_hello_log(log_dir: Path) -> Path:
    [log] = eval(hello(), model=mock_model((0,), "mockllm/model"), log_dir=str(log_dir), display="none")
    return Path(log.location)


def make_log(log_dir: Path, correct: Sequence[int] = (0, 1, 2, 3, 4, 5), model_name: str = "mockllm/model",
             task_args: dict | None = None, errors: Sequence[int] = (), **config) -> Path:
    """Run the tiny task offline and return the path of the log it wrote (errored samples tolerated)."""
    [log] = eval(tiny_tom(**(task_args or {})), model=mock_model(correct, model_name, errors, **config),
                 log_dir=str(log_dir), display="none", fail_on_error=False, retry_on_error=0)
    assert log.status == "success", log.error
    return Path(log.location)
