"""A* story search: goals, budget accounting, determinism, paper vs improved mode (offline fake targets)."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from tombench.dsl import (
    DEFAULT_CONTEXT,
    Conditions,
    Prompt,
    Setting,
    Story,
    build_prompt,
    check_answer,
    parse_structure,
    random_story,
)
from tombench.dsl.values import CONTAINER, ROOM, is_concrete
from tombench.generators.exploretom.search.astar import AStar, _weight, _weighted_order, astar_search
from tombench.generators.exploretom.search.evaluator import SENTINEL_G
from tombench.generators.exploretom.search.method import SearchResult
from tombench.generators.exploretom.search.refinement import _drop_one
from tombench.models._baselines import answer as baseline_answer

TOMI = Setting.make("tomi", 2, 2)
ROOMS = Setting.make("tomi+room-changes", 2, 2)


def _split(p: Prompt) -> tuple[Story, str]:
    story_text, question = p.user.rsplit("\n", 1)
    return parse_structure(story_text), question.removesuffix(" Short Answer.")


class Target:
    """A fake async target that counts its calls; `kind` is "oracle" (always right), "reality" (world state), or an
    offline baseline ("recency", "primacy")."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.calls = 0
        self.prompts = 0

    async def __call__(self, prompts: list[Prompt]) -> list[str]:
        self.calls += 1
        self.prompts += len(prompts)
        out = []
        for p in prompts:
            story, q = _split(p)
            if self.kind in ("recency", "primacy"):  # the package's offline baselines, as in the benchmark
                out.append(baseline_answer(self.kind, p.user, seed=0))
            elif self.kind == "oracle":
                out.append({x.text: x.answer for x in story.questions(orders=(1, 2))}[q])
            else:  # reality: where the object really is, whoever is asked about
                obj = story.context.objects[0]
                v = story.state.world.get((obj, ROOM if "which room" in q else CONTAINER))
                out.append(f"The {v}." if is_concrete(v) else "I don't know.")
        return out


def run(setting: Setting, target: Target, seed: int = 1, **cfg) -> SearchResult:
    config = AStar(**{"budget": 8, "lookahead": 10, **cfg})
    return asyncio.run(astar_search(setting, DEFAULT_CONTEXT, target, config, random.Random(seed)))


def check_accounting(r: SearchResult, t: Target, budget: int) -> None:
    assert r.nodes_evaluated == sum(n.spent for n in r.trace) <= budget
    assert r.model_calls == t.prompts == sum(len(n.questions) for n in r.trace if n.spent and not n.shortcut)
    # one answerer call per model-evaluated node: all its questions are asked together
    assert t.calls == sum(1 for n in r.trace if n.spent and not n.shortcut)
    assert all(n.spent == 0 for n in r.trace if n.g == SENTINEL_G)
    assert len({n.text for n in r.trace}) == len(r.trace)  # g/h cached by text: nothing is evaluated twice


def test_oracle_target_finds_no_goal_and_spends_the_budget() -> None:
    t = Target("oracle")
    r = run(TOMI, t)
    assert r.story is None and r.node is None and r.g is None
    assert r.nodes_evaluated == 8
    assert all(n.g in (1.0, SENTINEL_G) for n in r.trace)
    check_accounting(r, t, 8)


@pytest.mark.parametrize("setting", [TOMI, ROOMS])
def test_reality_target_yields_a_desired_goal(setting: Setting) -> None:
    t = Target("reality")
    r = run(setting, t)
    assert r.story is not None and r.g is not None
    cond = Conditions.of(setting)
    assert cond.is_desired(r.story) and r.g < 1
    assert r.node is not None and r.node.text == r.story.text
    assert r.questions and any(not q["correct"] for q in r.questions)
    assert r.g == sum(q["correct"] for q in r.questions) / len(r.questions)
    # the wrong answers are exactly the false-belief questions: the reality target answers the world
    assert all(q["correct"] != q["false_belief"] for q in r.questions)
    assert r.f == pytest.approx(r.g + r.h)
    check_accounting(r, t, 8)


