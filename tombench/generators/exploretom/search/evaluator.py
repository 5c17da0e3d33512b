"""How the A* search and its baselines score a story: the target model's accuracy g on the chosen questions, the
lookahead heuristic h, and the budget each evaluation spends (ExploreToM §2.3; semantics §7.3).

Also what this target's record so far predicts (`Rates` and the chances built on it): refinement uses them to pick
the children likeliest to beat the kept stories, and `Evaluator.evaluate_pruned` to stop asking a child early.

Pure asyncio: the target model is any `Answerer` (an async callable from prompts to responses); concurrency and
response caching are the answerer's job.
"""

from __future__ import annotations

import asyncio
import functools
import math
import random
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from tombench.dsl import (
    AnswerMemo,
    AnswerType,
    Conditions,
    Prompt,
    Question,
    Rollouts,
    Story,
    build_prompt,
    check_answer,
)
from tombench.generators.exploretom.search.diversity import DEFAULT_MAX_SIMILARITY

__all__ = ["Answerer", "GVariant", "EvalConfig", "NodeEval", "Evaluator", "Rates", "SENTINEL_G", "QKey", "qkey",
           "p_harder", "expected_calls_of", "ranked_goals", "chosen_questions",
           "check_choice"]

#: the target model: answers a batch of prompts (concurrently, in its own way), one response per prompt, in order
Answerer = Callable[[list[Prompt]], Awaitable[list[str]]]

GVariant = Literal["acc", "acc-int", "acc2", "acc2-int"]

#: g of a node whose question set is empty: "not evaluated", ranked after every real accuracy, no budget spent
SENTINEL_G = 2.0


@dataclass(frozen=True)
class EvalConfig:
    """What every search method reads to score a story and to count its budget: the knobs of g, h and the budget
    unit (semantics §7.3), and the shape cap of the stories a run keeps. Each method's own config extends it, so the
    evaluator and the runner read one set of names whatever the method."""

    #: budget per search, in `budget_unit`s (a method's `search` sets it per call)
    budget: int = 50
    #: "nodes": node evaluations (the paper's unit); "calls": prompts put to the model, for comparing methods at
    #: equal model-call cost (a node of a short story asks fewer questions than a full random story)
    budget_unit: Literal["nodes", "calls"] = "nodes"
    #: lookahead rollouts per evaluated node (P)
    lookahead: int = 50
    #: weight of the heuristic h
    alpha: float = 0.1
    #: which questions g is the accuracy on
    g: GVariant = "acc"
    #: stories of <= 3 sentences get g = 1.0 without a model call (but spend a unit), as in the original
    short_story_shortcut: bool = True
    #: how answers are judged (semantics §5.6)
    check: Literal["strict", "substring"] = "strict"
    #: the cap on shape similarity between two kept stories (`diversity.select_distinct`); 1.0 disables it
    max_similarity: float = DEFAULT_MAX_SIMILARITY

    def __post_init__(self) -> None:
        if self.budget < 0:
            raise ValueError(f"budget must be >= 0, got {self.budget}")
        if self.lookahead < 1:
            raise ValueError(f"lookahead must be >= 1, got {self.lookahead}")
        if not 0.0 <= self.max_similarity <= 1.0:
            raise ValueError(f"max_similarity must be between 0 and 1, got {self.max_similarity}")
        check_choice("g", self.g, ("acc", "acc-int", "acc2", "acc2-int"))
        check_choice("check", self.check, ("strict", "substring"))
        check_choice("budget_unit", self.budget_unit, ("nodes", "calls"))


def check_choice(name: str, value: object, allowed: Sequence[object]) -> None:
    """A config value out of its choices: the message the user sees (a ValueError the caller turns into one line)."""
    if value not in allowed:
        raise ValueError(f"Invalid {name} {value!r}. Must be one of: {list(allowed)}")


@dataclass
class NodeEval:
    """One evaluated node: its cost, heuristic and, when the model was asked, the questions and verdicts."""

    index: int
    text: str
    g: float
    h: float
    avglen: float
    #: budget units this evaluation spent (0 for the sentinel, 1 otherwise)
    spent: int
    is_desired: bool
    #: the chosen question set (empty for the sentinel), each with expected answer, response and correctness
    questions: list[dict[str, Any]] = field(default_factory=list)
    #: True when g came from the short-story shortcut (no model call)
    shortcut: bool = False
    #: True when refinement stopped asking early (`Evaluator.evaluate_pruned`): `questions` holds only the questions
    #: asked and g is a lower bound (correct answers over all questions), so the node is never a goal
    pruned: bool = False

    @property
    def f(self) -> float:
        return self.g + self.h

    @property
    def is_goal(self) -> bool:
        return self.is_desired and self.g < 1.0 and not self.pruned

    @property
    def num_interesting(self) -> int:
        return sum(1 for q in self.questions if q.get("interesting"))

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["f"] = self.f
        return d



