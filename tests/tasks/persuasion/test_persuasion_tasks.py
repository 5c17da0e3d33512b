"""Both persuasion tasks end to end through `inspect_ai.eval`, offline: scripted mockllm roles for the values, the
package's baseline models in every role on a file of the released layout, and what the log records."""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path
from types import SimpleNamespace

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog

from tests.generators.persuasion.test_scripted import FIXTURE, RELEASE_SHAPE, Scripted
from tombench.generators.persuasion.data import load_records
from tombench.generators.persuasion.rouge import rouge_l
from tombench.kit.errors import OptionError
from tombench.tasks.persuasion.persuasion import persuasion_dynamic, persuasion_fixed

RECORDS = {r.scenario.tag: r for r in load_records(FIXTURE).records}
SECRETS = [s for r in RECORDS.values() if r.mental_state for s in r.mental_state.secret_strings()]
REPLY = "The panel lists data analysis skills, and people who took this course were promoted."
#: What a causal-ToM hint looks like in a prompt: the definitions, the strategy, the dialogue's length.
HINTS = ("Definitions", "causal theory of mind", "Preventive behaviour", "Generative behaviour", "belief OR",
         " of 4", " of 3", "FOCUS ON")


def _metrics(log: EvalLog) -> dict[str, dict[str, float]]:
    assert log.status == "success", log.error
    assert log.results is not None
    return {s.name: {k: m.value for k, m in s.metrics.items()} for s in log.results.scores}


def _run(task, tmp_path, model, roles=None, **task_args):  # noqa: ANN001, ANN003, ANN202
    """Create the task inside the eval (as `inspect eval` does), so it sees the roles it is given."""
    [log] = inspect_eval(task, task_args=task_args, model=model, model_roles=roles or {}, log_dir=str(tmp_path),
                         display="none")
    return log


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
    log = _run(persuasion_fixed, tmp_path, under_test.model, {"grader": grader.model}, dataset=str(FIXTURE),
               cache=False)
    metrics = _metrics(log)
    targets = {r.scenario.primary_domain: r.dialog[4].text for r in RECORDS.values()}
    expected_rouge = {d: rouge_l(REPLY, t) for d, t in targets.items()}
    assert metrics["rouge_l"]["mean"] == pytest.approx(sum(expected_rouge.values()) / 4)
    assert metrics["rouge_l"]["breakdown_domain=Career"] == pytest.approx(expected_rouge["Career"])
    # the gym record lists two domains: it counts in both
    assert metrics["rouge_l"]["breakdown_domain=Lifestyle"] == pytest.approx(expected_rouge["Health"])
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
    assert log.eval.metadata["roles"]["grader"]["defaulted"] is False
    sample = next(s for s in log.samples or [] if s.metadata["domain"] == ["Career"])
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
    log = _run(persuasion_dynamic, tmp_path, under_test.model, {"persuadee": persuadee.model, "grader": grader.model},
               dataset=str(FIXTURE), cache=False)
    metrics = _metrics(log)
    assert list(metrics)[0] == "ctom"  # the headline (and the leaderboard's primary accuracy)
    assert metrics["ctom"]["accuracy"] == pytest.approx(0.5)  # gym and book club persuaded
    assert metrics["ctom"]["wilson95_n"] == 4 and 0.1 < metrics["ctom"]["wilson95_low"] < 0.5
    assert metrics["generative"]["accuracy"] == pytest.approx(0.75)
    assert metrics["preventive"]["accuracy"] == pytest.approx(0.5)  # over the 2 dialogues with one
    assert metrics["preventive"]["wilson95_n"] == 2
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


# --- the released layout, offline baselines in every role --------------------------------------------------------------

BASELINE_ROLES = {"persuadee": "tombench/primacy", "grader": "tombench/random"}


def _under_test_inputs(log: EvalLog, model: str) -> list[str]:
    """Every prompt the model under test received, read back from the log file (system + user text)."""
    from inspect_ai.log import read_eval_log

    prompts = []
    for sample in read_eval_log(log.location, resolve_attachments=True).samples or []:
        for event in sample.events:
            if event.event == "model" and event.model == model:
                prompts.append("\n".join(m.text for m in event.input))
    return prompts


@pytest.mark.parametrize(("duplicates", "samples", "charity", "domain_total"), [("drop", 4, 1, 8), ("keep", 7, 3, 12)])
def test_fixed_task_on_the_released_layout_with_baselines(tmp_path, duplicates, samples, charity, domain_total) -> None:  # noqa: ANN001
    log = _run(persuasion_fixed, tmp_path, "tombench/recency", BASELINE_ROLES, dataset=str(RELEASE_SHAPE),
               duplicates=duplicates)
    metrics = _metrics(log)
    assert log.results is not None and log.results.completed_samples == samples
    assert len({s.id for s in log.samples or []}) == samples
    prov = log.eval.metadata["persuasion_data"]
    assert (prov["records_in_file"], prov["duplicates"], prov["records"]) == (7, 3, samples)
    assert len(prov["sha256"]) == 64 and prov["release_file"] is None
    assert log.eval.metadata["dataset_revision"] == f"sha256:{prov['sha256']}"
    # every listed domain counts: the beach clean-up is Charity only, three copies when kept
    n = {k: v for k, v in metrics["rouge_l"].items() if k.endswith(":n")}
    assert n["breakdown_domain=Charity:n"] == charity and sum(n.values()) == domain_total
    assert n["breakdown_domain=Finance:n"] == n["breakdown_domain=Technology:n"] == 1  # a three-domain record
    # the turn split over two lines in the file reaches the model as one turn
    inputs = _under_test_inputs(log, "tombench/recency")
    assert any("persuadee: Honestly, Maya, games are the most fun" in p for p in inputs)


