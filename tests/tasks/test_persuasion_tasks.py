"""Both persuasion tasks end to end through `inspect_ai.eval` with scripted mockllm roles, offline."""

from __future__ import annotations

import json
import math
from types import SimpleNamespace

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog

from tests.generators.test_persuasion_scripted import FIXTURE, Scripted
from tombench.generators.persuasion.data import load_records
from tombench.generators.persuasion.rouge import rouge_l
from tombench.tasks.persuasion import persuasion_dynamic, persuasion_fixed

RECORDS = {r.scenario.tag: r for r in load_records(FIXTURE).records}
SECRETS = [s for r in RECORDS.values() if r.mental_state for s in r.mental_state.secret_strings()]
REPLY = "The panel lists data analysis skills, and people who took this course were promoted."


def _metrics(log: EvalLog) -> dict[str, dict[str, float]]:
    assert log.status == "success", log.error
    assert log.results is not None
    return {s.name: {k: m.value for k, m in s.metrics.items()} for s in log.results.scores}


def _grader_persuasive(user: str) -> str:
    if "gym" in user:
        return "Very targeted. Score: 9"
    if "recycling" in user:
        return "Score: 7"
    if "book club" in user:
        return "I would rather not say."  # unreadable: left unscored
    return "Score: 5"


def test_fixed_task_scores_rouge_and_persuasive_by_domain(tmp_path) -> None:  # noqa: ANN001
    under_test = Scripted(lambda kind, s, u: f"persuader: {REPLY}")
    grader = Scripted(lambda kind, s, u: _grader_persuasive(u))
    [log] = inspect_eval(
        persuasion_fixed(dataset=str(FIXTURE), cache=False),
        model=under_test.model,
        model_roles={"grader": grader.model},
        log_dir=str(tmp_path),
        display="none",
    )
    metrics = _metrics(log)
    targets = {r.scenario.primary_domain: r.dialog[4].text for r in RECORDS.values()}
    expected_rouge = {d: rouge_l(REPLY, t) for d, t in targets.items()}
    assert metrics["rouge_l"]["mean"] == pytest.approx(sum(expected_rouge.values()) / 4)
    assert metrics["rouge_l"]["breakdown_domain=Career"] == pytest.approx(expected_rouge["Career"])
    assert expected_rouge["Career"] > expected_rouge["Ecology"]  # the reply paraphrases the Career reference
    assert metrics["persuasive"]["mean"] == pytest.approx((9 + 7 + 5) / 3)
    assert metrics["persuasive"]["breakdown_domain=Health"] == 9
    assert metrics["persuasive"]["breakdown_domain=Health:n"] == 1
    assert "breakdown_domain=Literature" not in metrics["persuasive"]  # unreadable verdict: unscored
    # the model under test saw rounds 1-2 (4 utterances) and never the hidden mental state
    assert len(under_test.calls) == 4 and set(under_test.kinds()) == {"persuader"}
    assert all(not any(s in sy + u for s in SECRETS) for _, sy, u in under_test.calls)
    gym = next(u for _, _, u in under_test.calls if "gym" in u)
    assert "persuadee: I have, but I figured" in gym and "cheaper than most streaming" not in gym
    assert set(grader.kinds()) == {"persuasive"} and all(REPLY in u for _, _, u in grader.calls)
    assert log.eval.metadata["persuasion_data"]["source"] == "file"
    sample = next(s for s in log.samples or [] if s.metadata["domain"] == "Career")
    assert sample.scores is not None
    assert sample.scores["persuasion_fixed_scorer"].answer == REPLY  # label stripped before scoring


def _satisfaction(system: str) -> str:
    verdicts = {  # behaviour content -> (belief addressed, desire addressed)
        "Keep spending evenings watching TV at home": (False, True),  # preventive: one suffices -> satisfied
        "Join the gym near the office": (True, True),
        "Join the neighbourhood recycling program": (True, False),  # generative needs both -> not satisfied
        "Spend her savings on a holiday": (False, False),
        "Enrol in the data analysis course": (True, True),
        "Join the library book club": (True, True),
    }
    for content, (belief, desire) in verdicts.items():
        if f"behaviour: {content}" in system:
            return json.dumps({"belief_addressed": belief, "desire_addressed": desire, "explanation": "..."})
    raise AssertionError(system)


