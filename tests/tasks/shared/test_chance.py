"""`tombench/random` lands at chance (1/k) on every multiple-choice suite: an exact expectation, not a sample.

The random baseline answers one of the option letters it reads in the prompt, uniformly (seeded per prompt). So its
expected accuracy is the mean over items of (number of its possible answers that score) / (number it can give).
The test runs each suite's real task (solver, prompt, scorer) on its fixture with a model that gives, over
lcm(k) epochs, every answer the random baseline can give exactly as often, formatted as the baseline formats it. Each item's epoch mean must be exactly 1/k (the baseline sees k options and exactly one of its answers
scores) and the run's accuracy exactly the task's `chance`. Options are chosen by their text, not their letter,
so suites that reshuffle the options per try (ToMBench) are covered too; in FANToM, which mixes question kinds,
its multiple-choice belief questions are checked; in OpenToM, whose prompts name their answers as words ("Yes" or
"No", "more full" ...; the baseline's `offered_answers`), its label questions (fine location is free text). A plain
`tombench/random` run checks that the baseline itself runs on every suite.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai import Epochs, Task
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessage, ChatMessageUser, GenerateConfig, Model, ModelOutput, get_model
from inspect_ai.scorer import value_to_float

from tests.scorers.test_story_questions import mock_output
from tombench.kit.suites import suites
from tombench.models._baselines import _format_letter, _options, offered_answers
from tombench.tasks.bigtom.bigtom import bigtom
from tombench.tasks.fantom.fantom import fantom
from tombench.tasks.hitom.hitom import hitom, parse_choices
from tombench.tasks.opentom.opentom import opentom
from tombench.tasks.simpletom.simpletom import simpletom
from tombench.tasks.tom_bench.tom_bench import tom_bench

FIXTURES = Path(__file__).parents[1]

#: every multiple-choice suite, on its fixture (ToMBench: one try per epoch; the epochs below replace its vote)
SUITES: dict[str, Callable[[], Task]] = {
    "hitom": lambda: hitom(data=str(FIXTURES / "hitom/fixtures/Hi-ToM_data.json")),
    "bigtom": lambda: bigtom(data=str(FIXTURES / "bigtom/fixtures/bigtom.csv"), init_belief="0"),  # every condition, half the items
    "simpletom": lambda: simpletom(data=str(FIXTURES / "simpletom/fixtures")),
    "tombench": lambda: tom_bench(data=str(FIXTURES / "tom_bench/fixtures"), tries=1, language="en"),
    # FANToM mixes question kinds: its multiple-choice belief questions are the ones checked
    "fantom": lambda: fantom(data=str(FIXTURES / "fantom/fixtures/fantom_v1.json")),
    # OpenToM names its answers in the instruction ("Yes"/"No", "more full"/...): its label questions are checked
    # (one genre of each kind; fine location is free text)
    "opentom": lambda: opentom(data=str(FIXTURES / "opentom/fixtures"), genre="loc_coarse_so,multihop_so,attitude"),
}

_LINE = re.compile(r"^\s*\(?([A-Za-z])[).:]\s*(\S.*)$")
_INLINE = re.compile(r"^Choices:\s*(.+)$", re.MULTILINE)


def seen_options(text: str) -> dict[str, str]:
    """{letter: option text} of the options the random baseline reads in `text` (its `_options`, with the texts)."""
    letters = _options(text)
    texts: dict[str, str] = {}
    for line in text.splitlines():
        if m := _LINE.match(line):
            texts.setdefault(m.group(1).upper(), m.group(2).strip())
    if not texts and (m := _INLINE.search(text)):
        labels, opts = parse_choices(m.group(1))
        texts = dict(zip(labels, opts, strict=True))
    return {letter: texts[letter] for letter in letters}


def every_random_answer() -> Model:
    """In epoch e, the baseline's answer for the (e mod k)-th option in text order (identical prompts of two items,
    or a prompt reshuffled per try, still get each option once per k epochs)."""
    from inspect_ai.solver._task_state import sample_state  # the epoch of the sample being generated

    def fn(messages: list[ChatMessage], tools: object, tool_choice: object, config: GenerateConfig) -> ModelOutput:
        text = [m for m in messages if isinstance(m, ChatMessageUser)][-1].text
        options = seen_options(text)
        state = sample_state()
        assert state is not None
        if not options:  # answers offered as words (OpenToM), else a question of another kind (lists, free form)
            words = sorted(offered_answers(text))
            return mock_output(words[(state.epoch - 1) % len(words)] if words else "I don't know")
        by_text = sorted(options, key=lambda letter: options[letter])
        return mock_output(_format_letter(by_text[(state.epoch - 1) % len(by_text)], text))

    return get_model("mockllm/model", custom_outputs=fn, memoize=False)


def _k(metadata: dict) -> int | None:
    if metadata.get("options"):
        return len(metadata["options"])
    return int(metadata["k"]) if metadata.get("k") else None


def test_every_registered_multiple_choice_suite_is_checked() -> None:
    """A suite added to the registry (tombench.kit.suites) is checked here too; ToMi's answers are free text."""
    assert set(SUITES) == {s.name for s in suites()} - {"tomi"}


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_random_baseline_expectation_is_exactly_chance(suite: str, tmp_path: Path) -> None:
    task = SUITES[suite]()
    ks = {k for s in task.dataset if (k := _k(s.metadata))}
    epochs = math.lcm(*ks)
    (log,) = inspect_eval(task, model=every_random_answer(), epochs=Epochs(epochs, "mean"), log_dir=str(tmp_path),
                          display="none")
    assert log.status == "success"
    to_float = value_to_float()
    scores: dict[object, list[float]] = {}
    ks_by_id: dict[object, int] = {}
    for sample in log.samples or []:
        if (k := _k(sample.metadata)) is None:
            continue
        scores.setdefault(sample.id, []).append(to_float(next(iter(sample.scores.values())).value))
        ks_by_id[sample.id] = k
    assert scores and all(len(v) == epochs for v in scores.values())
    for sid, values in scores.items():
        mean = sum(values) / len(values)
        assert mean == pytest.approx(1 / ks_by_id[sid]), f"{suite} {sid}: {mean} over answers, not 1/{ks_by_id[sid]}"
    if task.metadata["chance"] is not None:  # every item is multiple choice: the run's accuracy is the chance level
        assert len(scores) == len(task.dataset)
        accuracy = log.results.scores[0].metrics["accuracy"].value
        assert accuracy == pytest.approx(task.metadata["chance"], abs=1e-12)
        assert 0 < task.metadata["chance"] < 1