def test_budget_is_exact_and_shortcut_spends_without_calls() -> None:
    t = Target("oracle")
    r = run(TOMI, t, budget=5)
    assert r.nodes_evaluated == 5
    check_accounting(r, t, 5)
    short = [n for n in r.trace if n.shortcut]
    assert short and all(n.g == 1.0 and n.spent == 1 and len(n.text.split(". ")) <= 3 for n in short)

    t2 = Target("oracle")
    r2 = run(TOMI, t2, budget=5, short_story_shortcut=False)
    assert r2.nodes_evaluated == 5 and not any(n.shortcut for n in r2.trace)
    check_accounting(r2, t2, 5)
    assert t2.calls == sum(1 for n in r2.trace if n.spent)


def test_zero_budget_spends_nothing() -> None:
    t = Target("reality")
    r = run(TOMI, t, budget=0)
    assert (r.story, r.nodes_evaluated, r.model_calls, t.calls, r.trace) == (None, 0, 0, 0, [])


def test_same_seed_same_result_and_json() -> None:
    a = run(ROOMS, Target("reality"), seed=3).to_dict()
    b = run(ROOMS, Target("reality"), seed=3).to_dict()
    assert a == b
    assert json.loads(json.dumps(a)) == a
    assert Story.from_dict(a["story"]).text == a["text"]
    c = run(ROOMS, Target("reality"), seed=4).to_dict()
    assert [n["text"] for n in c["trace"]] != [n["text"] for n in a["trace"]]


@pytest.mark.parametrize("setting", [TOMI, ROOMS, Setting.make("tomi+info-exchange", 2, 2)])
@pytest.mark.parametrize("seed", [1, 2])
def test_improved_mode_is_never_worse_than_paper_mode(setting: Setting, seed: int) -> None:
    paper = run(setting, Target("reality"), seed=seed)
    t = Target("reality")
    improved = run(setting, t, seed=seed, mode="improved", refine=0.0)
    check_accounting(improved, t, 8)
    # without refinement: identical draws until paper mode stops, so the paper trace is a prefix of the improved one
    assert [n.text for n in paper.trace] == [n.text for n in improved.trace[: len(paper.trace)]]
    if paper.g is not None:
        assert improved.g is not None and improved.g <= paper.g
        assert Conditions.of(setting).is_desired(improved.story)
    # improved spends the whole budget (restarting from the empty story when the frontier runs dry)
    assert improved.nodes_evaluated == 8


def test_improved_mode_with_an_oracle_spends_everything_and_finds_nothing() -> None:
    t = Target("oracle")
    r = run(ROOMS, t, mode="improved")
    assert r.story is None and r.nodes_evaluated == 8
    check_accounting(r, t, 8)


def test_improved_mode_gives_up_when_nothing_can_be_evaluated() -> None:
    # the default context has no state changes, so object-state stories have no questions: every node is a sentinel
    t = Target("oracle")
    r = run(Setting.make("tomi-object-state", 2, 2), t, mode="improved", refine=0.0)
    assert (r.story, r.nodes_evaluated, t.calls) == (None, 0, 0)
    assert r.trace and all(n.g == SENTINEL_G for n in r.trace)
    # refinement cannot even draw a desired story here (no state changes to make): it gives up too
    r = run(Setting.make("tomi-object-state", 2, 2), t, mode="improved", refine=1.0)
    assert (r.story, r.nodes_evaluated, t.calls) == (None, 0, 0)


def test_neighbour_weights_follow_goal4_and_goal5() -> None:
    cond = Conditions.of(ROOMS)  # M = 5
    parent = (0, 0, 1, 1)  # (diff, imp, people, rooms)
    child = (1, 1, 2, 2)
    assert _weight(parent, child, cond, "weight-goal4") == 5 + 1 + 1 + 1
    assert _weight(parent, child, cond, "weight-goal5") == 64
    assert _weight(parent, child, cond, "random") == 1
    # terms stop counting once the parent meets them
    assert _weight((1, 2, 2, 2), (2, 2, 2, 2), cond, "weight-goal4") == 0


def test_weighted_order_drops_zero_weights_and_prefers_heavy_items() -> None:
    items = [Story(DEFAULT_CONTEXT) for _ in range(3)]
    firsts = [0, 0, 0]
    for seed in range(200):
        out = _weighted_order(items, [0.0, 1.0, 9.0], random.Random(seed), 5)
        assert len(out) == 2 and items[0] not in out
        firsts[items.index(out[0])] += 1
    assert firsts[2] > 150


