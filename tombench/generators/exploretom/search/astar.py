"""A* adversarial story search (ExploreToM, Sclar et al. 2024, arXiv:2412.12175, §2.3; semantics §7).

The search grows story structures action by action and asks a target model the stories' belief questions, looking
for a story that satisfies the setting (isDesired) and that the model gets wrong (g < 1). The cost g is the model's
accuracy, the heuristic h the share of random completions that end up desired, so the frontier is ordered by "hard
and close to a valid story".

    import asyncio, random
    from tombench.dsl import DEFAULT_CONTEXT, Setting
    from tombench.generators.exploretom.search.astar import SearchConfig, astar_search

    async def answer(prompts):            # the target model: one response per prompt, asked concurrently
        ...
    result = asyncio.run(astar_search(Setting.make("tomi", 2, 2), DEFAULT_CONTEXT, answer, SearchConfig(), random.Random(0)))
    result.to_dict()

Two modes:

* ``paper``: exactly the loop of semantics §7.4; returns the *first* goal popped, or None.
* ``improved``: spends the whole budget and returns the hardest desired story evaluated (lowest g, ties broken by
  more interesting questions, then by evaluation order), every distinct goal ranked in `SearchResult.goals`. The
  first ``1 - refine`` of the budget runs the paper's loop without stopping at goals (restarting from the empty story
  when the frontier runs dry); the rest *refines*: children of the hardest goals found so far, cut at a random
  point or with one action dropped, completed by a random rollout to a desired story (`_refine`). The default,
  ``refine=1``, is all refinement, seeded by over-generation: measured, it beats both over-generation and the A*
  frontier at equal model calls (docs/search.md). With ``refine=0`` the draws are identical to paper mode's up to
  the point where paper mode returns, so that story's g is an upper bound for the improved one.

This module is pure asyncio: the target model is any `Answerer` (an async callable from prompts to responses), so
the search is testable offline and knows nothing of Inspect. Concurrency and response caching are the answerer's job;
the search asks all questions of one node in one call, and the nodes it evaluates after one expansion in parallel.
"""

from __future__ import annotations

import asyncio
import functools
import heapq
import math
import random
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from tombench.dsl import (
    AnswerType,
    Conditions,
    Context,
    Prompt,
    Question,
    Setting,
    Story,
    build_prompt,
    check_answer,
    rollout,
    setting_context,
)
from tombench.generators.exploretom.search.diversity import (
    DEFAULT_MAX_SIMILARITY,
    select_distinct,
    shape_similarity,
    story_shape,
)

__all__ = [
    "Answerer",
    "GVariant",
    "WeightScheme",
    "SearchMode",
    "SearchConfig",
    "NodeEval",
    "SearchResult",
    "Evaluator",
    "astar_search",
    "setting_contexts",
    "SENTINEL_G",
    "RESTART_PATIENCE",
    "REFINE_PARENTS",
    "REFINE_PATIENCE",
]

#: the target model: answers a batch of prompts (concurrently, in its own way), one response per prompt, in order
Answerer = Callable[[list[Prompt]], Awaitable[list[str]]]

GVariant = Literal["acc", "acc-int", "acc2", "acc2-int"]
WeightScheme = Literal["weight-goal4", "weight-goal5", "random"]
SearchMode = Literal["paper", "improved"]

#: improved mode: consecutive fruitless restarts from the empty story before giving up (as §7.5's 10 searches)
RESTART_PATIENCE = 10

#: refinement: parents are drawn uniformly from this many hardest goals (few: the budget goes where it pays most)
REFINE_PARENTS = 3

#: refinement: share of children that are fresh random stories rather than edits of the hardest goals. Edits alone
#: get stuck around the first goals found (a local optimum: the hardest goals' neighbours are all as easy), fresh
#: stories alone are over-generation; half and half was best of 0, 0.25, 0.5 and 0.75 over 3 targets and 4 setting
#: samples (docs/search.md, "Improved mode")
REFINE_FRESH = 0.5

#: refinement: draws per child asked. Drawing a story costs no model call, so each round draws this many times the
#: children it asks and asks the most promising: the likeliest to beat the kept story they would replace, judged by
#: how often this target got each kind of question right so far (`_p_harder`). Against 8 (with the likeness
#: discount): kept stories at 0.191 against 0.201 on 7 settings against recency (4 run seeds), 0.126 against 0.134
#: on the random target's 4 open settings (12); 32 was better still (0.185, 0.112) but takes the CPU of a round
#: past a slow model's latency (docs/search.md)
REFINE_SCREEN = 16

