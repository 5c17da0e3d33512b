"""Both persuasion tasks end to end against a REAL model (SmolLM2-135M via llama.cpp, offline; see docs/how-to/local-model.md).

The model is far too small to persuade anyone; these tests prove the plumbing with a real provider: every role
(model under test, persuadee, grader) answers through an OpenAI-compatible API, the tasks finish and log their
metrics. Values are not asserted (a 135M model's verdicts are mostly unreadable, hence unscored).
"""

from __future__ import annotations

import pytest

from tests.generators.persuasion.test_scripted import RELEASE_SHAPE as FIXTURE

pytestmark = pytest.mark.local_model


def _record_without_preventive() -> str:
    from tombench.generators.persuasion.data import load_records

    return next(r.id for r in load_records(FIXTURE).records if r.mental_state and not r.mental_state.has_preventive)


def _run(task, server, tmp_path, **kwargs):  # noqa: ANN001, ANN003, ANN202
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import GenerateConfig

    model = server.get_model(config=GenerateConfig(temperature=0.0, max_tokens=32, seed=0))
    [log] = inspect_eval(task, model=model, log_dir=str(tmp_path), display="none", **kwargs)
    assert log.status == "success", log.error
    assert log.results is not None
    return {s.name: s for s in log.results.scores}, log


def test_fixed_task_with_a_real_model(local_model_server, tmp_path) -> None:  # noqa: ANN001
    from tombench.tasks.persuasion.persuasion import persuasion_fixed

    scores, log = _run(persuasion_fixed(dataset=str(FIXTURE), cache=False), local_model_server, tmp_path, limit=1)
    assert set(scores) == {"rouge_l", "persuasive"}
    assert 0.0 <= scores["rouge_l"].metrics["mean"].value <= 1.0
    assert log.samples and log.samples[0].output.completion.strip()


def test_dynamic_task_with_a_real_model(local_model_server, tmp_path) -> None:  # noqa: ANN001
    from tombench.tasks.persuasion.persuasion import persuasion_dynamic

    # the shortest dialogue (3 rounds, no preventive behaviour): 6 utterances, 3 persuasive and 1 satisfaction call
    task = persuasion_dynamic(dataset=str(FIXTURE), cache=False)
    scores, log = _run(task, local_model_server, tmp_path, sample_id=_record_without_preventive())
    assert set(scores) == {"persuasive", "preventive", "generative", "ctom"}
    assert log.eval.metadata["prompting"] == "none"
    sample = log.samples[0]
    transcript = sample.scores["persuasion_dynamic_scorer"].answer.splitlines()
    assert [line.split(":")[0] for line in transcript] == ["persuader", "persuadee"] * 3
