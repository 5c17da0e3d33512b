"""ToMMA generation with scripted mockllm roles: who sees what, round structure, guesses checked by the observer
against the true mental state, the persuadee's last-round rule, resumable output."""

from __future__ import annotations

import asyncio
import json
import random

from tests.generators.persuasion.test_scripted import FIXTURE, Scripted, guess_json
from tombench.generators.persuasion.agents import Observer, Persuadee, Persuader, TestedPersuader
from tombench.generators.persuasion.data import load_records, read_record_dicts
from tombench.generators.persuasion.dialogue import run_dialogue
from tombench.generators.persuasion.generate import ToMMAModels, generate_dataset, sample_scenarios
from tombench.generators.persuasion.records import Behaviour, MentalState, record_from_dict

RECORDS = load_records(FIXTURE).records
WITH_PREVENTIVE = next(r for r in RECORDS if r.mental_state and r.mental_state.has_preventive)
WITHOUT_PREVENTIVE = next(r for r in RECORDS if r.mental_state and not r.mental_state.has_preventive)

SECRET = MentalState(
    generative=Behaviour("take the evening course", "SECRET-GEN-BELIEF", "SECRET-GEN-DESIRE"),
    preventive=Behaviour("keep the weekend job", "SECRET-PREV-BELIEF", "SECRET-PREV-DESIRE"),
)
BEHAVIOURS = {"preventive": "keep the weekend job", "generative": "take the evening course"}


def _persuader() -> Scripted:
    count = iter(range(1, 100))
    return Scripted(
        lambda kind, s, u: guess_json("GUESSED-BELIEF", "GUESSED-DESIRE") if kind == "guess"
        else f"persuader: persuader reply {next(count)}"
    )


def _persuadee() -> Scripted:
    count = iter(range(1, 100))
    return Scripted(lambda kind, s, u: f"persuadee: persuadee reply {next(count)}")


def test_who_sees_what() -> None:
    persuader, persuadee, observer = _persuader(), _persuadee(), Scripted(lambda *a: '{"approved": true}')
    dialogue = asyncio.run(
        run_dialogue(
            WITH_PREVENTIVE.scenario, SECRET, Persuader(persuader.model), Persuadee(persuadee.model, SECRET),
            Observer(observer.model),
        )
    )
    assert len(dialogue.turns) == 8
    secrets = SECRET.secret_strings()
    assert len(secrets) == 4
    # the persuader never sees the hidden beliefs and desires, but is told both behaviours (authors' protocol)
    for _, system, user in persuader.calls:
        assert not any(secret in system + user for secret in secrets)
        assert "keep the weekend job" in user and "take the evening course" in user
    # the observer checks guesses against the true mental state
    assert observer.calls and all("SECRET-PREV-BELIEF" in user for _, _, user in observer.calls)
    assert all("GUESSED-" in user for _, _, user in observer.calls)
    # the persuadee sees its own state, never the persuader's guesses or the observer's notes
    assert all("SECRET-GEN-" in system for _, system, _ in persuadee.calls[:-1])  # the last turn needs none
    assert not any("GUESSED" in system + user for _, system, user in persuadee.calls)
    # the accepted guesses reach the persuader's later turns
    replies = [u for k, _, u in persuader.calls if k == "persuader"]
    assert "GUESSED" not in replies[0] and "preventive behaviour's desire: GUESSED-DESIRE" in replies[1]
    assert dialogue.guesses == {
        "preventive": {"belief": "GUESSED-BELIEF", "desire": "GUESSED-DESIRE"},
        "generative": {"belief": "GUESSED-BELIEF", "desire": "GUESSED-DESIRE"},
    }