def test_config_is_validated() -> None:
    with pytest.raises(ValueError, match="Invalid g"):
        AStar(g="accuracy")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="k must be"):
        AStar(k=0)


def test_second_order_variant_asks_only_second_order_questions() -> None:
    t = Target("reality")
    r = run(TOMI, t, g="acc2")
    asked = [q for n in r.trace for q in n.questions]
    assert asked and all(q["order"] == 2 for q in asked)
    check_accounting(r, t, 8)


def test_improved_mode_ranks_every_distinct_goal_hardest_first() -> None:
    r = run(ROOMS, Target("reality"), seed=2, mode="improved", budget=30, refine=0.5)
    assert r.goals and r.goals[0][1] is r.node and r.goals[0][0] is r.story
    keys = [(n.g, -n.num_interesting, n.index) for _, n in r.goals]
    assert keys == sorted(keys) and all(n.is_goal for _, n in r.goals)
    assert len({s.text for s, _ in r.goals}) == len(r.goals) == sum(n.is_goal for n in r.trace)
    assert r.to_dict()["goals"] == [n.index for _, n in r.goals]
    paper = run(ROOMS, Target("reality"), seed=2)
    assert [n for _, n in paper.goals] == ([paper.node] if paper.node else [])


@pytest.mark.parametrize("width", [2, 4])
def test_wide_rounds_are_deterministic_and_spend_the_exact_budget(width: int) -> None:
    t = Target("reality")
    a = run(TOMI, t, seed=3, mode="improved", budget=12, expand_width=width)
    check_accounting(a, t, 12)
    assert a.nodes_evaluated == 12
    b = run(TOMI, Target("reality"), seed=3, mode="improved", budget=12, expand_width=width)
    assert a.to_dict() == b.to_dict()
    # paper mode ignores the width: it is exactly §7.4
    assert run(TOMI, Target("reality"), expand_width=width).to_dict() == run(TOMI, Target("reality")).to_dict()
    with pytest.raises(ValueError, match="expand_width"):
        AStar(expand_width=0)


@pytest.mark.parametrize("refine", [0.5, 1.0])
def test_refinement_spends_the_budget_on_desired_stories_only(refine: float) -> None:
    setting = Setting.make("tomi+info-exchange", 3, 3)
    t = Target("reality")
    r = run(setting, t, seed=5, mode="improved", budget=40, refine=refine)
    check_accounting(r, t, 40)
    assert r.nodes_evaluated == 40
    cond = Conditions.of(setting)
    astar_part = 40 - round(40 * refine)
    spent = 0
    for n in r.trace:
        if spent >= astar_part:  # the refinement phase evaluates complete desired stories only
            assert n.is_desired and cond.is_desired(parse_structure(n.text))
        spent += n.spent
    assert r.story is not None and cond.is_desired(r.story)
    assert r.to_dict() == run(setting, Target("reality"), seed=5, mode="improved", budget=40, refine=refine).to_dict()


def test_refinement_explores_around_the_hardest_goals() -> None:
    setting = Setting.make("tomi+info-exchange", 3, 3)
    r = run(setting, Target("reality"), seed=5, mode="improved", budget=60, refine=1.0)
    stories = [parse_structure(n.text) for n in r.trace]
    # pure refinement starts as over-generation and, once goals exist, draws children that share actions with one
    firsts = [s.actions[0] for s in stories]
    assert len(set(map(repr, firsts))) < len(firsts)
    assert r.g is not None and r.g <= min(n.g for n in r.trace[:5] if n.is_goal)


def test_refinement_with_an_oracle_finds_nothing_and_ends() -> None:
    t = Target("oracle")
    r = run(ROOMS, t, mode="improved", budget=20, refine=1.0)
    assert r.story is None and r.goals == []
    check_accounting(r, t, 20)
    assert r.nodes_evaluated == 20


def test_drop_one_keeps_the_other_actions_in_order() -> None:
    setting = Setting.make("tomi", 3, 3)
    cond = Conditions.of(setting)
    parent = random_story(DEFAULT_CONTEXT, setting, random.Random(0))
    assert parent is not None
    for seed in range(20):
        child = _drop_one(parent, cond, random.Random(seed))
        rest = iter(parent.actions)
        assert all(any(a == b for b in rest) for a in child.actions)  # a subsequence, in order
        assert len(child.actions) < len(parent.actions)


