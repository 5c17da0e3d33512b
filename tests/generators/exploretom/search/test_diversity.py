"""Story shapes, similarity measures and the distinct selection of a setting's kept stories."""

from __future__ import annotations

import itertools
import random

from tombench.dsl import DEFAULT_CONTEXT, Setting, Story, parse_structure, random_story
from tombench.generators.exploretom.contexts import load_context_bank
from tombench.generators.exploretom.search.diversity import (
    mean_pairwise,
    select_distinct,
    sentence_jaccard,
    shape_similarity,
    story_shape,
)

TEXT = ("Anne entered the kitchen. Beth entered the kitchen. Anne moved the apple to the box, which is also located "
        "in the kitchen. Anne left the kitchen. Beth moved the apple to the basket, which is also located in the "
        "kitchen.")


def test_renaming_keeps_the_shape_but_not_the_sentences():
    a = parse_structure(TEXT)
    b = parse_structure(TEXT.replace("Anne", "Omar").replace("Beth", "Zoe").replace("kitchen", "garage")
                        .replace("apple", "wrench").replace("box", "crate").replace("basket", "bucket"))
    swapped = parse_structure(TEXT.replace("Anne", "X").replace("Beth", "Anne").replace("X", "Beth"))
    assert story_shape(a) == story_shape(b) == story_shape(swapped)
    assert shape_similarity(a, b) == 1.0 and sentence_jaccard(a, b) == 0.0
    assert sentence_jaccard(a, swapped) == 0.25  # people swapped: only the two entrances are the same sentences


def test_one_edit_is_similar_and_an_unrelated_story_is_not():
    a = parse_structure(TEXT)
    edit = parse_structure(TEXT.rsplit(" Beth moved", 1)[0] + " Beth left the kitchen.")
    assert 0.5 < shape_similarity(a, edit) < 1.0
    other = parse_structure("Carl entered the hall. Carl moved the key to the drawer, which is also located in the "
                            "hall. Dana entered the hall. Carl moved the key to the tin, which is also located in "
                            "the hall.")
    assert shape_similarity(a, other) <= 0.5
    assert sentence_jaccard(a, a) == 1.0 and mean_pairwise([a], sentence_jaccard) is None
    assert mean_pairwise([a, a, other], shape_similarity) == (1.0 + 2 * shape_similarity(a, other)) / 3


def test_select_distinct_prefers_new_contexts_and_respects_the_cap():
    # (name, context, shape): ranked hardest first
    items = [("a1", "A", frozenset("xyz")), ("a2", "A", frozenset("uvw")), ("b1", "B", frozenset("xyz")),
             ("b2", "B", frozenset("xyq")), ("c1", "C", frozenset("pqr"))]

    def pick(n, cap):
        return [x[0] for x in select_distinct(items, n, context_of=lambda x: x[1], shape_of=lambda x: x[2],
                                              max_similarity=cap)]

    # b1 is a1's shape (similarity 1), b2 shares 2 of 4 letters with a1 (0.5)
    assert pick(3, 0.6) == ["a1", "b2", "c1"]
    assert pick(3, 0.4) == ["a1", "a2", "c1"]  # b2 is too close to a1: pass 2 reuses context A
    assert pick(5, 1.0) == ["a1", "a2", "b1", "b2", "c1"]
    assert pick(2, 0.6) == ["a1", "b2"]


def test_random_stories_of_one_setting_fill_five_slots_under_the_default_cap():
    bank = load_context_bank()
    rng = random.Random(0)
    setting = Setting.make("tomi", 3, 3)
    stories = [random_story(bank[i], setting, rng) for i in range(40)]
    kept = select_distinct([s for s in stories if s], 5, context_of=lambda s: s.context.id, shape_of=story_shape)
    assert len(kept) == 5 and len({s.context.id for s in kept}) == 5
    assert all(isinstance(s, Story) for s in kept)
    one = [random_story(DEFAULT_CONTEXT, setting, rng) for _ in range(40)]
    kept = select_distinct([s for s in one if s], 5, context_of=lambda s: s.context.id, shape_of=story_shape)
    assert len(kept) == 5  # a single context: pass 2 fills the slots, the cap still applies
    assert max(shape_similarity(a, b) for i, a in enumerate(kept) for b in kept[i + 1:]) <= 0.6


