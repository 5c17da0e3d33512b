"""The search's garbage-collector settings (`search.heap.search_gc`): in force inside the block, restored after."""

from __future__ import annotations

import gc
import random

import pytest

from tombench.dsl import DEFAULT_CONTEXT, Setting, random_story
from tombench.generators.exploretom.search.diversity import story_shape
from tombench.generators.exploretom.search.heap import YOUNG, search_gc


def test_search_gc_freezes_and_batches_inside_and_restores_after():
    before = gc.get_threshold()
    frozen_before = gc.get_freeze_count()
    with search_gc():
        assert gc.get_threshold() == (YOUNG, *before[1:])
        assert gc.get_freeze_count() > frozen_before  # what start-up left is out of every collection
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_search_gc_restores_after_an_error():
    before = gc.get_threshold()
    with pytest.raises(KeyboardInterrupt), search_gc(young=5000):
        assert gc.get_threshold()[0] == 5000
        raise KeyboardInterrupt
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_story_shape_leaves_no_cyclic_garbage():
    """Refinement shapes every story it draws: a shape must be freed by reference counts alone (issue #28 point 2)."""
    story = random_story(DEFAULT_CONTEXT, Setting.make("tomi+asymmetric", 3, 3), random.Random(3))
    assert story is not None
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        shapes = [story_shape(story) for _ in range(20)]
        gc.collect()
        garbage = len(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert len(set(shapes)) == 1 and shapes[0]
    assert garbage == 0
