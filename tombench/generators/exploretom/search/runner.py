"""Run searches over settings with per-setting budgets, writing results as they come, resumable (semantics §7.5).

For each setting, searches run one after another, search i with min(budget per story, remaining) units and its own
seed `derive_seed(seed, story_type, p, m, i)`, until the setting's budget is spent or 10 consecutive searches spent
nothing. Every adversarial story a search finds (the model got at least one question wrong) is a candidate; when the
setting is done, its `stories_per_setting` hardest candidates, distinct (`diversity.select_distinct`: one per context
first, no two shapes more alike than `max_similarity`), are its stories. `--stories-per-setting N` means N: never
more, and fewer only when fewer distinct adversarial stories were found.

Contexts: one seeded permutation of the whole bank (or file) per run; setting j's N story slots take its entries
j*N .. j*N+N-1 (wrapping), so a run of k stories uses min(k, bank) contexts and a setting's slots have distinct
contexts (`slot_contexts`). A one-story search takes its slot's context (search i: slot i mod N).

Setting scope (`RunConfig.scope`; the default for improved A*, an option for over-generation): one search gets the
*remaining setting budget* and all N slot contexts, and offers its N hardest distinct goals: one long search keeps
refining the hard region that several short searches would each have to find again (and a pooled over-generation
keeps its best N of one budget, the fair comparison). A search that gives up early (its frontier ran dry) leaves the
rest to the next search; a setting whose N kept stories are all at accuracy 0 stops (nothing can be harder).

Output directory:
* `attempts.jsonl`: one line per finished search, found or not, with the candidate stories it offers (what
  resuming reads);
* `stories.jsonl`: each setting's kept stories, written when the setting is done (setting, story with context, every
  question with answer and flags, the model's answers to the searched questions, the search summary);
* `run.json`: the run's configuration; a different configuration in the same directory is refused.

Kill the run at any point and start it again with the same directory: finished searches are skipped (they are
deterministic, so nothing is lost), a torn last line is dropped, and no story is written twice.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from tombench.dsl import Context, Setting, Story, derive_seed
from tombench.generators.exploretom.identity import story_digest
from tombench.generators.exploretom.search.astar import AStar
from tombench.generators.exploretom.search.diversity import select_distinct, story_shape
from tombench.generators.exploretom.search.evaluator import Answerer, NodeEval
from tombench.generators.exploretom.search.method import SearchMethod, SearchResult

__all__ = ["TRACE", "RunConfig", "SettingProgress", "run_searches", "search_setting", "setting_job", "slot_contexts",
           "select_kept", "prepare_out_dir", "read_jsonl", "RunConfigMismatch"]
#: the key of an attempt record that found nothing holding its search's trace (a found story's record has it): for
#: the live task's search samples; attempts.jsonl leaves it out (resuming never reads it)
TRACE = "trace"
#: consecutive searches that spent nothing before a setting is abandoned (§7.5)
PATIENCE = 10

#: one-story searches of one setting run up to this many at once. Search i's budget is min(budget per story, what
#: is left), so search i+1 can start before i ends whenever the setting budget minus the worst case of every search
#: still running (its budget plus OVERSHOOT) leaves a full per-story budget: it then gets exactly the budget the
#: sequential loop would give it, and results are consumed in order, so the output is the sequential one. Why: one
#: paper A* search expands one node per round trip, and a setting's searches one after another are a long chain of
#: round trips against a slow model (docs/design-notes/search.md, "Wall time")
SPECULATE = 8

#: the most a search can spend beyond its budget: its last node's questions (at most 16 first-order questions in
#: random stories of the whole grid). A larger overshoot only costs a re-run of the search started early: the
#: output stays the sequential one
OVERSHOOT = 32


class RunConfigMismatch(ValueError):
    """The output directory holds a run made with a different configuration."""


@dataclass(frozen=True)
class RunConfig:
    stories_per_setting: int = 10
    budget_per_story: int = 50
    #: default: stories_per_setting x budget_per_story (the paper's 10 x 50 = 500)
    budget_per_setting: int | None = None
    seed: int = 0
    #: the search method with its config (`registry.build_method`)
    search: SearchMethod = field(default_factory=AStar)
    model: str = ""
    contexts_id: str = ""
    #: "setting" = one search spends the remaining setting budget, over all the setting's slot contexts, and offers
    #: its hardest distinct goals; "story" = one search per story slot with `budget_per_story` (the paper's split);
    #: "auto" = the method's default scope (`SearchMethod.scopes`)
    scope: Literal["auto", "setting", "story"] = "auto"
    #: setting scope: nodes expanded per round by a method that has rounds (improved A*), so one search per setting
    #: still keeps a slow model's connections busy
    expand_width: int = 4

    def __post_init__(self) -> None:
        if self.scope not in ("auto", "setting", "story"):
            raise ValueError(f"Invalid scope {self.scope!r}. Must be one of: ['auto', 'setting', 'story']")
        if self.scope != "auto" and self.scope not in self.search.scopes():
            raise ValueError(f"scope={self.scope!r} needs a method that offers it: {self.search.name} with these "
                             f"options searches with scope {' or '.join(repr(x) for x in self.search.scopes())}")
        if self.stories_per_setting < 1:
            raise ValueError(f"stories_per_setting must be >= 1, got {self.stories_per_setting}")

    @property
    def method(self) -> str:
        """The search method's name (run.json's "method")."""
        return self.search.name

    @property
    def setting_scoped(self) -> bool:
        """Whether searches get the whole remaining setting budget and offer several stories."""
        return self.scope == "setting" or (self.scope == "auto" and self.search.scopes()[0] == "setting")

    @property
    def setting_budget(self) -> int:
        return self.budget_per_setting if self.budget_per_setting is not None else (
            self.stories_per_setting * self.budget_per_story
        )

    def to_dict(self) -> dict[str, Any]:
        """run.json: what makes this run what it is (a knob the method does not read is left out)."""
        d = {"stories_per_setting": self.stories_per_setting, "budget_per_story": self.budget_per_story,
             "budget_per_setting": self.budget_per_setting, "seed": self.seed, "method": self.method,
             "search": self.search.record(self.setting_scoped), "model": self.model, "contexts_id": self.contexts_id,
             "scope": "setting" if self.setting_scoped else "story"}
        if self.setting_scoped and "expand_width" in _knobs(self.search):
            d["expand_width"] = self.expand_width
        return d


def _knobs(method: SearchMethod) -> set[str]:
    """The names of a method's config fields."""
    return {f.name for f in fields(method)}  # type: ignore[arg-type]


