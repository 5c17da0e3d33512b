"""LLM context generation with a judge (tombench.generators.exploretom.contexts), against Inspect's mockllm with scripted outputs."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, ModelUsage, get_model

from tombench.cli import main
from tombench.dsl.context import Context
from tombench.generators.exploretom.context_checks import context_problems
from tombench.generators.exploretom.context_generation import ContextSpec, generate_contexts
from tombench.generators.exploretom.context_output import GenerationReport
from tombench.generators.exploretom.context_prompts import NAMES_PROMPT, SETTINGS_PROMPT
from tombench.generators.exploretom.context_replies import (
    extract_json,
    parse_context_answer,
    parse_list,
    parse_state_change_candidates,
)
from tombench.generators.exploretom.contexts import load_contexts
from tombench.kit.calls import MalformedOutput
from tombench.kit.replies import read_yes_no

SPEC = ContextSpec(people=3, containers=3, topics=3, state_candidates=4)


def context_answer(obj: str = "stapler", rooms: tuple[str, str] = ("conference room", "records room")) -> str:
    return json.dumps(
        {
            "people": ["Emily, a meticulous office manager.", "Jason, a tech-savvy intern.", "Karen, an accountant."],
            "story_context": "Emily, Jason and Karen gathered in the office's conference room before the audit.",
            "room": rooms[0],
            "alternative_room": f"The {rooms[1].title()}",
            "object": f"a {obj}",
            "containers": ["filing cabinet", "desk drawer", "cardboard box"],
            "topics": ["upcoming audit", "new expense policy", "team offsite"],
        }
    )


STATE_ANSWER = json.dumps(
    [
        {
            "sentence": "{person} painted the {object} bright red.",
            "property": "Paint Color",
            "resulting_state": "is painted bright red",
        },
        {
            "sentence": "{person} wrapped the {object} in tape",
            "property": "tape",
            "resulting_state": "the {object} is wrapped in tape.",
        },
        {
            "sentence": "{person} disinfected the {object}.",
            "property": "disinfection",
            "resulting_state": "is disinfected",
        },
        {"sentence": "{person} weighed the {object}.", "property": "weight", "resulting_state": "is weighed"},
    ]
)

NAMES_ANSWER = "\n".join(
    f"{i}. {n}"
    for i, n in enumerate(
        "Ada Ben Cleo Dev Eli Fay Gus Hal Ida Jo Kai Lu Mo Ned Ola Pia Quin Ros Sam Tia Uma".split(), 1
    )
)
SETTINGS_ANSWER = "\n".join(
    f"{i}. {s}"
    for i, s in enumerate(
        [
            "a school",
            "a hospital",
            "a vet shop",
            "an office",
            "a farm",
            "a ship",
            "a theatre",
            "a lab",
            "a bakery",
            "a museum",
            "a hotel",
        ],
        1,
    )
)


def output(text: str) -> ModelOutput:
    """An explicit mock output with token usage (mockllm's default usage needs a tokenizer download)."""
    out = ModelOutput.from_content(model="mockllm/model", content=text)
    out.usage = ModelUsage(
        input_tokens=10, output_tokens=max(1, len(text) // 4), total_tokens=10 + max(1, len(text) // 4)
    )
    return out


class Script:
    """Answers each prompt kind from its own queue (the run is concurrent, so one global order would be fragile)."""

    def __init__(
        self,
        contexts: list[str],
        *,
        judge: Callable[[str], str] | None = None,
        states: list[str] | None = None,
        names: str = NAMES_ANSWER,
    ) -> None:
        self.contexts: Iterator[str] = iter(contexts)
        self.states = states
        self.judge = judge or default_judge
        self.names = names
        self.prompts: list[str] = []

    def __call__(
        self, input: list[ChatMessage], tools: object, tool_choice: object, config: GenerateConfig
    ) -> ModelOutput:
        prompt = input[-1].text
        self.prompts.append(prompt)
        if prompt == NAMES_PROMPT:
            return output(self.names)
        if prompt == SETTINGS_PROMPT:
            return output(SETTINGS_ANSWER)
        if prompt.startswith("Suggest a short context"):
            return output(next(self.contexts))
        if "different things a person in this story could do" in prompt:
            return output(self.states.pop(0) if self.states else STATE_ANSWER)
        assert prompt.endswith("Answer yes or no."), prompt
        assert config.temperature == 0.0
        return output(self.judge(prompt))

    def model(self) -> Model:
        return get_model("mockllm/model", custom_outputs=self)


def default_judge(prompt: str) -> str:
    if "notice at a glance" in prompt:
        return "Yes." if ("painted" in prompt or "tape" in prompt) else "No, it would look the same."
    return "Yes"


def run(script: Script, out: Path, n: int, **kwargs: object) -> GenerationReport:
    kwargs.setdefault("spec", SPEC)
    kwargs.setdefault("cache", False)
    return asyncio.run(generate_contexts(script.model(), n, out, **kwargs))  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------------ parsing
@pytest.mark.parametrize(
    "text, verdict",
    [
        ("Yes", True),
        ("yes.", True),
        ("**No**, never", False),
        ("Answer: no", False),
        ("YES - all opaque", True),
        ("maybe", None),
        ("It depends.", None),
        ("", None),
        ("Not sure, yes", None),
    ],
)
def test_the_judges_yes_no_is_read_by_the_kit(text: str, verdict: bool | None) -> None:
    assert read_yes_no(text) is verdict


def test_extract_json_skips_prose_fences_and_braces() -> None:
    text = 'Sure! Here is {your} context:\n```json\n{"a": "x {y} z", "b": [1]}\n```\nHope it helps {:'
    assert extract_json(text, dict) == {"a": "x {y} z", "b": [1]}
    assert extract_json('The list [of things]: [{"k": 1}]', list) == [{"k": 1}]
    with pytest.raises(MalformedOutput):
        extract_json('{"a": 1', dict)


def test_parse_context_answer_normalises() -> None:
    d = parse_context_answer("Here you go:\n" + context_answer() + "\nEnjoy!")
    assert d["people"] == ["Emily", "Jason", "Karen"]
    assert d["rooms"] == ["conference room", "records room"] and d["objects"] == ["stapler"]


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d.pop("containers"), "'containers' must be a non-empty list"),
        (lambda d: d.update(room=""), "missing or empty field 'room'"),
        (lambda d: d.update(people=["{Emily}, a manager", "Jason"]), "single capitalised first name"),
        (lambda d: d.update(topics="audit, budget"), "'topics' must be a non-empty list"),
    ],
)
def test_parse_context_answer_rejects_bad_fields(mutate: Callable[[dict], object], message: str) -> None:
    d = json.loads(context_answer())
    mutate(d)
    with pytest.raises(MalformedOutput, match=message):
        parse_context_answer(json.dumps(d))


