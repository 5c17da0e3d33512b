"""The per-setting search loop: budgets, output files, resume after a crash, torn lines, config checks."""

from __future__ import annotations

import asyncio
import json

import pytest

from tombench.dsl import DEFAULT_CONTEXT, Prompt, Setting, parse_structure
from tombench.generators.search import SearchConfig
from tombench.generators.search_runner import PATIENCE, RunConfig, RunConfigMismatch, read_jsonl, run_searches

SETTINGS = [Setting.make("tomi", 2, 2), Setting.make("fantom-private", 2, 2)]


def _story_and_question(p: Prompt) -> tuple[str, str]:
    story, _, q = p.user.rpartition("\n")
    return story, q.removesuffix(" Short Answer.")


def reality_answerer(calls: list[int], fail_after: int | None = None):
    """Answers every question with the world's value (no theory of mind); optionally crashes after some calls."""

    async def answer(prompts: list[Prompt]) -> list[str]:
        out = []
        for p in prompts:
            if fail_after is not None and len(calls) >= fail_after:
                raise RuntimeError("simulated crash")
            calls.append(1)
            story_text, q = _story_and_question(p)
            story = parse_structure(story_text)
            w = story.state.world
            if q.startswith("In which container"):
                o = q.rsplit("the ", 1)[1].rstrip("?")
                out.append(str(w.get((o, "container"), "none")))
            elif q.startswith("Does"):
                out.append("yes")
            else:
                out.append("knows about it")
        return out

    return answer


def _run(tmp, answer, **kw):
    run = RunConfig(stories_per_setting=2, budget_per_story=10, seed=3, search=SearchConfig(budget=10), model="fake",
                    **kw)
    return asyncio.run(run_searches(SETTINGS, [DEFAULT_CONTEXT], answer, run, tmp, parallel_settings=2))


def test_budget_and_files(tmp_path):
    calls: list[int] = []
    progress = _run(tmp_path, reality_answerer(calls))
    for p in progress:
        assert p.done and p.spent <= 20
    attempts = read_jsonl(tmp_path / "attempts.jsonl")
    stories = read_jsonl(tmp_path / "stories.jsonl")
    assert sum(a["spent"] for a in attempts) == sum(p.spent for p in progress)
    assert sum(a["model_calls"] for a in attempts) == len(calls)
    assert len(stories) == sum(a["found"] for a in attempts) > 0
    for r in stories:
        assert r["g"] < 1 and r["questions"] and r["answers"]
        assert r["story"]["schema_version"] == 1
        assert any(q["interesting"] is not None for q in r["questions"])
    assert json.loads((tmp_path / "run.json").read_text())["model"] == "fake"


def test_resume_after_crash_gives_the_same_stories(tmp_path):
    ref_dir, crash_dir = tmp_path / "ref", tmp_path / "crash"
    _run(ref_dir, reality_answerer([]))
    with pytest.raises(RuntimeError, match="simulated crash"):
        _run(crash_dir, reality_answerer([], fail_after=6))
    partial = read_jsonl(crash_dir / "attempts.jsonl")
    # a torn last line, as a kill in the middle of a write leaves it
    with open(crash_dir / "stories.jsonl", "a") as f:
        f.write('{"id": "torn')
    _run(crash_dir, reality_answerer([]))
    ref = {r["id"]: r["text"] for r in read_jsonl(ref_dir / "stories.jsonl")}
    got = read_jsonl(crash_dir / "stories.jsonl")
    assert len(partial) < len(read_jsonl(ref_dir / "attempts.jsonl"))
    assert {r["id"]: r["text"] for r in got} == ref
    assert len(got) == len({r["id"] for r in got})


def test_a_different_configuration_is_refused(tmp_path):
    _run(tmp_path, reality_answerer([]))
    with pytest.raises(RunConfigMismatch, match="different configuration"):
        asyncio.run(run_searches(SETTINGS, [DEFAULT_CONTEXT], reality_answerer([]),
                                 RunConfig(stories_per_setting=5), tmp_path))