@dataclass
class SettingProgress:
    """Live counters of one setting, for progress display and the final summary."""

    setting: Setting
    #: stories asked for (stories_per_setting)
    wanted: int = 1
    spent: int = 0
    model_calls: int = 0
    searches: int = 0
    #: accuracy of each story the setting keeps so far (adversarial only: every one is < 1)
    found: list[float] = field(default_factory=list)
    #: adversarial stories found, kept or not
    candidates: int = 0
    #: calls of searches started early whose result the sequential loop would not have (`SPECULATE`)
    wasted_calls: int = 0
    done: bool = False

    @property
    def best(self) -> float | None:
        return min(self.found) if self.found else None

    @property
    def filled(self) -> bool:
        """Every requested story was found (the paper's fill: N stories with non-perfect accuracy)."""
        return len(self.found) >= self.wanted


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Read a JSONL file written by this module, dropping (and truncating away) a torn last line."""
    if not path.exists():
        return []
    data = path.read_bytes()
    records = []
    good = 0
    for line in data.splitlines(keepends=True):
        if not line.endswith(b"\n"):
            break
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            break
        good += len(line)
    if good != len(data):
        with open(path, "r+b") as f:
            f.truncate(good)
    return records


class _Writer:
    def __init__(self, path: Path) -> None:
        self.path = path

    def write(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False) + "\n"
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())


def _record_digest(rec: dict[str, Any]) -> str:
    """A story line's digest; lines written before the field existed get it computed from their story."""
    if isinstance(rec.get("digest"), str):
        return rec["digest"]
    return story_digest(Story.from_dict(rec["story"]), rec["story_type"])


