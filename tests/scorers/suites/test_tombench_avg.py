"""ToMBench's headline as the paper computes it: per language, the unweighted mean of its 8 task accuracies."""

from __future__ import annotations

import pytest
from inspect_ai.scorer import SampleScore, Score

from tombench.scorers.suites.tom_bench import CATEGORIES, PAPER_TASKS, paper_average, tombench_cells

#: GPT-4-1106 in the paper's task table (zh, en per task, in PAPER_TASKS order) and its AVG: 75.3 and 74.0.
GPT4_TASKS = {"zh": (76.7, 48.0, 61.0, 90.8, 83.0, 88.3, 76.2, 78.6), "en": (71.0, 49.0, 65.0, 88.2, 77.5, 82.5, 84.0, 75.0)}
#: ... and in its ability table (the 6 categories, CATEGORIES order), AVG 72.6 and 74.8.
GPT4_ABILITIES = {"zh": (75.9, 67.5, 77.8, 57.6, 84.1, 72.8), "en": (75.7, 69.7, 84.7, 52.1, 82.8, 84.0)}


def _cell(percent: float, n: int = 1000) -> list[float]:
    right = round(percent * n / 100)
    return [1.0] * right + [0.0] * (n - right)


@pytest.mark.parametrize(("lang", "task_avg", "ability_avg"), [("zh", 75.3, 72.6), ("en", 74.0, 74.8)])
def test_paper_average_reproduces_the_papers_avg_columns(lang: str, task_avg: float, ability_avg: float) -> None:
    tasks = {t: _cell(p, n) for t, p, n in zip(PAPER_TASKS, GPT4_TASKS[lang], (300, 200, 100, 600, 200, 103, 407, 560),
                                                  strict=True)}
    value, se = paper_average(tasks, PAPER_TASKS)
    assert round(100 * value, 1) == task_avg and 0 < se < 0.02
    cats = {c: _cell(p) for c, p in zip(CATEGORIES, GPT4_ABILITIES[lang], strict=True)}
    assert round(100 * paper_average(cats, CATEGORIES)[0], 1) == ability_avg
    # the item-weighted accuracy over the same cells is another number (what the task reported before)
    items = [v for vals in tasks.values() for v in vals]
    assert abs(sum(items) / len(items) - value) > 0.005
    assert paper_average({}, PAPER_TASKS) is None


def _score(value: float, lang: str, task: str, k: int = 4, category: str = "Belief") -> SampleScore:
    md = {"language": lang, "task": task, "k": k, "categories": [category], "abilities": [f"{category}: x: y"]}
    return SampleScore(score=Score(value=value), sample_id=f"{lang}{task}{value}{k}", sample_metadata=md)


def test_cells_metric_macro_averages_tasks_per_language() -> None:
    scores = [
        # zh: False Belief 3/4 right, Hinting 0/1, and an ability-only file that stays out of AVG
        *[_score(v, "zh", "False Belief Task") for v in (1.0, 1.0, 1.0, 0.0)],
        _score(0.0, "zh", "Hinting Task Test", k=2, category="Non-Literal Communication"),
        _score(1.0, "zh", "Hidden Emotions", category="Emotion"),
        # en: False Belief 1/2
        _score(1.0, "en", "False Belief Task"), _score(0.0, "en", "False Belief Task", k=2),
    ]
    out = tombench_cells()(scores)
    assert out["avg_zh"] == pytest.approx((0.75 + 0.0) / 2)  # item-weighted it would be 3/5
    assert out["avg_en"] == pytest.approx(0.5)
    assert out["avg"] == pytest.approx((0.375 + 0.5) / 2)
    assert out["avg_ci_low"] < out["avg"] < out["avg_ci_high"]
    # a uniform guess: zh (1/4 + 1/2) / 2, en (1/4 + 1/2) / 2
    assert out["avg_chance"] == pytest.approx(0.375)
    assert out["task_language=zh/False Belief Task"] == 0.75 and out["task_language=zh/False Belief Task:n"] == 4
    assert out["task_language=zh/Hidden Emotions"] == 1.0
    # the ability table: zh Belief 3/4, Non-Literal Communication 0/1, Emotion 1/1 -> mean of the three categories
    assert out["ability_avg_zh"] == pytest.approx((0.75 + 0.0 + 1.0) / 3)
    assert out["category_language=zh/Emotion"] == 1.0 and "ability_language=en/Belief: x: y" in out


def test_cells_metric_without_paper_tasks_averages_the_files_run() -> None:
    scores = [_score(1.0, "en", "Hidden Emotions"), _score(0.0, "en", "Moral Emotions"),
              _score(0.0, "en", "Moral Emotions")]
    out = tombench_cells()(scores)
    assert out["avg_en"] == pytest.approx(0.5) and "avg_zh" not in out
