"""ExploreToM, live adversarial: the model under test drives the A* search, then answers the stories it failed.

ExploreToM (Sclar et al., 2024, arXiv:2412.12175) finds, by A* search over story structures, the stories a target
model answers worst. Its authors warn that stories found against one model are not a fixed test of another; this
task therefore searches against *the model being evaluated*, so every model is stress-tested on stories found
against it.

    inspect eval tombench/exploretom_adversarial --model tombench/recency
    inspect eval tombench/exploretom_adversarial --model openai/gpt-4o-mini -T action_sets=tomi,all -T people=3 -T moves=3
    inspect eval tombench/exploretom_adversarial --model anthropic/claude-sonnet-4-0 -T mode=improved -T budget=100

How it runs: one *search* sample per (setting, story). Its solver runs the search with the model under test as the
target (Inspect's connection limits and response cache apply). When it finds a story the model gets wrong, every
question of that story becomes a scored sample of this task (`enqueue_sample`), answered by the model the paper's way
and scored by `tom_answer`, with the action set, asymmetry, people, moves, order and interesting flags as metadata.
The search trace is kept in the search sample's metadata. A search that finds nothing within its budget is not
dropped: `search_outcome` scores the share of the requested stories found, and its `settings_filled` metric the share
of settings where all of them were (the paper's fill, as `tombench search` and `benchmarks/bench_search.py` count it).

`mode=improved` is the mode `tombench search` and `benchmarks/bench_search.py` measure: one search sample per
*setting* runs the runner's per-setting loop (`search.runner.search_setting`: the setting budget stories x budget,
expand width 4, the setting's distinct slot contexts, its N hardest distinct stories kept), and every question of
each kept story becomes a scored sample. `mode=paper` keeps the paper's one search per story slot.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from tombench.dsl import ACTION_SETS, Setting, derive_seed
from tombench.generators.exploretom.search.run_options import ASYMMETRY
from tombench.kit.errors import OptionError
from tombench.kit.options import (
    MAX_MOVES,
    check_bool,
    check_float,
    check_int,
    check_ints,
    check_shard,
    check_workers,
    in_shard,
    people_limit,
    rooms_limit,
)
from tombench.kit.pinning import TaskData
from tombench.scorers.exploretom import SEARCH_KIND, adversarial_answer, search_outcome
from tombench.scorers.story_questions import matcher_check, validate_check
from tombench.tasks.story_questions import TOM_CONFIG, story_samples, tom_solver

__all__ = ["exploretom_adversarial", "adversarial_solver"]

DATA = TaskData("exploretom_adversarial", "nothing: the model under test drives the search (a live model)",
                items="stories found per setting", license="this package's",
                offline="always, with an offline model (--model tombench/recency)")


def _as_list(value: Any, cast: type) -> list:
    if isinstance(value, str):
        return [cast(x.strip()) for x in value.split(",") if x.strip()]
    if isinstance(value, (list, tuple)):
        return [cast(x) for x in value]
    return [cast(value)]


def adversarial_settings(
    action_sets: str | Sequence[str], asymmetric: str, people: Any, moves: Any, rooms: int | None = None
) -> list[Setting]:
    """The settings grid of the task options, validated with actionable messages."""
    sets = list(ACTION_SETS) if action_sets in ("all-sets", ["all-sets"]) else _as_list(action_sets, str)
    bad = [s for s in sets if s.removesuffix("+asymmetric") not in ACTION_SETS]
    if bad:
        raise OptionError(f"Invalid action_sets value(s): {bad}. Must be one of: {list(ACTION_SETS)} or 'all-sets'")
    if asymmetric not in ASYMMETRY:
        raise OptionError(f"Invalid asymmetric value: {asymmetric!r}. Must be one of: {list(ASYMMETRY)}")
    types = list(dict.fromkeys(s.removesuffix("+asymmetric") + x for s in sets for x in ASYMMETRY[asymmetric]))
    ps, ms = _as_list(people, int), _as_list(moves, int)
    if not ps or not ms or min(ps + ms) < 1:
        raise OptionError("people and moves must be positive integers")
    return [Setting.make(t, p, m, rooms) for t in types for p in ps for m in ms]


def search_samples(settings: Sequence[Setting], stories_per_setting: int, seed: int,
                   per_setting: bool = False, shard: tuple[int, int] = (1, 1)) -> list[Sample]:
    """One seed sample per (setting, story): the search to run; `per_setting`: one per setting (improved mode).

    `shard` (K, N): only the settings of that shard (`kit.options.in_shard`); a setting keeps its place in the whole
    grid (`setting_index`, which picks its slot contexts) and its seeds, so the N shards' samples are the
    unsharded task's."""
    out = []
    for j, s in enumerate(settings):
        if not in_shard(j, shard):
            continue
        for i in range(1 if per_setting else stories_per_setting):
            out.append(Sample(
                id=f"search|{s.id}|{i}",
                input=f"Search an adversarial story for {s.id} (story {i + 1} of {stories_per_setting}).",
                target="",
                metadata={
                    "tombench_kind": SEARCH_KIND, "setting_id": s.id, "story_type": s.story_type,
                    "action_set": s.story_type.removesuffix("+asymmetric"), "asymmetric": s.asymmetric,
                    "people": s.people, "moves": s.moves, "rooms": s.rooms, "attempt": i,
                    "seed": derive_seed(seed, s.story_type, s.people, s.moves, i),
                    "setting_index": j, "stories": stories_per_setting if per_setting else 1,
                    "setting_searches": 1 if per_setting else stories_per_setting,
                },
            ))
    return out