#: refinement: draws between two hand-backs of the event loop (other settings' searches read their answers and send
#: their next questions meanwhile). 8 draws hold the loop for about a millisecond. The finer the searches
#: interleave, the more CPU they take: a 12-setting bench run took 110 s with no hand-back, 125 s with one every 8
#: draws and 133 s with one after every draw, at the same wall time against a 0.2 s model (1.23x vs 1.19-1.24x)
DRAWS_PER_YIELD = 8

#: refinement: consecutive draws that gave no fresh paying story (a repeat, not desired, or free) before it stops
REFINE_PATIENCE = 200

#: refinement: a child's questions stop early once going on is worth less than this times what the next child in
#: line would give per call (its chance of beating its bar over its expected calls; `_worth_going_on`). Against a
#: target that guesses, children of 9-12 yes/no questions that need at most 1-2 right answers to beat their bar
#: beat it 1.28-1.47x as often per call with this rule as when asked until they cannot (at 1.0 the rule is the
#: optimal stopping rule when every child is alike); 0 asks every child until it cannot beat its bar
REFINE_GIVE_UP = 1.0

#: g of a node whose question set is empty: "not evaluated", ranked after every real accuracy, no budget spent
SENTINEL_G = 2.0


@dataclass(frozen=True)
class SearchConfig:
    """Search hyper-parameters; the defaults are the paper's (semantics §7.3–7.5)."""

    #: actions added by one neighbour rollout
    k: int = 3
    #: weight of the heuristic h
    alpha: float = 0.1
    #: lookahead rollouts per evaluated node (P)
    lookahead: int = 50
    #: budget per search, in `budget_unit`s
    budget: int = 50
    #: "nodes": node evaluations (the paper's unit); "calls": prompts put to the model, for comparing methods at
    #: equal model-call cost (a node of a short story asks fewer questions than a full random story)
    budget_unit: Literal["nodes", "calls"] = "nodes"
    #: which questions g is the accuracy on
    g: GVariant = "acc"
    #: stories of <= 3 sentences get g = 1.0 without a model call (but spend a unit), as in the original
    short_story_shortcut: bool = True
    #: neighbour ordering weights
    weights: WeightScheme = "weight-goal4"
    #: hard cap on heap pops, so a search always ends
    max_pops: int = 5000
    #: how answers are judged (semantics §5.6)
    check: Literal["strict", "substring"] = "strict"
    mode: SearchMode = "paper"
    #: improved mode only: nodes expanded per round, their children evaluated together. 1 is the paper's loop; more
    #: keeps a slow model's connections busy (a round asks up to width x 2n nodes' questions at once) at the price
    #: of a less greedy frontier order; deterministic either way
    expand_width: int = 1
    #: improved mode only: share of the budget spent refining instead of expanding the A* frontier: cut one of the
    #: hardest goals found so far at a random point and complete the prefix with a random rollout to a desired story
    #: (see `_refine`). 0 gives the pure A* improved loop
    refine: float = 1.0
    #: improved mode only: how many of the hardest goals the caller keeps (a setting-scoped run keeps one per story
    #: slot); refinement prunes against the `keep`-th hardest
    keep: int = 1
    #: improved mode, "calls" budget only: refinement asks a child's questions in small steps, likeliest-correct
    #: first, and stops as soon as the child can no longer beat the `keep`-th hardest goal (`Evaluator.evaluate_pruned`)
    prune: bool = True
    #: improved mode only: the cap on shape similarity between two kept stories (`diversity.select_distinct`);
    #: refinement aims at the set the runner will keep, so it ranks goals under the same cap. 1.0 disables it
    max_similarity: float = DEFAULT_MAX_SIMILARITY
    #: improved mode only: refinement draws this many children per child it asks and asks the likeliest to beat
    #: the kept stories (`_p_harder`); 1 asks every draw (no screening)
    screen: int = REFINE_SCREEN

    def __post_init__(self) -> None:
        if self.k < 1:
            raise ValueError(f"k must be >= 1, got {self.k}")
        if self.budget < 0:
            raise ValueError(f"budget must be >= 0, got {self.budget}")
        if self.expand_width < 1:
            raise ValueError(f"expand_width must be >= 1, got {self.expand_width}")
        if self.lookahead < 1:
            raise ValueError(f"lookahead must be >= 1, got {self.lookahead}")
        if self.keep < 1:
            raise ValueError(f"keep must be >= 1, got {self.keep}")
        if self.screen < 1:
            raise ValueError(f"screen must be >= 1, got {self.screen}")
        if not 0.0 <= self.refine <= 1.0:
            raise ValueError(f"refine must be between 0 and 1, got {self.refine}")
        if not 0.0 <= self.max_similarity <= 1.0:
            raise ValueError(f"max_similarity must be between 0 and 1, got {self.max_similarity}")
        for name, value, allowed in (
            ("g", self.g, ("acc", "acc-int", "acc2", "acc2-int")),
            ("weights", self.weights, ("weight-goal4", "weight-goal5", "random")),
            ("check", self.check, ("strict", "substring")),
            ("mode", self.mode, ("paper", "improved")),
            ("budget_unit", self.budget_unit, ("nodes", "calls")),
        ):
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