def chosen_questions(story: Story, variant: GVariant) -> list[Question]:
    order = 2 if variant.startswith("acc2") else 1
    qs = story.questions(orders=(order,))
    if variant.endswith("-int"):
        qs = [q for q in qs if q.interesting]
    return qs


class Evaluator:
    """g and h for one search, cached by story text, with exact budget accounting.

    Shared by the search and the baselines so that both spend budget and call the model in exactly the same way.
    """

    def __init__(self, conditions: Conditions, answer: Answerer, config: EvalConfig) -> None:
        self.cond = conditions
        self.answer = answer
        self.config = config
        self.cache: dict[str, NodeEval] = {}
        #: the answer matcher's readings of the texts this search checks again and again
        self.answer_memo = AnswerMemo()
        self.trace: list[NodeEval] = []
        #: the Story of every evaluated desired node, by trace index (results need the actions, not just the text)
        self.desired: dict[int, Story] = {}
        self.spent = 0
        self.model_calls = 0
        self._plans: dict[str, list[Question]] = {}

    @property
    def used(self) -> int:
        """Budget used so far, in the configured unit."""
        return self.model_calls if self.config.budget_unit == "calls" else self.spent

    def cost(self, story: Story) -> int:
        """What evaluating `story` would use of the budget (before any cache check)."""
        qs, spends = self.plan(story)
        if not spends:
            return 0
        if self.config.budget_unit == "nodes":
            return 1
        return 0 if self.config.short_story_shortcut and len(story) <= 3 else len(qs)

    def lookahead(self, story: Story, rng: random.Random) -> tuple[float, float]:
        """(h, avglen): h = alpha * (1 - share of P completions that are desired); 0 if S already holds."""
        mx = self.cond.setting.max_sentences
        if self.cond.structural(story):
            return 0.0, len(story) / mx
        hits = 0
        total_len = 0
        # the P rollouts of one story share their first draws, and a never-desired one is cut short: it is only
        # counted, with the length it would have had (`Rollouts`; the same draws as `rollout`)
        batch = Rollouts(story, self.cond, skip_doomed=True)
        is_desired = self.cond.is_desired
        for _ in range(self.config.lookahead):
            s = batch.draw(rng)
            if type(s) is int:
                total_len += s
            else:
                hits += is_desired(s)
                total_len += len(s)
        p = self.config.lookahead
        return self.config.alpha * (1.0 - hits / p), total_len / p / mx

    def plan(self, story: Story) -> tuple[list[Question], bool]:
        """The questions g needs and whether evaluating spends a unit (False only for the sentinel)."""
        text = story.text
        qs = self._plans.get(text)
        if qs is None:
            # a story is planned several times (its cost, its promise, its evaluation): compute its questions once
            if len(self._plans) > 20000:
                self._plans.clear()
            qs = self._plans[text] = chosen_questions(story, self.config.g)
        return list(qs), bool(qs)

    async def evaluate_many(self, stories: Sequence[Story], rng: random.Random) -> list[NodeEval]:
        """Evaluate uncached stories: lookaheads in order (they draw from `rng`), each story's questions sent as soon
        as its lookahead is done, so the next lookahead's CPU overlaps the model's latency (`_pipelined`)."""
        return await _pipelined([(s, self.plan(s)[0], None) for s in stories], self, rng)

    async def evaluate_pruned(self, stories: Sequence[Story], rng: random.Random,
                              threshold: float | None | Sequence[float | None],
                              give_up: float = 0.0, rates: Rates | None = None) -> list[NodeEval]:
        """Like `evaluate_many`, but stop asking a story's questions once its g is sure to be >= its threshold.

        Why: refinement keeps only stories harder than the kept story they would replace, and most children are not;
        a child of n questions is out as soon as ceil(threshold x n) answers are right, whatever the rest. Each step
        asks just enough questions to reach that count if all were right (so a hopeless child costs the fewest
        calls, in few round trips), likeliest-right first by this target's record on the trace so far
        (`Rates`). A pruned node records the questions asked, g = right answers / n (a lower bound) and
        `pruned`; it spends its unit but is never a goal. `threshold`: one for the batch or one per story; None
        asks everything, as `evaluate_many`. `give_up` > 0 also stops a story between steps once the chance that it
        still beats its threshold, per call it would still need, is below `give_up` (`_worth_going_on`; refinement
        passes what the next child in line would give per call): a partly asked story whose remaining questions
        would all have to be wrong is likelier to pay off as another story. Thresholds, `give_up` and the rates are
        fixed for the batch and the order depends only on the trace before it, so the calls made depend on the
        responses, never on the order they arrive in. `rates`: this target's rates on the current trace, when the
        caller already has them.
        """
        limits = list(threshold) if isinstance(threshold, Sequence) else [threshold] * len(stories)
        if len(limits) != len(stories):
            raise ValueError(f"{len(limits)} thresholds for {len(stories)} stories")
        rates = rates if rates is not None else Rates(self.trace)
        pending: list[tuple[Story, list[Question], float | None]] = []
        for s, limit in zip(stories, limits, strict=True):
            qs, _ = self.plan(s)
            if limit is not None:
                qs = sorted(qs, key=lambda q: -rates.get(qkey(q, s), 0.5))  # stable: ties keep the question order
            pending.append((s, qs, limit))
        return await _pipelined(pending, self, rng, rates if give_up > 0 else None, give_up)

    async def _score(self, story: Story, qs: list[Question], h: float, avglen: float,
                     threshold: float | None = None, rates: Rates | None = None, give_up: float = 0.0) -> NodeEval:
        node = self._register(story, qs, h, avglen)
        if node.spent and not node.shortcut:
            records, right = await self._ask_in_steps(story, qs, threshold, rates, give_up)
            if threshold is not None:  # back to the question set's order (evaluate_pruned asked in another)
                pos = {q.text: i for i, q in enumerate(self.plan(story)[0])}
                records.sort(key=lambda x: pos[x["question"]])
            node.questions = records
            node.g = right / len(qs)
            node.pruned = len(records) < len(qs)
        return node

    def _register(self, story: Story, qs: list[Question], h: float, avglen: float) -> NodeEval:
        """The node of `story` in the trace, cache and budget, before any question is asked: so that trace order and
        budget do not depend on which answer arrives first. Its g is final for the sentinel (no questions) and the
        short-story shortcut; otherwise the questions' verdicts set it."""
        text = story.text
        desired = self.cond.is_desired(story)
        index = len(self.trace)
        if not qs:
            node = NodeEval(index, text, SENTINEL_G, h, avglen, 0, desired)
        elif self.config.short_story_shortcut and len(story) <= 3:
            node = NodeEval(index, text, 1.0, h, avglen, 1, desired, [_qdict(q) for q in qs], shortcut=True)
        else:
            node = NodeEval(index, text, 0.0, h, avglen, 1, desired)
        self.trace.append(node)
        self.cache[text] = node
        if desired:
            self.desired[index] = story
        self.spent += node.spent
        return node

    async def _ask_in_steps(self, story: Story, qs: list[Question], threshold: float | None, rates: Rates | None,
                            give_up: float) -> tuple[list[dict[str, Any]], int]:
        """Ask `qs` in order, each step just enough questions to reach the pruning count if all were right, until
        `threshold` is out of reach or going on pays less than `give_up` (`evaluate_pruned`); with no threshold, all
        at once. The records asked, and how many were right."""
        n = len(qs)
        # right answers that put g at or above the threshold: a tie cannot lower the mean of the kept stories
        enough = n + 1 if threshold is None else math.ceil(threshold * n - 1e-9)
        records: list[dict[str, Any]] = []
        right = 0
        while len(records) < n and right < enough:
            step = min(enough - right, n - len(records))
            batch = await self._ask(story, qs[len(records): len(records) + step])
            records += batch
            right += sum(x["correct"] for x in batch)
            if (rates is not None and threshold is not None and len(records) < n and right < enough
                    and _worth_going_on(story, qs[len(records):], rates, enough - right) < give_up):
                break  # the calls pay more on the next child in line: g is a lower bound, pruned
        return records, right

    async def _ask(self, story: Story, qs: list[Question]) -> list[dict[str, Any]]:
        """Put `qs` about `story` to the target at once; each question's record with the response and its verdict."""
        text = story.text  # rendered on every access: once here, not three times per question
        prompts = [build_prompt(text, q.text) for q in qs]
        self.model_calls += len(prompts)
        responses = await self.answer(prompts)
        if len(responses) != len(prompts):
            raise ValueError(f"answerer returned {len(responses)} responses for {len(prompts)} prompts")
        records = []
        for q, r in zip(qs, responses, strict=True):
            cands = _candidates(story, q)
            v = check_answer(r, q.answer, q.answer_type, cands, self.config.check, question=q.text, story=text,
                             memo=self.answer_memo)
            records.append({**_qdict(q), "mention": _mention(text, q.answer, cands), "response": r,
                            "correct": v.correct})
        return records