def test_parse_state_change_candidates() -> None:
    text = json.dumps(
        [
            {"sentence": "{person} peeled the apple.", "property": "Peel", "resulting_state": "The apple is peeled."},
            {"sentence": "Anne poisoned it.", "property": "poison", "resulting_state": "is poisoned"},
            {"sentence": "{person} froze the {object} {quickly}.", "property": "t", "resulting_state": "is frozen"},
            {"sentence": "{person} moved the {object}.", "property": "Room", "resulting_state": "is elsewhere"},
            "not an object",
        ]
    )
    assert parse_state_change_candidates(text, "apple") == [
        {"property": "peel", "value": "is peeled", "text": "{person} peeled the {object}."}
    ]
    with pytest.raises(MalformedOutput):
        parse_state_change_candidates("[]", "apple")


def test_parse_list() -> None:
    assert parse_list("1. a school\n2) a hospital.\n- a farm\n\n") == ["a school", "a hospital", "a farm"]


# ------------------------------------------------------------------------------------------------ generation
def test_generates_valid_contexts(tmp_path: Path) -> None:
    script = Script([context_answer("stapler"), context_answer("hole punch", ("lobby", "archive"))])
    out = tmp_path / "c.jsonl"
    report = run(script, out, 2)
    assert report.complete and report.generated == 2 and report.attempts == 2
    assert report.malformed == report.judge_rejections == report.duplicates == 0
    got = load_contexts(out)
    assert [c.id for c in got] == ["llm-0000", "llm-0001"]
    assert [c.objects for c in got] == [("stapler",), ("hole punch",)]
    c = got[0]
    assert c.people == ("Emily", "Jason", "Karen") and c.rooms == ("conference room", "records room")
    assert context_problems(c, min_people=3, min_containers=3, min_topics=3) == []
    assert {(s.property, s.visible) for s in c.state_changes} == {
        ("paint color", True),
        ("tape", True),
        ("disinfection", False),
        ("weight", False),
    }
    tape = next(s for s in c.state_changes if s.property == "tape")
    assert (
        tape.value == "is wrapped in tape" and tape.sentence("Beth", "stapler") == "Beth wrapped the stapler in tape."
    )
    assert c.metadata["source"] == "llm" and c.metadata["location"]
    # the Fig. 8 lists feed the Fig. 7 prompt: a sampled location and suggested names
    ctx_prompts = [p for p in script.prompts if p.startswith("Suggest a short context")]
    assert any(
        f"happen in {s}." in ctx_prompts[0]
        for s in [
            "a school",
            "a hospital",
            "a vet shop",
            "an office",
            "a farm",
            "a ship",
            "a theatre",
            "a lab",
            "a bakery",
            "a museum",
            "a hotel",
        ]
    )
    assert Context.from_dict(c.to_dict()) == c


