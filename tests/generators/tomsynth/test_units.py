"""The unit space: sizes from the paper (36 x 96 x 2 = 6,912), stable ids, deterministic sampling."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tombench.generators.tomsynth.units import (
    NAMES,
    all_units,
    draw_characters,
    item_id,
    mental_states,
    select_units,
    situations,
    split_item_id,
    unit_by_id,
)


def test_space_sizes_match_paper() -> None:
    ms = mental_states()
    assert len(ms) == 36
    # 31 fine-grained sub-dimensions + 5 "Belief about X" (X in S_core minus Belief)
    about = [m for m in ms if "Belief about" in m.sub_dimension]
    assert len(about) == 5 and len(ms) - len(about) == 31
    assert Counter(m.dimension for m in ms) == {
        "Belief": 11, "Emotion": 7, "Non-literal Communication": 6, "Desire": 4, "Intention": 4, "Knowledge": 4,
    }
    assert len(situations()) == 96
    assert Counter(s.domain for s in situations()) == {d: 8 for d in {s.domain for s in situations()}}
    assert len({s.domain for s in situations()}) == 12
    assert len(all_units()) == 6912
    assert len(NAMES) == len(set(NAMES)) == 200
    assert all(m.definition.endswith(".") and len(m.definition) > 30 for m in ms)


def test_unit_ids_are_unique_readable_and_stable() -> None:
    ids = [u.id for u in all_units()]
    assert len(set(ids)) == 6912
    u = unit_by_id("mixed-emotions.education.school-bullying.dialogue")
    assert (u.mental_state.sub_dimension, u.situation.situation, u.format) == ("Mixed Emotions", "School Bullying",
                                                                                "Dialogue")
    assert unit_by_id("irony-sarcasm.friendship.borrowing-lending-money.narrative").format == "Narrative"
    assert split_item_id(item_id(u, 3)) == (u.id, 3)
    with pytest.raises(KeyError):
        unit_by_id("nope")


def test_select_units_sample_filters_and_ids() -> None:
    a = select_units("10", seed=1)
    assert a == select_units(10, seed=1) and len(a) == 10 and a != select_units(10, seed=2)
    only = select_units("all", dimensions=["emotion"], formats_=["Dialogue"])
    assert len(only) == 7 * 96 and {u.format for u in only} == {"Dialogue"}
    ids = [u.id for u in a[:2]]
    assert [u.id for u in select_units(",".join(ids))] == ids
    with pytest.raises(ValueError):
        select_units("0")


def test_draw_characters_at_most_four_distinct_names() -> None:
    names = draw_characters(random.Random("0:x#0"))
    assert len(names) == 4 == len(set(names)) and set(names) <= set(NAMES)
    assert names == draw_characters(random.Random("0:x#0"))


def test_contrast_space_of_the_paper() -> None:
    """ToM-Synth-27K-Contrast: 12 mental-state values (the six dimensions and six second-order ones), 2,304 units;
    its items never share an id with the full space's, though its second-order units are full-space units too."""
    ms = mental_states("contrast")
    assert len(ms) == 12 and len(all_units("contrast")) == 2304
    assert [m.sub_dimension for m in ms[:6]] == [m.dimension for m in ms[:6]]
    assert {m.dimension for m in ms[:6]} == {m.dimension for m in mental_states()}
    assert all(m.dimension == "Belief" and m.sub_dimension.startswith("Second-order") for m in ms[6:])
    shared = {u.id for u in all_units()} & {u.id for u in all_units("contrast")}
    assert len(shared) == 6 * 96 * 2
    uid = next(iter(shared))
    full, contrast = unit_by_id(uid), unit_by_id(uid, "contrast")
    assert item_id(full, 0) != item_id(contrast, 0) == f"contrast:{uid}#0"
    assert split_item_id(item_id(contrast, 5)) == (uid, 5)
    sample = select_units("12", seed=0, space="contrast")
    assert len(sample) == 12 and all(u.space == "contrast" for u in sample)
    with pytest.raises(ValueError, match="unknown unit space"):
        select_units("1", space="tiny")
