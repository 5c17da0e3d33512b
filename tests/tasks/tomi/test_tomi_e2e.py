"""End to end: tombench/tomi through `inspect_ai.eval` with a scripted `mockllm/tomi`, on the release-layout fixture
(18 questions of `fb_all_test.txt` with its trace). The 100 inspect-ai items (`split=example`) run end to end in
test_tomi.py."""

from __future__ import annotations

from pathlib import Path

from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample

from tests.tasks.mockllm import metrics as log_metrics
from tests.tasks.mockllm import scripted
from tombench.tasks.tomi import tomi
from tombench.tasks.tomi.tomi import read_tomi

FIXTURES = Path(__file__).parent / "fixtures"
#: the mock model these runs use (Inspect's mockllm, scripted per test)
MOCK = "mockllm/tomi"
TXT = FIXTURES / "fb_all_test.txt"


def _fixture_questions() -> int:
    return len(read_tomi(TXT.read_text(encoding="utf-8"), (FIXTURES / "fb_all_test.trace").read_text(encoding="utf-8")))




def _other(sample: Sample) -> str:
    others = [c for c in sample.metadata["candidates"] if c != sample.target]
    assert others, sample.id  # every ToMi story names at least two containers
    return others[0]



def test_right_and_wrong_answers_on_the_release_fixture(tmp_path: Path) -> None:
    """Replying each question's label scores 1.0 in every group; replying the story's other container scores 0.0."""
    task = tomi(data=str(TXT))
    samples = list(task.dataset)
    assert len(samples) == _fixture_questions() == 18
    right = scripted(samples, lambda s: f"The {s.target}.", model=MOCK)
    (log,) = inspect_eval(task, model=right, log_dir=str(tmp_path), display="none")
    assert log.status == "success"
    assert log.results.total_samples == log.results.completed_samples == 18
    metrics = log_metrics(log)
    assert metrics["accuracy"] == 1.0
    for group in ("question_type=memory", "question_type=reality", "question_type=first_order",
                  "question_type=second_order", "story_type=true_belief", "story_type=false_belief",
                  "story_type=second_order_false_belief", "false_belief=True", "label_disputed=True"):
        assert metrics[group] == 1.0, group
    assert metrics["question_type=second_order:n"] == 6 and metrics["label_disputed=True:n"] == 2
    assert log.eval.scorers[0].options == {"check": "strict"}
    assert log.eval.headline_metric is not None and log.eval.headline_metric.metric == "accuracy"

    wrong = scripted(samples, lambda s: f"The {_other(s)}.", model=MOCK)
    (log,) = inspect_eval(tomi(data=str(TXT)), model=wrong, log_dir=str(tmp_path), display="none")
    assert log.status == "success" and log.results.total_samples == 18
    assert log_metrics(log)["accuracy"] == 0.0


def test_hedges_score_only_under_the_substring_check(tmp_path: Path) -> None:
    """"The X or the Y" names the answer: the original substring test credits it, the strict matcher does not."""
    tasks = [tomi(data=str(TXT), check="strict"), tomi(data=str(TXT), check="substring")]
    model = scripted(list(tasks[0].dataset), lambda s: f"The {s.target} or the {_other(s)}.", model=MOCK)
    strict, substring = inspect_eval(tasks, model=model, log_dir=str(tmp_path), display="none")
    assert strict.status == substring.status == "success"
    assert log_metrics(strict)["accuracy"] == 0.0
    assert log_metrics(substring)["accuracy"] == 1.0
    assert substring.eval.scorers[0].options == {"check": "substring"}


def test_relabel_scores_the_tracker_answers(tmp_path: Path) -> None:
    """With relabel=true the target is the DSL tracker's answer: replying the release labels misses exactly the 2
    disputed second-order questions of the fixture."""
    task = tomi(data=str(TXT), relabel=True)
    samples = list(task.dataset)
    assert sum(s.metadata["relabeled"] for s in samples) == 2
    release_label = scripted(samples, lambda s: s.metadata["original_answer"], model=MOCK)
    (log,) = inspect_eval(task, model=release_label, log_dir=str(tmp_path), display="none")
    assert log.status == "success" and log.results.total_samples == 18
    metrics = log_metrics(log)
    assert metrics["accuracy"] == 16 / 18
    assert metrics["label_disputed=True"] == 0.0 and metrics["label_disputed=False"] == 1.0

