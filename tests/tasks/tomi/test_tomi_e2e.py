"""End to end: tombench/tomi through `inspect_ai.eval` with a scripted mockllm model, on the release-layout fixture
(18 questions of `fb_all_test.txt` with its trace). The 100 inspect-ai items (`split=example`) run end to end in
test_tomi.py."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, ModelUsage, get_model

from tombench.tasks.tomi import tomi
from tombench.tasks.tomi.tomi import read_tomi

FIXTURES = Path(__file__).parent / "fixtures"
TXT = FIXTURES / "fb_all_test.txt"


def _fixture_questions() -> int:
    return len(read_tomi(TXT.read_text(encoding="utf-8"), (FIXTURES / "fb_all_test.trace").read_text(encoding="utf-8")))


def scripted(reply: Callable[[Sample], str], samples: list[Sample]) -> Model:
    """mockllm/model answering each sample's prompt with `reply(sample)` (looked up by prompt: order-independent)."""
    by_prompt = {str(s.input): s for s in samples}

    def output(messages: list[ChatMessage], tools: object, tool_choice: object, config: GenerateConfig) -> ModelOutput:
        out = ModelOutput.from_content(model="mockllm/model", content=reply(by_prompt[messages[-1].text]))
        out.usage = ModelUsage(input_tokens=100, output_tokens=3, total_tokens=103)  # no tokenizer download
        return out

    return get_model("mockllm/model", custom_outputs=output, memoize=False)


def _other(sample: Sample) -> str:
    others = [c for c in sample.metadata["candidates"] if c != sample.target]
    assert others, sample.id  # every ToMi story names at least two containers
    return others[0]


def _metrics(log) -> dict[str, float]:  # noqa: ANN001 - an EvalLog
    return {k: m.value for score in log.results.scores for k, m in score.metrics.items()}


def test_right_and_wrong_answers_on_the_release_fixture(tmp_path: Path) -> None:
    """Replying each question's label scores 1.0 in every group; replying the story's other container scores 0.0."""
    task = tomi(data=str(TXT))
    samples = list(task.dataset)
    assert len(samples) == _fixture_questions() == 18
    right = scripted(lambda s: f"The {s.target}.", samples)
    (log,) = inspect_eval(task, model=right, log_dir=str(tmp_path), display="none")
    assert log.status == "success"
    assert log.results.total_samples == log.results.completed_samples == 18
    metrics = _metrics(log)
    assert metrics["accuracy"] == 1.0
    for group in ("question_type=memory", "question_type=reality", "question_type=first_order",
                  "question_type=second_order", "story_type=true_belief", "story_type=false_belief",
                  "story_type=second_order_false_belief", "false_belief=True", "label_disputed=True"):
        assert metrics[group] == 1.0, group
    assert metrics["question_type=second_order:n"] == 6 and metrics["label_disputed=True:n"] == 2
    assert log.eval.scorers[0].options == {"check": "strict"}
    assert log.eval.headline_metric is not None and log.eval.headline_metric.metric == "accuracy"

    wrong = scripted(lambda s: f"The {_other(s)}.", samples)
    (log,) = inspect_eval(tomi(data=str(TXT)), model=wrong, log_dir=str(tmp_path), display="none")
    assert log.status == "success" and log.results.total_samples == 18
    assert _metrics(log)["accuracy"] == 0.0


def test_hedges_score_only_under_the_substring_check(tmp_path: Path) -> None:
    """"The X or the Y" names the answer: the original substring test credits it, the strict matcher does not."""
    tasks = [tomi(data=str(TXT), check="strict"), tomi(data=str(TXT), check="substring")]
    model = scripted(lambda s: f"The {s.target} or the {_other(s)}.", list(tasks[0].dataset))
    strict, substring = inspect_eval(tasks, model=model, log_dir=str(tmp_path), display="none")
    assert strict.status == substring.status == "success"
    assert _metrics(strict)["accuracy"] == 0.0
    assert _metrics(substring)["accuracy"] == 1.0
    assert substring.eval.scorers[0].options == {"check": "substring"}


def test_relabel_scores_the_tracker_answers(tmp_path: Path) -> None:
    """With relabel=true the target is the DSL tracker's answer: replying the release labels misses exactly the 2
    disputed second-order questions of the fixture."""
    task = tomi(data=str(TXT), relabel=True)
    samples = list(task.dataset)
    assert sum(s.metadata["relabeled"] for s in samples) == 2
    release_label = scripted(lambda s: s.metadata["original_answer"], samples)
    (log,) = inspect_eval(task, model=release_label, log_dir=str(tmp_path), display="none")
    assert log.status == "success" and log.results.total_samples == 18
    metrics = _metrics(log)
    assert metrics["accuracy"] == 16 / 18
    assert metrics["label_disputed=True"] == 0.0 and metrics["label_disputed=False"] == 1.0

