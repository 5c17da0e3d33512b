"""The live adversarial task end to end with the offline baseline models, and the transfer task on its output."""

from __future__ import annotations

import glob
import math

import pytest
from inspect_ai import eval

import tombench._registry  # noqa: F401  (registers the tombench/<name> models)
from tombench.tasks.exploretom.adversarial import exploretom_adversarial
from tombench.tasks.exploretom.transfer import exploretom_transfer, load_found_stories


def _metrics(log, scorer):
    score = next(s for s in log.results.scores if s.name == scorer)
    return {k: v.value for k, v in score.metrics.items()}


@pytest.fixture(scope="module")
def live_log(tmp_path_factory):
    d = tmp_path_factory.mktemp("adv")
    task = exploretom_adversarial(action_sets="tomi,fantom-private", asymmetric="both", people=2, moves=2, budget=15)
    (log,) = eval(task, model="tombench/recency", log_dir=str(d), display="none")
    assert log.status == "success", log.error
    return log, d


def test_live_task_scores_found_stories_with_breakdowns(live_log):
    log, _ = live_log
    answers = _metrics(log, "adversarial_answer")
    assert 0 <= answers["accuracy"] < 1  # the stories were found because the model fails them
    assert {"action_set=tomi", "interesting=True", "order=1", "asymmetric=True", "people=2", "moves=2"} <= set(answers)
    outcome = _metrics(log, "search_outcome")
    assert 0 < outcome["settings_filled"] <= 1 and outcome["model_calls"] > 0
    searches = [s for s in log.samples if s.metadata.get("tombench_kind") == "search"]
    questions = [s for s in log.samples if s.metadata.get("tombench_kind") == "question"]
    assert len(searches) == 4 and questions
    found = [s for s in searches if s.metadata["search"]["found"]]
    assert found and all(s.metadata["search"]["trace"] for s in searches)
    assert all(q.metadata["generator_model"] == "tombench/recency" for q in questions)
    story_ids = {q.metadata["story_id"] for q in questions}
    assert story_ids == {f"{s.metadata['setting_id']}|0" for s in found}


def test_oracle_is_never_fooled(tmp_path):
    task = exploretom_adversarial(action_sets="tomi", asymmetric="plain", people=2, moves=2, budget=10)
    (log,) = eval(task, model="tombench/oracle", log_dir=str(tmp_path), display="none")
    assert log.status == "success"
    assert _metrics(log, "search_outcome")["settings_filled"] == 0
    assert all(s.metadata.get("tombench_kind") == "search" for s in log.samples)


def _outcome(setting: str, value: float, searches: int | None = None):
    from inspect_ai.scorer import SampleScore, Score

    md = {"setting_id": setting} | ({} if searches is None else {"setting_searches": searches})
    return SampleScore(score=Score(value=value), sample_metadata=md)


def test_a_setting_is_filled_only_with_all_its_stories():
    """Issue #20: the paper's fill. Paper mode scores one sample per story slot (1/0), improved mode one per setting
    (the share of its N stories kept); a setting with some but not all of its stories is not filled."""
    from tombench.scorers.exploretom import settings_filled

    paper = [_outcome("a", 1), _outcome("a", 0), _outcome("b", 1), _outcome("b", 1), _outcome("c", 0)]
    assert settings_filled()(paper) == pytest.approx(1 / 3)
    improved = [_outcome("a", 0.4), _outcome("b", 1.0), _outcome("c", 0.0), _outcome("d", 1.0)]
    assert settings_filled()(improved) == pytest.approx(2 / 4)
    # a search sample that errored has no score: with 2 searches per setting, one found story does not fill it
    errored = [_outcome("a", 1, searches=2), _outcome("b", 1, searches=2), _outcome("b", 1, searches=2)]
    assert settings_filled()(errored) == pytest.approx(1 / 2)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"action_sets": "tomy"}, "Invalid action_sets"),
        ({"asymmetric": "sometimes"}, "Invalid asymmetric"),
        ({"question_orders": "3"}, "Invalid question_orders"),
        ({"check": "fuzzy"}, "Invalid check"),
        ({"g": "acc3"}, "Invalid g"),
    ],
)
def test_bad_options_fail_early(kwargs, match):
    with pytest.raises(ValueError, match=match):
        exploretom_adversarial(**kwargs)