def test_malformed_and_missing_fields_are_counted_and_retried(tmp_path: Path) -> None:
    missing = json.loads(context_answer())
    del missing["object"]
    script = Script(['{"people": ["Emily", ', json.dumps(missing), "I cannot help with that.", context_answer()])
    report = run(script, tmp_path / "c.jsonl", 1, concurrency=1)
    assert report.complete and report.malformed == 3 and report.attempts == 4
    assert report.reasons["context: missing or empty field 'object'"] == 1
    assert [c.id for c in load_contexts(tmp_path / "c.jsonl")] == ["llm-0003"]


def test_extra_prose_and_braces_in_strings(tmp_path: Path) -> None:
    d = json.loads(context_answer())
    d["story_context"] = "They met {as usual} in the conference room."
    script = Script(
        ["Sure! {Here} is the context you asked for:\n```json\n" + json.dumps(d, indent=2) + "\n```\nThanks."]
    )
    report = run(script, tmp_path / "c.jsonl", 1)
    assert report.complete and report.malformed == 0
    assert load_contexts(tmp_path / "c.jsonl")[0].setting == "They met {as usual} in the conference room."


def test_braces_in_names_are_malformed(tmp_path: Path) -> None:
    d = json.loads(context_answer())
    d["people"][0] = "{Emily}, a manager"
    script = Script([json.dumps(d), context_answer()])
    report = run(script, tmp_path / "c.jsonl", 1, concurrency=1)
    assert report.complete and report.malformed == 1


def test_judge_maybe_is_a_rejection(tmp_path: Path) -> None:
    verdicts = iter(["Maybe, some containers are glass.", "yes"])

    def judge(prompt: str) -> str:
        return next(verdicts) if "Containers:" in prompt else default_judge(prompt)

    script = Script([context_answer("stapler"), context_answer("ruler")], judge=judge)
    report = run(script, tmp_path / "c.jsonl", 1, concurrency=1)
    assert report.complete and report.attempts == 2
    assert report.judge_unclear == 1 and report.judge_rejections == 1
    assert load_contexts(tmp_path / "c.jsonl")[0].objects == ("ruler",)


def test_judge_no_on_rooms_and_topics(tmp_path: Path) -> None:
    def judge(prompt: str) -> str:
        return "No." if ("Rooms:" in prompt or "Topics:" in prompt) else default_judge(prompt)

    report = run(Script([context_answer()] * 3, judge=judge), tmp_path / "c.jsonl", 1, max_attempts=3)
    assert not report.complete and report.judge_rejections == 3 and report.judge_unclear == 0
    assert report.reasons["judge rejected the rooms"] == 3


