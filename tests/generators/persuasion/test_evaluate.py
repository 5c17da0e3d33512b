"""The Table 1 audit of a dialogue dataset (three 1-5 ratings, direct prompting, causal-ToM eval) and the
`tombench persuasion` command, offline."""

from __future__ import annotations

import asyncio
import json

import pytest
from click.testing import CliRunner

from tests.generators.persuasion.test_scripted import FIXTURE, Scripted, guess_json
from tombench.cli import main
from tombench.generators.persuasion.data import PersuasionDataError, load_records, read_record_dicts
from tombench.generators.persuasion.evaluate import evaluate_dataset, summarise
from tombench.kit.intervals import wilson_interval

RECORDS = load_records(FIXTURE).records


def _ctom(generative: tuple[bool, bool], preventive: tuple[bool, bool] | None) -> str:
    def part(pair: tuple[bool, bool]) -> dict:
        return {"behaviour": "b", "belief": "x", "desire": "y", "belief_addressed": pair[0], "desire_addressed": pair[1]}

    return "Inference first.\n" + json.dumps(
        {"preventive": part(preventive) if preventive else None, "generative": part(generative)}
    )


QUALITY = {"context coherence": "Flows well. Score: 5", "logical coherence": "Score: 4", "helpfulness": "Score: 3"}


def judge_respond(kind: str, system: str, user: str) -> str:
    """Looks persuasive to direct prompting 3 times in 4, but only 2 pass the causal-ToM rule; the dialogue-quality
    ratings are 5, 4, 3 except for the recycling dialogue's helpfulness (1)."""
    if kind == "quality":
        criterion = next(c for c in QUALITY if f"criterion, {c}" in system)
        return "Score: 1" if criterion == "helpfulness" and "recycling" in user else QUALITY[criterion]
    if kind == "direct":
        return "Persuaded: no" if "recycling" in user else "I feel convinced. Persuaded: yes"
    assert kind == "ctom"
    if "gym" in user:
        return _ctom((True, True), (True, False))
    if "recycling" in user:
        return _ctom((True, False), None)
    if "data analysis course" in user:
        return _ctom((True, True), (False, False))  # competing plan untouched: not persuaded
    return _ctom((True, True), None)


def test_dataset_evaluation_table_one_and_resume(tmp_path) -> None:  # noqa: ANN001
    judge = Scripted(judge_respond)
    out = tmp_path / "judged.jsonl"
    judgements = asyncio.run(evaluate_dataset(RECORDS, judge.model, out))
    by_domain = {j.domains[0]: j for j in judgements}
    assert by_domain["Health"].direct is True and by_domain["Health"].ctom is True
    assert by_domain["Career"].direct is True and by_domain["Career"].ctom is False
    assert by_domain["Ecology"].direct is False and by_domain["Ecology"].ctom is False
    assert (by_domain["Ecology"].context_coherence, by_domain["Ecology"].helpfulness) == (5, 1)
    s = summarise(judgements)
    m = s.metrics
    assert (s.dialogues, m["direct"].value, m["ctom"].value, s.gap) == (4, 75.0, 50.0, 25.0)
    assert (m["context_coherence"].value, m["logical_coherence"].value, m["helpfulness"].value) == (5, 4, 2.5)
    # rates carry a Wilson interval (never of zero width), ratings a normal one clipped to the 1-5 scale
    assert (m["ctom"].low, m["ctom"].high) == pytest.approx(tuple(100 * x for x in wilson_interval(2, 4)))
    assert m["context_coherence"].low == m["context_coherence"].high == 5  # four equal ratings
    assert 1 <= m["helpfulness"].low < 2.5 < m["helpfulness"].high <= 5
    assert sorted(set(judge.kinds())) == ["ctom", "direct", "quality"] and len(judge.calls) == 20
    # the audit uses no annotation: the judge never sees the dataset's mental state
    secrets = [x for r in RECORDS if r.mental_state for x in r.mental_state.secret_strings()]
    assert all(not any(x in sy + u for x in secrets) for _, sy, u in judge.calls)
    assert len(read_record_dicts(out)) == 4
    again = asyncio.run(evaluate_dataset(RECORDS, judge.model, out))  # resumed: nothing judged twice
    assert len(judge.calls) == 20 and summarise(again) == s


def test_wilson_interval_is_honest_at_the_edges() -> None:
    low, high = wilson_interval(0, 10)
    assert low == 0 and 0.25 < high < 0.35  # 0/10 is not "0% +/- 0"
    low, high = wilson_interval(10, 10)
    assert high == 1 and 0.65 < low < 0.75
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_unreadable_verdicts_are_left_out_of_rates() -> None:
    judge = Scripted(lambda kind, s, u: "I cannot judge this." if "gym" in u else judge_respond(kind, s, u))
    s = summarise(asyncio.run(evaluate_dataset(RECORDS, judge.model, metrics=["direct", "ctom"])))
    assert (s.metrics["direct"].n, s.metrics["ctom"].n) == (3, 3)
    assert s.metrics["direct"].value == pytest.approx(200 / 3) and s.metrics["ctom"].value == pytest.approx(100 / 3)


