"""Iterative infilling with a per-step judge (tombench.generators.exploretom.infill), against Inspect's mockllm with scripted,
sometimes malformed or adversarial, outputs."""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, ModelUsage, get_model

from tombench.cli import main
from tombench.dsl import Context, Setting, StateChange, Story, parse_structure
from tombench.dsl.sampler import random_story
from tombench.generators.exploretom.identity import story_digest
from tombench.generators.exploretom.infill import InfillConfig, infill_file
from tombench.generators.exploretom.infill_checks import final_checks, judge_checks, precheck, world_statements
from tombench.generators.exploretom.infill_prompts import FANTOM_TEXT_TYPE, LENGTHS, TEXT_TYPES, sample_desiderata
from tombench.generators.exploretom.infill_replies import parse_candidates, parse_goals, parse_judge
from tombench.generators.exploretom.story_inputs import InfillError, load_story_inputs
from tombench.kit.calls import MalformedOutput

MOVES = (
    "Anne entered the kitchen. Beth entered the kitchen. Anne moved the apple to the box, which is also located in "
    "the kitchen. Beth left the kitchen. Anne moved the apple to the basket, which is also located in the kitchen."
)
PEEK = (
    "Anne entered the kitchen. Anne moved the apple to the box, which is also located in the kitchen. While this "
    "action was happening, Beth witnessed this action in secret (and only this action)."
)


def story(text: str = MOVES) -> Story:
    return parse_structure(text)


CTX = Context(
    people=("Anne", "Beth", "Carl", "Dana"),
    rooms=("kitchen", "bedroom"),
    objects=("apple",),
    containers=("box", "basket", "crate"),
    topics=("summer vacation", "new recipe"),
    state_changes=(
        StateChange("peel", "is peeled", "{person} peeled the {object}.", True),
        StateChange("poison", "is poisoned", "{person} poisoned the {object}.", False),
    ),
)
#: seeded random stories of four people with every kind of action, peeks and distractions
SAMPLED_STORIES = [
    random_story(CTX, Setting.make(t, 4, 3), random.Random(i))
    for i, t in enumerate(["all+asymmetric", "tomi+object-state+asymmetric", "fantom-public+asymmetric", "all"])
]


def _quoted(answer: str) -> str:
    return answer if answer in ("yes", "no") else f"'{answer}'"


