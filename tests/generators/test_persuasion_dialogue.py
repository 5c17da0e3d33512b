"""ToMMA generation with scripted mockllm roles: double blind, round structure, observer revision, resumable output."""

from __future__ import annotations

import asyncio
import json
import random

from tests.generators.test_persuasion_scripted import FIXTURE, Scripted, persuader_json
from tombench.generators.persuasion.agents import Observer, Persuadee, Persuader
from tombench.generators.persuasion.data import load_records, read_record_dicts
from tombench.generators.persuasion.dialogue import run_dialogue
from tombench.generators.persuasion.generate import ToMMAModels, generate_dataset, sample_scenarios
from tombench.generators.persuasion.records import Behaviour, MentalState, record_from_dict

RECORDS = load_records(FIXTURE).records
WITH_PREVENTIVE = next(r for r in RECORDS if r.mental_state and r.mental_state.has_preventive)
WITHOUT_PREVENTIVE = next(r for r in RECORDS if r.mental_state and not r.mental_state.has_preventive)

SECRET = MentalState(
    generative=Behaviour("SECRET-GEN-CONTENT", "SECRET-GEN-BELIEF", "SECRET-GEN-DESIRE"),
    preventive=Behaviour("SECRET-PREV-CONTENT", "SECRET-PREV-BELIEF", "SECRET-PREV-DESIRE"),
)
MENTAL_STATE_JSON = json.dumps({"preventive": SECRET.preventive.to_dict(), "generative": SECRET.generative.to_dict()})


def _persuader() -> Scripted:
    count = iter(range(1, 100))
    return Scripted(lambda kind, s, u: persuader_json(f"persuader reply {next(count)}", belief="INFERRED-BELIEF"))


def _persuadee() -> Scripted:
    count = iter(range(1, 100))
    return Scripted(lambda kind, s, u: f"persuadee: persuadee reply {next(count)}")


def test_double_blind_persuader_never_sees_the_mental_state() -> None:
    persuader, persuadee, observer = _persuader(), _persuadee(), Scripted(lambda *a: '{"approved": true}')
    dialogue = asyncio.run(
        run_dialogue(
            WITH_PREVENTIVE.scenario,
            SECRET,
            Persuader(persuader.model),
            Persuadee(persuadee.model, SECRET),
            Observer(observer.model),
        )
    )
    assert len(dialogue.turns) == 8
    secrets = SECRET.secret_strings()
    assert len(secrets) == 6
    for agent in (persuader, observer):
        assert agent.calls, "agent was never called"
        for _, system, user in agent.calls:
            assert not any(secret in system + user for secret in secrets)
    # the persuadee does see its own mental state, but never the persuader's written inference
    assert all("SECRET-GEN-BELIEF" in system for _, system, _ in persuadee.calls)
    assert not any("INFERRED-BELIEF" in system + user for _, system, user in persuadee.calls)
    # the persuader wrote down an inference every round
    assert all(log.attempts[-1]["inference"]["generative"]["belief"] == "INFERRED-BELIEF" for log in dialogue.rounds)


def test_round_structure_three_rounds_without_preventive_four_with() -> None:
    for record, rounds in ((WITHOUT_PREVENTIVE, 3), (WITH_PREVENTIVE, 4)):
        persuader, persuadee = _persuader(), _persuadee()
        assert record.mental_state is not None
        dialogue = asyncio.run(
            run_dialogue(
                record.scenario, record.mental_state, Persuader(persuader.model), Persuadee(persuadee.model, record.mental_state)
            )
        )
        assert [t.speaker for t in dialogue.turns] == ["persuader", "persuadee"] * rounds
        assert [t.text for t in dialogue.turns[::2]] == [f"persuader reply {i}" for i in range(1, rounds + 1)]
        assert [t.text for t in dialogue.turns[1::2]] == [f"persuadee reply {i}" for i in range(1, rounds + 1)]
        # the persuadee discloses one part per round and ends with its final statement
        persuadee_systems = [s for _, s, _ in persuadee.calls]
        assert "express your belief" in persuadee_systems[-3] and "final statement" in persuadee_systems[-1]
        if rounds == 4:
            assert "preventive behaviour) and why" in persuadee_systems[0]
            assert "FOCUS ON eliminating" in persuader.calls[2][1]  # paper Fig. 4: round 3 targets the belief
        # each persuader turn sees the whole visible history so far
        assert "persuadee reply 1" in persuader.calls[1][2] and "persuadee reply 1" not in persuader.calls[0][2]


