"""Random-story statistics (paper Tables 7-9): the (story, question) probability is a mean over stories."""

from __future__ import annotations

import random
import statistics

import pytest
from click.testing import CliRunner

from tombench.cli import main
from tombench.dsl import DEFAULT_CONTEXT, Conditions, Setting, Story, derive_seed, rollout, setting_context
from tombench.generators.exploretom.random_stats import PAPER_TABLES, random_story_stats


def test_tables_8_and_9_draw_a_story_then_a_question():
    (cell,) = random_story_stats([3], [3], n=120, seed=4)
    setting = Setting("tomi", 3, 3, rooms=1, max_sentences=10)
    cond = Conditions.of(setting)
    shares, fb, pooled = [], [], [0, 0]
    for i in range(120):  # the same stories, recomputed by hand
        rng = random.Random(derive_seed(4, "tomi", 3, 3, i))
        s = rollout(Story(setting_context(DEFAULT_CONTEXT, setting, rng)), cond, rng, copy=False)
        qs = s.questions(orders=(1, 2))
        pooled[0] += sum(bool(q.interesting) for q in qs)
        pooled[1] += len(qs)
        if qs:
            shares.append(sum(bool(q.interesting) for q in qs) / len(qs))
            fb.append(sum(bool(q.false_belief) for q in qs) / len(qs))
    assert cell.interesting == pytest.approx(statistics.mean(shares))
    assert cell.false_belief == pytest.approx(statistics.mean(fb))
    assert cell.stories_with_questions == len(shares)
    assert cell.interesting_pooled == pooled[0] / pooled[1]
    # long stories ask many never-interesting room questions: pooling weights them up and lowers the share
    assert cell.interesting_pooled < cell.interesting
    assert cell.paper == PAPER_TABLES[(3, 3)]


def test_cli_prints_the_paper_beside_ours():
    r = CliRunner().invoke(main, ["stats", "random", "-n", "60", "--people", "2", "--moves", "2,3"])
    assert r.exit_code == 0, r.output
    for title in ("Table 7", "Table 8", "Table 9"):
        assert title in r.output
    assert "0.090" in r.output and "0.123" in r.output  # the paper's Table 8 cells (2, 2) and (2, 3)
    assert r.output.count("original code - paper") == 3  # the original code's own distance from the paper, each table
    assert r.output.count("pooled vs §8 prototype") == 2  # Tables 8-9: the semantics document's measure and values
    assert "0.110" in r.output and "0.068" in r.output  # cell (2, 2) of Table 8: original code re-run, §8 prototype


def test_pooled_shares_match_the_semantics_prototype():
    """§8's prototype measured the pooled share: ours lands within sampling noise of it in every cell."""
    from tombench.generators.exploretom.random_stats import PROTOTYPE_TABLES

    for c in random_story_stats([2, 4], [2, 4], n=400, seed=0):
        proto = PROTOTYPE_TABLES[(c.people, c.moves)]
        assert abs(c.interesting_pooled - proto[1]) < 0.03, c
        assert abs(c.false_belief_pooled - proto[2]) < 0.03, c