def test_state_changes_judged_and_too_few(tmp_path: Path) -> None:
    """An implausible or 'maybe'-visible change is dropped; a context left with < 2 invisible ones is rejected."""

    def judge(prompt: str) -> str:
        if "weighed" in prompt and "plausible" in prompt:
            return "no"
        return default_judge(prompt)

    report = run(Script([context_answer()]), tmp_path / "c.jsonl", 1, max_attempts=1)
    assert report.complete
    report = run(Script([context_answer()], judge=judge), tmp_path / "d.jsonl", 1, max_attempts=1)
    assert not report.complete and report.too_few_state_changes == 1 and report.state_change_rejections == 1
    assert "1 invisible" in next(iter(report.reasons))


def test_duplicates_are_counted(tmp_path: Path) -> None:
    script = Script([context_answer(), context_answer(), context_answer("ruler")])
    report = run(script, tmp_path / "c.jsonl", 2, concurrency=1)
    assert report.complete and report.duplicates == 1 and report.attempts == 3
    # duplicates inside one concurrent batch are caught when the batch is committed
    script = Script([context_answer(), context_answer(), context_answer("ruler")])
    report = run(script, tmp_path / "d.jsonl", 2, concurrency=2)
    assert report.complete and report.duplicates == 1
    assert [c.objects[0] for c in load_contexts(tmp_path / "d.jsonl")] == ["stapler", "ruler"]


def test_budget_exhaustion_reports(tmp_path: Path) -> None:
    script = Script(["not json"] * 5)
    report = run(script, tmp_path / "c.jsonl", 2, max_attempts=5)
    assert not report.complete and report.attempts == 5 and report.malformed == 5 and report.generated == 0
    assert report.summary().startswith("0/2 contexts (0 new, 0 already there) in 5 attempts: 5 malformed")
    assert not (tmp_path / "c.jsonl").exists() or load_contexts(tmp_path / "c.jsonl") == []


def test_default_budget_is_four_attempts_per_missing_context(tmp_path: Path) -> None:
    report = run(Script(["nope"] * 8), tmp_path / "c.jsonl", 2)
    assert report.budget == 8 and report.attempts == 8


def test_resume_keeps_existing_and_continues_numbering(tmp_path: Path) -> None:
    out = tmp_path / "c.jsonl"
    assert run(Script(["bad", context_answer()]), out, 1, concurrency=1).generated == 1
    first = out.read_text()
    report = run(Script([context_answer("ruler")]), out, 2)
    assert report.existing == 1 and report.generated == 1 and report.attempts == 1
    assert out.read_text().startswith(first)
    assert [c.id for c in load_contexts(out)] == ["llm-0001", "llm-0002"]
    nothing = Script([])
    assert run(nothing, out, 2).attempts == 0 and nothing.prompts == []


def test_bad_name_list_falls_back_to_bank_names(tmp_path: Path) -> None:
    script = Script([context_answer()], names="Sorry, I can't list names.")
    report = run(script, tmp_path / "c.jsonl", 1)
    assert report.complete and report.list_fallbacks == 1


def test_async_callable_model(tmp_path: Path) -> None:
    script = Script([context_answer()])

    async def ask(prompt: str) -> str:
        from inspect_ai.model import ChatMessageUser

        return script([ChatMessageUser(content=prompt)], [], None, GenerateConfig(temperature=0.0)).completion

    report = asyncio.run(generate_contexts(ask, 1, tmp_path / "c.jsonl", spec=SPEC))
    assert report.complete


# ------------------------------------------------------------------------------------------------ CLI
def test_cli_without_model_points_to_bank() -> None:
    result = CliRunner().invoke(main, ["contexts", "-n", "3", "--out", "x.jsonl"])
    assert result.exit_code == 2
    assert "needs a model" in result.output and "built-in contexts" in result.output and "--bank" in result.output
    assert "Traceback" not in result.output


