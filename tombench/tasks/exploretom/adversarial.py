# inspect-evals-lint: ignore-file[main_file] -- ExploreToM's four tasks, one module each with its machinery
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
question of that story becomes a scored sample of this task (`question_samples`, returned when the search sample
completes, so that `inspect eval-retry` regenerates them from a reused search sample), answered by the model the paper's way
and scored by `tom_answer`, with the action set, asymmetry, people, moves, order and interesting flags as metadata.
Where the search's calls are made in its worker processes, the workers also ask those questions as the search ends
(`_ask_ahead`: the same prompts and decoding parameters), so each question sample's call is a read of Inspect's
response cache and the eval's process, which runs every sample, makes no model call of its own.
The search trace is kept in the search sample's metadata. A search that finds nothing within its budget is not
dropped: `search_outcome` scores the share of the requested stories found, and its `settings_filled` metric the share
of settings where all of them were (the paper's fill, as `tombench search` and `benchmarks/bench_search.py` count it).

`mode=improved` is the mode `tombench search` and `benchmarks/bench_search.py` measure: one search sample per
*setting* runs the runner's per-setting loop (`search.runner.search_setting`: the setting budget stories x budget,
expand width 4, the setting's distinct slot contexts, its N hardest distinct stories kept), and every question of
each kept story becomes a scored sample. `mode=paper` keeps the paper's one search per story slot.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from tombench.dsl import Prompt, Setting, Story, derive_seed, settings_grid
from tombench.generators.exploretom.search import run_options
from tombench.kit import inspect_internals
from tombench.kit.calls import reread
from tombench.kit.errors import OptionError
from tombench.kit.evals import task_data
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
from tombench.scorers.exploretom import SEARCH_KIND, adversarial_answer, search_outcome
from tombench.scorers.story_questions import matcher_check, task_check
from tombench.tasks.exploretom import pool_lifetime
from tombench.tasks.exploretom.eval_flags import eval_flags, refusal, watch
from tombench.tasks.exploretom.progress import LiveProgress
from tombench.tasks.shared.story_questions import TOM_CONFIG, story_samples, tom_solver

if TYPE_CHECKING:
    from tombench.generators.exploretom.search.runner import RunConfig, SettingProgress

__all__ = ["exploretom_adversarial", "adversarial_solver"]

#: 0.2.0: settings_filled counts all N stories (was: at least one)
TASK_VERSION = "0.2.0"
DATA = task_data(__file__, "exploretom_adversarial")


def adversarial_settings(action_sets: str | Sequence[str], asymmetric: str, people: Sequence[int],
                         moves: Sequence[int], rooms: int | None = None) -> list[Setting]:
    """The settings grid of the task options (`run_options`, as `tombench search` builds it), one line for a bad
    value."""
    try:
        types = run_options.story_types(action_sets, asymmetric, what="action_sets value(s):")  # type: ignore[arg-type]
    except ValueError as e:
        raise OptionError(str(e)) from None
    return settings_grid(types, people, moves, rooms)


def search_samples(settings: Sequence[Setting], stories_per_setting: int, seed: int,
                   per_setting: bool = False, shard: tuple[int, int] = (1, 1)) -> list[Sample]:
    """One seed sample per (setting, story): the search to run; `per_setting`: one per setting (setting scope).

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


async def _search(md: dict[str, Any], setting: Setting, ctxs: Sequence[Any], answer: Any, run: RunConfig,
                  pool: Any = None, on_progress: Callable[[SettingProgress], None] = lambda p: None,
                  ) -> dict[str, Any]:
    """The runner's per-setting loop for one search sample (in a worker process of `pool` when given): the whole
    setting in setting scope (its slot contexts), else the sample's story slot alone (the paper's single search,
    in the bank's context of that slot); its summary (`search_summary`)."""
    from tombench.generators.exploretom.search.runner import setting_job, slot_contexts

    if run.setting_scoped:
        args: tuple = (setting, slot_contexts(ctxs, run.seed, md["setting_index"], md["stories"]), run, None, None)
    else:
        args = (setting, ctxs, run, None, md["attempt"])
    attempts: list[dict[str, Any]] = []

    def on_event(event: tuple[str, Any]) -> None:
        if event[0] == "attempt":
            attempts.append(event[1])
        elif event[0] == "progress":
            on_progress(event[1])

    kept, prog = (await setting_job(answer, on_event, *args) if pool is None
                  else await pool.run(setting_job, args, answer, on_event))
    return search_summary(run, kept, prog, attempts)


def search_summary(run: RunConfig, kept: Sequence[dict[str, Any]], prog: SettingProgress,
                   attempts: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """The search sample's record of its search (its metadata "search"; `search_outcome` scores it, the transfer
    task and `tombench demo` read it): the kept stories, hardest first, and what finding them cost. Its trace: the
    kept stories' searches', or where none was kept, the nodes every search of the sample evaluated (`attempts`)."""
    from tombench.generators.exploretom.search.registry import describe
    from tombench.generators.exploretom.search.runner import TRACE

    first = kept[0] if kept else None
    summary: dict[str, Any] = {
        "found": bool(kept), "g": first["g"] if first else None, "h": first["h"] if first else None,
        "f": first["f"] if first else None, "nodes_evaluated": prog.spent, "model_calls": prog.model_calls,
        "searches": prog.searches, "candidates": prog.candidates,
        "method": first["method"] if first else describe(run.search).replace("/", "-"), "wanted": prog.wanted,
        "trace": ([x for r in kept for x in r["search"]["trace"]] if kept
                  else [x for a in attempts for x in a.get(TRACE, [])]),
        "stories": [{"id": r["id"], "g": r["g"], "text": r["text"], "story": r["story"], "context_id": r["context_id"],
                     "searched_answers": r["answers"]} for r in kept],
    }
    if first:
        summary.update(story=first["story"], text=first["text"], searched_answers=first["answers"])
    return summary


def question_samples(search_sample: Any, orders: Sequence[int]) -> list[Sample]:
    """The scored samples a finished search sample (an `EvalSample`) adds to the task: every question of each story
    it kept; none from another sample or a search that failed.

    They come from the task's `SampleSource` when the search sample completes, not from its solver: on
    `inspect eval-retry`, Inspect calls this for the search samples it reuses too, and reuses the question samples
    the prior attempt already scored (a solver's `enqueue_sample` would not run for a reused sample, and its
    questions would be lost)."""
    md = search_sample.metadata or {}
    if md.get("tombench_kind") != SEARCH_KIND or search_sample.error is not None or "search" not in md:
        return []
    summary = md["search"]
    model = search_sample.output.model
    return kept_questions(summary, md, orders, lambda rec: {
        "generator_model": model, "tombench_kind": "question", "search_g": rec["g"],
        "search_method": summary["method"]})


def kept_questions(summary: dict[str, Any], md: dict[str, Any], orders: Sequence[int],
                   extra: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> list[Sample]:
    """Every question (of `orders`) of the stories a search kept (`summary`: the search sample's metadata "search";
    `md`: that sample's metadata) as samples; `extra(story record)` is merged into each one's metadata."""
    setting = Setting(md["story_type"], md["people"], md["moves"], md["rooms"])
    return [q for rec in summary["stories"]
            for q in story_samples(Story.from_dict(rec["story"]), story_id=rec["id"], setting=setting, orders=orders,
                                   extra=None if extra is None else extra(rec))]


async def _ask_ahead(questions: Sequence[Sample], model: Any, pool: Any, epoch: int | None = None,
                     ) -> dict[str, Any] | None:
    """Ask the question samples' prompts now, in the search's workers, before those samples exist: their own calls
    are then reads of Inspect's response cache, and the eval's process, which runs every sample, makes no call to
    the model of its own (a call there cost it as much as a whole search call in a worker).

    The prompts are the question samples' exactly, with the decoding parameters they will be asked with (the task's
    config as the eval overrides it: the workers' copy of the model has that config), so the cache keys are theirs
    (`epoch` the sample's). Their tokens are the search sample's (a cache read adds none), but not against its
    token limit: in one process they are the question samples' calls, each under its own limit; with a cost limit
    (which cannot be left aside so) nothing is asked ahead. None where the parameters are not all known (nothing
    would be read back), the model stays in this process or the sample has a cost limit; a failure is noted, not
    raised: the question samples then ask themselves, with Inspect's retries."""
    from inspect_ai.util import sample_limits, suspend_token_limit

    from tombench.dsl.prompting import SYSTEM_PROMPT
    from tombench.generators.exploretom.search.pool import answer_prompts
    from tombench.tasks.exploretom.answerer import calls_summary, inspect_answerer

    answer = inspect_answerer(model, cache=True, epoch=epoch, sample_limits=False)
    target = answer.worker_target  # type: ignore[attr-defined]
    config = target.config if target is not None else {}
    decoding = {k: config.get(k) for k in ("temperature", "top_p", "max_tokens")}
    if not questions or None in decoding.values() or sample_limits().cost.limit is not None:
        return None
    prompts = list(dict.fromkeys(Prompt(system=SYSTEM_PROMPT, user=str(q.input), **decoding) for q in questions))
    error = None
    try:
        with suspend_token_limit():
            await pool.run(answer_prompts, (prompts,), answer)
    except Exception as e:  # noqa: BLE001 - the question samples make the calls themselves
        error = f"{type(e).__name__}: {e}"
    out = {"prompts": len(prompts), **calls_summary(answer.stats, "workers")}
    del out["where"]
    return {**out, "error": error} if error else out


def _feed(progress: LiveProgress | None, sample_id: str, unit: str) -> Callable[[SettingProgress], None]:
    """What one search sample tells the live counters: its prompts answered and its spend, as the search reports
    them (wherever its calls are made)."""
    if progress is None:
        return lambda p: None
    asked = [0]
    progress.searching(sample_id, lambda: asked[0])

    def feed(p: SettingProgress) -> None:
        asked[0] = p.model_calls
        progress.searched(sample_id, p.model_calls if unit == "calls" else p.spent)

    return feed


async def _without_call_events(coro: Any) -> Any:
    """Run `coro` with its model calls summarised instead of logged one by one: a transcript of its own that keeps
    nothing (the sample's usage, limits and cache are untouched: they are not the transcript's)."""
    import asyncio
    import contextvars

    ctx = contextvars.copy_context()
    ctx.run(inspect_internals.drop_events)
    return await asyncio.get_running_loop().create_task(coro, context=ctx)


def _usage_since(before: dict[str, Any]) -> dict[str, Any]:
    """The sample's token usage added since `before` (`inspect_internals.sample_usage()`), per model."""
    from inspect_ai.model import ModelUsage

    out = {}
    for name, now in inspect_internals.sample_usage().items():
        was = before.get(name, ModelUsage())
        out[name] = ModelUsage(input_tokens=now.input_tokens - was.input_tokens,
                               output_tokens=now.output_tokens - was.output_tokens,
                               total_tokens=now.total_tokens - was.total_tokens)
    return out


def _logged_usage(start: int) -> dict[str, Any]:
    """The tokens of the model calls this sample's transcript logged from its event `start` on, per model: what the
    server counted (a cache read adds none, as in Inspect's own count), read from the public model events."""
    from inspect_ai.event import ModelEvent
    from inspect_ai.log import transcript
    from inspect_ai.model import ModelUsage

    out: dict[str, Any] = {}
    for e in transcript().events[start:]:
        if isinstance(e, ModelEvent) and e.cache != "read" and e.output.usage is not None:
            out[e.model] = out.get(e.model, ModelUsage()) + e.output.usage
    return out


async def _searched(search: Any, where: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Run `search` with its calls made `where` ("workers", "events": here, each a model event, or "main": here,
    summarised); its summary and the tokens its calls used here (None: the workers report theirs)."""
    if where == "workers":
        return await search, None
    if where == "events":
        from inspect_ai.log import transcript

        start = len(transcript().events)
        return await search, _logged_usage(start)
    before = inspect_internals.sample_usage()
    return await _without_call_events(search), _usage_since(before)


async def _run_search(md: dict[str, Any], setting: Setting, ctxs: Sequence[Any], model: Any, run: RunConfig,
                      pool: Any, call_events: bool, feed: Callable[[SettingProgress], None],
                      orders: Sequence[int] = (), epoch: int | None = None) -> dict[str, Any]:
    """One search sample's search, its model calls made in the pool's workers where the model can be rebuilt
    there, else here; its summary with the calls' account (`answerer.calls_summary`) under "calls", also shown in
    the transcript as one info event. With the calls in the workers, the kept stories' questions of `orders` are
    asked there too (`_ask_ahead`: "calls"/"questions"). `epoch`: the sample's (`TaskState.epoch`).

    The calls made here are each a model event where `call_events` asks for it, and wherever Inspect's internals
    the other ways need are missing or changed (`inspect_internals.fast_path`, one warning per process): Inspect's
    public path, slower, the same samples and scores."""
    from inspect_ai.log import transcript

    from tombench.tasks.exploretom.answerer import calls_summary, inspect_answerer

    answer = inspect_answerer(model, cache=True, in_workers=not call_events, epoch=epoch)
    in_workers = pool is not None and answer.worker_target is not None  # type: ignore[attr-defined]
    events = call_events or not inspect_internals.fast_path()  # asked after the answerer: it may have found out
    where = "workers" if in_workers else "events" if events else "main"
    summary, usage = await _searched(_search(md, setting, ctxs, answer, run, pool, feed), where)
    stats = answer.stats  # type: ignore[attr-defined]
    summary["calls"] = calls_summary(stats, "workers" if in_workers else "main", usage)
    summary["calls"]["events"] = where == "events"
    ahead = (await _ask_ahead(kept_questions(summary, md, orders), model, pool, epoch) if in_workers and orders
             else None)
    if ahead is not None:
        summary["calls"]["questions"] = ahead
    transcript().info(summary["calls"], source="tombench search calls")
    return summary


class _QuestionSlots:
    """The question samples' share of the call slots the search's workers use (`pool.SearchPool.shared_slot`): one limit
    for every process's calls to the model."""

    def __init__(self) -> None:
        self.targets: dict[str, Any] = {}

    def slot(self, pool: Any, model: Any) -> Any:
        import contextlib

        from tombench.tasks.exploretom.worker_model import worker_target

        name = str(model)
        if name not in self.targets:
            self.targets[name] = worker_target(model, True)
        target = self.targets[name]
        if pool is None or target is None:
            return contextlib.nullcontext()
        return pool.shared_slot(target)


@solver
def adversarial_solver(
    options: dict[str, Any],
    contexts: str = "bank",
    workers: int | str | None = None,
    progress: LiveProgress | None = None,
    call_events: bool = False,
    question_orders: Sequence[int] = (),
) -> Solver:
    """Search samples run the search against the model under test; question samples are answered normally.

    `options`: the run's options (`run_options.run_config`, as `tombench search` passes them), the model's name
    added where it runs. `workers` (`kit.options.check_workers`; None: every core): the searches run in that many
    processes of one pool for the whole process (`pool.shared_pool`), their model calls too where the model can be
    rebuilt there (`worker_model`); 1: in this process. `call_events`: every search call made here and logged as a
    model event (debugging); else the search sample logs one summary of its calls. `progress`: the task's live
    counters (`LiveProgress`), fed with each search's spend and calls. `question_orders`: the orders of the
    question samples a search adds, asked ahead in the workers (`_ask_ahead`)."""
    from tombench.generators.exploretom.contexts import resolve_contexts
    from tombench.generators.exploretom.search.pool import running_pool, shared_pool

    ctxs = resolve_contexts(contexts)  # once per task, not per search sample
    answer_question = tom_solver(cache=True)  # the search already asked the first-order questions: cache hits
    n_workers = check_workers("workers", workers)
    if n_workers > 1:
        from tombench.generators.exploretom.search.pool import usable_workers

        n_workers = usable_workers(n_workers)
    question_slots = _QuestionSlots()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        md = state.metadata
        model = get_model()
        if md.get("tombench_kind") != SEARCH_KIND:
            for step in answer_question[:-1]:
                state = await step(state, generate)
            # the workers' pool if the searches started it (a question sample alone, as after an `eval-retry` that
            # reused every search, starts none)
            pool = running_pool(n_workers) if n_workers > 1 and not call_events else None
            # the last step is the generation: asked again here when its reply cannot be read (`kit.calls.reread`)
            async with question_slots.slot(pool, model):
                return await reread(lambda c: generate(state, cache=c), True)
        # --limit / --sample-id that would drop this search's questions: one line, before any work (`eval_flags`)
        refused = refusal(eval_flags(state.uuid), state.sample_id, md)
        if refused:
            raise OptionError(refused)
        pool = shared_pool(n_workers) if n_workers > 1 else None
        run = run_options.run_config(**options, model=str(model))
        setting = Setting(md["story_type"], md["people"], md["moves"], md["rooms"])
        summary = await _run_search(md, setting, ctxs, model, run, pool, call_events,
                                    _feed(progress, str(state.sample_id), run.search.budget_unit), question_orders,
                                    state.epoch)
        kept = summary["stories"]
        state.metadata["search"] = summary
        text = (f"kept {len(kept)} of {summary['wanted']} stories; first-order accuracy "
                + ", ".join(f"{r['g']:.2f}" for r in kept)
                if kept else "no adversarial story found within the budget")
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
    settings_limit: int | None = None,
    workers: int | str | None = None,
    method: str = "astar",
    call_events: bool = False,
) -> Task:
    """Live adversarial ExploreToM: search stories against the model under test, then score it on them.

    Args:
        action_sets: the story types to search: action sets (comma-separated or a list), or `all-sets` for all 9.
        asymmetric: each action set `plain`, `asymmetric` (+asymmetric: a secret witness or a distracted person), or
            `both`.
        people: numbers of people p, the grid's rows: integers from 1 to 6 (comma-separated or a list).
        moves: numbers of important actions m, the grid's columns: integers from 1 to 15 (comma-separated or a list).
        rooms: override the action set's number of rooms, 1 or 2 (default: the action set's).
        stories_per_setting: stories wanted per setting, at least 1 (paper mode: one search per story, each finds at
            most one; improved mode: one search spending stories x budget keeps this many distinct stories).
        budget: budget per story, at least 1, in `budget_unit` (the paper's 50 node evaluations).
        budget_unit: what the budget counts: `nodes` (node evaluations, the paper's unit) or `calls` (prompts asked,
            what an API bills).
        k: at most k actions added per search step, at least 1 (the paper groups three).
        alpha: weight of the heuristic, at least 0: h = alpha x (1 - share of `lookahead` random completions that meet
            the setting).
        lookahead: random completions drawn to estimate h, at least 1.
        g: the objective: the model's accuracy on first-order questions, `acc` (`acc2`: second-order; `-int`:
            interesting ones only: `acc-int`, `acc2-int`).
        mode: `paper`: one search per story slot, stopping at the first story the model gets wrong (§2.2.3);
            `improved`: one search per setting spends the setting's budget and keeps its N hardest distinct stories
            (what `tombench search --mode improved` measures). See docs/explanation/search.md.
        refine: improved mode only: share of the budget (0 to 1) spent refining the hardest stories found.
        prune: improved mode with `budget_unit=calls` only: stop asking a story's questions once it cannot beat the
            kept stories (`true` or `false`).
        short_story_shortcut: stories of at most 3 sentences count as answered right without a model call (they still
            spend a unit; on by default, for parity with the authors' code).
        seed: the run's seed, any integer; every search's seed derives from it and its setting.
        contexts: the story contexts: `bank` (the 76 hand-written ones shipped with the package), `default` (the one
            default context), or a contexts `.json` / `.jsonl` file from `tombench contexts`.
        question_orders: the ToM orders of the questions asked of each found story: 0 (state tracking), 1, 2
            (comma-separated).
        check: how the question samples' answers are read: `strict`, the original `substring`, or `judge` (a grader
            model, `--model-role grader=...`); the search itself always reads answers with `strict`.
        shard: `K/N` (1 <= K <= N) runs every N-th setting of the grid from the K-th (one of N machines,
            docs/how-to/scale.md#shards-one-grid-over-several-processes-or-machines); the N shards' logs are one run
            for `tombench report` and `tombench leaderboard push`. `auto/N` takes K from a Kubernetes Indexed Job's
            or a Slurm array's task index (`kit.options.scheduler_shard`). Default: the whole grid.
        settings_limit: search only the first N settings of the grid (N at least 1; before sharding), and score all
            their questions: the way to a smaller run (default: the whole grid). Inspect's `--limit` cannot do it here
            (it counts the question samples the searches add and would drop them), so a search sample of a run given
            `--limit` is refused.
        workers: processes for the search's CPU work and, where the model can be rebuilt there, its model calls: an
            integer at least 1 (1: none, all in Inspect's process), or `all` (default: every core); the samples and
            scores are the same for any value (docs/how-to/scale.md).
        method: the search method (`tombench search --method`): `astar` (A*), `over-generate` (the paper's
            over-generate-and-filter baseline) or `random` (one random story); the registry in
            `tombench.generators.exploretom.search.registry`.
        call_events: log every model call of the search as its own event (debugging; the calls are then made in
            Inspect's process); by default the search sample logs one summary of its calls (count, tokens, time,
            errors) and the workers call the model themselves (docs/how-to/scale.md).
    """
    shard_kn = check_shard("shard", shard)
    n_settings = None if settings_limit is None else check_int("settings_limit", settings_limit, lo=1)
    check_workers("workers", workers)  # the solver resolves it where it runs: "all" is that machine's cores
    from inspect_ai import SampleSource

    from tombench.dsl import ContextError
    from tombench.generators.exploretom.contexts import resolve_contexts

    check_mode = task_check(check)  # judge without a grader: refused before the search
    try:
        ctxs = resolve_contexts(contexts)  # fail before any model call (the bank is cached; a file is re-read once)
    except ContextError as e:
        raise OptionError(str(e)) from None
    people = check_ints("people", people, 1, people_limit(ctxs))
    moves = check_ints("moves", moves, 1, MAX_MOVES)
    rooms = None if rooms is None else check_int("rooms", rooms, 1, rooms_limit(ctxs))
    settings = adversarial_settings(action_sets, asymmetric, people, moves, rooms)[:n_settings]
    orders = check_ints("question_orders", question_orders, 0, 2)
    options = {
        "method": method, "stories_per_setting": check_int("stories_per_setting", stories_per_setting, lo=1),
        "budget": check_int("budget", budget, lo=1), "budget_unit": budget_unit, "k": check_int("k", k, lo=1),
        "alpha": check_float("alpha", alpha, lo=0.0), "lookahead": check_int("lookahead", lookahead, lo=1),
        "g": g, "mode": mode, "refine": check_float("refine", refine, 0.0, 1.0), "prune": check_bool("prune", prune),
        "short_story_shortcut": check_bool("short_story_shortcut", short_story_shortcut),
        "check": matcher_check(check_mode), "seed": check_int("seed", seed), "contexts_id": contexts,
    }
    try:
        run = run_options.run_config(**options)  # validate early, before any model call
    except ValueError as e:
        raise OptionError(str(e)) from None
    samples = search_samples(settings, run.stories_per_setting, run.seed, per_setting=run.setting_scoped,
                             shard=shard_kn)
    if not samples:
        raise OptionError(f"shard {shard_kn[0]}/{shard_kn[1]} has no settings: the grid has {len(settings)}")
    watch()  # --limit / --sample-id reach the solver through Inspect's hooks (`eval_flags`)
    pool_lifetime.watch()  # the search workers end with the eval (`pool_lifetime`)
    progress = LiveProgress([(str(x.id), x.metadata["setting_id"],  # type: ignore[index]
                              run.setting_budget if run.setting_scoped else run.budget_per_story) for x in samples],
                            run.search.budget_unit)

    async def follow_ups(done: Any) -> list[Sample]:
        added = question_samples(done, tuple(orders))
        kind = (done.metadata or {}).get("tombench_kind")
        progress.completed(done, "search" if kind == SEARCH_KIND else "question", len(added))
        return added

    return Task(
        dataset=SampleSource.from_samples(samples, sample_complete=follow_ups),
        solver=adversarial_solver(options, contexts, workers, progress, check_bool("call_events", call_events),
                                  tuple(orders)),
        scorer=[adversarial_answer(check=check_mode), search_outcome()],
        config=TOM_CONFIG,
        # a sample whose calls keep failing (`kit.calls.CallFailed`) ends alone: the other settings' searches go on,
        # the log's status is then "error" and `inspect eval-retry` re-runs what failed
        continue_on_fail=True,
        # settings: the whole grid's (a shard's share of it is in its samples; the shards' logs combine into one run)
        metadata={"benchmark": "exploretom", "live_adversarial": True, "settings": len(settings),
                  **({"shard": f"{shard_kn[0]}/{shard_kn[1]}"} if shard_kn[1] > 1 else {})},
        version=TASK_VERSION,
    )