def _story_id(setting_id: str, attempt: int, rank: int) -> str:
    return f"{setting_id}|{attempt}" if rank == 0 else f"{setting_id}|{attempt}-{rank}"


def slot_contexts(contexts: Sequence[Context], seed: int, index: int, n: int) -> list[Context]:
    """The contexts of setting number `index`'s `n` story slots: consecutive entries of one seeded permutation.

    The permutation covers the whole bank (or file) and is the same for every setting of a run, and setting j
    takes its entries j*n .. j*n+n-1 (wrapping): a run of k stories uses min(k, len(contexts)) contexts, and one
    setting's slots never share a context while the bank has enough.
    """
    if not contexts:
        raise ValueError("no contexts to build stories from")
    order = list(range(len(contexts)))
    random.Random(derive_seed(seed, "contexts", len(contexts))).shuffle(order)
    return [contexts[order[(index * n + t) % len(order)]] for t in range(min(n, len(contexts)))]


def _picks(res: SearchResult, run: RunConfig) -> list[tuple[Story, NodeEval]]:
    """The adversarial stories an attempt offers: its N hardest distinct goals in setting scope, else its hardest."""
    if run.setting_scoped:
        return select_distinct(res.goals, run.stories_per_setting, context_of=lambda x: x[0].context.id,
                               shape_of=lambda x: story_shape(x[0]), max_similarity=run.search.max_similarity,
                               g_of=lambda x: x[1].g)
    return res.goals[:1]


def select_kept(candidates: Sequence[dict[str, Any]], run: RunConfig,
                shapes: dict[str, frozenset[str]] | None = None) -> list[dict[str, Any]]:
    """A setting's kept stories from its candidate records: the N hardest, distinct (`select_distinct`).

    Hardest: lowest g, then more interesting questions, then the earlier attempt and rank; a story offered twice
    (two searches found the same story: same content digest) counts once. `shapes`: a cache of shapes by record id,
    kept by a caller that selects again as candidates come in.
    """
    def key(r: dict[str, Any]) -> tuple:
        return r["g"], -sum(1 for q in r["answers"] if q.get("interesting")), r["attempt"], r.get("rank", 0)

    unique: dict[str, dict[str, Any]] = {}
    for r in sorted(candidates, key=key):
        unique.setdefault(_record_digest(r), r)
    shapes = {} if shapes is None else shapes

    def shape_of(r: dict[str, Any]) -> frozenset[str]:
        if r["id"] not in shapes:
            shapes[r["id"]] = story_shape(Story.from_dict(r["story"]))
        return shapes[r["id"]]

    return select_distinct(unique.values(), run.stories_per_setting, context_of=lambda r: r["context_id"],
                           shape_of=shape_of, max_similarity=run.search.max_similarity, g_of=lambda r: r["g"])


def _story_record(res: SearchResult, story: Story, node: NodeEval, rank: int, of: int, setting: Setting,
                  attempt: int, seed: int, context: Context, run: RunConfig) -> dict:
    qs = [q.to_dict() for q in story.questions(first_order_room_questions=False)]
    return {
        "id": _story_id(setting.id, attempt, rank),
        # the story's content identity (structure, context, story type): what infill and export join on
        "digest": story_digest(story, setting.story_type),
        "setting_id": setting.id,
        "story_type": setting.story_type,
        "action_set": setting.story_type.removesuffix("+asymmetric"),
        "asymmetric": setting.asymmetric,
        "people": setting.people,
        "moves": setting.moves,
        "rooms": setting.rooms,
        "attempt": attempt,
        "seed": seed,
        "context_id": context.id,
        "method": res.method,
        "model": run.model,
        "story": story.to_dict(),
        "text": story.text,
        "questions": qs,
        "answers": node.questions,
        "g": node.g,
        "h": node.h,
        "f": node.f,
        # this story's place among the attempt's stories (hardest first), and how many the attempt wrote
        "rank": rank,
        "of": of,
        "search": {
            "nodes_evaluated": res.nodes_evaluated,
            "model_calls": res.model_calls,
            "pops": res.pops,
            # the trace once per attempt, on its first story
            # (a pruned node's g is a lower bound: refinement stopped asking once it could not be kept)
            "trace": [] if rank else _trace(res),
        },
    }