@dataclass
class SearchResult:
    """What a search (or a baseline) found, and what it cost."""

    method: str
    setting: str
    story: Story | None
    node: NodeEval | None
    #: budget units spent (node evaluations, shortcut included)
    nodes_evaluated: int
    #: prompts answered by the target model
    model_calls: int
    pops: int = 0
    trace: list[NodeEval] = field(default_factory=list)
    #: every distinct goal evaluated, hardest first (improved mode; paper mode: the returned goal), so one search
    #: spending a whole setting's budget can fill several story slots
    goals: list[tuple[Story, NodeEval]] = field(default_factory=list)

    @property
    def g(self) -> float | None:
        return None if self.node is None else self.node.g

    @property
    def h(self) -> float | None:
        return None if self.node is None else self.node.h

    @property
    def f(self) -> float | None:
        return None if self.node is None else self.node.f

    @property
    def questions(self) -> list[dict[str, Any]]:
        return [] if self.node is None else self.node.questions

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable record (the story via `Story.to_dict`, so it replays with every label)."""
        return {
            "method": self.method,
            "setting": self.setting,
            "found": self.story is not None,
            "story": None if self.story is None else self.story.to_dict(),
            "text": None if self.story is None else self.story.text,
            "g": self.g,
            "h": self.h,
            "f": self.f,
            "questions": self.questions,
            "nodes_evaluated": self.nodes_evaluated,
            "model_calls": self.model_calls,
            "pops": self.pops,
            "trace": [n.to_dict() for n in self.trace],
            "goals": [n.index for _, n in self.goals],
        }


def _chosen_questions(story: Story, variant: GVariant) -> list[Question]:
    order = 2 if variant.startswith("acc2") else 1
    qs = story.questions(orders=(order,))
    if variant.endswith("-int"):
        qs = [q for q in qs if q.interesting]
    return qs


class Evaluator:
    """g and h for one search, cached by story text, with exact budget accounting.

    Shared by the search and the baselines so that both spend budget and call the model in exactly the same way.
    """

    def __init__(self, conditions: Conditions, answer: Answerer, config: SearchConfig) -> None:
        self.cond = conditions
        self.answer = answer
        self.config = config
        self.cache: dict[str, NodeEval] = {}
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
        for _ in range(self.config.lookahead):
            s = rollout(story, self.cond, rng, stop=self.cond.structural)
            hits += self.cond.is_desired(s)
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
            qs = self._plans[text] = _chosen_questions(story, self.config.g)
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
                qs = sorted(qs, key=lambda q: -rates.get(_qkey(q, s), 0.5))  # stable: ties keep the question order
            pending.append((s, qs, limit))
        return await _pipelined(pending, self, rng, rates if give_up > 0 else None, give_up)

    async def _score(self, story: Story, qs: list[Question], h: float, avglen: float,
                     threshold: float | None = None, rates: Rates | None = None, give_up: float = 0.0) -> NodeEval:
        text = story.text
        desired = self.cond.is_desired(story)
        index = len(self.trace)
        if not qs:
            node = NodeEval(index, text, SENTINEL_G, h, avglen, 0, desired)
        elif self.config.short_story_shortcut and len(story) <= 3:
            node = NodeEval(index, text, 1.0, h, avglen, 1, desired, [_qdict(q) for q in qs], shortcut=True)
        else:
            node = NodeEval(index, text, 0.0, h, avglen, 1, desired)
        # register before awaiting so trace order and budget do not depend on which answer arrives first
        self.trace.append(node)
        self.cache[text] = node
        if desired:
            self.desired[index] = story
        self.spent += node.spent
        if node.spent and not node.shortcut:
            n = len(qs)
            # right answers that put g at or above the threshold: a tie cannot lower the mean of the kept stories
            enough = n + 1 if threshold is None else math.ceil(threshold * n - 1e-9)
            records: list[dict[str, Any]] = []
            right = 0
            while len(records) < n and right < enough:
                need = enough - right
                step = need if need <= n - len(records) else n - len(records)
                batch = await self._ask(story, qs[len(records): len(records) + step])
                records += batch
                right += sum(x["correct"] for x in batch)
                if (rates is not None and threshold is not None and len(records) < n and right < enough
                        and _worth_going_on(story, qs[len(records):], rates, enough - right) < give_up):
                    break  # the calls pay more on the next child in line: g is a lower bound, pruned
            if threshold is not None:  # back to the question set's order (evaluate_pruned asked in another)
                pos = {q.text: i for i, q in enumerate(self.plan(story)[0])}
                records.sort(key=lambda x: pos[x["question"]])
            node.questions = records
            node.g = right / n
            node.pruned = len(records) < n
        return node

    async def _ask(self, story: Story, qs: list[Question]) -> list[dict[str, Any]]:
        """Put `qs` about `story` to the target at once; each question's record with the response and its verdict."""
        prompts = [build_prompt(story.text, q.text) for q in qs]
        self.model_calls += len(prompts)
        responses = await self.answer(prompts)
        if len(responses) != len(prompts):
            raise ValueError(f"answerer returned {len(responses)} responses for {len(prompts)} prompts")
        records = []
        for q, r in zip(qs, responses, strict=True):
            cands = _candidates(story, q)
            v = check_answer(r, q.answer, q.answer_type, cands, self.config.check, question=q.text, story=story.text)
            records.append({**_qdict(q), "mention": _mention(story.text, q.answer, cands), "response": r,
                            "correct": v.correct})
        return records


