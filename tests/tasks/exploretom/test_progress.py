"""The live task's progress line: settings searched, budget spent (never above 100%), prompts, stories, questions."""

from __future__ import annotations

from types import SimpleNamespace

from inspect_ai import eval

from tombench.tasks.exploretom import progress as live
from tombench.tasks.exploretom.adversarial import exploretom_adversarial


def _search_sample(sid: str, stories: int, error: object = None) -> SimpleNamespace:
    return SimpleNamespace(id=sid, error=error, metadata={"search": {"stories": [{}] * stories}})


def test_the_line_counts_settings_budget_stories_and_questions() -> None:
    lines: list[str] = []
    p = live.LiveProgress([("s1", "A", 100), ("s2", "A", 100), ("s3", "B", 200)], "calls", show=lines.append,
                          clock=lambda: 0.0)
    p.searching("s1", lambda: 120)
    p.searched("s1", 150)  # a search may overshoot its budget by a batch: counted up to its budget
    p.completed(_search_sample("s1", 1), "search", added=10)
    assert lines[-1] == ("settings 0/2 searched · budget 25% (100/400 calls) · 120 prompts answered · 1 stories found"
                         " · questions 0/10 scored")
    p.completed(_search_sample("s2", 0), "search", added=0)
    p.completed(_search_sample("s3", 0, error="CallFailed"), "search", added=0)
    for _ in range(10):
        p.completed(SimpleNamespace(id="q"), "question", added=0)
    assert lines[-1].startswith("settings 2/2 searched (1 failed) · budget 25% ")
    assert lines[-1].endswith("questions 10/10 scored")


def test_updates_are_throttled_but_a_finished_search_always_shows() -> None:
    lines: list[str] = []
    now = [0.0]
    p = live.LiveProgress([("s1", "A", 10)], "nodes", show=lines.append, clock=lambda: now[0])
    p.searched("s1", 1)
    p.searched("s1", 2)  # within EVERY seconds of the last: not shown
    now[0] += live.EVERY
    p.searched("s1", 3)
    p.completed(_search_sample("s1", 0), "search", added=0)
    assert [line.split(" · ")[1] for line in lines] == ["budget 10% (1/10 nodes)", "budget 30% (3/10 nodes)",
                                                        "budget 30% (3/10 nodes)"]


def test_the_live_task_reports_its_progress(tmp_path, monkeypatch) -> None:
    lines: list[str] = []
    monkeypatch.setattr(live, "_display_counter", lines.append)
    task = exploretom_adversarial(action_sets="tomi", asymmetric="plain", people=2, moves=2, budget=10,
                                  mode="improved", stories_per_setting=2, workers=1)
    (log,) = eval(task, model="tombench/recency", log_dir=str(tmp_path), display="none")
    questions = sum(1 for s in log.samples or [] if s.metadata.get("tombench_kind") == "question")
    assert questions > 0
    assert lines[-1].startswith("settings 1/1 searched · budget ")
    assert lines[-1].endswith(f"2 stories found · questions {questions}/{questions} scored")