def test_refine_share_is_validated() -> None:
    with pytest.raises(ValueError, match="refine"):
        AStar(refine=1.5)


def _full_accuracy(text: str, t: Target) -> float:
    """What a node's g would have been with every first-order question asked (the fake targets are pure)."""
    story = parse_structure(text)
    qs = story.questions(orders=(1,))
    responses = asyncio.run(Target(t.kind)([build_prompt(text, q.text) for q in qs]))
    ctx = story.context
    right = [
        check_answer(r, q.answer, q.answer_type, ctx.rooms if q.answer_type == "room" else ctx.containers,
                     question=q.text).correct
        for q, r in zip(qs, responses, strict=True)
    ]
    return sum(right) / len(qs)


@pytest.mark.parametrize("keep", [1, 3])
def test_pruned_refinement_drops_only_children_that_cannot_beat_the_kept_goals(keep: int) -> None:
    setting = Setting.make("tomi+info-exchange", 3, 3)
    t = Target("recency")
    r = run(setting, t, seed=5, mode="improved", budget=200, budget_unit="calls", keep=keep)
    pruned = [n for n in r.trace if n.pruned]
    assert pruned, "recency answers many stories well enough to prune them"
    assert r.model_calls == t.prompts == sum(len(n.questions) for n in r.trace if not n.shortcut)
    assert r.model_calls <= 200 + max(len(n.questions) for n in r.trace)
    kept = [n.g for _, n in r.goals[:keep]]
    assert len(kept) == keep and all(not n.pruned for _, n in r.goals)
    for n in pruned[::6]:  # a sample: re-asking every pruned story's questions is slow
        # asked fewer than all, g a lower bound of the full accuracy, which is no better than the kept stories
        full = _full_accuracy(n.text, t)
        assert len(n.questions) < len(parse_structure(n.text).questions(orders=(1,)))
        assert n.g <= full and full >= kept[-1]
        assert not n.is_goal
    # deterministic, and pruning is what saved the calls: without it the same budget evaluates fewer stories
    again = run(setting, Target("recency"), seed=5, mode="improved", budget=200, budget_unit="calls", keep=keep)
    assert again.to_dict() == r.to_dict()
    full = run(setting, Target("recency"), seed=5, mode="improved", budget=200, budget_unit="calls", keep=keep,
               prune=False)
    assert not any(n.pruned for n in full.trace)
    assert len(r.trace) > 2 * len(full.trace)
    assert [n.g for _, n in r.goals[:keep]] <= [n.g for _, n in full.goals[:keep]]


def test_refinement_at_accuracy_zero_only_asks_for_other_stories_at_zero() -> None:
    t = Target("primacy")
    r = run(Setting.make("tomi", 3, 3), t, seed=5, mode="improved", budget=200, budget_unit="calls", keep=3)
    assert [n.g for _, n in r.goals[:3]] == [0.0, 0.0, 0.0]
    # once three goals are at 0, nothing can be harder: a child is out at its first right answer (it could only
    # replace a kept story by being at 0 too and less alike the others)
    third = [n.index for n in r.trace if n.is_goal and n.g == 0][2]
    later = [n for n in r.trace if n.index > third and n.spent and not n.shortcut]
    assert later and all(n.g == 0 or sum(x["correct"] for x in n.questions) == 1 for n in later)


def test_pruning_needs_a_call_budget_and_keep_is_validated() -> None:
    r = run(Setting.make("tomi+info-exchange", 3, 3), Target("reality"), seed=5, mode="improved", budget=40)
    assert not any(n.pruned for n in r.trace)  # a node budget gains nothing from asking fewer questions
    with pytest.raises(ValueError, match="keep"):
        AStar(keep=0)