async def _pipelined(pending: Sequence[tuple[Story, list[Question], float | None]], ev: Evaluator,
                     rng: random.Random, rates: Rates | None = None, give_up: float = 0.0) -> list[NodeEval]:
    """Score (story, questions, threshold) in order: each lookahead (CPU, drawing from `rng` in order), then its
    story's questions go out at once (`Evaluator._score` registers the node before its first await, so the trace
    order is the input order whatever order the answers come back in)."""
    tasks = []
    for s, qs, limit in pending:
        h, avglen = ev.lookahead(s, rng)
        tasks.append(asyncio.ensure_future(ev._score(s, qs, h, avglen, limit, rates, give_up)))
        await asyncio.sleep(0)  # let it register and send its questions while the next lookahead runs
    return list(await asyncio.gather(*tasks))


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


def _qkey(q: Question | dict[str, Any], story: Story | None = None) -> QKey:
    """What predicts a target's answer being right: the question kind, the two flags, and where the expected answer
    stands among the candidates the story names (`_mention`; a recorded answer carries it)."""
    if isinstance(q, dict):
        return q["kind"], q["interesting"], q["false_belief"], q.get("mention")
    mention = None if story is None else _mention(story.text, q.answer, _candidates(story, q))
    return q.kind, bool(q.interesting), bool(q.false_belief), mention


class Rates:
    """This target's right-answer rate per question key, from every question asked so far (Laplace-smoothed:
    (right + 1) / (asked + 2)). An unseen key backs off to its kind and answer position (a question the flags
    put in a new group is still, say, a "yes" question), then to 0.5."""

    def __init__(self, trace: Sequence[NodeEval]) -> None:
        self.fine: dict[QKey, list[int]] = {}
        self.coarse: dict[tuple[str, str | None], list[int]] = {}
        for node in trace:
            if node.shortcut:
                continue
            for x in node.questions:
                k = _qkey(x)
                for table, key in ((self.fine, k), (self.coarse, (k[0], k[3]))):
                    c = table.setdefault(key, [0, 0])  # type: ignore[attr-defined]
                    c[0] += x["correct"]
                    c[1] += 1

    def get(self, key: QKey, default: float = 0.5) -> float:
        c = self.fine.get(key) or self.coarse.get((key[0], key[3]))
        return default if c is None else (c[0] + 1) / (c[1] + 2)


def _rates_of(story: Story, qs: Sequence[Question], rates: Rates) -> list[float]:
    """This target's right-answer rate for each of `qs` (`Rates.get` of the question's key)."""
    return [rates.get(_qkey(q, story)) for q in qs]


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


def _p_harder(ps: Sequence[float], bar: float | None) -> float:
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


def _expected_calls_of(ps: Sequence[float], bar: float | None) -> float:
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


def _branching(g: float) -> int:
    """n: how many children to evaluate, more below a hard parent (root g = 0 gives 5, the sentinel g = 2 gives 1)."""
    return 5 if g <= 0.5 else 3 if g <= 0.75 else 1


def _features(story: Story, cond: Conditions) -> tuple[int, int, int, int]:
    """(diff, imp, people, rooms) counts used by the neighbour weights."""
    imp, diff, _, _ = cond.counts(story)
    return diff, imp, len(story.state.people), len(story.state.rooms_involved)