def output(text: str) -> ModelOutput:
    out = ModelOutput.from_content(model="mockllm/model", content=text)
    n = max(1, len(text) // 4)
    out.usage = ModelUsage(input_tokens=50, output_tokens=n, total_tokens=50 + n)
    return out


def new_info(prompt: str) -> str:
    return re.search(r"NEW ACTION OR INFORMATION TO INCLUDE: (.*)", prompt).group(1)


def good_writer(prompt: str) -> str:
    """Prose before the list, bold labels, a trailing note: all of it must be tolerated."""
    if "TWO-SENTENCE STORY BEGINNING" in prompt:
        return "The kitchen smelled of fresh bread. Morning light fell across the counters."
    if "CHARACTERS GOALS" in prompt:
        return "- **Anne**: keep the fruit safe\n{Beth}: tidy up before lunch\nZed: not in the story"
    info = new_info(prompt)
    return (
        "Sure! Here are the continuations:\n\n"
        f"**STORY CONTINUATION:** Quietly, {info[0].lower()}{info[1:]}\n\n"
        f"STORY CONTINUATION: Then {info[0].lower()}{info[1:]}\nNote: I kept it short."
    )


EXPECTED_NO = (
    "Does the new text introduce",
    "Does the new text call",
    "Does the new text suggest",
    "Does the new text include",
    "Does the text",
    "In the new text",
)


def honest_judge(prompt: str) -> str:
    """Answers what the tracked state requires: yes to every check but the 'does it add/rename/suggest' ones."""
    lines = []
    for m in re.finditer(r"^(\d+)\. (.*)$", prompt, re.M):
        bad = m.group(2).startswith(EXPECTED_NO)
        lines.append(f"{m.group(1)}: {'no' if bad else 'yes'}")
    return "Here is my assessment.\n" + "\n".join(lines)


class Scripted:
    """A mockllm callable routing each prompt to a writer or a judge function, recording every prompt."""

    def __init__(self, writer: Callable[[str], str], judge: Callable[[str], str] = honest_judge) -> None:
        self.writer, self.judge = writer, judge
        self.prompts: list[str] = []

    def __call__(self, input: list[ChatMessage], tools, tool_choice, config: GenerateConfig) -> ModelOutput:  # noqa: ANN001
        prompt = input[-1].text
        self.prompts.append(prompt)
        return output(self.judge(prompt) if prompt.startswith("You check a story") else self.writer(prompt))

    def model(self) -> Model:
        return get_model("mockllm/model", custom_outputs=self)


def write_stories(path: Path, stories: list[Story], *, search_format: bool = True) -> Path:
    with path.open("w", encoding="utf-8") as f:
        for s in stories:
            rec = (
                {"method": "astar", "setting": "tomi|p2|m2|r1", "story": s.to_dict()} if search_format else s.to_dict()
            )
            f.write(json.dumps(rec) + "\n")
        if search_format:
            f.write(json.dumps({"method": "astar", "setting": "tomi|p2|m2|r1", "story": None}) + "\n")
    return path


ONE_ROUND = InfillConfig(story_attempts=1)


def run(model: Model, src: Path, out: Path, **kwargs) -> object:  # noqa: ANN003
    return asyncio.run(infill_file(model, src, out, cache=False, **kwargs))


# ---------------------------------------------------------------------------------------------------- parsing
def test_parse_candidates_tolerates_prose_labels_and_notes() -> None:
    text = (
        'Here you go:\n1. STORY CONTINUATION: Anne slipped in.\n\n**Story continuation 2:** "Beth followed."\n'
        "STORY CONTINUATION: <fill>\nSTORY CONTINUATION: Anne slipped in.\n(Note: varied wording)"
    )
    assert parse_candidates(text) == ["Anne slipped in.", "Beth followed."]


@pytest.mark.parametrize("text", ["", "Anne slipped in quietly.", "STORY CONTINUATION: <fill>"])
def test_parse_candidates_without_labelled_text_is_malformed(text: str) -> None:
    with pytest.raises(MalformedOutput):
        parse_candidates(text)


def test_parse_goals_keeps_story_people_only_and_strips_braces() -> None:
    goals = parse_goals("Goals:\n- **Anne**: win\n{Beth}: rest\n3. Carl: not here\nAnne: duplicate", ["Anne", "Beth"])
    assert goals == {"Anne": "win", "Beth": "rest"}
    with pytest.raises(MalformedOutput):
        parse_goals("Everyone wants to be happy.", ["Anne"])


def test_parse_judge_maybe_missing_and_prose() -> None:
    assert parse_judge("Sure.\n1: yes\n2. Maybe\n**3**: No, not at all", 4) == [True, None, False, None]
    assert parse_judge("Yes.", 1) == [True]
    assert parse_judge("maybe", 1) == [None]


# ---------------------------------------------------------------------------------------------------- checks
def test_judge_checks_follow_the_tracked_state() -> None:
    s = story()
    last = judge_checks(s, 4)
    kinds = [c.kind for c in last]
    assert kinds == ["conveys", "new_content", "renamed", "surface", "surface"] + ["world"] * 6 + ["belief"] * 4
    assert last[0].question.endswith("Anne moved the apple to the basket, which is also located in the kitchen.")
    world = [c.question.removeprefix("According to the story so far, is this true now: ") for c in last[5:11]]
    # the whole world state, Beth's departure included (who witnesses a later action depends on it)
    assert world == [
        "Anne is in the kitchen?",
        "Beth is not in the kitchen?",
        "the apple is in the kitchen?",
        "the apple is in the basket?",
        "the box is in the kitchen?",
        "the basket is in the kitchen?",
    ]
    beliefs = [c.question for c in last if c.kind == "belief"]
    # the belief this step changed comes first; Beth (who left) still believes the box; room beliefs too
    assert beliefs == [
        "According to the story so far: In which container will Anne search for the apple? Is the answer 'basket'?",
        "According to the story so far: In which container will Beth search for the apple? Is the answer 'box'?",
        "According to the story so far: In which room will Anne search for the apple? Is the answer 'kitchen'?",
        "According to the story so far: In which room will Beth search for the apple? Is the answer 'kitchen'?",
    ]
    assert [c.expected for c in last] == [True, False, False, True, False] + [True] * 10
    assert [c.kind for c in judge_checks(s, 0)] == ["conveys", "new_content", "renamed", "surface", "surface", "world"]
    capped = judge_checks(s, 4, max_beliefs=1)
    assert [c.question for c in capped if c.kind == "belief"] == beliefs[:1]


def test_every_first_order_belief_is_judged_at_every_step() -> None:
    """The authors' infiller judges every first-order belief after each step; so does the default here, for every
    step of stories with topics, state changes, peeks and several people (the old cap was 4 per step)."""
    for s in SAMPLED_STORIES:
        for i in range(len(s.steps)):
            prefix = Story(s.context, s.actions[: i + 1])
            judged = {c.question for c in judge_checks(s, i) if c.kind == "belief"}
            wanted = prefix.questions(orders=(1,), first_order_room_questions=True)
            assert judged == {f"According to the story so far: {q.text} Is the answer {_quoted(q.answer)}?" for q in wanted}
            assert len([c for c in judge_checks(s, i) if c.kind == "world"]) == len(prefix.state.world)


def test_world_statements_cover_rooms_containers_states_and_departures() -> None:
    s = story(
        "Anne entered the kitchen. Beth entered the kitchen. Anne moved the apple to the box, which is also located "
        "in the kitchen. Anne moved the apple to the bedroom, leaving the box in its original location. Beth left "
        "the kitchen."
    )
    assert world_statements(s.state) == [
        "Anne is in the bedroom",
        "Beth is not in the kitchen",
        "the apple is in the bedroom",
        "the apple is not inside any container",
        "the box is in the kitchen",
    ]


def test_scope_checks_keep_a_peek_or_a_distraction_to_its_one_action() -> None:
    peek = judge_checks(story(PEEK), 1)
    assert [c.question for c in peek if c.kind == "scope"] == [
        "Does the new text suggest that anyone notices Beth watching?",
        "Does the new text suggest that Beth goes on watching after this action?",
    ]
    distracted = story(
        "Anne entered the kitchen. Beth entered the kitchen. Anne moved the apple to the box, which is also located "
        "in the kitchen. While this action was happening, Beth got distracted and did not realize what happened, "
        "without anyone noticing the brief lack of attention, and going back to paying attention immediately after "
        "the action was finished."
    )
    scope = [c for c in judge_checks(distracted, 2) if c.kind == "scope"]
    assert [c.expected for c in scope] == [False] * 3
    assert "anyone notices that Beth is distracted" in scope[0].question
    assert "Beth notices anything of this action" in scope[1].question
    assert not [c for c in judge_checks(story(), 2) if c.kind == "scope"]


def test_judge_checks_include_the_witness_sentence() -> None:
    checks = judge_checks(story(PEEK), 1)
    assert checks[1].kind == "modifier" and "Beth witnessed this action in secret" in checks[1].question


def test_precheck_rejects_leftovers_newcomers_and_strange_speakers() -> None:
    s = story()
    assert precheck("Anne walked in, humming.", s, 0) is None
    assert "braces" in precheck("Anne put the {object} away.", s, 2)
    assert "Beth" in precheck("Anne walked in, and Beth followed.", s, 0)  # Beth only enters at step 1
    assert precheck("Anne walked in, and Beth followed.", s, 1) is None
    assert "speaker" in precheck("Anne: Hi!\nCarl: Hello.", s, 1)
    assert precheck("   ", s, 0) == "empty continuation"


def test_desiderata_are_the_fig12_choices_uniformly() -> None:
    rng = random.Random(0)
    draws = [sample_desiderata(rng) for _ in range(4000)]
    lengths, types = Counter(d.length for d in draws), Counter(d.text_type for d in draws)
    assert set(lengths) == set(LENGTHS) and set(types) == set(TEXT_TYPES)
    assert all(abs(c / 4000 - 0.5) < 0.03 for c in [*lengths.values(), *types.values()])
    assert sample_desiderata(random.Random(1), "fantom").text_type == FANTOM_TEXT_TYPE


# ---------------------------------------------------------------------------------------------------- inputs
def test_load_story_inputs_reads_search_and_plain_lines(tmp_path: Path) -> None:
    src = write_stories(tmp_path / "s.jsonl", [story(), story(PEEK)])
    items, empty = load_story_inputs(src)
    assert empty == 1 and [it.story.text for it in items] == [story().text, story(PEEK).text]
    assert {it.story_type for it in items} == {"tomi"} and len({it.id for it in items}) == 2
    plain, _ = load_story_inputs(write_stories(tmp_path / "p.jsonl", [story()], search_format=False))
    # the story type is part of the content identity: a plain line (type unknown) is not the typed search story
    assert plain[0].story_type == "unknown" and plain[0].digest == plain[0].id != items[0].digest
    assert plain[0].digest == story_digest(story(), "unknown") and items[0].digest == story_digest(story(), "tomi")


def test_load_story_inputs_names_the_bad_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"story": story().to_dict()}) + "\n{not json\n")
    with pytest.raises(InfillError, match=r"bad.jsonl:2: invalid JSON"):
        load_story_inputs(bad)
    bad.write_text(json.dumps({"hello": 1}) + "\n")
    with pytest.raises(InfillError, match=r":1: no 'story' key"):
        load_story_inputs(bad)