def test_select_distinct_leaves_out_a_hard_story_that_keeps_two_others_out():
    # (name, context, shape, g), hardest first: h's shape is near both p's and q's (4 of 6 letters: 0.67 > 0.6),
    # p and q are not near each other (3 of 7)
    items = [("h", "B", frozenset("abcde"), 0.1), ("p", "A", frozenset("abcdx"), 0.2),
             ("q", "C", frozenset("bcdey"), 0.2), ("e1", "D", frozenset("mno"), 0.8), ("e2", "E", frozenset("rst"), 0.9)]

    def pick(with_g: bool):
        return [x[0] for x in select_distinct(items, 3, context_of=lambda x: x[1], shape_of=lambda x: x[2],
                                              g_of=(lambda x: x[3]) if with_g else None)]

    # greedy alone keeps h and then only the easy ones (total 1.8); leaving h out keeps p and q (total 1.2)
    assert pick(with_g=False) == ["h", "e1", "e2"]
    assert pick(with_g=True) == ["p", "q", "e1"]
    # without h among the candidates the same set is kept
    assert [x[0] for x in select_distinct(items[1:], 3, context_of=lambda x: x[1], shape_of=lambda x: x[2],
                                          g_of=lambda x: x[3])] == ["p", "q", "e1"]


def test_select_distinct_swaps_a_kept_story_for_an_equally_hard_less_alike_one():
    # five stories at accuracy 0, each in a context of its own. Greedy keeps the first, then the ones least like the
    # kept ones: h, b, c (b and h share one letter of five: 0.2). d is as hard and like neither b nor c.
    items = [("h", "A", frozenset("bcde"), 0.0), ("x", "B", frozenset("cde"), 0.0), ("b", "C", frozenset("eh"), 0.0),
             ("c", "D", frozenset("ag"), 0.0), ("d", "E", frozenset("bdf"), 0.0), ("easy", "F", frozenset("z"), 0.5)]

    def pick(swap: bool) -> list[str]:
        return [x[0] for x in select_distinct(items, 3, context_of=lambda x: x[1], shape_of=lambda x: x[2],
                                              g_of=lambda x: x[3], swap=swap)]

    assert pick(swap=False) == ["h", "b", "c"]
    assert pick(swap=True) == ["b", "c", "d"]  # summed likeness 0.2 -> 0, accuracy the same; never the easy one


def test_swaps_keep_accuracy_contexts_and_the_cap():
    """On random candidate pools: the swapped set is as hard, has as many contexts, stays within the cap and is never
    more alike than the set without swaps."""
    rng = random.Random(7)
    for _ in range(300):
        items = [(i, f"c{rng.randint(0, 3)}", frozenset(rng.sample("abcdefghij", rng.randint(2, 5))),
                  rng.choice((0.0, 0.0, 0.25, 0.5))) for i in range(rng.randint(3, 12))]
        items.sort(key=lambda x: x[3])
        kw = {"context_of": lambda x: x[1], "shape_of": lambda x: x[2], "g_of": lambda x: x[3],
              "max_similarity": 0.5}
        plain, swapped = select_distinct(items, 4, swap=False, **kw), select_distinct(items, 4, **kw)
        assert sorted(x[3] for x in swapped) == sorted(x[3] for x in plain)
        assert len({x[1] for x in swapped}) >= len({x[1] for x in plain})
        assert all(shape_similarity(a[2], b[2]) <= 0.5 for a, b in itertools.combinations(swapped, 2))

        def alike(sel: list) -> float:
            return sum(shape_similarity(a[2], b[2]) for a, b in itertools.combinations(sel, 2))

        assert alike(swapped) <= alike(plain) + 1e-9