def test_screen_chance_of_beating_the_bar_and_rates_with_backoff() -> None:
    from tombench.dsl import Question
    from tombench.generators.exploretom.search.evaluator import NodeEval, Rates, _mention, _rates_of, p_harder

    story = parse_structure("Anne entered the kitchen. Anne moved the apple to the box, which is also located in the "
                            "kitchen. Anne moved the apple to the basket, which is also located in the kitchen.")
    q = Question("Does Anne know about it? Answer yes or no.", "yes", 1, "K1", interesting=True, false_belief=False)
    node = NodeEval(0, "t", 0.0, 0.0, 0.0, 1, True,
                    questions=[{"kind": "K1", "interesting": True, "false_belief": False, "mention": "yes",
                                "correct": False}] * 3)
    rates = Rates([node])
    assert rates.get(("K1", True, False, "yes")) == 1 / 5  # (0 right + 1) / (3 asked + 2)
    assert rates.get(("K1", False, False, "yes")) == 1 / 5  # a new flag combination backs off to kind and answer
    assert rates.get(("C1", False, False, "last")) == 0.5  # nothing known
    # Poisson-binomial: two questions right with chance 1/5 each
    assert p_harder(_rates_of(story, [q, q], rates), None) == pytest.approx(1 - 1 / 25)  # not both right
    assert p_harder(_rates_of(story, [q, q], rates), 0.5) == pytest.approx(16 / 25)  # none right (1 of 2 would tie 0.5)
    assert p_harder(_rates_of(story, [q, q], rates), 0.5 + 1e-6) == pytest.approx(1 - 1 / 25)  # ties allowed
    text = story.text
    assert _mention(text, "basket", ("box", "basket", "bin")) == "last"
    assert _mention(text, "box", ("box", "basket", "bin")) == "first"
    assert _mention(text, "bin", ("box", "basket", "bin")) is None  # never named
    assert _mention(text, "yes", ("box", "basket")) == "yes"


def test_refinement_ranks_children_by_their_chance_per_call_before_their_likeness() -> None:
    from tombench.generators.exploretom.search.refinement import _promise

    # late in a search against a target that guesses: 6 yes/no questions all wrong (1/64 in 2 calls) against
    # 12 with at most one right (13/4096 in 4 calls); the likelier child is asked first even when it is more
    # like the other kept stories (an added likeness penalty ranked these by likeness alone)
    six, twelve = (1 / 64) / 2, (13 / 4096) / 4
    assert _promise(six, 0.5, 0.6) < _promise(twelve, 0.1, 0.6)
    # equally likely: the more different one first
    assert _promise(six, 0.2, 0.6) < _promise(six, 0.5, 0.6)
    # above the cap: after every child under it, however likely
    assert _promise(twelve, 0.0, 0.6) < _promise(0.9, 0.7, 0.6)


def test_a_child_is_given_up_once_going_on_pays_less_than_the_next_child() -> None:
    from tombench.generators.exploretom.contexts import load_context_bank
    from tombench.generators.exploretom.search.astar import setting_contexts
    from tombench.generators.exploretom.search.evaluator import Evaluator

    setting = Setting.make("tomi-object-state", 4, 3)  # 12 yes/no questions per story
    rng = random.Random(1)
    (ctx,) = setting_contexts(load_context_bank()[0], setting, rng)
    story = next(s for s in (random_story(ctx, setting, rng) for _ in range(200))
                 if s is not None and 9 <= len(Evaluator(Conditions.of(setting), None, AStar()).plan(s)[0]))

    def scripted() -> tuple[list[int], object]:
        asked: list[int] = []
        answers = {}

        async def answer(prompts: list[Prompt]) -> list[str]:
            out = []
            for p in prompts:
                asked.append(1)
                # the first two questions asked are answered right, every later one wrong
                out.append(answers[p.user] if len(asked) <= 2 else "I cannot tell")
            return out

        ev = Evaluator(Conditions.of(setting), answer, AStar(budget_unit="calls", budget=100))
        for q in ev.plan(story)[0]:
            answers[build_prompt(story.text, q.text).user] = q.answer
        return asked, ev

    n = len(scripted()[1].plan(story)[0])
    bar = 2.5 / n  # pruned at 3 right answers: the story beats the bar with at most 2
    # without giving up: 2 right of the first 3, then one question at a time until all are asked; it beats the bar
    asked, ev = scripted()
    (node,) = asyncio.run(ev.evaluate_pruned([story], random.Random(0), bar))
    assert len(asked) == n and not node.pruned and node.g == 2 / n and node.is_goal
    # giving up: after 2 right of 3 (each rest question right half the time with nothing known), a third right
    # answer is all but certain: going on is worth 0.5^(n-3) / 2 per call, below the next child's 0.01
    asked, ev = scripted()
    (node,) = asyncio.run(ev.evaluate_pruned([story], random.Random(0), bar, give_up=0.01))
    assert len(asked) == 3 and node.pruned and node.g == 2 / n and not node.is_goal
    # a next child worth nothing never stops it early
    asked, ev = scripted()
    (node,) = asyncio.run(ev.evaluate_pruned([story], random.Random(0), bar, give_up=0.0))
    assert len(asked) == n and not node.pruned