def test_round_structure_and_the_persuadee_rules() -> None:
    for record, rounds in ((WITHOUT_PREVENTIVE, 3), (WITH_PREVENTIVE, 4)):
        persuader, persuadee = _persuader(), _persuadee()
        assert record.mental_state is not None
        dialogue = asyncio.run(
            run_dialogue(record.scenario, record.mental_state, Persuader(persuader.model),
                         Persuadee(persuadee.model, record.mental_state))
        )
        assert [t.speaker for t in dialogue.turns] == ["persuader", "persuadee"] * rounds
        assert [t.text for t in dialogue.turns[::2]] == [f"persuader reply {i}" for i in range(1, rounds + 1)]
        assert [t.text for t in dialogue.turns[1::2]] == [f"persuadee reply {i}" for i in range(1, rounds + 1)]
        # one guess before every persuader turn but the first, each asking only for the part just disclosed
        guesses = [s for k, s, _ in persuader.calls if k == "guess"]
        assert len(guesses) == rounds - 1
        assert '"desire"' in guesses[-1] and '"belief"' not in guesses[-1]
        systems = [s for _, s, _ in persuadee.calls]
        # last round: willing to try, the conversation closes (the authors' rule), knowing only the behaviour
        assert "say you are willing to" in systems[-1] and "bring the conversation to a close" in systems[-1]
        assert "belief:" not in systems[-1] and "desire:" not in systems[-1]
        # the round before: the desire only, as an open question
        assert "voice only what you want from it" in systems[-2] and "belief:" not in systems[-2]
        persuader_systems = [s for k, s, _ in persuader.calls if k == "persuader"]
        if rounds == 4:
            assert "why you would rather" in systems[0]
            assert "Give no arguments yet" in persuader_systems[0]
            assert "ONE point" in persuader_systems[1]
            assert "FOCUS ON removing their doubt" in persuader_systems[2]  # paper Fig. 4: round 3 targets belief
        else:
            assert "You are not keen" in systems[0] and "Open the conversation by asking" in persuader_systems[0]
        # each turn sees the whole visible history so far
        replies = [u for k, _, u in persuader.calls if k == "persuader"]
        assert "persuadee reply 1" in replies[1] and "persuadee reply 1" not in replies[0]


def test_observer_sends_the_guess_back_until_approved() -> None:
    persuader = Scripted(
        lambda kind, s, u: (guess_json(desire="relaxation") if "Reviewer's feedback" in u else guess_json(desire="budget"))
        if kind == "guess" else "A reply."
    )
    # round 2 (the belief) is approved at once; round 3 (the desire) is sent back once
    verdicts = iter(['{"approved": true}', '{"approved": false, "feedback": "The desire is relaxation, not budget."}',
                     '{"approved": true}'])
    observer = Scripted(lambda *a: next(verdicts))
    ms = WITHOUT_PREVENTIVE.mental_state
    assert ms is not None
    dialogue = asyncio.run(
        run_dialogue(WITHOUT_PREVENTIVE.scenario, ms, Persuader(persuader.model), Persuadee(_persuadee().model, ms),
                     Observer(observer.model))
    )
    assert dialogue.rounds[0].guesses == []  # round 1 has nothing to guess yet
    assert [g["guess"] for g in dialogue.rounds[1].guesses] == [{"belief": "unknown"}]
    third = dialogue.rounds[2]
    assert [g["guess"] for g in third.guesses] == [{"desire": "budget"}, {"desire": "relaxation"}]
    assert third.guesses[0]["approved"] is False and third.guesses[1]["approved"] is True
    revision_prompt = next(u for k, _, u in persuader.calls if k == "guess" and "Reviewer's feedback" in u)
    assert "The desire is relaxation, not budget." in revision_prompt and '"desire": "budget"' in revision_prompt
    assert dialogue.guesses["generative"] == {"belief": "unknown", "desire": "relaxation"}  # only accepted guesses
    last_reply = [u for k, _, u in persuader.calls if k == "persuader"][-1]
    assert "desire: relaxation" in last_reply and "budget" not in last_reply
    assert dialogue.revisions == 1