def test_dynamic_task_live_dialogue_and_ctom_metrics(tmp_path) -> None:  # noqa: ANN001
    counter = iter(range(1000))
    under_test = Scripted(lambda kind, s, u: f"Here is my argument number {next(counter)}.")
    persuadee = Scripted(lambda kind, s, u: "persuadee: Hmm, tell me more.")
    grader = Scripted(lambda kind, s, u: "Score: 8" if kind == "persuasive" else _satisfaction(s))
    [log] = inspect_eval(
        persuasion_dynamic(dataset=str(FIXTURE), cache=False),
        model=under_test.model,
        model_roles={"persuadee": persuadee.model, "grader": grader.model},
        log_dir=str(tmp_path),
        display="none",
    )
    metrics = _metrics(log)
    assert metrics["ctom"]["accuracy"] == pytest.approx(0.5)  # gym and book club persuaded
    assert metrics["generative"]["accuracy"] == pytest.approx(0.75)
    assert metrics["preventive"]["accuracy"] == pytest.approx(0.5)  # over the 2 dialogues with one
    assert metrics["persuasive"]["mean"] == pytest.approx(8)
    assert metrics["ctom"]["breakdown_domain=Health"] == 1 and metrics["ctom"]["breakdown_domain=Career"] == 0
    assert metrics["ctom"]["breakdown_has_preventive=True"] == pytest.approx(0.5)
    assert metrics["ctom"]["breakdown_has_preventive=False:n"] == 2
    assert metrics["generative"]["breakdown_domain=Ecology"] == 0
    # round structure: 4 persuader turns with a preventive behaviour, 3 without (4 + 3 + 4 + 3)
    assert len(under_test.calls) == 14 and len(persuadee.calls) == 14
    assert set(persuadee.kinds()) == {"persuadee"} and set(under_test.kinds()) == {"persuader"}
    # double blind: the model under test never sees the hidden mental state
    assert all(not any(s in sy + u for s in SECRETS) for _, sy, u in under_test.calls)
    # grader: one persuasive call per persuader turn + 1 or 2 satisfaction calls per dialogue
    assert grader.kinds().count("persuasive") == 14 and grader.kinds().count("satisfaction") == 6
    for sample in log.samples or []:
        assert sample.scores is not None
        transcript = sample.scores["persuasion_dynamic_scorer"].answer or ""
        lines = transcript.splitlines()
        assert len(lines) == (8 if sample.metadata["has_preventive"] else 6)
        assert lines[0].startswith("persuader: Here is my argument") and lines[-1] == "persuadee: Hmm, tell me more."
        value = sample.scores["persuasion_dynamic_scorer"].value
        assert isinstance(value, dict)
        if not sample.metadata["has_preventive"]:
            assert math.isnan(value["preventive"])


def _fake_hub(monkeypatch, sha: str = "0123456789abcdef0123456789abcdef01234567") -> list[tuple]:  # noqa: ANN001
    import huggingface_hub

    calls: list[tuple] = []

    def dataset_info(self, repo_id, revision=None, **kw):  # noqa: ANN001, ANN202
        calls.append(("info", repo_id, revision))
        files = ["README.md", "dataset/CToMPersu_Full/CToMPersu.json", "dataset/CToMPersu_Eval/CToMPersu_Eval.json"]
        return SimpleNamespace(sha=sha, siblings=[SimpleNamespace(rfilename=f) for f in files])

    def hf_hub_download(repo_id, filename, repo_type=None, revision=None, **kw):  # noqa: ANN001, ANN202
        calls.append(("download", repo_id, filename, repo_type, revision))
        return str(FIXTURE)

    monkeypatch.setattr(huggingface_hub.HfApi, "dataset_info", dataset_info)
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", hf_hub_download)
    return calls


def test_hub_revision_is_resolved_and_recorded_in_the_log(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    sha = "0123456789abcdef0123456789abcdef01234567"
    calls = _fake_hub(monkeypatch, sha)
    under_test = Scripted(lambda kind, s, u: REPLY)
    grader = Scripted(lambda kind, s, u: "Score: 6")
    [log] = inspect_eval(
        persuasion_fixed(revision="v1.0", cache=False),
        model=under_test.model,
        model_roles={"grader": grader.model},
        log_dir=str(tmp_path),
        display="none",
        limit=1,
    )
    assert log.status == "success"
    provenance = log.eval.metadata["persuasion_data"]
    assert provenance["revision"] == "v1.0" and provenance["resolved_revision"] == sha
    assert provenance["data_file"] == "dataset/CToMPersu_Eval/CToMPersu_Eval.json"
    assert calls[0] == ("info", "KamijioTouma/ToMMA-CToMPersu", "v1.0")
    assert calls[1][2:] == ("dataset/CToMPersu_Eval/CToMPersu_Eval.json", "dataset", sha)  # downloaded at the sha


def test_offline_hub_fails_with_one_clear_line(monkeypatch) -> None:  # noqa: ANN001
    import huggingface_hub
    from inspect_ai._util.error import PrerequisiteError

    def offline(self, *a, **kw):  # noqa: ANN001, ANN202
        raise ConnectionError("[Errno -3] Temporary failure in name resolution")

    monkeypatch.setattr(huggingface_hub.HfApi, "dataset_info", offline)
    with pytest.raises(PrerequisiteError) as info:
        persuasion_dynamic()
    message = str(info.value.message)
    assert "\n" not in message and "cannot reach the Hugging Face Hub" in message and "dataset=PATH" in message