def test_default_prompt_has_no_causal_tom_hint_and_ctom_variant_is_recorded(tmp_path) -> None:  # noqa: ANN001
    plain = _run(persuasion_dynamic, tmp_path, "tombench/recency", BASELINE_ROLES, dataset=str(RELEASE_SHAPE))
    _metrics(plain)
    assert plain.eval.metadata["prompting"] == "none" and plain.eval.task_args["prompting"] == "none"
    inputs = _under_test_inputs(plain, "tombench/recency")
    assert len(inputs) == 2 * 4 + 2 * 3  # two 4-round and two 3-round dialogues, one prompt per persuader turn
    for prompt in inputs:
        assert not any(h.lower() in prompt.lower() for h in HINTS), prompt
    # both dialogue lengths of the release, with the baseline persuadee
    lengths = sorted(len((s.scores or {})["persuasion_dynamic_scorer"].answer.splitlines()) for s in plain.samples or [])
    assert lengths == [6, 6, 8, 8]

    fixed = _run(persuasion_fixed, tmp_path, "tombench/recency", BASELINE_ROLES, dataset=str(RELEASE_SHAPE))
    inputs = _under_test_inputs(fixed, "tombench/recency")
    assert len(inputs) == 4 and not any(h.lower() in p.lower() for p in inputs for h in HINTS)

    ctom = _run(persuasion_fixed, tmp_path, "tombench/recency", BASELINE_ROLES, dataset=str(RELEASE_SHAPE),
                prompting="ctom")
    assert ctom.eval.metadata["prompting"] == "ctom"
    logged = _under_test_inputs(ctom, "tombench/recency")[0]
    assert "Definitions" in logged and "belief OR" in logged and " of 4" not in logged


def test_defaulted_roles_are_announced_and_recorded(tmp_path, caplog) -> None:  # noqa: ANN001
    from tombench.leaderboard._from_log import LogError, model_roles, row_from_log

    with caplog.at_level(logging.WARNING):
        log = _run(persuasion_dynamic, tmp_path, "tombench/recency", {"grader": "tombench/random"},
                   dataset=str(RELEASE_SHAPE))
    assert log.status == "success"
    roles = log.eval.metadata["roles"]
    assert roles["persuadee"] == {"role": "persuadee", "model": "(model under test)", "defaulted": True}
    assert roles["grader"]["model"] == "tombench/random" and roles["grader"]["defaulted"] is False
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and "self-play" in r.getMessage()]
    assert len(warnings) == 1 and "persuadee" in warnings[0] and "grader" not in warnings[0].split(";")[0]
    # the leaderboard row would say who played what
    assert model_roles(log.eval, log.eval.metadata) == {"persuadee": "(model under test)", "grader": "tombench/random"}
    # but the random grader's verdicts are all unreadable ("I don't know"): the headline is NaN, so there is no row
    # to rank, and the refusal is one line
    with pytest.raises(LogError, match="headline ctom/accuracy is not a number"):
        row_from_log(log.location)


def test_mental_state_only_file(tmp_path) -> None:  # noqa: ANN001
    rows = json.loads(RELEASE_SHAPE.read_text())
    states = tmp_path / "CToMPersu_Eval_MentalStateOnly.json"
    states.write_text(json.dumps([{"scenario": r["scenario"]} for r in rows]))
    log = _run(persuasion_dynamic, tmp_path, "tombench/recency", BASELINE_ROLES, dataset=str(states))
    assert log.status == "success" and log.results is not None and log.results.completed_samples == 4
    with pytest.raises(OptionError, match="_MentalStateOnly file has no dialogues") as info:
        persuasion_fixed(dataset=str(states))
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(("option", "value"), [("prompting", "hints"), ("duplicates", "merge")])
def test_bad_options_are_one_line(option, value) -> None:  # noqa: ANN001
    with pytest.raises(OptionError, match=f"Invalid {option} value"):
        persuasion_dynamic(dataset=str(RELEASE_SHAPE), **{option: value})


# --- the Hub -----------------------------------------------------------------------------------------------------------