def test_the_random_baseline_itself_runs_on_every_suite(tmp_path: Path) -> None:
    tasks = [make() for make in SUITES.values()]
    logs = inspect_eval(tasks, model="tombench/random", log_dir=str(tmp_path), display="none")
    assert [log.status for log in logs] == ["success"] * len(tasks)


def _logged(log: object) -> dict[str, float]:
    return {k: m.value for score in log.results.scores for k, m in score.metrics.items()}  # type: ignore[attr-defined]


@pytest.mark.parametrize("suite", sorted(set(SUITES) - {"fantom"}))
def test_logged_chance_is_the_mean_over_the_samples_scored(suite: str, tmp_path: Path) -> None:
    """Issue #31 point 4: `chance` is computed over the samples a run scores. The full run logs the task's chance;
    a `--limit` run and a `--sample-id` run (the items of the largest k, which shifts the level) log the mean 1/k
    of exactly their samples, not the whole dataset's."""
    task = SUITES[suite]()
    ks = {s.id: _k(s.metadata) for s in task.dataset}
    (full,) = inspect_eval(task, model="tombench/primacy", log_dir=str(tmp_path), display="none")
    assert full.status == "success"
    if task.metadata["chance"] is not None:
        assert _logged(full)["chance"] == pytest.approx(task.metadata["chance"], abs=1e-12)
    widest = max(k for k in ks.values() if k)
    ids = [sid for sid, k in ks.items() if k == widest][:3]
    (limited,) = inspect_eval(SUITES[suite](), model="tombench/primacy", limit=2, log_dir=str(tmp_path),
                              display="none")
    (picked,) = inspect_eval(SUITES[suite](), model="tombench/primacy", sample_id=ids, log_dir=str(tmp_path),
                             display="none")
    for log in (limited, picked):
        scored = {s.id for s in log.samples or []}
        assert _logged(log)["chance"] == pytest.approx(sum(1 / ks[i] for i in scored) / len(scored), abs=1e-12)
    assert {s.id for s in picked.samples or []} == set(ids)
    assert _logged(picked)["chance"] == pytest.approx(1 / widest)


def test_no_chance_is_logged_when_a_scored_item_is_free_form(tmp_path: Path) -> None:
    """OpenToM's fine location questions are free text: a run that scores one has no chance level."""
    task = opentom(data=str(FIXTURES / "opentom/fixtures"), genre="loc_fine_so,attitude")
    (log,) = inspect_eval(task, model="tombench/primacy", log_dir=str(tmp_path), display="none")
    assert log.status == "success" and "chance" not in _logged(log) and task.metadata["chance"] is None
