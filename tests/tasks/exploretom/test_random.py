"""tombench/exploretom_random: a seeded random split, offline and reproducible, scored with the shared scorer."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from tests.scorers.test_story_questions import replying
from tombench.dsl import Setting, derive_seed
from tombench.generators.exploretom.contexts import load_context_bank
from tombench.scorers.story_questions import TOM_DIMENSIONS
from tombench.tasks.exploretom.random import exploretom_random, random_samples

SMALL = {"story_types": "tomi,tomi+asymmetric,fantom-private", "people": "2,3", "moves": 2}


def _ids(**kwargs: object) -> list[str]:
    return [str(s.id) for s in exploretom_random(**{**SMALL, **kwargs}).dataset]


def test_same_seed_same_samples_other_seed_other_stories() -> None:
    a = exploretom_random(**SMALL).dataset
    b = exploretom_random(**SMALL).dataset
    assert [s.id for s in a] == [s.id for s in b]
    assert [s.input for s in a] == [s.input for s in b]
    assert [s.target for s in a] == [s.target for s in b]
    c = exploretom_random(**SMALL, seed=1).dataset
    assert {s.metadata["story_id"] for s in c}.isdisjoint({s.metadata["story_id"] for s in a})
    assert [s.input for s in c] != [s.input for s in a]


def test_sample_ids_and_metadata() -> None:
    samples = exploretom_random(**SMALL, stories_per_setting=2).dataset
    stories = {s.metadata["story_id"] for s in samples}
    assert len(stories) == 3 * 2 * 1 * 2  # types x people x moves x stories
    first = samples[0]
    assert first.id == "seed0|tomi|p2|m2|r1|s0|q00"
    md = first.metadata
    for key in ("action_set", "asymmetric", "people", "moves", "rooms", "order", "interesting", "false_belief",
                "kind", "answer_type", "candidates", "story_id", "setting_id", "question", "context_id"):
        assert key in md, key
    assert (md["action_set"], md["asymmetric"], md["people"], md["moves"], md["rooms"]) == ("tomi", False, 2, 2, 1)
    assert md["setting_id"] == Setting.make("tomi", 2, 2).id
    asym = next(s for s in samples if s.metadata["story_type"] == "tomi+asymmetric")
    assert asym.metadata["action_set"] == "tomi" and asym.metadata["asymmetric"] is True
    assert first.input.endswith(f"\n{md['question']} Short Answer.")
    for s in samples:
        if s.metadata["answer_type"] == "container":
            assert s.target in s.metadata["candidates"]
        if s.metadata["order"] == 0:
            assert s.metadata["interesting"] is None


def test_false_belief_only_and_orders() -> None:
    samples = exploretom_random(**SMALL, false_belief_only=True, question_orders="1,2").dataset
    assert {s.metadata["order"] for s in samples} == {1, 2}
    by_story: dict[str, list[bool]] = {}
    for s in samples:
        by_story.setdefault(s.metadata["story_id"], []).append(bool(s.metadata["interesting"]))
    assert all(any(flags) for flags in by_story.values())


def test_random_samples_draws_each_story_from_its_own_seed() -> None:
    bank = load_context_bank()
    kwargs = {"people": [2], "moves": [2], "stories_per_setting": 2, "contexts": bank}
    both, _ = random_samples(story_types=["tomi", "tomi-object-state"], seed=5, **kwargs)
    alone, _ = random_samples(story_types=["tomi-object-state"], seed=5, **kwargs)
    # a setting's stories do not depend on which other settings are drawn
    assert [s.input for s in both if s.metadata["story_type"] == "tomi-object-state"] == [s.input for s in alone]
    assert derive_seed(5, Setting.make("tomi", 2, 2).id, 0) != derive_seed(5, Setting.make("tomi", 2, 2).id, 1)


def test_default_context_skips_settings_it_cannot_fill() -> None:
    task = exploretom_random(story_types="tomi,fantom-public", people=2, moves=2, contexts="default")
    assert task.metadata["settings_skipped"] == ["fantom-public|p2|m2|r1"]
    assert {s.metadata["story_type"] for s in task.dataset} == {"tomi"}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"story_types": "tomi,bogus"}, r"Invalid story_types value\(s\): \['bogus'\]"),
        ({"people": "two"}, r"Invalid people value\(s\)"),
        ({"question_orders": "3"}, r"Invalid question_orders value\(s\): 3\. Must be integers from 0 to 2"),
        ({"check": "exact"}, "Invalid check value"),
        ({"stories_per_setting": 0}, "Invalid stories_per_setting value: 0. Must be an integer >= 1"),
    ],
)
def test_bad_options(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        exploretom_random(**kwargs)


def test_missing_contexts_file_is_one_line(tmp_path: Path) -> None:
    from inspect_ai._util.error import PrerequisiteError

    with pytest.raises(PrerequisiteError, match="no such contexts file") as err:
        exploretom_random(**SMALL, contexts=str(tmp_path / "nope.jsonl"))
    assert "\n" not in str(err.value.message)


def test_end_to_end_grouped_metrics(tmp_path: Path) -> None:
    """Answer "yes" everywhere: right only on yes/no questions whose answer is yes."""
    task = exploretom_random(**SMALL)
    yes_right = sum(1 for s in task.dataset if s.target == "yes")
    log = inspect_eval(task, model=replying(lambda _: "Yes."), log_dir=str(tmp_path), display="none")[0]
    assert log.status == "success"
    metrics = {k: v.value for k, v in log.results.scores[0].metrics.items()}
    assert metrics["accuracy"] == pytest.approx(yes_right / len(task.dataset))
    assert metrics["action_set=tomi"] == 0.0
    assert metrics["action_set=tomi:n"] == sum(1 for s in task.dataset if s.metadata["action_set"] == "tomi")
    for dim in TOM_DIMENSIONS:
        assert any(k.startswith(f"{dim}=") for k in metrics), dim
    assert {"asymmetric=True", "asymmetric=False", "people=2", "people=3", "order=0", "order=1", "order=2",
            "interesting=True", "interesting=False"} <= set(metrics)
    assert log.eval.metadata["check"] == "strict"


def test_runs_offline_with_the_oracle(tmp_path: Path) -> None:
    """The README main job on a few settings: the offline oracle answers from the tracker, so it is right."""
    import tombench._registry  # noqa: F401 - registers the tombench/<baseline> model provider

    task = exploretom_random(story_types="tomi,tomi+info-exchange+asymmetric,fantom-public", people="2,3", moves="2,3")
    log = inspect_eval(task, model="tombench/oracle", log_dir=str(tmp_path), display="none")[0]
    assert log.status == "success"
    assert log.results.scores[0].metrics["accuracy"].value == 1.0