def test_cli_exports_bank(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["contexts", "--bank", "--out", str(tmp_path / "bank.jsonl")])
    assert result.exit_code == 0, result.output
    assert len(load_contexts(tmp_path / "bank.jsonl")) >= 64


def test_cli_generates_and_reports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tombench.commands import contexts as command

    script = Script([context_answer(), "{broken", context_answer("ruler")])
    monkeypatch.setattr(command, "_model", lambda name, max_connections: script.model())
    out = tmp_path / "c.jsonl"
    args = [
        "contexts",
        "--model",
        "mockllm/model",
        "-n",
        "2",
        "--out",
        str(out),
        "--people",
        "3",
        "--containers",
        "3",
        "--topics",
        "3",
        "--no-cache",
        "--concurrency",
        "1",
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "2 contexts in" in result.output and "malformed answers" in result.output
    assert len(load_contexts(out)) == 2


def test_cli_budget_exhaustion_is_one_clear_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tombench.commands import contexts as command

    script = Script(["nope"] * 3)
    monkeypatch.setattr(command, "_model", lambda name, max_connections: script.model())
    args = [
        "contexts",
        "--model",
        "mockllm/model",
        "-n",
        "1",
        "--out",
        str(tmp_path / "c.jsonl"),
        "--no-cache",
        "--max-attempts",
        "3",
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    err = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(err) == 1 and "budget of 3 attempts ran out with 0 of 1 contexts" in err[0] and "3 malformed" in err[0]
    assert "Traceback" not in result.output


def test_cli_bad_existing_file_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tombench.commands import contexts as command

    monkeypatch.setattr(command, "_model", lambda name, max_connections: Script([]).model())
    out = tmp_path / "c.jsonl"
    out.write_text("{oops\n")
    result = CliRunner().invoke(main, ["contexts", "--model", "mockllm/model", "-n", "1", "--out", str(out)])
    assert result.exit_code == 2 and "line 1 is not valid JSON" in result.output


def test_inspect_cache_replays_a_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Same seed, same prompts: with Inspect's cache on, a second run into a new file needs no model answers."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    first = Script([context_answer(), context_answer("ruler")])
    run(first, tmp_path / "a.jsonl", 2, cache=True, seed=7)
    replay = Script([])  # would raise StopIteration on any context prompt that missed the cache
    report = run(replay, tmp_path / "b.jsonl", 2, cache=True, seed=7)
    assert report.generated == 2 and replay.prompts == []
    assert (tmp_path / "a.jsonl").read_text() == (tmp_path / "b.jsonl").read_text()


# ------------------------------------------------------------------------------------------------ issue #17
def test_personas_are_kept_for_the_infilling_prompts(tmp_path: Path) -> None:
    out = tmp_path / "c.jsonl"
    assert run(Script([context_answer()]), out, 1).generated == 1
    personas = load_contexts(out)[0].metadata["personas"]
    assert personas == {
        "Emily": "a meticulous office manager",
        "Jason": "a tech-savvy intern",
        "Karen": "an accountant",
    }


def test_rerun_after_an_exhausted_budget_asks_the_model_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the cache on, the re-run that the budget error suggests makes new attempts (new numbers, new cache
    keys): it does not replay the cached malformed answers."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "c.jsonl"
    first = run(Script(["not json"] * 3), out, 1, cache=True, max_attempts=3)
    assert first.generated == 0 and first.malformed == 3
    again = Script([context_answer()])
    report = run(again, out, 1, cache=True, max_attempts=3)
    asked = [p for p in again.prompts if p.startswith("Suggest a short context")]
    assert report.generated == 1 and len(asked) == 1  # attempt 3, asked anew
    assert load_contexts(out)[0].id == "llm-0003"


def test_locations_are_a_seeded_permutation_of_the_whole_list() -> None:
    from tombench.generators.exploretom.context_generation import _location

    settings = [f"place {i}" for i in range(30)]
    first = [_location(settings, 5, k) for k in range(30)]
    assert sorted(first) == sorted(settings)  # 30 attempts use all 30 locations, none twice
    assert first == [_location(settings, 5, k) for k in range(30)] != [_location(settings, 6, k) for k in range(30)]