async def _pipelined(pending: Sequence[tuple[Story, list[Question], float | None]], ev: Evaluator,
                     rng: random.Random, rates: Rates | None = None, give_up: float = 0.0) -> list[NodeEval]:
    """Score (story, questions, threshold) in order: each lookahead (CPU, drawing from `rng` in order), then its
    story's questions go out at once (`Evaluator._score` registers the node before its first await, so the trace
    order is the input order whatever order the answers come back in)."""
    tasks = []
    try:
        for s, qs, limit in pending:
            h, avglen = ev.lookahead(s, rng)
            tasks.append(asyncio.ensure_future(ev._score(s, qs, h, avglen, limit, rates, give_up)))
            await asyncio.sleep(0)  # let it register and send its questions while the next lookahead runs
        return list(await asyncio.gather(*tasks))
    finally:
        for t in tasks:  # one failed (a call that kept failing) or the search was cancelled: no orphan asks on
            t.cancel()


def _candidates(story: Story, q: Question) -> tuple[str, ...]:
    ctx = story.context
    return ctx.rooms if q.answer_type == AnswerType.ROOM else ctx.containers


@functools.lru_cache(maxsize=512)
def _spans(text: str, candidates: tuple[str, ...]) -> dict[str, tuple[int, int]]:
    """Where each candidate named in `text` is first and last named (as whole words); the unnamed are absent.

    Cached: refinement asks for every question of every story it draws, and a story's questions share its text."""
    spans = {}
    for c in candidates:
        hits = [m.start() for m in re.finditer(r"\b" + re.escape(c) + r"\b", text)]
        if hits:
            spans[c] = (hits[0], hits[-1])
    return spans