def test_refinement_lets_other_searches_run_between_its_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    """A round draws many children (CPU) before asking any; searches of other settings share the event loop, so
    their answers must be handed back and their next questions sent every few draws, not after the round."""
    import tombench.generators.exploretom.search.refinement as search

    ticks = 0
    seen: list[int] = []
    real_rollout = search.rollout

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(ticks)
        return real_rollout(*args, **kwargs)

    async def main() -> SearchResult:
        nonlocal ticks
        done = False

        async def other() -> None:  # stands for another search's pending answers
            nonlocal ticks
            while not done:
                ticks += 1
                await asyncio.sleep(0)

        task = asyncio.ensure_future(other())
        config = AStar(budget=60, lookahead=10, mode="improved", budget_unit="calls", keep=3)
        r = await astar_search(Setting.make("tomi", 3, 2), DEFAULT_CONTEXT, Target("recency"), config, random.Random(3))
        done = True
        await task
        return r

    monkeypatch.setattr(search, "rollout", spy)
    r = asyncio.run(main())
    assert r.goals and len(seen) > 100
    # the other task ran within every DRAWS_PER_YIELD draws, a handful
    k = search.DRAWS_PER_YIELD
    assert 1 <= k <= 16 and len(seen) > 4 * k
    assert all(b > a for a, b in zip(seen, seen[k:], strict=False))


@pytest.mark.parametrize("order_seed", [1, 2])
def test_improved_search_is_the_same_whatever_order_the_answers_arrive_in(order_seed: int) -> None:
    """Refinement carries unasked draws from round to round (its pool): what a round asks must still depend only on
    the draws and the trace before it, never on which of its children's answers came back first."""
    setting = Setting.make("tomi", 3, 2)
    cfg = {"mode": "improved", "budget": 150, "budget_unit": "calls", "keep": 3, "expand_width": 2}
    target = Target("recency")
    delays = random.Random(order_seed)

    async def shuffled(prompts: list[Prompt]) -> list[str]:
        await asyncio.sleep(delays.random() / 500)  # concurrent children's answers come back in another order
        return await target(prompts)

    a = run(setting, Target("recency"), seed=4, **cfg)
    b = run(setting, shuffled, seed=4, **cfg)  # type: ignore[arg-type]
    assert a.goals and a.model_calls == b.model_calls >= 150  # the last child asked may go past the budget
    assert a.to_dict() == b.to_dict()


def test_refinement_asks_draws_carried_over_from_earlier_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each round tops its pool up with REFINE_TOPUP draws per asked child (not `screen`): the draws it does not
    ask wait for later rounds, up to REFINE_POOL_AGE rounds and `screen` per asked child."""
    import tombench.generators.exploretom.search.refinement as refinement

    ages: list[int] = []
    sizes: list[int] = []
    real_pick = refinement._Refinement._pick

    def spy(self, ranked):  # type: ignore[no-untyped-def]
        batch, limits, give_up = real_pick(self, ranked)
        ages.extend(self.rounds - d.entry.born for d in ranked[: len(batch)])
        sizes.append(len(ranked))
        assert len(ranked) <= self.config.screen * self.want
        return batch, limits, give_up

    monkeypatch.setattr(refinement._Refinement, "_pick", spy)
    r = run(Setting.make("tomi", 3, 2), Target("recency"), seed=4, mode="improved", budget=150, budget_unit="calls",
            keep=3, expand_width=2)
    assert r.goals
    assert max(ages) > 0 and all(0 <= a < refinement.REFINE_POOL_AGE for a in ages)  # carried draws are asked
    assert max(sizes) > refinement.REFINE_TOPUP * 8  # the pool holds more than one round's draws