def _trace(res: SearchResult) -> list[dict[str, Any]]:
    """The nodes a search evaluated, in order, as records keep them."""
    return [{"g": n.g, "h": n.h, "f": n.f, "spent": n.spent, "text": n.text, **({"pruned": True} if n.pruned else {})}
            for n in res.trace]


async def _attempt(setting: Setting, i: int, contexts: Sequence[Context], answer: Answerer, run: RunConfig,
                   budget: int) -> dict[str, Any]:
    """Run search number `i` of a setting with `budget` units; its attempt record with the stories it offers."""
    seed = derive_seed(run.seed, setting.story_type, setting.people, setting.moves, i)
    if run.setting_scoped:
        k = i % len(contexts)
        ctxs = list(contexts[k:]) + list(contexts[:k])  # a later search starts its frontier in another context
        method = run.search.for_setting(run.stories_per_setting, run.expand_width)
    else:
        ctxs, method = [contexts[i % len(contexts)]], run.search
    res = await method.search(setting, ctxs, answer, budget, random.Random(seed))
    picks = _picks(res, run)
    stories = [_story_record(res, story, node, rank, len(picks), setting, i, seed, story.context, run)
               for rank, (story, node) in enumerate(picks)]
    return {"setting_id": setting.id, "attempt": i, "found": bool(picks), "g": res.g,
            "spent": res.nodes_evaluated, "model_calls": res.model_calls, "gs": [n.g for _, n in picks],
            "stories": stories, **({} if picks else {TRACE: _trace(res)})}


def _budget_blind_below(run: RunConfig) -> bool:
    """Whether a one-story search's result is the same for any budget above what it spent
    (`SearchMethod.budget_blind`)."""
    return run.search.budget_blind() and not run.setting_scoped


def _worth_starting(run: RunConfig, used: int, i: int, k: int, done: dict[int, dict[str, Any]], idle: int,
                    spends: Sequence[int], cost: Callable[[dict[str, Any]], int]) -> bool:
    """Whether to start search k while searches i..k-1 run (`SPECULATE`).

    The sequential loop must surely run search k (fewer than PATIENCE idle searches before it), and either with a
    full per-story budget whatever the searches before it spend (their budget plus OVERSHOOT each), or, for paper A*
    (`_budget_blind_below`), probably at all: the setting budget is likely not spent by then, judging by what this
    setting's searches spent so far. A wrong guess costs calls (counted as wasted), never a different result.
    """
    if idle + (k - i) >= PATIENCE:
        return False
    budget, per_story = run.setting_budget, run.budget_per_story
    worst = sum(cost(done[j]) if j in done else per_story + OVERSHOOT for j in range(i, k))
    if used + worst + per_story <= budget:
        return True
    if not _budget_blind_below(run) or not spends:
        return False
    typical = 2 * sum(spends) / len(spends) + 1
    return used + (k - i + 1) * typical < budget