def _fake_hub(monkeypatch, sha: str = "0123456789abcdef0123456789abcdef01234567", file=FIXTURE) -> list[tuple]:  # noqa: ANN001
    import huggingface_hub

    calls: list[tuple] = []

    def dataset_info(self, repo_id, revision=None, **kw):  # noqa: ANN001, ANN202
        calls.append(("info", repo_id, revision))
        files = ["README.md", "dataset/CToMPersu_Full/CToMPersu.json",
                 "dataset/CToMPersu_Eval/CToMPersu_Eval_MentalStateOnly.json",
                 "dataset/CToMPersu_Eval/CToMPersu_Eval.json"]
        return SimpleNamespace(sha=sha, siblings=[SimpleNamespace(rfilename=f) for f in files])

    def hf_hub_download(repo_id, filename, repo_type=None, revision=None, **kw):  # noqa: ANN001, ANN202
        calls.append(("download", repo_id, filename, repo_type, revision))
        return str(file)

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
    assert provenance["data_file"] == "dataset/CToMPersu_Eval/CToMPersu_Eval.json"  # the dialogues, not the states
    assert log.eval.metadata["dataset_revision"] == sha
    assert calls[0] == ("info", "KamijioTouma/ToMMA-CToMPersu", "v1.0")
    assert calls[1][2:] == ("dataset/CToMPersu_Eval/CToMPersu_Eval.json", "dataset", sha)  # downloaded at the sha


def test_hub_main_requires_the_authors_file(monkeypatch) -> None:  # noqa: ANN001
    """The command-line loader's Hub default (`main`) is accepted only when it is the authors' release file."""
    import hashlib

    from tombench.generators.persuasion import data

    _fake_hub(monkeypatch, file=RELEASE_SHAPE)
    with pytest.raises(data.PersuasionDataError, match="not byte-identical to the authors' release file") as info:
        data.load_records()
    assert "revision=0123456789abcdef" in str(info.value) and "\n" not in str(info.value)
    digest = hashlib.sha256(RELEASE_SHAPE.read_bytes()).hexdigest()
    monkeypatch.setitem(data.RELEASE_FILES, digest, {"file": "dataset/CToMPersu_Eval/CToMPersu_Eval.json",
                                                     "records": 7, "distinct": 4})
    loaded = data.load_records()
    assert loaded.provenance["release_file"]["commit"] == data.RELEASE_COMMIT
    assert loaded.provenance["license"].startswith("Apache-2.0") and len(loaded.records) == 4


def test_task_default_is_the_pinned_release_file(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    """With no data option the tasks read the authors' file at the release commit, checked by SHA-256."""
    import hashlib

    from tombench.generators.persuasion import data
    from tombench.kit.pinning import UrlFile
    from tombench.tasks.persuasion import persuasion as module

    digest = hashlib.sha256(RELEASE_SHAPE.read_bytes()).hexdigest()
    monkeypatch.setenv("TOMBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setitem(data.RELEASE_FILES, digest, {"file": "dataset/CToMPersu_Eval/CToMPersu_Eval.json",
                                                     "records": 7, "distinct": 4})
    monkeypatch.setattr(module, "RELEASE", UrlFile(url=RELEASE_SHAPE.resolve().as_uri(), sha256=digest))
    task = persuasion_dynamic()
    prov = task.metadata["persuasion_data"]
    assert prov["source"] == "release" and prov["commit"] == data.RELEASE_COMMIT and prov["sha256"] == digest
    assert task.metadata["dataset_revision"] == data.RELEASE_COMMIT and len(task.dataset) == 4
    wrong = UrlFile(url=RELEASE_SHAPE.resolve().as_uri(), sha256="0" * 64)
    monkeypatch.setattr(module, "RELEASE", wrong)
    with pytest.raises(OptionError) as info:  # a file that is not the pinned one is refused in one line
        persuasion_dynamic()
    assert "\n" not in str(info.value)


def test_offline_default_fails_with_one_clear_line(tmp_path, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("TOMBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TOMBENCH_OFFLINE", "1")
    with pytest.raises(OptionError) as info:
        persuasion_fixed()
    assert "\n" not in str(info.value) and "-T dataset=PATH" in str(info.value)


def test_offline_hub_fails_with_one_clear_line(monkeypatch) -> None:  # noqa: ANN001
    import huggingface_hub
    from inspect_ai._util.error import PrerequisiteError

    def offline(self, *a, **kw):  # noqa: ANN001, ANN202
        raise ConnectionError("[Errno -3] Temporary failure in name resolution")

    monkeypatch.setattr(huggingface_hub.HfApi, "dataset_info", offline)
    with pytest.raises(PrerequisiteError) as info:
        persuasion_dynamic(revision="main")
    message = str(info.value.message)
    assert "\n" not in message and "cannot reach the Hugging Face Hub" in message and "dataset=PATH" in message


def test_the_packaged_sample_runs_by_name_from_any_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`-T dataset=sample` is the packaged sample whatever the working folder (a path only worked from the
    repository's root)."""
    monkeypatch.chdir(tmp_path)
    [log] = inspect_eval(persuasion_fixed(dataset="sample"), model="tombench/recency",
                         model_roles={"persuadee": "tombench/primacy", "grader": "tombench/random"},
                         log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success" and log.eval.dataset.samples and log.eval.dataset.samples > 0