def _weight(parent: tuple[int, int, int, int], child: tuple[int, int, int, int], cond: Conditions, scheme: WeightScheme) -> float:
    if scheme == "random":
        return 1.0
    st = cond.setting
    diff, imp, people, rooms = parent
    w = (
        cond.aset.diff_weight * (child[0] - diff) * (diff == 0)
        + (child[1] - imp) * (imp < st.moves)
        + (child[2] - people) * (people < st.people)
        + (child[3] - rooms) * (rooms < st.rooms)
    )
    return float(w * w if scheme == "weight-goal5" else w)


def _weighted_order(items: list[Story], weights: list[float], rng: random.Random, limit: int) -> list[Story]:
    """Up to `limit` items drawn by weighted sampling without replacement; weight-0 items are never drawn."""
    pool = [(x, w) for x, w in zip(items, weights, strict=True) if w > 0]
    out: list[Story] = []
    while pool and len(out) < limit:
        total = sum(w for _, w in pool)
        r = rng.random() * total
        acc = 0.0
        j = len(pool) - 1
        for i, (_, w) in enumerate(pool):
            acc += w
            if r < acc:
                j = i
                break
        out.append(pool.pop(j)[0])
    return out


def _neighbours(story: Story, cond: Conditions, config: SearchConfig, n: int, rng: random.Random) -> list[Story]:
    """50n rollouts of at most k actions (stopping at S); keep new, not never-desired, distinct children, ordered."""
    base_steps = len(story.steps)
    seen: set[str] = set()
    children: list[Story] = []
    for _ in range(50 * n):
        c = rollout(story, cond, rng, stop=cond.structural, max_actions=config.k)
        if len(c.steps) == base_steps or cond.never_desired(c):
            continue
        t = c.text
        if t in seen:
            continue
        seen.add(t)
        children.append(c)
    pf = _features(story, cond)
    weights = [_weight(pf, _features(c, cond), cond, config.weights) for c in children]
    return _weighted_order(children, weights, rng, 2 * n)


def _hardness(x: NodeEval) -> tuple[float, int, int]:
    """Sort key, hardest first: the lowest g, then the most interesting questions, then the earliest."""
    return (x.g, -x.num_interesting, x.index)


def _ranked_goals(trace: list[NodeEval]) -> list[NodeEval]:
    """Every goal of the trace, hardest first (trace entries are distinct story texts: g and h are cached by text)."""
    return sorted((x for x in trace if x.is_goal), key=_hardness)


def _drop_one(parent: Story, cond: Conditions, rng: random.Random) -> Story:
    """`parent` without one random action, replayed: later actions that became invalid are skipped (a rollout then
    completes it). Unlike a cut, this keeps the story's ending, where a recency-minded reader looks."""
    skip = rng.randrange(len(parent.steps))
    s = Story(parent.context)
    for i, a in enumerate(parent.actions):
        if i != skip:
            s.try_apply(a)
            if cond.never_desired(s):
                break
    return s


#: added to a pruning threshold to keep a child that *ties* the kept story it would replace (g = bar exactly):
#: worth asking when it is less alike the other kept stories (the selection takes the most different of equals)
_TIE = 1e-6

#: refinement: how much a child's similarity to the other kept stories discounts its promise (`_refine`): between
#: two children predicted equally hard, ask the more different one first. A discount (promise x (1 - weight x
#: similarity)), not an added penalty: the chance per call is a few thousandths late in a search against a target
#: that guesses, and an added 0.25 x similarity ranked the children by likeness alone there
REFINE_DIVERSITY = 0.25


def _promise(per_call: float, close: float, cap: float) -> float:
    """A child's rank key in refinement (lower is asked first): its chance per call of beating its bar, discounted
    by its likeness to the other contexts' kept stories (`REFINE_DIVERSITY`); children above the similarity cap
    `cap` go after every other, since the selection could keep them only by dropping a kept story."""
    return -per_call * (1.0 - REFINE_DIVERSITY * close) + (2.0 if close > cap else 0.0)