def test_bad_files_are_one_line_errors(tmp_path) -> None:  # noqa: ANN001
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(PersuasionDataError, match="not valid JSON"):
        load_records(bad)
    malformed = tmp_path / "m.jsonl"
    malformed.write_text(json.dumps({"scenario": {"goal": "g"}, "dialog": ["no label"]}) + "\n")
    with pytest.raises(PersuasionDataError, match="record 1 is malformed"):
        load_records(malformed)


@pytest.fixture
def scripted_cli(monkeypatch):  # noqa: ANN001, ANN201
    """Every model the CLI builds is a scripted one (the CLI's own model construction is tested for errors)."""
    import tombench.commands.persuasion as cmd

    built: dict[str, Scripted] = {}

    def respond(kind: str, system: str, user: str) -> str:
        if kind == "mental_state":
            return json.dumps({"preventive": None, "generative": {"content": "c", "belief": "b", "desire": "d"}})
        if kind == "mental_state" and "Step 1" in system:
            return json.dumps({"preventive": None, "generative": "c"})
        if kind == "guess":
            return guess_json("b", "d")
        if kind == "observer":
            return '{"approved": true}'
        if kind in ("direct", "ctom", "quality"):
            return judge_respond(kind, system, user)
        return "Sounds good."

    def fake_model(name: str, role: str, max_retries: int) -> object:
        built[role] = Scripted(respond)
        return built[role].model

    monkeypatch.setattr(cmd, "_model", fake_model)
    return built


def test_cli_evaluate_prints_table_one(tmp_path, scripted_cli) -> None:  # noqa: ANN001
    out = tmp_path / "j.jsonl"
    result = CliRunner().invoke(
        main, ["persuasion", "evaluate", str(FIXTURE), "--judge", "x/y", "--out", str(out), "--no-cache"]
    )
    assert result.exit_code == 0, result.output
    for label in ("Context-Coherence", "Logical-Coherence", "Helpfulness", "Direct Prompting", "Causal ToM Eval"):
        assert label in result.output
    assert "75.00" in result.output and "50.00" in result.output and "2.50" in result.output
    assert "4/4" in result.output  # judged / dialogues
    assert len(read_record_dicts(out)) == 4 and set(scripted_cli) == {"grader"}
    result = CliRunner().invoke(main, ["persuasion", "evaluate", str(FIXTURE), "--judge", "x/y", "--metrics", "nope"])
    assert result.exit_code == 2 and "--metrics" in result.output


def test_cli_generate_writes_resumable_jsonl(tmp_path, scripted_cli) -> None:  # noqa: ANN001
    out = tmp_path / "g.jsonl"
    args = ["persuasion", "generate", "--scenarios", str(FIXTURE), "--persuader", "x/y", "--out", str(out)]
    result = CliRunner().invoke(main, [*args, "--limit", "2", "--seed", "1", "--no-cache"])
    assert result.exit_code == 0, result.output
    rows = read_record_dicts(out)
    assert len(rows) == 2 and all(len(r["dialog"]) == 6 for r in rows)
    assert set(scripted_cli) == {"persuader", "persuadee", "observer", "mental_state"}
    result = CliRunner().invoke(main, [*args, "--no-cache"])
    assert result.exit_code == 0 and len(read_record_dicts(out)) == 4


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["evaluate", "missing.json", "--judge", "x/y"], "no such file: missing.json"),
        (["evaluate", str(FIXTURE), "--judge", "nosuchprovider/model"], "cannot use model 'nosuchprovider/model'"),
        (
            ["generate", "--scenarios", "nope.json", "--persuader", "mockllm/model", "--out", "o.jsonl"],
            "no such file: nope.json",
        ),
        (
            ["generate", "--scenarios", str(FIXTURE), "--persuader", "a/b", "--observer", "a/b", "--no-observer",
             "--out", "o.jsonl"],
            "exclude each other",
        ),
    ],
)
def test_cli_user_errors_are_one_line(args, message, tmp_path, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["persuasion", *args])
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and message in errors[0] and "Traceback" not in result.output
    assert result.output.rstrip().endswith(errors[0])  # the error is the last line, not followed by a trace