def test_transfer_from_the_live_log(live_log, tmp_path):
    log, d = live_log
    path = sorted(glob.glob(str(d / "*.eval")))[-1]
    found = load_found_stories(path)
    assert found and all(f["generator_model"] == "tombench/recency" for f in found)
    (tlog,) = eval(exploretom_transfer(stories=path), model="tombench/primacy", log_dir=str(tmp_path),
                   display="none")
    assert tlog.status == "success"
    assert all(s.metadata["generator_model"] == "tombench/recency" for s in tlog.samples)
    acc = next(s for s in tlog.results.scores).metrics["accuracy"].value
    assert not math.isnan(acc)


def test_transfer_needs_stories():
    with pytest.raises(ValueError, match="needs -T stories"):
        exploretom_transfer()
    with pytest.raises(ValueError, match="no such file"):
        exploretom_transfer(stories="missing.jsonl")


def _model_events(sample):
    return [e for e in sample.events if e.event == "model"]


def _user_text(event) -> str:
    return next(m.text for m in event.input if m.role == "user")


def test_question_samples_read_the_answers_the_search_cached(tmp_path, monkeypatch):
    """Issue #19.4: a question the search already asked is a cache read, never a second model call."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))  # a cold cache of our own
    task = exploretom_adversarial(action_sets="tomi,fantom-private", asymmetric="plain", people=2, moves=2, budget=15,
                                  question_orders="1,2", call_events=True)  # every search call an event to read
    (log,) = eval(task, model="tombench/recency", log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    searches = [s for s in log.samples if s.metadata.get("tombench_kind") == "search"]
    questions = [s for s in log.samples if s.metadata.get("tombench_kind") == "question"]
    asked = {_user_text(e) for s in searches for e in _model_events(s)}
    assert asked and questions
    reads = 0
    for q in questions:
        (event,) = _model_events(q)
        if _user_text(event) in asked:
            assert event.cache == "read", q.id
            reads += 1
        else:  # a question the search never asked (second order) is a fresh call, cached for next time
            assert event.cache == "write", q.id
    assert reads >= 2
    # the model saw each question prompt once: writes of the question samples never repeat a search prompt
    calls = [_user_text(e) for s in log.samples for e in _model_events(s) if e.cache == "write"]
    assert not {p for p in calls if calls.count(p) > 1} & {_user_text(_model_events(q)[0]) for q in questions}


def test_improved_mode_runs_the_measured_per_setting_search(tmp_path):
    """`-T mode=improved` is the runner's per-setting search: same budget, width, contexts and kept stories."""
    import asyncio

    from tombench.dsl import Setting
    from tombench.generators.exploretom.contexts import load_context_bank
    from tombench.generators.exploretom.search.astar import AStar
    from tombench.generators.exploretom.search.runner import RunConfig, read_jsonl, run_searches
    from tombench.models._baselines import answer

    task = exploretom_adversarial(action_sets="tomi", asymmetric="plain", people=2, moves=2, budget=12,
                                  mode="improved", stories_per_setting=2, question_orders="1")
    (log,) = eval(task, model="tombench/recency", log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    searches = [s for s in log.samples if s.metadata.get("tombench_kind") == "search"]
    assert len(searches) == 1  # one search sample per setting, not one per story slot
    summary = searches[0].metadata["search"]
    assert summary["method"] == "astar-improved" and 1 <= len(summary["stories"]) <= 2
    assert summary["nodes_evaluated"] <= 2 * 12
    questions = [s for s in log.samples if s.metadata.get("tombench_kind") == "question"]
    assert {q.metadata["story_id"] for q in questions} == {x["id"] for x in summary["stories"]}
    assert all(q.metadata["search_method"] == "astar-improved" for q in questions)
    # the search sample scores the share of its 2 stories kept; filled means both, as `tombench search` counts it
    outcome = _metrics(log, "search_outcome")
    assert searches[0].scores["search_outcome"].value == len(summary["stories"]) / 2 == outcome["mean"]
    assert outcome["settings_filled"] == (len(summary["stories"]) == 2)

    async def recency(prompts):
        return [answer("recency", p.user) for p in prompts]

    run = RunConfig(stories_per_setting=2, budget_per_story=12, search=AStar(budget=12, mode="improved"))
    asyncio.run(run_searches([Setting.make("tomi", 2, 2)], load_context_bank(), recency, run, tmp_path / "cli"))
    cli = read_jsonl(tmp_path / "cli" / "stories.jsonl")
    assert [(r["id"], r["text"]) for r in cli] == [(x["id"], x["text"]) for x in summary["stories"]]
    found = load_found_stories(sorted(glob.glob(str(tmp_path / "logs" / "*.eval")))[-1])
    assert [f["id"] for f in found] == [x["id"] for x in summary["stories"]]
    assert all(f["search_method"] == "astar-improved" for f in found)