def _mention(text: str, answer: str, candidates: Sequence[str]) -> str | None:
    """Where the expected answer stands among the candidates the story names: "first" named, "last" named (by
    last mention), "both", "middle", None for fewer than two named candidates; a yes/no or knowledge answer is
    itself ("yes", "does not know about it"): models lean to one side of those."""
    if answer not in candidates:
        return answer
    spans = _spans(text, tuple(candidates))
    if answer not in spans or len(spans) < 2:
        return None
    first = min(spans, key=lambda c: spans[c][0]) == answer
    last = max(spans, key=lambda c: spans[c][1]) == answer
    return "both" if first and last else "first" if first else "last" if last else "middle"


QKey = tuple[str, bool, bool, str | None]


def qkey(q: Question | dict[str, Any], story: Story | None = None, text: str | None = None) -> QKey:
    """What predicts a target's answer being right: the question kind, the two flags, and where the expected answer
    stands among the candidates the story names (`_mention`; a recorded answer carries it). `text`: the story's
    text when the caller has it (joining it again per question was a few percent of improved mode's CPU)."""
    if isinstance(q, dict):
        return q["kind"], q["interesting"], q["false_belief"], q.get("mention")
    if story is None:
        mention = None
    else:
        mention = _mention(story.text if text is None else text, q.answer, _candidates(story, q))
    return q.kind, bool(q.interesting), bool(q.false_belief), mention