# --- issue #31 point 5: any subset of metrics; resume keyed by judge and prompt content; unreadable re-asked -------
@pytest.mark.parametrize("chosen", [["helpfulness"], ["direct"], ["ctom"], ["logical_coherence", "ctom"]])
def test_any_subset_of_metrics_is_judged(chosen: list[str], tmp_path) -> None:  # noqa: ANN001
    judge = Scripted(judge_respond)
    judgements = asyncio.run(evaluate_dataset(RECORDS, judge.model, tmp_path / "j.jsonl", metrics=chosen))
    assert len(judge.calls) == 4 * len(chosen) and all(set(j.raw) == set(chosen) for j in judgements)
    s = summarise(judgements, chosen)
    expected = {"helpfulness": 2.5, "direct": 75.0, "ctom": 50.0, "logical_coherence": 4.0}
    assert {m: s.metrics[m].value for m in chosen} == {m: expected[m] for m in chosen}
    not_asked = {"direct", "ctom", "helpfulness"} - set(chosen)
    assert all(getattr(j, m) is None for j in judgements for m in not_asked)


def test_cli_evaluate_one_metric(tmp_path, scripted_cli) -> None:  # noqa: ANN001
    for metric, value in (("helpfulness", "2.50"), ("direct", "75.00"), ("ctom", "50.00")):
        result = CliRunner().invoke(main, ["persuasion", "evaluate", str(FIXTURE), "--judge", "x/y", "--metrics",
                                           metric, "--out", str(tmp_path / f"{metric}.jsonl"), "--no-cache"])
        assert result.exit_code == 0, result.output
        assert value in result.output and "4/4" in result.output


def test_resume_is_per_judge_and_per_prompt(tmp_path) -> None:  # noqa: ANN001
    """Judge B resuming judge A's file asks everything itself and reports its own numbers; judge A resuming asks
    nothing; a changed prompt (here: an edited dialogue, whose messages differ) is asked again, the rest reused."""
    out = tmp_path / "j.jsonl"
    a = Scripted(judge_respond)
    first = asyncio.run(evaluate_dataset(RECORDS, a.model, out, metrics=["direct"], name="x/judge-a"))
    b = Scripted(lambda kind, s, u: "Persuaded: no")
    by_b = asyncio.run(evaluate_dataset(RECORDS, b.model, out, metrics=["direct"], name="x/judge-b"))
    assert len(b.calls) == 4 and summarise(by_b, ["direct"]).metrics["direct"].value == 0.0
    assert {j.judge for j in by_b} == {"x/judge-b"}
    again = asyncio.run(evaluate_dataset(RECORDS, a.model, out, metrics=["direct"], name="x/judge-a"))
    assert len(a.calls) == 4 and again == first  # A's own answers, not B's (the later rows)
    from dataclasses import replace

    edited = [replace(RECORDS[0], dialog=RECORDS[0].dialog[:-1]), *RECORDS[1:]]
    asyncio.run(evaluate_dataset(edited, a.model, out, metrics=["direct"], name="x/judge-a"))
    assert len(a.calls) == 5
    renamed = [replace(r, id=f"other-{i}") for i, r in enumerate(reversed(RECORDS))]  # ids and order: not the key
    asyncio.run(evaluate_dataset(renamed, a.model, out, metrics=["direct"], name="x/judge-a"))
    assert len(a.calls) == 5


def test_unreadable_verdicts_are_asked_again_even_with_the_cache(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    """The gym dialogue's first answers are unreadable; resuming asks those again (and only those), through the
    response cache, and the cache does not replay the unreadable answer."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "j.jsonl"
    fixed = {"on": False}

    def flaky(kind: str, system: str, user: str) -> str:
        return judge_respond(kind, system, user) if fixed["on"] or "gym" not in user else "I cannot judge this."

    judge = Scripted(flaky)
    metrics = ["direct", "ctom"]
    first = summarise(asyncio.run(evaluate_dataset(RECORDS, judge.model, out, metrics=metrics, cache=True)), metrics)
    assert len(judge.calls) == 8 and first.metrics["direct"].n == 3
    replay = Scripted(flaky)  # a cached replay of the first run costs no call
    asyncio.run(evaluate_dataset(RECORDS, replay.model, metrics=metrics, cache=True))
    assert replay.calls == []
    fixed["on"] = True
    resumed = asyncio.run(evaluate_dataset(RECORDS, judge.model, out, metrics=metrics, cache=True))
    assert len(judge.calls) == 10 and all("gym" in u for _, _, u in judge.calls[8:])
    s = summarise(resumed, metrics)
    assert (s.metrics["direct"].n, s.metrics["direct"].value, s.metrics["ctom"].value) == (4, 75.0, 50.0)
    asyncio.run(evaluate_dataset(RECORDS, judge.model, out, metrics=metrics, cache=True))
    assert len(judge.calls) == 10  # everything readable now: nothing asked