class _Kept:
    """The goals the caller will keep so far (`select_distinct` over the ranked goals), and what follows from them.

    Refinement aims at the kept set, not at the hardest goals: with distinct contexts and a similarity cap, the
    hardest goals are often variants of one story of which only one can be kept.
    """

    def __init__(self, ev: Evaluator, config: SearchConfig, contexts: Sequence[str],
                 shapes: dict[int, frozenset[str]]) -> None:
        def shape_of(x: NodeEval) -> frozenset[str]:
            if x.index not in shapes:
                shapes[x.index] = story_shape(ev.desired[x.index])
            return shapes[x.index]

        self.ranked = _ranked_goals(ev.trace)
        self.ctx_of = {x.index: ev.desired[x.index].context.id for x in self.ranked}
        # no swaps: they change which equally hard stories are kept, not the accuracies the search aims at, and
        # measured, they moved the search's path more than they helped (families grid against recency: 0.016 ->
        # 0.028); the caller's final selection swaps
        self.goals = select_distinct(self.ranked, config.keep, context_of=lambda x: self.ctx_of[x.index],
                                     shape_of=shape_of, max_similarity=config.max_similarity, g_of=lambda x: x.g,
                                     swap=False)
        self.full = len(self.goals) >= config.keep
        kept_ctx = [self.ctx_of[x.index] for x in self.goals]
        #: each kept story has a context of its own (so a child can only replace the one of its own context)
        self.distinct = len(set(kept_ctx)) == len(kept_ctx)
        self.by_ctx = dict(zip(kept_ctx, self.goals, strict=True)) if self.distinct else {}
        self.worst = max((x.g for x in self.goals), default=None)
        # contexts whose slot can still get harder: no kept story yet, or one the target did not get all wrong
        self.open = [c for c in contexts if not self.distinct or c not in self.by_ctx or self.by_ctx[c].g > 0]
        self._shapes = [(self.ctx_of[x.index], shape_of(x)) for x in self.goals]
        # how alike each kept story is to the others: a tie that is less alike may replace it
        self._close = [self._closeness(c, sh, skip=i) for i, (c, sh) in enumerate(self._shapes)]

    def _closeness(self, ctx: str, sh: frozenset[str], skip: int = -1) -> float:
        return max((shape_similarity(sh, k) for i, (other, k) in enumerate(self._shapes)
                    if i != skip and (other != ctx or not self.distinct)), default=0.0)

    def closeness(self, story: Story) -> float:
        """The largest shape similarity of `story` to a kept story it would not replace (another context's, or any
        when contexts repeat). Above the cap, it could only be kept by pushing that one out."""
        return self._closeness(story.context.id, story_shape(story))

    def done(self) -> bool:
        """Every kept story is at accuracy 0: no child can make the kept set harder."""
        return self.full and self.worst is not None and self.worst <= 0.0

    def threshold(self, ctx: str, close: float = 1.0) -> float | None:
        """A child of context `ctx` (`close`: its `closeness`) is only worth its calls below this g (None: any goal
        is kept): below the g of the kept story it would replace, or equal to it when the child is less alike the
        other kept stories than that one (a tie that makes the set more diverse), and at 0 whenever that kept story
        is at 0 (the selection then picks the most different stories at 0 jointly).
        """
        if not self.full:
            return None
        if self.distinct and ctx in self.by_ctx:
            slot = next(i for i, (c, _) in enumerate(self._shapes) if c == ctx)
        else:  # the child can only push out the easiest kept story
            slot = max(range(len(self.goals)), key=lambda i: (self.goals[i].g, i))
        bar = self.goals[slot].g
        if bar <= 0.0:
            # the kept set cannot get harder here; another story at 0 may still make it more diverse (the
            # selection takes the most different of equally hard stories)
            return _TIE
        return bar + _TIE if close < self._close[slot] - 1e-9 else bar

    def parents(self, ev: Evaluator, rng: random.Random) -> list[Story]:
        """The parents for one edit: the hardest goals of the context of a kept story that can still improve."""
        if not self.goals:
            return []
        improvable = [x for x in self.goals if x.g > 0] or self.goals
        ctx = self.ctx_of[rng.choice(improvable).index]
        same = [x for x in self.ranked if self.ctx_of[x.index] == ctx] if self.distinct else self.ranked
        return [ev.desired[x.index] for x in same[:REFINE_PARENTS]]