async def _search_setting(md: dict[str, Any], setting: Setting, ctxs: Sequence[Any], answer: Any, config: Any,
                          run_seed: int, model: str, pool: Any = None) -> tuple[dict[str, Any], list[tuple[str, Any, dict]]]:
    """Improved mode: the runner's per-setting loop (in a worker process of `pool` when given); the search summary
    and the kept (id, story, record)."""
    from tombench.dsl import Story
    from tombench.generators.exploretom.search.runner import RunConfig, setting_job, slot_contexts

    n = md["stories"]
    run = RunConfig(stories_per_setting=n, budget_per_story=config.budget, seed=run_seed, method="astar",
                    search=config, model=model)
    args = (setting, slot_contexts(ctxs, run_seed, md["setting_index"], n), run)
    kept, prog = (await setting_job(answer, lambda m: None, *args) if pool is None
                  else await pool.run(setting_job, args, answer))
    first = kept[0] if kept else None
    summary: dict[str, Any] = {
        "found": bool(kept), "g": first["g"] if first else None, "h": first["h"] if first else None,
        "f": first["f"] if first else None, "nodes_evaluated": prog.spent, "model_calls": prog.model_calls,
        "searches": prog.searches, "candidates": prog.candidates, "method": "astar-improved", "wanted": n,
        "trace": [x for r in kept for x in r["search"]["trace"]],
        "stories": [{"id": r["id"], "g": r["g"], "text": r["text"], "story": r["story"], "context_id": r["context_id"],
                     "searched_answers": r["answers"]} for r in kept],
    }
    if first:
        summary.update(story=first["story"], text=first["text"], searched_answers=first["answers"])
    return summary, [(r["id"], Story.from_dict(r["story"]), r) for r in kept]