async def search_setting(
    setting: Setting,
    contexts: Sequence[Context],
    answer: Answerer,
    run: RunConfig,
    *,
    done_attempts: dict[int, dict[str, Any]] | None = None,
    on_attempt: Callable[[dict[str, Any]], None] = lambda rec: None,
    progress: SettingProgress | None = None,
    on_update: Callable[[SettingProgress], None] = lambda p: None,
    slot: int | None = None,
) -> list[dict[str, Any]]:
    """Spend one setting's budget (semantics §7.5) and return its kept story records (`select_kept`).

    `contexts` are the setting's slot contexts (`slot_contexts`). No I/O: finished attempts come in as
    `done_attempts` (resume) and go out through `on_attempt`, so the runner and the live task share this loop.
    `slot`: run search number `slot` alone, with a story's budget, in context `slot` mod len(contexts) (story scope
    only: the live task's paper mode, one sample per story slot, each the paper's single search of §7.4).
    """
    if slot is not None and run.setting_scoped:
        raise ValueError("slot= runs one story's search: it needs story scope")
    prog = progress if progress is not None else SettingProgress(setting, 1 if slot is not None
                                                                 else run.stories_per_setting)
    loop = _SettingLoop(setting, contexts, answer, run, done_attempts or {}, prog, slot)
    try:
        while loop.going_on():
            loop.launch()
            loop.take(await loop.next_record(on_attempt))
            on_update(prog)
        await loop.drain()
    finally:
        for _, task in loop.flight.values():  # a search failed or this one was cancelled: none goes on alone
            task.cancel()
    prog.done = True
    on_update(prog)
    return loop.kept