class Rates:
    """This target's right-answer rate per question key, from every question asked so far (Laplace-smoothed:
    (right + 1) / (asked + 2)). An unseen key backs off to its kind and answer position (a question the flags
    put in a new group is still, say, a "yes" question), then to 0.5."""

    def __init__(self, trace: Sequence[NodeEval]) -> None:
        self.fine: dict[QKey, list[int]] = {}
        self.coarse: dict[tuple[str, str | None], list[int]] = {}
        self._count(trace)

    def plus(self, more: Sequence[NodeEval]) -> Rates:
        """The rates of this trace followed by the nodes `more`, as a new object (this one stays as it was): the
        same counts as `Rates` of the whole trace, without recounting it (refinement adds each round's nodes)."""
        out = Rates(())
        out.fine = {k: c.copy() for k, c in self.fine.items()}
        out.coarse = {k: c.copy() for k, c in self.coarse.items()}
        out._count(more)
        return out

    def _count(self, trace: Sequence[NodeEval]) -> None:
        for node in trace:
            if node.shortcut:
                continue
            for x in node.questions:
                k = qkey(x)
                for table, key in ((self.fine, k), (self.coarse, (k[0], k[3]))):
                    c = table.setdefault(key, [0, 0])  # type: ignore[attr-defined]
                    c[0] += x["correct"]
                    c[1] += 1

    def get(self, key: QKey, default: float = 0.5) -> float:
        c = self.fine.get(key) or self.coarse.get((key[0], key[3]))
        return default if c is None else (c[0] + 1) / (c[1] + 2)


def _rates_of(story: Story, qs: Sequence[Question], rates: Rates) -> list[float]:
    """This target's right-answer rate for each of `qs` (`Rates.get` of the question's key)."""
    return [rates.get(qkey(q, story)) for q in qs]


def _counts_of(ps: Sequence[float]) -> list[float]:
    """The chance of each count of right answers (index k: k right) to questions right with chances `ps`,
    independently (Poisson-binomial)."""
    dist = [1.0] + [0.0] * len(ps)  # dist[k]: chance of k right answers so far
    for i, p in enumerate(ps):
        for k in range(i + 1, 0, -1):
            dist[k] = dist[k] * (1 - p) + dist[k - 1] * p
        dist[0] *= 1 - p
    return dist


def _need(n: int, bar: float | None) -> int:
    """Fewer right answers than this out of `n` put the accuracy below `bar` (None: below 1)."""
    return n if bar is None else math.ceil(bar * n - 1e-9)


def p_harder(ps: Sequence[float], bar: float | None) -> float:
    """The chance that this target's accuracy on questions right with chances `ps` (`_rates_of`) is below `bar`
    (None: below 1, i.e. adversarial at all).

    Each question is right with its key's rate (`Rates`), independently: the count of right answers is
    Poisson-binomial, and the story beats the bar when fewer than ceil(bar x n) are right (the pruning count).
    Why a chance and not the expected accuracy: against a target that answers at random, a story of 2 container
    questions is as hard *on average* as one of 10, but far likelier to be missed entirely.
    """
    return sum(_counts_of(ps)[:_need(len(ps), bar)]) if ps else 0.0


def _calls_of(ps: Sequence[float], right: int) -> float:
    """About how many of the questions (right with chances `ps`) pruning asks before `right` right answers (at
    their mean rate), at most all of them."""
    p = sum(ps) / len(ps)
    return float(min(len(ps), max(right, 1) / max(p, 1e-3)))


def _worth_going_on(story: Story, rest: Sequence[Question], rates: Rates, room: int) -> float:
    """The chance per expected call that a partly asked story still beats its bar: fewer than `room` of the
    questions `rest` right (`_counts_of`), over the calls pruning would still make (`_calls_of`)."""
    ps = _rates_of(story, rest, rates)
    return sum(_counts_of(ps)[:room]) / max(_calls_of(ps, room), 1.0)


def expected_calls_of(ps: Sequence[float], bar: float | None) -> float:
    """About how many of the questions (right with chances `ps`) pruning will ask: until ceil(bar x n) right
    answers, at most all of them."""
    n = len(ps)
    if not n or bar is None:
        return float(n)
    return _calls_of(ps, _need(n, bar))


def _qdict(q: Question) -> dict[str, Any]:
    return {
        "question": q.text,
        "expected_answer": q.answer,
        "answer_type": AnswerType(q.answer_type).value,
        "order": q.order,
        "kind": q.kind,
        "interesting": q.interesting,
        "false_belief": q.false_belief,
    }



def _hardness(x: NodeEval) -> tuple[float, int, int]:
    """Sort key, hardest first: the lowest g, then the most interesting questions, then the earliest."""
    return (x.g, -x.num_interesting, x.index)


def ranked_goals(trace: list[NodeEval]) -> list[NodeEval]:
    """Every goal of the trace, hardest first (trace entries are distinct story texts: g and h are cached by text)."""
    return sorted((x for x in trace if x.is_goal), key=_hardness)