def test_observer_sends_the_reply_back_until_approved() -> None:
    persuader = Scripted(
        lambda kind, s, u: persuader_json("REVISED reply", desire="relaxation")
        if "Reviewer feedback" in u
        else persuader_json("FIRST reply", desire="budget")
    )
    verdicts = iter(['{"approved": false, "feedback": "The desire is relaxation, not budget."}'] + ['{"approved": true}'] * 10)
    observer = Scripted(lambda *a: next(verdicts))
    ms = WITHOUT_PREVENTIVE.mental_state
    assert ms is not None
    dialogue = asyncio.run(
        run_dialogue(
            WITHOUT_PREVENTIVE.scenario, ms, Persuader(persuader.model), Persuadee(_persuadee().model, ms), Observer(observer.model)
        )
    )
    first = dialogue.rounds[0]
    assert [a["reply"] for a in first.attempts] == ["FIRST reply", "REVISED reply"]
    assert first.attempts[0]["approved"] is False and first.attempts[1]["approved"] is True
    assert dialogue.turns[0].text == "REVISED reply"  # only the accepted reply enters the dialogue
    revision_prompt = persuader.calls[1][2]
    assert "The desire is relaxation, not budget." in revision_prompt and "FIRST reply" in revision_prompt
    assert '"desire": "budget"' in revision_prompt  # the previous inference is shown for revision
    assert "FIRST reply" in observer.calls[0][2]
    assert dialogue.revisions == 1 and len(persuader.calls) == 4  # 3 rounds + 1 revision


def test_observer_revisions_are_capped() -> None:
    persuader = _persuader()
    observer = Scripted(lambda *a: '{"approved": false, "feedback": "try again"}')
    ms = WITHOUT_PREVENTIVE.mental_state
    assert ms is not None
    dialogue = asyncio.run(
        run_dialogue(
            WITHOUT_PREVENTIVE.scenario,
            ms,
            Persuader(persuader.model),
            Persuadee(_persuadee().model, ms),
            Observer(observer.model),
            max_revisions=1,
        )
    )
    assert [len(r.attempts) for r in dialogue.rounds] == [2, 2, 2]
    assert dialogue.turns[0].text == "persuader reply 2"  # the last attempt is kept when the cap is reached


def test_generate_dataset_writes_cToMPersu_rows_and_resumes(tmp_path) -> None:  # noqa: ANN001
    def respond(kind: str, system: str, user: str) -> str:
        if kind == "mental_state":
            return "Here it is:\n" + MENTAL_STATE_JSON
        if kind == "persuader":
            return persuader_json("Let me explain.")
        if kind == "observer":
            return '{"approved": true, "feedback": ""}'
        return "I see."

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
    assert record_from_dict(row).mental_state == SECRET  # generated rows read back as CToMPersu records
    # the mental-state author saw the scenario, the persuader never saw what the author wrote
    assert all(not any(s in sy + u for s in SECRET.secret_strings()) for _, sy, u in persuader.calls)
    # restart: the two done ids are skipped, the other two generated
    n_calls = len(author.calls)
    summary = asyncio.run(generate_dataset(scenarios, models, out))
    assert (summary.written, summary.skipped) == (2, 2)
    assert len(author.calls) == n_calls + 2
    assert len({r["id"] for r in read_record_dicts(out)}) == 4


def test_generate_dataset_reports_unreadable_mental_state(tmp_path) -> None:  # noqa: ANN001
    bad = Scripted(lambda *a: "I cannot do that")
    models = ToMMAModels(bad.model, bad.model, None, bad.model)
    summary = asyncio.run(generate_dataset([RECORDS[0].scenario], models, tmp_path / "x.jsonl"))
    assert summary.written == 0 and len(summary.failed) == 1 and "JSON" in summary.failed[0][1]
    assert not (tmp_path / "x.jsonl").exists() or (tmp_path / "x.jsonl").read_text() == ""