class _SettingLoop:
    """One setting's searches (`search_setting`): the budget used, the searches in flight, and what they found.

    Search i is the sequential loop's; searches after it may run early (`SPECULATE`), and their results are taken
    in order, so the output is the sequential loop's."""

    def __init__(self, setting: Setting, contexts: Sequence[Context], answer: Answerer, run: RunConfig,
                 done_attempts: dict[int, dict[str, Any]], prog: SettingProgress, slot: int | None = None) -> None:
        self.setting, self.contexts, self.answer, self.run = setting, contexts, answer, run
        self.done_attempts = done_attempts
        self.prog = prog
        self.calls = run.search.budget_unit == "calls"
        self.window = 1 if run.setting_scoped or slot is not None else SPECULATE
        self.used = 0  # in the search's budget unit: node evaluations, or model calls
        self.idle = 0
        self.i = 0 if slot is None else slot
        #: the search after the last one to run (`slot`: just that one)
        self.end = None if slot is None else slot + 1
        self.launched = 0  # attempts started (or found done) so far; i..launched-1 are in flight
        self.flight: dict[int, tuple[int, asyncio.Task[dict[str, Any]]]] = {}  # attempt -> (its budget, its search)
        self.candidates: list[dict[str, Any]] = []
        self.kept: list[dict[str, Any]] = []
        self.spends: list[int] = []  # what the searches of this run spent, in order
        self.shapes: dict[str, frozenset[str]] = {}  # candidates' shapes: kept is selected again after every search

    def cost(self, rec: dict[str, Any]) -> int:
        return rec["model_calls"] if self.calls else rec["spent"]

    def going_on(self) -> bool:
        """Budget left, fewer than PATIENCE idle searches in a row, and (setting scope) kept stories that can still
        get harder: N kept stories at accuracy 0 cannot."""
        run = self.run
        if self.used >= run.setting_budget or self.idle >= PATIENCE or (self.end is not None and self.i >= self.end):
            return False
        return not (run.setting_scoped and len(self.kept) >= run.stories_per_setting
                    and all(r["g"] <= 0 for r in self.kept))

    def _budget_of_next(self) -> int:
        """The budget the sequential loop gives search i: the setting's rest, or a story's share of it."""
        left = self.run.setting_budget - self.used
        return left if self.run.setting_scoped else min(self.run.budget_per_story, left)

    def launch(self) -> None:
        """Start search i, and the next ones early when the sequential loop would surely run them with a full
        per-story budget (one-story searches of a setting depend on each other only through the budget left)."""
        self.launched = max(self.launched, self.i)
        while self.launched < self.i + self.window:
            k = self.launched
            if k in self.done_attempts:
                self.launched += 1
                continue
            if k == self.i:
                this = self._budget_of_next()
            elif not _worth_starting(self.run, self.used, self.i, k, self.done_attempts, self.idle, self.spends,
                                     self.cost):
                break
            else:
                this = self.run.budget_per_story
            self.flight[k] = (this, asyncio.ensure_future(self._attempt(k, this)))
            self.launched += 1

    def _attempt(self, k: int, budget: int) -> Awaitable[dict[str, Any]]:
        return _attempt(self.setting, k, self.contexts, self.answer, self.run, budget)

    async def next_record(self, on_attempt: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
        """Search i's attempt record: done before (resume), or its search's, handed to `on_attempt`."""
        if self.i in self.done_attempts:
            return self.done_attempts[self.i]
        this, task = self.flight.pop(self.i)
        rec = await task
        right = self._budget_of_next()
        # a search started early with more budget than the sequential loop gives it is still the sequential
        # search when the budget never came into play (paper A* spent less than the right budget)
        if this != right and not (_budget_blind_below(self.run) and self.cost(rec) < right):
            self._waste(rec)
            rec = await self._attempt(self.i, right)
        on_attempt(rec)
        self.spends.append(self.cost(rec))
        return rec

    def take(self, rec: dict[str, Any]) -> None:
        """Count search i in, select the kept stories again with its candidates, and move on to search i + 1."""
        prog = self.prog
        prog.searches += 1
        prog.spent += rec["spent"]
        prog.model_calls += rec["model_calls"]
        self.used += self.cost(rec)
        self.candidates += rec.get("stories", [])
        self.kept = select_kept(self.candidates, self.run, self.shapes)
        prog.candidates = len(self.candidates)
        prog.found = [r["g"] for r in self.kept]
        self.idle = self.idle + 1 if rec["spent"] == 0 else 0
        self.i += 1

    async def drain(self) -> None:
        """Wait for the searches started early but never reached: their calls were made all the same."""
        for _, task in self.flight.values():
            self._waste(await task)

    def _waste(self, rec: dict[str, Any]) -> None:
        """Count the calls of a search whose result the sequential loop would not have."""
        self.prog.model_calls += rec["model_calls"]
        self.prog.wasted_calls += rec["model_calls"]


def prepare_out_dir(out_dir: Path, run: RunConfig) -> None:
    """Create `out_dir` with its run.json, or check that the run already there has the same configuration."""
    out_dir.mkdir(parents=True, exist_ok=True)
    meta_path = out_dir / "run.json"
    meta = run.to_dict()
    if meta_path.exists():
        old = _readable(json.loads(meta_path.read_text()), run)
        if old != meta:
            diff = sorted(k for k in meta if old.get(k) != meta[k])
            raise RunConfigMismatch(
                f"{out_dir} holds a run with a different configuration ({', '.join(diff)}); use another --out"
            )
    else:
        meta_path.write_text(json.dumps(meta, indent=2) + "\n")


def _readable(old: dict[str, Any], run: RunConfig) -> dict[str, Any]:
    """An existing run.json as this version compares it: search knobs its method has no field for are dropped
    (older versions wrote every method's knobs into one bag; a knob a method does not read never changed its run)."""
    search = old.get("search")
    if old.get("method") == run.method and isinstance(search, dict):
        known = _knobs(run.search)
        return {**old, "search": {k: v for k, v in search.items() if k in known}}
    return old


async def run_searches(
    settings: Sequence[Setting],
    contexts: Sequence[Context],
    answer: Answerer,
    run: RunConfig,
    out_dir: Path,
    *,
    parallel_settings: int = 4,
    on_update: Callable[[SettingProgress], None] = lambda p: None,
    setting_indices: Sequence[int] | None = None,
    workers: int = 1,
) -> list[SettingProgress]:
    """Search every setting (up to `parallel_settings` at once), appending results to `out_dir` as they come.

    `workers` > 1: the settings' searches run in that many processes (`pool.SearchPool`), their prompts answered
    by `answer` in this process; each setting's attempts and stories are the same as with `workers=1`.

    `setting_indices`: each setting's place in the whole grid when `settings` is one shard of it
    (`run_options.shard_grid`); slot contexts follow the place, and seeds depend only on the setting, so the N
    shards' outputs together are the unsharded run's. Default: the settings' own order."""
    indices = list(range(len(settings))) if setting_indices is None else list(setting_indices)
    if len(indices) != len(settings):
        raise ValueError("setting_indices must give one place per setting")
    if not contexts:
        raise ValueError("no contexts to build stories from")
    prepare_out_dir(out_dir, run)
    stories_path, attempts_path = out_dir / "stories.jsonl", out_dir / "attempts.jsonl"
    done: dict[str, dict[int, dict[str, Any]]] = {}
    for rec in read_jsonl(attempts_path):
        done.setdefault(rec["setting_id"], {})[rec["attempt"]] = rec
    # a setting's stories are written once all its attempts are in attempts.jsonl; a kill between two story lines
    # leaves some written: the same attempts select the same stories, and only the missing lines are written
    written: dict[str, set[str]] = {}
    for rec in read_jsonl(stories_path):
        written.setdefault(rec["setting_id"], set()).add(_record_digest(rec))
    stories, attempt_writer = _Writer(stories_path), _Writer(attempts_path)

    def write_attempt(rec: dict[str, Any]) -> None:
        attempt_writer.write({k: v for k, v in rec.items() if k != TRACE})

    progress = [SettingProgress(s, run.stories_per_setting) for s in settings]
    sem = asyncio.Semaphore(max(1, parallel_settings))
    pool = None
    failed: list[str] = []  # settings whose job killed its worker process again and again
    if workers > 1:
        from tombench.generators.exploretom.search.pool import JobKilledWorker, SearchPool, usable_workers

        if (n := usable_workers(min(workers, max(1, len(settings))))) > 1:
            pool = SearchPool(n)

    async def guarded(j: int, p: SettingProgress) -> None:
        async with sem:
            sid = p.setting.id
            ctxs = slot_contexts(contexts, run.seed, indices[j], run.stories_per_setting)
            if pool is None:
                kept = await search_setting(p.setting, ctxs, answer, run, done_attempts=done.get(sid, {}),
                                            on_attempt=write_attempt, progress=p, on_update=on_update)
            else:
                try:
                    kept, _ = await pool.run(setting_job, (p.setting, ctxs, run, done.get(sid, {})), answer,
                                             _SettingEvents(p, write_attempt, on_update))
                except JobKilledWorker as e:  # this setting alone: the others go on
                    failed.append(f"{sid} ({e})")
                    return
            for rec in kept:
                # known by content identity: the same story is never written twice into one run
                if _record_digest(rec) not in written.get(sid, set()):
                    stories.write(rec)

    try:
        await asyncio.gather(*(guarded(j, p) for j, p in enumerate(progress)))
    finally:
        if pool is not None:
            pool.close()
    if failed:
        raise JobKilledWorker(f"the search of setting {', '.join(failed)} failed; the other settings' results are "
                              f"written in {out_dir}")
    return progress


async def setting_job(answer: Answerer, emit: Callable[[Any], None], setting: Setting,
                      contexts: Sequence[Context], run: RunConfig,
                      done_attempts: dict[int, dict[str, Any]] | None = None, slot: int | None = None,
                      ) -> tuple[list[dict[str, Any]], SettingProgress]:
    """`search_setting` as a job of a worker process (`pool.SearchPool`): each finished attempt and the progress go
    to the parent as they come (the parent writes them: nothing is lost on interruption); the kept records and the
    final counters are the result."""
    prog = SettingProgress(setting, 1 if slot is not None else run.stories_per_setting)
    kept = await search_setting(setting, contexts, answer, run, done_attempts=done_attempts,
                                on_attempt=lambda rec: emit(("attempt", rec)), progress=prog,
                                on_update=lambda p: emit(("progress", p)), slot=slot)
    return kept, prog


class _SettingEvents:
    """The parent's side of `_setting_job`'s events: write attempts, mirror the worker's progress counters."""

    def __init__(self, progress: SettingProgress, on_attempt: Callable[[dict[str, Any]], None],
                 on_update: Callable[[SettingProgress], None]) -> None:
        self.progress, self.on_attempt, self.on_update = progress, on_attempt, on_update

    def __call__(self, event: tuple[str, Any]) -> None:
        kind, value = event
        if kind == "attempt":
            self.on_attempt(value)
        else:
            vars(self.progress).update(vars(value))
            self.on_update(self.progress)