@solver
def adversarial_solver(
    search_config: dict[str, Any],
    contexts: str = "bank",
    question_orders: Sequence[int] = (0, 1, 2),
    seed: int = 0,
    workers: int | str | None = None,
) -> Solver:
    """Search samples run the A* search against the model under test; question samples are answered normally.

    `workers` (`kit.options.check_workers`; None: every core): the searches' CPU runs in that many processes of
    one pool for the whole process (`pool.shared_pool`), the model's answers come from here; 1: in this process."""
    from tombench.generators.exploretom.contexts import resolve_contexts
    from tombench.generators.exploretom.search.astar import SearchConfig
    from tombench.generators.exploretom.search.pool import shared_pool

    config = SearchConfig(**search_config)
    ctxs = resolve_contexts(contexts)  # once per task, not per search sample
    answer_question = tom_solver(cache=True)  # the search already asked the first-order questions: cache hits
    n_workers = check_workers("workers", workers)
    if n_workers > 1:
        from tombench.generators.exploretom.search.pool import usable_workers

        n_workers = usable_workers(n_workers)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        md = state.metadata
        if md.get("tombench_kind") != SEARCH_KIND:
            for step in answer_question:
                state = await step(state, generate)
            return state
        from inspect_ai import enqueue_sample

        from tombench.generators.exploretom.search.runner import astar_job
        from tombench.tasks.exploretom._answerer import inspect_answerer

        model = get_model()
        setting = Setting(md["story_type"], md["people"], md["moves"], md["rooms"])
        pool = shared_pool(n_workers) if n_workers > 1 else None
        answer = inspect_answerer(model, cache=True)
        if config.mode == "improved":
            summary, kept = await _search_setting(md, setting, ctxs, answer, config, seed, str(model), pool)
            for story_id, story, rec in kept:
                enqueue_sample(story_samples(story, story_id=story_id, setting=setting, orders=question_orders,
                                             extra={"generator_model": str(model), "tombench_kind": "question",
                                                    "search_g": rec["g"], "search_method": "astar-improved"}))
            state.metadata["search"] = summary
            text = (f"kept {len(kept)} of {md['stories']} stories; first-order accuracy "
                    + ", ".join(f"{r['g']:.2f}" for _, _, r in kept)
                    if kept else "no adversarial story found within the budget")
            state.output = ModelOutput.from_content(str(model), text)
            state.completed = True
            return state
        i = md["attempt"]
        job_args = (setting, ctxs[i % len(ctxs)], config, md["seed"])
        result = (await astar_job(answer, lambda m: None, *job_args) if pool is None
                  else await pool.run(astar_job, job_args, answer))
        summary: dict[str, Any] = {
            "found": result.story is not None, "g": result.g, "h": result.h, "f": result.f,
            "nodes_evaluated": result.nodes_evaluated, "model_calls": result.model_calls, "pops": result.pops,
            "method": result.method,
            "trace": [{"g": n.g, "h": n.h, "spent": n.spent, "text": n.text} for n in result.trace],
        }
        if result.story is not None:
            story_id = f"{setting.id}|{i}"
            summary["story"] = result.story.to_dict()
            summary["text"] = result.story.text
            summary["searched_answers"] = result.questions
            enqueue_sample(story_samples(result.story, story_id=story_id, setting=setting, orders=question_orders,
                                         extra={"generator_model": str(model), "tombench_kind": "question",
                                                "search_g": result.g, "search_method": result.method}))
        state.metadata["search"] = summary
        text = (f"found a story with first-order accuracy {result.g:.2f}: {result.story.text}"
                if result.story is not None else "no adversarial story found within the budget")
        state.output = ModelOutput.from_content(str(model), text)
        state.completed = True
        return state

    return solve


