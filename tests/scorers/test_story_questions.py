"""The ExploreToM answer scorer (`tom_answer`): strict vs substring on real-looking short answers, end to end."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, ModelUsage, get_model

from tombench.scorers.story_questions import TOM_DIMENSIONS, judge, tom_answer, validate_check
from tombench.tasks.shared.story_questions import TOM_CONFIG, tom_sample, tom_solver

STORY = (
    "Anne entered the kitchen. Beth entered the kitchen. Anne moved the apple to the box, which is also located in "
    "the kitchen. Beth left the kitchen. Anne moved the apple to the basket, which is also located in the kitchen."
)
CONTAINERS = ["box", "basket", "black bin", "toolbox"]


def mock_output(content: str) -> ModelOutput:
    """A mockllm output with explicit token usage (mockllm's default output would need a tokenizer download)."""
    out = ModelOutput.from_content(model="mockllm/model", content=content)
    n = max(1, len(content.split()))
    out.usage = ModelUsage(input_tokens=80, output_tokens=n, total_tokens=80 + n)
    return out


def replying(reply: Callable[[str], str]) -> Model:
    """A mockllm model answering each prompt with `reply(user message)` (order-independent, so concurrency-safe)."""

    def fn(messages: list[ChatMessage], tools: object, tool_choice: object, config: GenerateConfig) -> ModelOutput:
        return mock_output(reply(messages[-1].text))

    return get_model("mockllm/model", custom_outputs=fn, memoize=False)


def md(answer_type: str, candidates: list[str] | None = None, question: str = "", **extra: object) -> dict:
    return {"answer_type": answer_type, "candidates": candidates or [], "question": question, **extra}


# (question, expected, answer_type, response, strict verdict, substring verdict)
CASES = [
    ("In which container will Beth search for the apple?", "box", "container", "The box.", True, True),
    ("In which container will Beth search for the apple?", "box", "container", "In the toolbox.", False, True),
    ("In which container will Anne search for the apple?", "basket", "container", "The apple is in the basket.",
     True, True),
    ("In which container will Beth search for the apple?", "box", "container",
     "Beth will look in the box; the basket is where Anne put it.", False, True),
    ("In which container will Beth search for the apple?", "box", "container",
     "Beth will look in the box, not the basket.", True, True),  # a denied name is no rival
    ("In which container was the apple before Anne moved the apple to the basket?", "box", "container",
     "It was in the box before Anne moved it to the basket.", True, True),
    ("Does Beth know about the apple? Answer yes or no.", "no", "yes_no", "Anne knows about it.", False, True),
    ("Does Beth know about the apple? Answer yes or no.", "no", "yes_no", "No.", True, True),
    ("Does Beth know about the apple? Answer yes or no.", "yes", "yes_no", "Yes/No", False, True),
    ("What does Anne think about Beth's belief on the apple? (knows about it / does not know about it)",
     "does not know about it", "knowledge", "Beth doesn't know about it.", True, False),
]


@pytest.mark.parametrize(("question", "expected", "atype", "response", "strict", "substring"), CASES)
def test_judge_strict_and_substring(
    question: str, expected: str, atype: str, response: str, strict: bool, substring: bool
) -> None:
    meta = md(atype, CONTAINERS if atype == "container" else [], question)
    assert judge(response, expected, meta, "strict").correct is strict
    assert judge(response, expected, meta, "substring").correct is substring


def test_judge_without_answer_type_falls_back_to_substring() -> None:
    assert judge("It is in the red box.", "red box", {}).correct is True
    assert judge("It is in the box.", "red box", {}).correct is False


def test_validate_check() -> None:
    assert validate_check("substring") == "substring"
    with pytest.raises(ValueError, match=r"Invalid check value: 'loose'. Must be one of: \['strict', 'substring', 'judge'\]"):
        validate_check("loose")


def _task(check: str) -> Task:
    samples = []
    for i, (question, expected, atype, _, _, _) in enumerate(CASES):
        meta = md(atype, CONTAINERS if atype == "container" else [], question)
        meta.update(action_set="tomi", asymmetric=i % 2 == 0, people=2 + i % 2, moves=2, order=1 + i % 2,
                    interesting=i % 3 == 0)
        # "Case i." tells the scripted model which response to give, whatever order samples run in
        samples.append(tom_sample(f"case{i}", f"Case {i}. {STORY}", question, expected, meta))
    return Task(dataset=samples, solver=tom_solver(), scorer=tom_answer(check=check), config=TOM_CONFIG)


@pytest.mark.parametrize("check", ["strict", "substring"])
def test_scorer_end_to_end(check: str, tmp_path: Path) -> None:
    model = replying(lambda user: CASES[int(user.split(".", 1)[0].removeprefix("Case "))][3])
    log = inspect_eval(_task(check), model=model, log_dir=str(tmp_path), display="none")[0]
    assert log.status == "success"
    assert log.eval.scorers[0].options == {"check": check}
    by_id = {s.id: s for s in log.samples}
    for i, case in enumerate(CASES):
        score = by_id[f"case{i}"].scores["tom_answer"]
        expected_ok = case[4] if check == "strict" else case[5]
        assert (score.value == "C") is expected_ok, (case, score.explanation)
        assert score.metadata["check"] == check
        assert score.explanation.startswith(check)
    metrics = log.results.scores[0].metrics
    n_ok = sum(c[4] if check == "strict" else c[5] for c in CASES)
    assert metrics["accuracy"].value == pytest.approx(n_ok / len(CASES))
    for dim in TOM_DIMENSIONS:
        assert any(k.startswith(f"{dim}=") for k in metrics), dim
    assert metrics["people=2:n"].value + metrics["people=3:n"].value == len(CASES)


def test_score_records_the_verdict(tmp_path: Path) -> None:
    question = "In which container will Beth search for the apple?"
    sample = tom_sample("amb", STORY, question, "box", md("container", CONTAINERS, question))
    task = Task(dataset=[sample], solver=tom_solver(), scorer=tom_answer(), config=TOM_CONFIG)
    log = inspect_eval(task, model=replying(lambda _: "box or basket"), log_dir=str(tmp_path), display="none")[0]
    score = log.samples[0].scores["tom_answer"]
    assert score.value == "I"
    assert score.metadata == {"check": "strict", "predicted": None, "ambiguous": True, "matched": ["box", "basket"],
                              "discarded": []}
    assert score.answer == "box or basket"
    assert "ambiguous" in score.explanation
    # the paper's decoding reached the model
    assert log.plan.config.temperature == 0 and log.plan.config.max_tokens == 40 and log.plan.config.top_p == 1
    assert log.samples[0].messages[0].text == "You are a helpful assistant."


# --- judge mode: Inspect's model-graded pattern with a grader role ---------------------------------------------------


def _case_of(text: str) -> int:
    return int(text.split("Case ", 1)[1].split(".", 1)[0])


def test_judge_mode_grades_with_the_grader_role(tmp_path: Path) -> None:
    """The grader sees the prompt, the expected answer and the response, and its GRADE decides; strict is kept."""
    seen: list[str] = []

    def grade(prompt: str) -> str:
        seen.append(prompt)
        i = _case_of(prompt)
        if i == 0:
            return "No grade here."  # a grader lapse: strict decides, flagged
        return "The answer hedges. GRADE: I" if i % 2 else "It commits to the expected answer. GRADE: C"

    model = replying(lambda user: CASES[_case_of(user)][3])
    log = inspect_eval(_task("judge"), model=model, model_roles={"grader": replying(grade)}, log_dir=str(tmp_path),
                       display="none")[0]
    assert log.status == "success", log.error
    assert log.eval.scorers[0].options == {"check": "judge"}
    for sample in log.samples:
        i = _case_of(sample.input)
        score = sample.scores["tom_answer"]
        assert score.metadata["check"] == "judge"
        assert score.metadata["strict"] == ("C" if CASES[i][4] else "I")
        assert score.metadata["judge_failed"] is (i == 0)
        if i == 0:
            assert score.value == score.metadata["strict"] and "strict used" in score.explanation
        else:
            assert score.value == ("I" if i % 2 else "C") and score.explanation.startswith("judge:")
    assert len(seen) == len(CASES)
    prompt = next(p for p in seen if _case_of(p) == 1)
    assert STORY in prompt and CASES[1][0] in prompt  # the story and question the model was asked
    assert f"[Expected answer]: {CASES[1][1]}" in prompt and f"[Submitted answer]: {CASES[1][3]}" in prompt
    assert "If Hannah knows about it" in prompt  # the rules: conditionals, hedges, echoes are not answers


def test_judge_mode_without_a_grader_stops_in_one_line(tmp_path: Path) -> None:
    model = replying(lambda user: CASES[_case_of(user)][3])
    log = inspect_eval(_task("judge"), model=model, log_dir=str(tmp_path), display="none")[0]
    assert log.status == "error"
    assert "Model role 'grader' is required" in log.error.message


def test_the_search_reads_answers_with_strict_under_judge() -> None:
    from tombench.scorers.story_questions import matcher_check

    assert matcher_check("judge") == "strict" and matcher_check("substring") == "substring"