# ---------------------------------------------------------------------------------------------------- end to end
def test_infill_accepts_good_candidates_and_writes_the_narration(tmp_path: Path) -> None:
    script = Scripted(good_writer)
    src = write_stories(tmp_path / "s.jsonl", [story(), story(PEEK)])
    out = tmp_path / "out.jsonl"
    report = run(script.model(), src, out)
    assert (report.ok, report.failed, report.no_story_lines) == (2, 0, 1)
    assert report.story_acceptance == 1.0 and report.step_acceptance == 1.0 and report.candidate_acceptance == 1.0
    assert report.steps == 7 and report.steps_first_candidate == 7
    finals = sum(-(-len(final_checks(s)) // 12) for s in (story(), story(PEEK)))
    judged = sum(-(-len(judge_checks(s, i)) // 12) for s in (story(), story(PEEK)) for i in range(len(s.steps)))
    # narration, its judge and goals per story, a writer call per step and a judge call per 12 of its checks, the
    # final label checks
    assert report.model_calls == 2 * 3 + 7 + judged + finals and judged == 11  # 7 before: one call per step
    assert report.judge_calls == 2 + judged + finals
    assert report.final_checks == report.final_passed == sum(len(final_checks(s)) for s in (story(), story(PEEK)))
    recs = {r["structure"]: r for r in map(json.loads, out.read_text().splitlines())}
    r = recs[story().text]
    assert r["status"] == "ok" and r["goals"] == {"Anne": "keep the fruit safe", "Beth": "tidy up before lunch"}
    assert r["text"].startswith("The kitchen smelled of fresh bread.")
    assert "Quietly, anne moved the apple to the basket" in r["text"] and "Note" not in r["text"]
    assert Story.from_dict(r["story"]).text == story().text
    # the goals reach the writer; the judge sees the belief check
    assert any("WHAT ARE THEIR GOALS: Anne: keep the fruit safe" in p for p in script.prompts)
    assert any("Is the answer 'basket'?" in p for p in script.prompts)


def test_adversarial_candidates_fall_through_to_a_good_one(tmp_path: Path) -> None:
    def writer(prompt: str) -> str:
        if "TWO-SENTENCE" in prompt:
            return "Anne loved this kitchen."  # mentions a person: narration dropped
        if "CHARACTERS GOALS" in prompt:
            return "They all want lunch."  # no Name: goal line
        info = new_info(prompt)
        return (
            "STORY CONTINUATION: Anne put the {object} somewhere.\n"  # template leftovers
            "STORY CONTINUATION: Carl watched as it happened.\n"  # a new name: goes to the judge, which objects
            f"STORY CONTINUATION: {info}"
        )

    def judge(prompt: str) -> str:
        return honest_judge(prompt).replace("2: no", "2: yes") if "Carl watched" in prompt else honest_judge(prompt)

    out = tmp_path / "out.jsonl"
    report = run(Scripted(writer, judge).model(), write_stories(tmp_path / "s.jsonl", [story()]), out)
    assert report.ok == 1 and report.malformed_narrations == 1 and report.malformed_goals == 1
    assert report.precheck_rejections == 5 and report.judge_rejections == 5 and report.judge_unclear == 0
    assert report.candidates_judged == 10 and report.candidate_acceptance == 0.5 and report.steps_first_candidate == 0
    rec = json.loads(out.read_text())
    assert rec["narration"] == "" and rec["goals"] is None and rec["text"] == story().text
    assert rec["steps"][0]["rejections"][1]["reason"] == "judge: failed ['new_content']"


def test_a_judge_that_says_maybe_fails_the_story(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    script = Scripted(good_writer, lambda p: "1: maybe\n2: no\n3: no\nI am not sure.")
    report = run(script.model(), write_stories(tmp_path / "s.jsonl", [story()]), out, config=ONE_ROUND)
    assert (report.ok, report.failed, report.story_acceptance) == (0, 1, 0.0)
    assert report.judge_rejections == 2 and report.judge_unclear == 2 and report.steps == 1
    rec = json.loads(out.read_text())
    assert rec["status"] == "failed" and rec["failed_step"] == 0 and rec["text"] is None
    assert "no yes/no" in rec["steps"][0]["rejections"][0]["reason"]


def test_a_judge_that_contradicts_the_state_fails_the_story(tmp_path: Path) -> None:
    def judge(prompt: str) -> str:  # at the last step, says Beth would not look in the box: a leaked move
        verdicts = honest_judge(prompt)
        leaked = re.search(r"^(\d+)\. .*Beth search for the apple\? Is the answer 'box'", prompt, re.M)
        if leaked and "basket" in prompt.split("NEW TEXT:")[1]:
            verdicts = verdicts.replace(f"{leaked.group(1)}: yes", f"{leaked.group(1)}: no")
        return verdicts

    src = write_stories(tmp_path / "s.jsonl", [story()])
    report = run(Scripted(good_writer, judge).model(), src, tmp_path / "o", config=ONE_ROUND)
    rec = json.loads((tmp_path / "o").read_text())
    assert rec["status"] == "failed" and rec["failed_step"] == 4 and report.steps_accepted == 4


def test_malformed_infills_are_counted_and_retried(tmp_path: Path) -> None:
    calls = Counter()

    def writer(prompt: str) -> str:
        if "NEW ACTION" not in prompt:
            return good_writer(prompt)
        calls[new_info(prompt)] += 1
        return "I cannot do that." if calls[new_info(prompt)] == 1 else good_writer(prompt)

    out = tmp_path / "out.jsonl"
    src = write_stories(tmp_path / "s.jsonl", [story()])
    once = run(Scripted(writer).model(), src, out, config=ONE_ROUND)
    assert once.failed == 1 and once.malformed_infills == 1
    out.unlink()
    calls.clear()
    twice = run(Scripted(writer).model(), src, out, config=InfillConfig(step_attempts=2))
    assert twice.ok == 1 and twice.malformed_infills == 5 and twice.generations == 10


def test_resume_skips_done_stories_and_pays_nothing(tmp_path: Path) -> None:
    src = write_stories(tmp_path / "s.jsonl", [story(), story(PEEK)])
    out = tmp_path / "out.jsonl"
    first = run(Scripted(good_writer).model(), src, out, limit=1)
    assert first.ok == 1 and len(out.read_text().splitlines()) == 1
    second = Scripted(good_writer)
    report = run(second.model(), src, out)
    assert report.already_done == 1 and report.ok == 1 and len(out.read_text().splitlines()) == 2
    third = Scripted(good_writer)
    assert run(third.model(), src, out).model_calls == 0 and third.prompts == []


def test_desiderata_do_not_depend_on_concurrency(tmp_path: Path) -> None:
    src = write_stories(tmp_path / "s.jsonl", [story(), story(PEEK)])
    got = []
    for conc in (1, 4):
        out = tmp_path / f"o{conc}.jsonl"
        run(Scripted(good_writer).model(), src, out, config=InfillConfig(concurrency=conc, seed=3))
        recs = sorted(map(json.loads, out.read_text().splitlines()), key=lambda r: r["id"])
        got.append([[s["desiderata"] for s in r["steps"]] for r in recs])
    assert got[0] == got[1]


def test_fantom_style_is_conversational_and_newline_joined(tmp_path: Path) -> None:
    def writer(prompt: str) -> str:
        if "NEW ACTION" not in prompt:
            return good_writer(prompt)
        assert FANTOM_TEXT_TYPE in prompt
        return "STORY CONTINUATION: Anne: Hello there!\nBeth: Hi, Anne."

    out = tmp_path / "out.jsonl"
    config = InfillConfig(style="fantom", narration=False, goals=False, story_attempts=1)
    report = run(Scripted(writer).model(), write_stories(tmp_path / "s.jsonl", [story()]), out, config=config)
    # step 0: only Anne is in the story, so "Beth:" as a speaker is rejected before the judge
    assert report.failed == 1 and report.precheck_rejections == 1
    rec = json.loads(out.read_text())
    assert "Beth" in rec["steps"][0]["rejections"][0]["reason"]


# ---------------------------------------------------------------------------------------------------- CLI
def test_cli_infill_end_to_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tombench.commands.infill as cmd

    monkeypatch.setattr(cmd, "_model", lambda name, mc: Scripted(good_writer).model())
    src = write_stories(tmp_path / "s.jsonl", [story(), story(PEEK)])
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(main, ["infill", "--model", "x/y", str(src), "--out", str(out), "--no-cache"])
    assert res.exit_code == 0, res.output
    assert (
        "100.0% (95% CI 34.2-100.0%, 2/2) of stories infilled at the first attempt" in res.output
        and len(out.read_text().splitlines()) == 2
    )


def test_cli_infill_user_errors_are_one_line(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["infill", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "o")])
    assert res.exit_code == 2 and res.output.strip().count("\n") == 0 and "needs a model" in res.output
    res = CliRunner().invoke(main, ["infill", "-m", "x/y", str(tmp_path / "missing.jsonl"), "--out", "o"])
    assert res.exit_code == 2 and "does not exist" in res.output
    res = CliRunner().invoke(
        main, ["infill", "-m", "nosuchprovider/x", str(write_stories(tmp_path / "s", [story()])), "--out", "o"]
    )
    assert res.exit_code == 2 and "cannot use model 'nosuchprovider/x'" in res.output


def test_retries_bypass_the_cached_failure_and_reruns_hit_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    calls = Counter()

    def writer(prompt: str) -> str:
        if "NEW ACTION" not in prompt:
            return good_writer(prompt)
        calls[new_info(prompt)] += 1
        return "No labels here." if calls[new_info(prompt)] == 1 else good_writer(prompt)

    src = write_stories(tmp_path / "s.jsonl", [story()])
    config = InfillConfig(step_attempts=2)
    script = Scripted(writer)
    first = asyncio.run(infill_file(script.model(), src, tmp_path / "a.jsonl", config=config))
    assert first.ok == 1 and first.malformed_infills == 5  # attempt 2 was really asked, not served the cached failure
    again = Scripted(writer)
    second = asyncio.run(infill_file(again.model(), src, tmp_path / "b.jsonl", config=config))
    assert again.prompts == [] and second.ok == 1 and second.malformed_infills == 5  # same run, all from the cache
    same = [json.loads((tmp_path / f).read_text())["text"] for f in ("a.jsonl", "b.jsonl")]
    assert same[0] == same[1]


# ---------------------------------------------------------------------------------------------------- issue #17
def search_run(stories: list[Story], setting: str = "tomi|p2|m2|r1") -> list[dict]:
    """`tombench search` lines as the runner writes them: ids are setting|attempt, so they collide across runs."""
    return [
        {"id": f"{setting}|{i}", "setting_id": setting, "story_type": setting.split("|")[0], "story": s.to_dict()}
        for i, s in enumerate(stories)
    ]


OTHER = (
    "Anne entered the kitchen. Beth entered the kitchen. Beth moved the apple to the basket, which is also located "
    "in the kitchen. Anne left the kitchen."
)


def test_merged_runs_are_infilled_once_per_story_and_resumed_by_digest(tmp_path: Path) -> None:
    astar = search_run([story(), story(PEEK)])
    rand = search_run([story(OTHER), story()])  # id |0 is another story here; story() comes back as |1
    src = tmp_path / "merged.jsonl"
    src.write_text("".join(json.dumps(x) + "\n" for x in astar + rand))
    out = tmp_path / "out.jsonl"
    report = run(Scripted(good_writer).model(), src, out, limit=2)
    assert report.duplicate_inputs == 1 and report.ok == 2
    # the resume check is by content: the random run's |0 (a new story with a done story's id) is still infilled
    report = run(Scripted(good_writer).model(), src, out)
    assert report.already_done == 2 and report.ok == 1
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert sorted(r["structure"] for r in recs) == sorted([MOVES, PEEK, OTHER])
    assert all(r["digest"] == story_digest(Story.from_dict(r["story"]), "tomi") for r in recs)


def test_rerun_after_failures_asks_the_model_again_and_reports_both_rates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first round of each story fails (a leaky candidate), the second passes. With the cache on, a re-run
    with more --story-attempts is asked anew (never served the cached failure)."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    asked = Counter()

    def writer(prompt: str) -> str:
        if "NEW ACTION" not in prompt:
            return good_writer(prompt)
        asked["step"] += 1  # only the very first step call fails: round 0 fails, round 1 can pass
        return "STORY CONTINUATION: Anne put the {object} down." if asked["step"] == 1 else good_writer(prompt)

    src = write_stories(tmp_path / "s.jsonl", [story(PEEK)])
    out = tmp_path / "out.jsonl"
    script = Scripted(writer)
    cfg = dict(narration=False, goals=False)
    first = asyncio.run(infill_file(script.model(), src, out, config=InfillConfig(story_attempts=1, **cfg)))
    assert (first.ok, first.failed, first.first_round_ok, first.final_ok) == (0, 1, 0, 0)
    same = asyncio.run(infill_file(Scripted(writer).model(), src, out, config=InfillConfig(story_attempts=1, **cfg)))
    assert same.exhausted == 1 and same.model_calls == 0  # out of rounds: nothing asked, and it says so
    calls_before = sum(asked.values())
    again = asyncio.run(infill_file(script.model(), src, out, config=InfillConfig(story_attempts=2, **cfg)))
    assert sum(asked.values()) > calls_before  # round 1 was really asked: a new cache key
    assert (again.ok, again.first_round_ok, again.first_round_of, again.final_ok, again.final_of) == (1, 0, 1, 1, 1)
    rounds = [(r["round"], r["status"]) for r in map(json.loads, out.read_text().splitlines())]
    assert rounds == [(0, "failed"), (1, "ok")]


def test_single_attempt_and_final_acceptance_within_one_run(tmp_path: Path) -> None:
    tries = Counter()

    def writer(prompt: str) -> str:  # every story's first round fails at its first step
        if "NEW ACTION" not in prompt:
            return good_writer(prompt)
        who = "Anne" if "Anne" in new_info(prompt) else "Dora"
        tries[who] += 1
        return "STORY CONTINUATION: Anne put the {object} down." if tries[who] == 1 else good_writer(prompt)

    src = write_stories(tmp_path / "s.jsonl", [story(), story(MOVES.replace("Anne", "Dora").replace("Beth", "Emma"))])
    report = run(Scripted(writer).model(), src, tmp_path / "o.jsonl", config=InfillConfig(story_attempts=3))
    assert (report.first_round_ok, report.first_round_of, report.final_ok, report.final_of) == (0, 2, 2, 2)
    assert report.rounds == 4 and report.first_attempt_acceptance == 0.0 and report.story_acceptance == 1.0


def test_final_check_covers_every_exported_label_and_a_contradiction_fails(tmp_path: Path) -> None:
    def judge(prompt: str) -> str:  # contradicts one second-order label of the finished story only
        out = honest_judge(prompt)
        if prompt.startswith("You check a story for consistency. Read the whole story"):
            n = next(m.group(1) for m in re.finditer(r"^(\d+)\. (.*)$", prompt, re.M) if "think that" in m.group(2))
            out = out.replace(f"{n}: yes", f"{n}: no")
        return out

    out = tmp_path / "o.jsonl"
    report = run(
        Scripted(good_writer, judge).model(), write_stories(tmp_path / "s.jsonl", [story()]), out, config=ONE_ROUND
    )
    rec = json.loads(out.read_text())
    assert rec["status"] == "failed" and rec["failed_stage"] == "final" and report.final_failures == 1
    checked = {(v["question"], v["answer"]) for v in rec["verified"]}
    assert checked == {(q.text, q.answer) for q in story().questions(orders=(0, 1, 2))}
    assert {v["order"] for v in rec["verified"]} == {0, 1, 2} and report.final_contradicted == 1


def test_personas_reach_every_prompt_and_outsiders_are_caught(tmp_path: Path) -> None:
    base = story()
    ctx = base.context.to_dict()
    ctx["metadata"] = {"personas": {"Anne": "a meticulous baker", "Beth": "a curious neighbour", "Chloe": "a chef"}}
    ctx["setting"] = "Chloe and Dario cook in the bakery. The kitchen is warm."
    s = Story.from_dict({**base.to_dict(), "context": ctx})

    def writer(prompt: str) -> str:
        if "TWO-SENTENCE" in prompt:
            return "Chloe watched the ovens."  # a persona name from outside the story: dropped before the judge
        return good_writer(prompt)

    script = Scripted(writer)
    out = tmp_path / "o.jsonl"
    report = run(script.model(), write_stories(tmp_path / "s.jsonl", [s]), out, config=ONE_ROUND)
    assert report.ok == 1 and report.malformed_narrations == 1
    narration = next(p for p in script.prompts if "TWO-SENTENCE" in p)
    assert "Anne, a meticulous baker" in narration and "Chloe" not in narration  # the setting sentence naming her
    assert "The kitchen is warm." in narration
    step = next(p for p in script.prompts if "NEW ACTION" in p)
    assert "WHO ARE THE CHARACTERS: Anne, a meticulous baker; Beth, a curious neighbour" in step
    assert precheck("Chloe waved at Anne.", s, 2) == "names someone not in the story yet: Chloe"


def test_the_narration_is_judged(tmp_path: Path) -> None:
    def judge(prompt: str) -> str:
        if prompt.startswith("You check a story opening"):
            return "1: yes\n2: no\n3: no"  # "mentions a person": the narration is dropped, the story goes on
        return honest_judge(prompt)

    out = tmp_path / "o.jsonl"
    report = run(Scripted(good_writer, judge).model(), write_stories(tmp_path / "s.jsonl", [story()]), out)
    rec = json.loads(out.read_text())
    assert report.narration_rejections == 1 and rec["narration"] == "" and rec["status"] == "ok"


def test_fantom_style_departed_characters_are_silent() -> None:
    s = story()  # Beth leaves at step 3 (index 3)
    assert precheck("Beth: I am off now.", s, 3, style="fantom") is None  # she may speak as she leaves
    assert precheck("Beth: The basket, then?", s, 4, style="fantom") == "speaker 'Beth' is not present at this step"
    checks = judge_checks(s, 4, style="fantom")
    assert any(c.kind == "absent_speaker" and "Beth" in c.question and c.expected is False for c in checks)


# ---------------------------------------------------------------------------------------------------- issue #31 point 7
FIVE = (
    "Anne entered the kitchen. Beth entered the kitchen. Carl entered the kitchen. Dana entered the kitchen. Esther "
    "entered the kitchen. Anne moved the apple to the box, which is also located in the kitchen. Beth left the "
    "kitchen. Carl left the kitchen. Dana left the kitchen. Esther left the kitchen. Anne moved the apple to the "
    "basket, which is also located in the kitchen."
)
LEAK = "Anne slipped the apple into the basket, while Esther watched her through the window."
ESTHER_BOX = "In which container will Esther search for the apple? Is the answer 'box'?"


def leaky_writer(prompt: str) -> str:
    """Faithful, except that the last move's first candidate lets Esther (who left) watch it."""
    info = new_info(prompt)
    if "to the basket" in info:
        return f"STORY CONTINUATION: {LEAK}\n\nSTORY CONTINUATION: {info}"
    return f"STORY CONTINUATION: {info}"


def reading_judge(prompt: str) -> str:
    """Honest, and reads the leak: with Esther watching, she would look in the basket, not the box."""
    verdicts = honest_judge(prompt)
    m = re.search(r"^(\d+)\. .*" + re.escape(ESTHER_BOX), prompt, re.M)
    if m and "Esther watched" in prompt:
        verdicts = verdicts.replace(f"\n{m.group(1)}: yes", f"\n{m.group(1)}: no")
    return verdicts


def test_a_leak_to_a_belief_outside_the_old_four_is_rejected_at_its_step(tmp_path: Path) -> None:
    s = story(FIVE)
    last = len(s.steps) - 1
    old = [c.question for c in judge_checks(s, last, max_beliefs=4) if c.kind == "belief"]
    new = [c.question for c in judge_checks(s, last) if c.kind == "belief"]
    # the old cap judged Anne's new belief and the first three of the four who left: Esther's was never asked
    assert not any("Esther" in q for q in old) and any(q.endswith(ESTHER_BOX) for q in new)
    src = write_stories(tmp_path / "s.jsonl", [s])
    cfg = dict(narration=False, goals=False, story_attempts=1)

    report = run(Scripted(leaky_writer, reading_judge).model(), src, tmp_path / "new", config=InfillConfig(**cfg))
    rec = json.loads((tmp_path / "new").read_text())
    assert rec["status"] == "ok" and LEAK not in rec["text"] and report.final_contradicted == 0
    [rejected] = rec["steps"][last]["rejections"]
    assert rejected == {"candidate": LEAK, "reason": "judge: failed ['belief']"}

    # the old cap lets the leak through its step; only the final label check stops it, and the whole round is lost
    report = run(
        Scripted(leaky_writer, reading_judge).model(), src, tmp_path / "old", config=InfillConfig(**cfg, max_belief_checks=4)
    )
    rec = json.loads((tmp_path / "old").read_text())
    assert rec["steps"][last]["infill"] == LEAK and rec["steps"][last]["rejections"] == []
    assert rec["status"] == "failed" and rec["failed_stage"] == "final" and report.final_contradicted == 1


def test_a_step_that_keeps_a_leaver_in_the_room_fails_the_world_check(tmp_path: Path) -> None:
    def writer(prompt: str) -> str:
        info = new_info(prompt)
        if info == "Beth left the kitchen.":
            return "STORY CONTINUATION: Beth stayed by the door, pretending to leave."
        return f"STORY CONTINUATION: {info}"

    def judge(prompt: str) -> str:
        verdicts = honest_judge(prompt)
        if "pretending to leave" in prompt.split("NEW TEXT:")[1]:
            for m in re.finditer(r"^(\d+)\. (?:Does the new text convey|.*Beth is not in the kitchen)", prompt, re.M):
                verdicts = verdicts.replace(f"\n{m.group(1)}: yes", f"\n{m.group(1)}: no")
        return verdicts

    cfg = InfillConfig(narration=False, goals=False, story_attempts=1)
    run(Scripted(writer, judge).model(), write_stories(tmp_path / "s.jsonl", [story()]), tmp_path / "o", config=cfg)
    rec = json.loads((tmp_path / "o").read_text())
    assert rec["failed_step"] == 3 and rec["steps"][3]["rejections"][0]["reason"] == "judge: failed ['conveys', 'world']"


def test_step_checks_go_in_batches_and_stop_at_the_first_rejection(tmp_path: Path) -> None:
    s = story(FIVE)
    last = len(s.steps) - 1
    n = len(judge_checks(s, last))
    script = Scripted(leaky_writer, reading_judge)
    cfg = InfillConfig(narration=False, goals=False, story_attempts=1, step_batch=5)
    report = run(script.model(), write_stories(tmp_path / "s.jsonl", [s]), tmp_path / "o", config=cfg)
    step_prompts = [p for p in script.prompts if p.startswith("You check a story") and "NEW TEXT:" in p]
    per_step = sum(-(-len(judge_checks(s, i)) // 5) for i in range(len(s.steps)))
    # the leaky candidate is judged up to the batch holding Esther's belief, then the clean one in full
    leak_batches = next(i for i, c in enumerate(judge_checks(s, last)) if c.question.endswith(ESTHER_BOX)) // 5 + 1
    assert len(step_prompts) == per_step + leak_batches and leak_batches < -(-n // 5)
    assert all(len(re.findall(r"^\d+\. ", p, re.M)) <= 5 for p in step_prompts)
    assert report.judge_calls == len(step_prompts) + -(-len(final_checks(s)) // 12)
    assert cfg.max_belief_checks is None and InfillConfig().step_batch == 12


def test_cli_belief_cap_and_step_batch_reach_the_judge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import tombench.commands.infill as cmd

    script = Scripted(good_writer)
    monkeypatch.setattr(cmd, "_model", lambda name, mc: script.model())
    src = write_stories(tmp_path / "s.jsonl", [story(), story(PEEK)])
    args = ["infill", "-m", "x/y", str(src), "-o", str(tmp_path / "o.jsonl"), "--no-cache", "--no-narration"]
    res = CliRunner().invoke(main, [*args, "--no-goals", "--belief-checks", "1", "--step-batch", "40"])
    assert res.exit_code == 0, res.output
    steps = [p for p in script.prompts if "NEW TEXT:" in p]
    assert len(steps) == 7  # one call per step with --step-batch 40
    assert max(len(re.findall(r"^\d+\. According to the story so far: In which", p, re.M)) for p in steps) == 1
    assert "model calls (of which the judge's)" in res.output