@task
def exploretom_adversarial(
    action_sets: str | list[str] = "all-sets",
    asymmetric: Literal["plain", "asymmetric", "both"] = "both",
    people: int | list[int] | str = 3,
    moves: int | list[int] | str = 3,
    rooms: int | None = None,
    stories_per_setting: int = 1,
    budget: int = 50,
    budget_unit: Literal["nodes", "calls"] = "nodes",
    k: int = 3,
    alpha: float = 0.1,
    lookahead: int = 50,
    g: Literal["acc", "acc-int", "acc2", "acc2-int"] = "acc",
    mode: Literal["paper", "improved"] = "paper",
    refine: float = 1.0,
    prune: bool = True,
    short_story_shortcut: bool = True,
    seed: int = 0,
    contexts: str = "bank",
    question_orders: int | list[int] | str = "0,1,2",
    check: Literal["strict", "substring", "judge"] = "strict",
    shard: str | None = None,
    workers: int | str | None = None,
) -> Task:
    """Live adversarial ExploreToM: search stories against the model under test, then score it on them.

    Args:
        action_sets: action sets (comma-separated or a list), or "all-sets" for all 9.
        asymmetric: plain stories, +asymmetric (a secret witness or a distracted person), or both.
        people, moves: numbers of people and important actions (a grid; comma-separated or lists).
        rooms: override the action set's number of rooms.
        stories_per_setting: stories per setting (paper mode: one search per story, each finds at most one;
            improved mode: one search spending stories x budget keeps this many distinct stories).
        budget: budget per story, in `budget_unit` ("nodes": node evaluations, the paper's unit; "calls": prompts).
        k, alpha, lookahead, g, mode, refine, prune, short_story_shortcut: search options (see docs/search.md;
            refine matters in improved mode only, prune in improved mode with budget_unit="calls").
        seed: reproducibility seed (per-search seeds derive from it).
        contexts: "bank" (built-in contexts), "default" or a contexts file.
        question_orders: ToM orders of the scored questions (0 = state tracking, 1, 2).
        check: answer matching, "strict", the original "substring", or "judge" (a grader model scores the question
            samples, `--model-role grader=...`; the search itself reads answers with "strict").
        shard: "K/N" runs every N-th setting of the grid from the K-th (one of N machines, docs/scale.md); the N
            shards' logs are one run for `tombench report` and `tombench leaderboard push`.
        workers: processes for the search's CPU work (None or "all": every core; 1: none, all in Inspect's
            process); the samples and scores are the same for any value (docs/scale.md).
    """
    prune = check_bool("prune", prune)
    shard_kn = check_shard("shard", shard)
    check_workers("workers", workers)  # the solver resolves it where it runs: "all" is that machine's cores
    short_story_shortcut = check_bool("short_story_shortcut", short_story_shortcut)
    from inspect_ai import SampleSource

    from tombench.dsl import ContextError
    from tombench.generators.exploretom.contexts import resolve_contexts
    from tombench.generators.exploretom.search.astar import SearchConfig

    check_mode = validate_check(check)
    try:
        ctxs = resolve_contexts(contexts)  # fail before any model call (the bank is cached; a file is re-read once)
    except ContextError as e:
        raise OptionError(str(e)) from None
    people = check_ints("people", people, 1, people_limit(ctxs))
    moves = check_ints("moves", moves, 1, MAX_MOVES)
    rooms = None if rooms is None else check_int("rooms", rooms, 1, rooms_limit(ctxs))
    stories_per_setting = check_int("stories_per_setting", stories_per_setting, lo=1)
    budget, k = check_int("budget", budget, lo=1), check_int("k", k, lo=1)
    alpha, lookahead = check_float("alpha", alpha, lo=0.0), check_int("lookahead", lookahead, lo=1)
    refine, seed = check_float("refine", refine, 0.0, 1.0), check_int("seed", seed)
    settings = adversarial_settings(action_sets, asymmetric, people, moves, rooms)
    orders = check_ints("question_orders", question_orders, 0, 2)
    search_config = {"k": k, "alpha": alpha, "lookahead": lookahead, "budget": budget, "budget_unit": budget_unit, "g": g,
                     "short_story_shortcut": short_story_shortcut, "mode": mode, "check": matcher_check(check_mode), "refine": refine,
                     "prune": prune}
    try:
        SearchConfig(**search_config)  # validate early, before any model call
    except ValueError as e:
        raise OptionError(str(e)) from None
    samples = search_samples(settings, stories_per_setting, seed, per_setting=mode == "improved", shard=shard_kn)
    if not samples:
        raise OptionError(f"shard {shard} has no settings: the grid has {len(settings)}")
    return Task(
        dataset=SampleSource.from_samples(samples),
        solver=adversarial_solver(search_config, contexts, tuple(orders), seed, workers),
        scorer=[adversarial_answer(check=check_mode), search_outcome()],
        config=TOM_CONFIG,
        # settings: the whole grid's (a shard's share of it is in its samples; the shards' logs combine into one run)
        metadata={"benchmark": "exploretom", "live_adversarial": True, "settings": len(settings),
                  **({"shard": f"{shard_kn[0]}/{shard_kn[1]}"} if shard_kn[1] > 1 else {})},
        version="0.2.0",  # 0.2.0: settings_filled counts all N stories (was: at least one)
    )