def test_observer_revisions_are_capped() -> None:
    persuader = _persuader()
    observer = Scripted(lambda *a: '{"approved": false, "feedback": "try again"}')
    ms = WITHOUT_PREVENTIVE.mental_state
    assert ms is not None
    dialogue = asyncio.run(
        run_dialogue(WITHOUT_PREVENTIVE.scenario, ms, Persuader(persuader.model), Persuadee(_persuadee().model, ms),
                     Observer(observer.model), max_revisions=1)
    )
    assert [len(r.guesses) for r in dialogue.rounds] == [0, 2, 2]
    assert dialogue.revisions == 2


def test_tested_persuader_sees_scenario_and_turns_only() -> None:
    under_test, persuadee = Scripted(lambda *a: "My argument."), _persuadee()
    dialogue = asyncio.run(
        run_dialogue(WITH_PREVENTIVE.scenario, SECRET, TestedPersuader(under_test.model),
                     Persuadee(persuadee.model, SECRET))
    )
    assert len(dialogue.turns) == 8 and dialogue.rounds[0].guesses == []
    for _, system, user in under_test.calls:
        assert not any(s in system + user for s in [*SECRET.secret_strings(), *BEHAVIOURS.values()])
        assert "Definitions" not in system and "belief" not in (system + user).lower()


def test_generate_dataset_writes_cToMPersu_rows_and_resumes(tmp_path) -> None:  # noqa: ANN001
    def respond(kind: str, system: str, user: str) -> str:
        if kind == "mental_state" and "Step 1" in system:
            return json.dumps({"preventive": SECRET.preventive.content, "generative": SECRET.generative.content})
        if kind == "mental_state":
            return "Here it is:\n" + json.dumps(SECRET.to_dict())
        if kind == "guess":
            return guess_json("b", "d")
        if kind == "observer":
            return '{"approved": true, "feedback": ""}'
        return "Let me explain." if kind == "persuader" else "I see."

    author, persuader, persuadee, observer = (Scripted(respond) for _ in range(4))
    models = ToMMAModels(persuader.model, persuadee.model, observer.model, author.model)
    scenarios = sample_scenarios([r.scenario for r in RECORDS] * 2, None, random.Random(0))
    assert len(scenarios) == 4  # duplicates dropped
    out = tmp_path / "gen.jsonl"
    summary = asyncio.run(generate_dataset(scenarios[:2], models, out, max_concurrent=2))
    assert (summary.written, summary.skipped, summary.failed) == (2, 0, [])
    rows = read_record_dicts(out)
    assert len(rows) == 2
    row = rows[0]
    assert row["scenario"]["preventive"]["belief"] == "SECRET-PREV-BELIEF"
    assert len(row["dialog"]) == 8 and row["dialog"][0] == "persuader: Let me explain."
    assert row["observer_revisions"] == 0 and len(row["rounds"]) == 4
    assert row["guessed_mental_state"]["generative"] == {"belief": "b", "desire": "d"}
    assert record_from_dict(row).mental_state == SECRET  # generated rows read back as CToMPersu records
    # the author works in two steps (behaviours, then beliefs and desires); the persuader never saw the latter
    assert sorted("Step 1" in s for _, s, _ in author.calls) == [False, False, True, True]
    assert all(not any(s in sy + u for s in SECRET.secret_strings()) for _, sy, u in persuader.calls)
    # restart: the two done ids are skipped, the other two generated
    n_calls = len(author.calls)
    summary = asyncio.run(generate_dataset(scenarios, models, out))
    assert (summary.written, summary.skipped) == (2, 2)
    assert len(author.calls) == n_calls + 4
    assert len({r["id"] for r in read_record_dicts(out)}) == 4


def test_generate_dataset_reports_unreadable_mental_state(tmp_path) -> None:  # noqa: ANN001
    bad = Scripted(lambda *a: "I cannot do that")
    models = ToMMAModels(bad.model, bad.model, None, bad.model)
    summary = asyncio.run(generate_dataset([RECORDS[0].scenario], models, tmp_path / "x.jsonl"))
    assert summary.written == 0 and len(summary.failed) == 1 and "JSON" in summary.failed[0][1]
    assert not (tmp_path / "x.jsonl").exists() or (tmp_path / "x.jsonl").read_text() == ""