async def _refine(roots: Sequence[Story], cond: Conditions, ev: Evaluator, config: SearchConfig,
                  rng: random.Random, width: int) -> None:
    """Spend the rest of the budget on fresh stories and edits of the kept ones (improved mode).

    Why: only desired stories can be returned, yet A* pays for the questions of every partial story on the way, and
    a prefix's accuracy predicts its completions' only loosely. Here every call goes to a complete desired story, and
    what made a goal hard (who missed which move, which container was mentioned first or last) lives in its actions.
    An edit takes one of the REFINE_PARENTS hardest goals in the context of a kept story that can still get harder
    (`_Kept.parents`) and either keeps a random-length prefix and redraws the rest, or drops one action and keeps the
    rest (`_drop_one`); a random rollout completes it to a desired story. A share REFINE_FRESH of the children are
    fresh random stories instead (edits alone get stuck around the first goals), drawn in turn from the contexts
    (`roots`) whose slot can still improve; with no goal yet every child is one: the phase *is* over-generation
    then. Rounds of `4 * width` children are drawn before any is asked (deterministic for a seed whatever the order
    of responses) and asked together; with `prune` (calls budget), a child's questions stop once it cannot beat the
    kept story it would replace (`_Kept.threshold`), or once going on is worth less per call than the best draw
    left unasked (`REFINE_GIVE_UP`). Once every kept story is at accuracy 0 it draws fresh stories only and looks
    for other stories at 0 less alike the kept ones (`_Kept.threshold`), until the budget or its patience ends.
    """
    misses = 0
    fresh_drawn = 0
    attempts = 0
    prune = config.prune and config.budget_unit == "calls"
    root_of = {r.context.id: r for r in roots}
    shapes: dict[int, frozenset[str]] = {}
    while ev.used < config.budget and misses < REFINE_PATIENCE:
        kept = _Kept(ev, config, list(root_of), shapes)
        # once the kept stories are all at accuracy 0 no child makes them harder; the rest of the budget looks for
        # other stories at 0 that are less alike (the selection takes the most different of equally hard ones)
        done = kept.done()
        open_roots = [root_of[c] for c in kept.open] or list(roots)
        want = 4 * width
        pool: list[tuple[Story, int, float, float | None, float]] = []  # (child, cost, -promise, bar, value/call)
        texts: set[str] = set()
        rates = Rates(ev.trace)
        while len(pool) < config.screen * want and misses < REFINE_PATIENCE:
            # a round's draws take a while: let the event loop hand other searches' answers back and send their
            # next questions every few draws (nothing of this search changes meanwhile: its questions are in)
            attempts += 1
            if attempts % DRAWS_PER_YIELD == 0:
                await asyncio.sleep(0)
            # once every kept story is at 0 only diversity can improve, and edits are near copies: fresh stories only
            parents = [] if done else kept.parents(ev, rng)
            if not parents or (REFINE_FRESH and rng.random() < REFINE_FRESH):
                child = Story(open_roots[fresh_drawn % len(open_roots)].context)
                fresh_drawn += 1
            elif rng.random() < 0.5:
                child = _drop_one(rng.choice(parents), cond, rng)
            else:
                parent = rng.choice(parents)
                child = Story(parent.context, parent.actions[: rng.randrange(len(parent.steps))])
            child = rollout(child, cond, rng, copy=False, skip_doomed=True)  # only desired children are kept
            # most draws are not desired: test that before joining the story's text
            if not cond.is_desired(child) or (text := child.text) in ev.cache or text in texts:
                misses += 1
                continue
            close = kept.closeness(child)
            qs, bar = ev.plan(child)[0], kept.threshold(child.context.id, close)
            if bar is not None and bar <= 0.0:
                misses += 1  # it would replace a story at accuracy 0 without being more different: useless
                continue
            cost = ev.cost(child)
            misses = misses + 1 if cost == 0 else 0  # free stories (no questions, shortcut) cannot end the phase
            ps = _rates_of(child, qs, rates)  # each question's rate, once for both estimates
            per_call = _p_harder(ps, bar) / max(_expected_calls_of(ps, bar), 1.0)
            promise = _promise(per_call, close, config.max_similarity)
            pool.append((child, cost, promise, bar, per_call))
            texts.add(text)
        # ask the most promising draws first (predicted from this target's answers so far; draw order on ties)
        batch: list[Story] = []
        limits: list[float | None] = []
        planned = ev.used
        order = sorted(range(len(pool)), key=lambda i: (pool[i][2], i))
        for i in order:
            if len(batch) >= want or planned >= config.budget:
                break
            child, cost, _, bar, _ = pool[i]
            batch.append(child)
            limits.append(bar if prune else None)
            planned += cost
        if not batch:
            break
        # a child's questions stop early when going on pays less per call than the next child in line would
        # (the best one drawn and not asked): the budget goes where a kept story is likeliest to get harder
        give_up = REFINE_GIVE_UP * pool[order[len(batch)]][4] if len(order) > len(batch) else 0.0
        before = ev.used
        await ev.evaluate_pruned(batch, rng, limits, give_up, rates)  # nothing was asked since `rates`
        if ev.used == before:
            misses += len(batch)  # every child pruned before its first question: count them as fruitless draws


def setting_contexts(context: Context | Sequence[Context], setting: Setting, rng: random.Random) -> list[Context]:
    """One context or several, each restricted to the setting's names (`setting_context`), in order."""
    many = [context] if isinstance(context, Context) else list(context)
    if not many:
        raise ValueError("no context to build stories from")
    return [setting_context(c, setting, rng) for c in many]


