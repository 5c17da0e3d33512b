"""tombench/bigtom: the 24 conditions rebuilt from a template, the paper's chat prompt, BigToM's matcher, offline."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from tombench.kit.errors import OptionError
from tombench.tasks.bigtom.bigtom import INSTRUCTION, bigtom, load_templates, record_to_sample, template_items

FIXTURE = Path(__file__).parent / "fixtures" / "bigtom.csv"


def _priya() -> dict[str, str]:
    return load_templates(FIXTURE)[0]


def test_template_items_follow_the_condition_rules() -> None:
    items = template_items(_priya())
    assert len(items) == 24
    assert Counter((it["variable"], it["condition"]) for it in items)[("forward_belief", "true_belief")] == 2
    by = {(it["init_belief"], it["variable"], it["condition"]): it for it in items}
    hidden = by[(0, "forward_belief", "false_belief")]
    assert "Priya believes that" not in hidden["story"]  # init belief 0: the belief sentence is left out
    assert hidden["story"].endswith("checks the thermostat. Priya does not see the intern refilling the can.")
    assert hidden["answer"] == "Priya believes the watering can holds rainwater."
    shown = by[(1, "forward_action", "true_belief")]
    assert "Priya believes that the watering can holds rainwater." in shown["story"]
    assert shown["answer"] == "Priya will walk back to the rain barrel to refill the can."
    control = by[(0, "forward_belief", "true_control")]
    assert "intern" not in control["story"] and control["story"].endswith(
        "rain barrel. A sparrow flies in through the open roof vent. Priya sees the sparrow flying in.")
    assert control["answer"] == "Priya believes the watering can holds rainwater."  # nothing changed the can
    backward = by[(1, "backward_belief", "true_belief")]
    assert backward["story"].endswith("Priya walks back to the rain barrel to refill the can.")
    assert backward["answer"] == "Priya believes the watering can holds tap water."


def test_record_to_sample_prompt_and_seeded_order() -> None:
    item = template_items(_priya())[1]  # forward belief, false belief, init 0
    s = record_to_sample(item)
    assert s.input.startswith("Story: Priya is a gardener")
    assert "\nQuestion: Does Priya believe the watering can holds rainwater or tap water?\nChoose one of the " \
           "following:\na)" in s.input
    assert s.metadata["options"][" ab".index(s.target) - 1] == item["answer"]
    assert record_to_sample(item).input == s.input  # the order is a function of the item's content
    assert s.metadata["cell"] == "forward_belief/false_belief" and s.metadata["chance"] == 0.5


def test_runs_offline_with_baselines(tmp_path: Path) -> None:
    assert len(bigtom(data=str(FIXTURE)).dataset) == 48
    task = bigtom(data=str(FIXTURE), variable="forward_belief,backward_belief", init_belief="0")
    assert len(task.dataset) == 16 and task.metadata["dataset_records"] == 2 and task.metadata["chance"] == 0.5
    logs = inspect_eval([task], model=["tombench/primacy", "tombench/recency"], log_dir=str(tmp_path),
                        display="none")
    accs = []
    for log in logs:
        assert log.status == "success"
        assert log.eval.scorers[0].options == {"protocol": "bigtom"}
        metrics = {k: v.value for k, v in log.results.scores[0].metrics.items()}
        assert metrics["cell=forward_belief/false_belief:n"] == 2 and "init_belief=0" in metrics
        accs.append(metrics["accuracy"])
    assert accs[0] + accs[1] == pytest.approx(1.0)  # "a" and "b" answers split the items between them
    assert logs[0].samples[0].messages[0].text == INSTRUCTION
    assert len(bigtom(data=str(FIXTURE), variable="backward_belief", init_belief="1").dataset) == 8


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(OptionError, match="Invalid condition"):
        bigtom(data=str(FIXTURE), condition="percept_to_belief")
    short = tmp_path / "short.csv"
    short.write_text("a;b;c\n")
    with pytest.raises(OptionError, match="fewer than 17"):
        bigtom(data=str(short))