def test_baseline_methods_share_the_loop(tmp_path):
    calls: list[int] = []
    tomi, fantom = _run(tmp_path, reality_answerer(calls), method="over-generate")
    assert tomi.spent == 20 and tomi.found
    # the default context has no chit-chat topics: no fantom story exists, nothing is spent, and the setting gives up
    # after PATIENCE searches that spent nothing
    assert fantom.spent == 0 and not fantom.found and fantom.searches == PATIENCE


def test_call_budget_unit(tmp_path):
    calls: list[int] = []
    run = RunConfig(stories_per_setting=2, budget_per_story=30, seed=1,
                    search=SearchConfig(budget=30, budget_unit="calls"))
    (tomi,) = asyncio.run(run_searches(SETTINGS[:1], [DEFAULT_CONTEXT], reality_answerer(calls), run, tmp_path))
    # the setting budget (60 calls) is spent in calls; a node's questions are asked together, so the last node may
    # overshoot by at most one node's questions
    assert 60 <= tomi.model_calls == len(calls) < 60 + 20
    with pytest.raises(ValueError, match="Invalid budget_unit"):
        SearchConfig(budget_unit="tokens")


def _improved(tmp, answer, **kw):
    run = RunConfig(stories_per_setting=3, budget_per_story=20, seed=5, model="fake",
                    search=SearchConfig(budget=20, mode="improved"), **kw)
    return asyncio.run(run_searches(SETTINGS[:1], [DEFAULT_CONTEXT], answer, run, tmp, parallel_settings=1))


def test_improved_setting_scope_fills_every_slot_from_one_search(tmp_path):
    (p,) = _improved(tmp_path, reality_answerer([]))
    attempts = read_jsonl(tmp_path / "attempts.jsonl")
    stories = read_jsonl(tmp_path / "stories.jsonl")
    # one search spends the whole setting budget (3 x 20) and writes its 3 hardest distinct goals
    assert len(attempts) == 1 and attempts[0]["spent"] == 60 == p.spent
    assert [r["id"] for r in stories] == ["tomi|p2|m2|r1|0", "tomi|p2|m2|r1|0-1", "tomi|p2|m2|r1|0-2"]
    assert [r["rank"] for r in stories] == [0, 1, 2] and all(r["of"] == 3 for r in stories)
    gs = [r["g"] for r in stories]
    assert gs == sorted(gs) and max(gs) < 1 and sorted(p.found) == gs
    assert len({r["text"] for r in stories}) == 3
    assert stories[0]["search"]["trace"] and not stories[1]["search"]["trace"]
    assert json.loads((tmp_path / "run.json").read_text())["improved_scope"] == "setting"
    story = _improved(tmp_path / "story", reality_answerer([]), improved_scope="story")
    assert story[0].searches == 3


def test_improved_setting_scope_resumes_a_partly_written_attempt(tmp_path):
    ref_dir, crash_dir = tmp_path / "ref", tmp_path / "crash"
    _improved(ref_dir, reality_answerer([]))
    ref = read_jsonl(ref_dir / "stories.jsonl")
    # a kill after the first story line: no attempt line, so the attempt runs again and writes only the rest
    crash_dir.mkdir()
    (crash_dir / "run.json").write_text((ref_dir / "run.json").read_text())
    with open(crash_dir / "stories.jsonl", "w") as f:
        f.write(json.dumps(ref[0]) + "\n")
    _improved(crash_dir, reality_answerer([]))
    assert read_jsonl(crash_dir / "stories.jsonl") == ref
    # every line of the attempt there but its attempt line lost: counted as done, nothing asked again
    calls: list[int] = []
    (crash_dir / "attempts.jsonl").unlink()
    (p,) = _improved(crash_dir, reality_answerer(calls))
    assert calls == [] and p.spent == 60 and sorted(p.found) == [r["g"] for r in ref]


def test_run_json_of_other_methods_has_no_improved_fields():
    d = RunConfig().to_dict()
    assert "improved_scope" not in d and "expand_width" not in d and "expand_width" not in d["search"]