async def astar_search(
    setting: Setting,
    context: Context | Sequence[Context],
    answer: Answerer,
    config: SearchConfig | None = None,
    rng: random.Random | None = None,
) -> SearchResult:
    """Search one story for `setting` that the target model `answer` gets wrong (semantics §7.4).

    Every random draw comes from `rng` (the setting's names too, when `context` is the built-in default), so the
    same seed and the same answers give the same result. `context` is restricted to the setting's names first.
    Several contexts: the A* frontier grows in the first; improved mode's refinement draws its fresh stories from
    all of them in turn (so the kept stories can each have a context of their own).
    """
    config = config or SearchConfig()
    rng = rng if rng is not None else random.Random(0)
    cond = Conditions.of(setting)
    ctxs = setting_contexts(context, setting, rng)
    ctx = ctxs[0]
    ev = Evaluator(cond, answer, config)
    stories: dict[int, Story] = {}

    root = Story(ctx)
    heap: list[tuple[float, float, float, int, NodeEval | None]] = [(0.0, 0.0, 0.0, 0, None)]
    stories[0] = root
    counter = 1
    pops = 0
    found: NodeEval | None = None
    restarts_without_spend = 0
    spent_at_restart = 0
    width = config.expand_width if config.mode == "improved" else 1
    # improved mode leaves `refine` of the budget to the refinement phase
    budget = config.budget - (round(config.budget * config.refine) if config.mode == "improved" else 0)
    while pops < config.max_pops:
        if config.mode == "improved" and ev.used >= budget:
            break  # nothing left to learn: every evaluated node is already in the trace
        if not heap:
            # improved mode only: the frontier ran dry with budget left (rollouts stop at S, so small settings exhaust
            # it after a few levels); start again from the empty story, as §7.5 starts a new search, and give up
            # after RESTART_PATIENCE restarts in a row that spent nothing
            if config.mode != "improved":
                break
            restarts_without_spend = 0 if ev.spent > spent_at_restart else restarts_without_spend + 1
            if restarts_without_spend >= RESTART_PATIENCE:
                break
            spent_at_restart = ev.spent
            stories[counter] = Story(ctx)
            heap.append((0.0, 0.0, 0.0, counter, None))
            counter += 1
        # one round: pop until `width` expandable nodes (1 in paper mode: exactly §7.4), plan their children with a
        # shared budget, then evaluate every fresh child of the round at once; which children are evaluated depends
        # only on the draws and their question sets, never on responses, so the result is the same for a seed
        rounds: list[list[tuple[Story, NodeEval | None]]] = []
        planned_spend = ev.used
        planned_texts: set[str] = set()
        while heap and len(rounds) < width and pops < config.max_pops:
            if rounds and planned_spend >= budget:
                break  # the round already plans the rest of the budget
            _, g, _, key, node = heapq.heappop(heap)
            pops += 1
            s = stories.pop(key)
            if node is not None and node.is_goal and config.mode == "paper":
                found = node
                break
            if cond.structural(s) or cond.never_desired(s):
                continue
            if planned_spend >= budget:
                continue  # drain: a goal already pushed may still be returned
            n = _branching(g)
            # (child, its cached evaluation or None); a cache hit is pushed again with its cached g and h, spends
            # nothing, and counts as one of the n evaluations (semantics §7.3: g/h are cached per story text)
            batch: list[tuple[Story, NodeEval | None]] = []
            real = 0
            for c in _neighbours(s, cond, config, n, rng):
                if c.text in planned_texts:
                    continue  # a sibling of another parent in this round already evaluates this text
                hit = ev.cache.get(c.text)
                batch.append((c, hit))
                if hit is not None:
                    real += hit.g != SENTINEL_G
                else:
                    planned_texts.add(c.text)
                    if ev.plan(c)[1]:
                        real += 1
                        planned_spend += ev.cost(c)
                if real >= n or planned_spend >= budget:
                    break
            rounds.append(batch)
        if found is not None:
            break
        fresh = iter(await ev.evaluate_many([c for b in rounds for c, hit in b if hit is None], rng))
        for batch in rounds:
            for c, hit in batch:
                x = hit if hit is not None else next(fresh)
                stories[counter] = c
                heapq.heappush(heap, (x.f, x.g, x.avglen, counter, x))
                counter += 1
    goals = [found] if found is not None else []
    if config.mode == "improved":
        await _refine([root] + [Story(c) for c in ctxs[1:]], cond, ev, config, rng, width)
        goals = _ranked_goals(ev.trace)
        found = goals[0] if goals else None
    return SearchResult(
        method=f"astar-{config.mode}",
        setting=setting.id,
        story=None if found is None else ev.desired[found.index],
        node=found,
        nodes_evaluated=ev.spent,
        model_calls=ev.model_calls,
        pops=pops,
        trace=ev.trace,
        goals=[(ev.desired[x.index], x) for x in goals],
    )
