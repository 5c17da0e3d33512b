"""`tombench search`: find the stories a model answers worst, for every setting of a grid (ExploreToM §2.3).

    tombench search --model tombench/recency --story-types tomi,all --people 2,3 --moves 2,3 --out runs/recency
    tombench search --model openai/gpt-4o-mini --max-connections 16 --out runs/gpt4o-mini --export-hf runs/gpt4o-mini/hf
    tombench search --model ... --shard 2/4 --out runs/part2      # every 4th setting from the 2nd (docs/design-notes/scale.md)

Interrupt it and run the same command again: it resumes from `--out`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from tombench.cli import UserError
from tombench.commands._common import checked_int, checked_ints
from tombench.kit import aio

if TYPE_CHECKING:
    from tombench.dsl import Context, Setting
    from tombench.generators.exploretom.search.evaluator import Answerer
    from tombench.generators.exploretom.search.runner import RunConfig, SettingProgress


def _contexts(value: str) -> list:
    from tombench.dsl import ContextError
    from tombench.generators.exploretom.contexts import resolve_contexts

    try:
        return resolve_contexts(value)
    except ContextError as e:
        raise UserError(str(e)) from None


class _MethodChoice(click.Choice):
    """The registered search methods, read when the options are shown or checked (a method registered after this
    module was imported is offered too)."""

    def __init__(self) -> None:
        super().__init__([])

    @property  # type: ignore[override]
    def choices(self) -> list[str]:
        from tombench.generators.exploretom.search.registry import method_names

        return method_names()

    @choices.setter
    def choices(self, value: object) -> None:
        pass


@click.command()
@click.option("--model", "model", default="tombench/recency", show_default=True,
              help="Target model: any Inspect model string (openai/..., anthropic/..., openai-api/local/...).")
@click.option("-M", "--model-arg", "model_args", multiple=True, help="Model argument KEY=VALUE (repeatable).")
@click.option("--story-types", default="all-sets", show_default=True,
              help="Comma-separated action sets (tomi, tomi+room-changes, ...), or 'all-sets' for all 9.")
@click.option("--asymmetric", type=click.Choice(["plain", "asymmetric", "both"]), default="both", show_default=True)
@click.option("--people", default="2,3,4", show_default=True)
@click.option("--moves", default="2,3,4", show_default=True)
@click.option("--rooms", type=click.IntRange(1), default=None, help="Override the number of rooms (default: per action set).")
@click.option("--stories-per-setting", type=click.IntRange(1), default=10, show_default=True, help="Stories per setting (the paper's 10).")
@click.option("--budget", type=click.IntRange(1), default=50, show_default=True, help="Budget per search (story), in --budget-unit.")
@click.option("--budget-unit", type=click.Choice(["nodes", "calls"]), default="nodes", show_default=True,
              help="Count node evaluations (the paper's unit) or model calls (what an API bills).")
@click.option("--budget-per-setting", type=click.IntRange(1), default=None, help="Default: stories-per-setting x budget.")
@click.option("--method", type=_MethodChoice(), default="astar", show_default=True,
              help="Search method, one of those registered (docs/explanation/architecture.md, 'The search part').")
@click.option("--mode", type=click.Choice(["paper", "improved"]), default="paper", show_default=True,
              help="A* mode: 'paper' stops at the first wrong story; 'improved' spends the budget, keeps the hardest.")
@click.option("--refine", type=click.FloatRange(0, 1), default=None,
              help="Improved mode: share of the budget spent refining the hardest stories found (0-1; default 1: "
                   "fresh random stories mixed half and half with suffix and one-action edits of the hardest; 0: A* "
                   "frontier only).")
@click.option("--prune/--no-prune", default=True, show_default=True,
              help="Improved mode with --budget-unit calls: stop asking a story's questions once it cannot beat the "
                   "stories kept so far (saves calls for more candidates).")
@click.option("--scope", type=click.Choice(["auto", "setting", "story"]), default="auto", show_default=True,
              help="'setting': one search spends the setting budget and keeps its N hardest distinct stories "
                   "(improved A*, or pooled over-generation); 'story': one search per story slot (the paper's); "
                   "'auto': setting for improved A*, story otherwise.")
@click.option("--max-similarity", type=click.FloatRange(0, 1), default=None,
              help="Cap on the shape similarity (names replaced by roles) of two kept stories of a setting "
                   "(default 0.6; 1 = no cap). Kept stories also take distinct contexts first.")
@click.option("--g", "g_variant", type=click.Choice(["acc", "acc-int", "acc2", "acc2-int"]), default="acc",
              show_default=True, help="Objective: accuracy on (interesting) first- or second-order questions.")
@click.option("--k", type=click.IntRange(1), default=3, show_default=True, help="Actions added per neighbour.")
@click.option("--check", type=click.Choice(["strict", "substring"]), default="strict", show_default=True)
@click.option("--contexts", default="bank", show_default=True, help="'bank', 'default' or a contexts file.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--max-connections", type=click.IntRange(1), default=None, help="Concurrent model calls, all worker processes together (Inspect's limit).")
@click.option("--max-retries", type=click.IntRange(0), default=None,
              help="Maximum number of times to retry a model call (Inspect's; default unlimited).")
@click.option("--timeout", type=click.IntRange(1), default=None,
              help="Model call timeout in seconds, retries included (Inspect's; default none): a model that cannot "
                   "be reached ends the search within it.")
@click.option("--shard", default=None, metavar="K/N",
              help="Search only shard K of N of the grid (every N-th setting from the K-th), e.g. on N machines; "
                   "the N outputs together are the unsharded run's (export-training reads them all). auto/N: K "
                   "from a Kubernetes Indexed Job's or a Slurm array's task index.")
@click.option("--parallel-settings", type=click.IntRange(1), default=None,
              help="Settings searched at once (default: 4, or --workers when more, so every worker has one).")
@click.option("--workers", default="all", show_default=True, metavar="N|all",
              help="Processes for the search's CPU work ('all': every core; 1: none, all in this one); the output is "
                   "the same for any N (docs/design-notes/scale.md).")
@click.option("--no-cache", is_flag=True, help="Do not use Inspect's response cache.")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Output directory (resumable).")
@click.option("--export-hf", "export_hf", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Also write the found stories as a Hugging Face dataset (save_to_disk) with a card.")
def search(model: str, model_args: tuple[str, ...], story_types: str, asymmetric: str, people: str, moves: str,
           rooms: int | None, stories_per_setting: int, budget: int, budget_unit: str, budget_per_setting: int | None,
           method: str, mode: str, refine: float | None, prune: bool, scope: str, max_similarity: float | None,
           g_variant: str, k: int, check: str, contexts: str, seed: int, max_connections: int | None,
           max_retries: int | None, timeout: int | None, shard: str | None, parallel_settings: int | None, workers: str, no_cache: bool, out_dir: Path,
           export_hf: Path | None) -> None:
    """Search adversarial stories against a model, for every setting of a grid."""
    from tombench.dsl import settings_grid
    from tombench.generators.exploretom.search import run_options
    from tombench.generators.exploretom.search.registry import describe
    from tombench.generators.exploretom.search.runner import RunConfigMismatch, prepare_out_dir
    from tombench.kit.options import MAX_MOVES, people_limit, rooms_limit  # imports inspect_ai: not at --help
    from tombench.kit.outputs import exclusive_lock, writable_dir

    try:
        types = run_options.story_types(story_types, asymmetric)  # type: ignore[arg-type]
    except ValueError as e:
        raise UserError(str(e)) from None
    ctxs = _contexts(contexts)
    ps, ms = checked_ints(people, "people", 1, people_limit(ctxs)), checked_ints(moves, "moves", 1, MAX_MOVES)
    rooms = None if rooms is None else checked_int(rooms, "rooms", 1, rooms_limit(ctxs))
    shard_kn = _shard(shard)
    indices, settings = run_options.shard_grid(settings_grid(types, ps, ms, rooms), shard_kn)
    if not settings:
        raise UserError(f"shard {shard_kn[0]}/{shard_kn[1]} has no settings: the grid has fewer than {shard_kn[0]} "
                        "settings")
    margs = _model_args(model_args)
    n_workers = _workers(workers)
    parallel_settings = parallel_settings or max(4, n_workers)
    try:
        run = run_options.run_config(
            stories_per_setting=stories_per_setting, budget=budget, budget_unit=budget_unit,
            budget_per_setting=budget_per_setting, method=method, mode=mode, refine=refine, prune=prune, scope=scope,
            max_similarity=max_similarity, g=g_variant, k=k, check=check, seed=seed, model=model, contexts_id=contexts)
    except ValueError as e:
        raise UserError(str(e)) from None
    answer = _make_answerer(model, margs, not no_cache, max_connections=max_connections, max_retries=max_retries,
                            timeout=timeout)  # a model typo fails before --out is written
    if export_hf is not None:
        writable_dir(export_hf, "--export-hf")  # fail before the search, not after it
    # one writer per --out: a second `tombench search` on the same folder would write every story twice
    with exclusive_lock(out_dir, "tombench search", "--out"):
        try:
            prepare_out_dir(out_dir, run)
        except RunConfigMismatch as e:
            raise UserError(str(e)) from None
        console = Console(width=max(Console().width, 110))
        results = _run_with_progress(console, settings, ctxs, answer, run, out_dir, parallel_settings, indices,
                                     n_workers)
        _print_summary(console, results, f"{model} ({describe(run.search)})", stories_per_setting, out_dir)
        if export_hf is not None:
            n = export_hf_dataset(out_dir / "stories.jsonl", export_hf, model=model)
            console.print(f"wrote a Hugging Face dataset of {n} stories to {export_hf}")


def _shard(value: str | None) -> tuple[int, int]:
    """--shard K/N as (K, N), or one line (the check the tasks' `-T shard=` share)."""
    from tombench.kit.errors import OptionError
    from tombench.kit.options import check_shard

    try:
        return check_shard("--shard", value)
    except OptionError as e:
        raise UserError(str(e)) from None


def _workers(value: str) -> int:
    """--workers N or 'all' as a number of processes, or one line (the check the task's `-T workers=` shares)."""
    from tombench.kit.errors import OptionError
    from tombench.kit.options import check_workers

    try:
        return check_workers("--workers", value)
    except OptionError as e:
        raise UserError(str(e)) from None


def _model_args(pairs: tuple[str, ...]) -> dict[str, str]:
    """-M KEY=VALUE options as a dict, or a one-line error."""
    margs = {}
    for kv in pairs:
        key, sep, val = kv.partition("=")
        if not sep:
            raise UserError(f"--model-arg must be KEY=VALUE, got {kv!r}")
        margs[key] = val
    return margs


def _run_with_progress(console: Console, settings: list[Setting], ctxs: list[Context], answer: Answerer,
                       run: RunConfig, out_dir: Path, parallel_settings: int,
                       indices: list[int] | None = None, workers: int = 1) -> list[SettingProgress]:
    """Run the searches under two live bars (settings done; budget spent), their results per setting. An interrupt
    or an unreachable model is a one-line error."""
    from tombench.generators.exploretom.search.heap import search_gc
    from tombench.generators.exploretom.search.pool import JobKilledWorker
    from tombench.generators.exploretom.search.runner import run_searches

    calls = run.search.budget_unit == "calls"
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[info]}"), TimeElapsedColumn(), console=console) as progress:
        t_settings = progress.add_task("settings", total=len(settings), info="")
        t_nodes = progress.add_task("budget (model calls)" if calls else "nodes evaluated",
                                    total=run.setting_budget * len(settings), info="")
        state: dict[str, SettingProgress] = {}

        def on_update(p: SettingProgress) -> None:
            state[p.setting.id] = p
            done = sum(1 for x in state.values() if x.done)
            spent = sum(x.spent for x in state.values())
            calls_made = sum(x.model_calls for x in state.values())
            found = [g for x in state.values() for g in x.found]
            best = f"best accuracy {min(found):.2f}" if found else "no story yet"
            progress.update(t_settings, completed=done, info=f"{len(found)} adversarial stories kept")
            progress.update(t_nodes, completed=calls_made if calls else spent,
                            info=f"{spent} nodes, {calls_made} model calls, {best}")

        try:
            with search_gc():
                return aio.run(run_searches(settings, ctxs, answer, run, out_dir,
                                                parallel_settings=parallel_settings, on_update=on_update,
                                                setting_indices=indices, workers=workers))
        except KeyboardInterrupt:
            raise UserError(f"interrupted; run the same command again to resume from {out_dir}") from None
        except JobKilledWorker as e:  # one setting's search kills its worker: the others' are written
            raise UserError(str(e)) from None
        except Exception as e:  # a model that cannot be reached or used (offline, no key) is a user error, not a crash
            line = model_failure(run.model, e)
            if line is None:
                raise
            raise UserError(line) from None


def _print_summary(console: Console, results: list[SettingProgress], title: str, stories_per_setting: int, out_dir: Path) -> None:
    """One row per setting (searches, stories found and kept, best accuracy, cost), then how many were filled."""
    table = Table(title=f"tombench search: {title}")
    for col in ("setting", "searches", "adversarial found", "kept", "best acc", "nodes", "model calls"):
        table.add_column(col, justify="right" if col != "setting" else "left")
    for p in results:
        table.add_row(p.setting.id, str(p.searches), str(p.candidates), f"{len(p.found)}/{p.wanted}",
                      "–" if p.best is None else f"{p.best:.2f}", str(p.spent), str(p.model_calls))
    console.print(table)
    filled = sum(p.filled for p in results)
    each = "1 adversarial story" if stories_per_setting == 1 else f"{stories_per_setting} adversarial stories each"
    console.print(f"{filled}/{len(results)} settings filled ({each}: the model got at least one question wrong); "
                  f"stories in {out_dir / 'stories.jsonl'}")


#: what an exception is called (or any behind it: a `RetryError`'s last try, a task group's) when the model cannot
#: be reached, or can be reached but not used: a user's to fix, one line
_UNREACHABLE = frozenset({"APIConnectionError", "APITimeoutError", "ConnectError", "ConnectTimeout",
                          "ConnectionError", "ConnectionRefusedError"})
_UNUSABLE = frozenset({"AuthenticationError", "PermissionDeniedError", "NotFoundError", "PrerequisiteError"})


def model_failure(model: str, e: BaseException) -> str | None:
    """The one line for a search ended by `e` where `e` says `model` cannot be reached or used, else None. Looks
    behind `e`: inside exception groups (a batch's calls run in a task group), at causes and contexts, and at what a
    search worker recorded of the exceptions behind a failure (`search.worker_errors.causes`)."""
    from tombench.generators.exploretom.search.worker_errors import causes

    for name, text in causes(e):
        for names, what in ((_UNREACHABLE, "cannot reach"), (_UNUSABLE, "cannot use")):
            if name in names:
                return f"{what} model {model}: {name}" + (f": {text}" if text else "")
    return None


def _make_answerer(model: str, model_args: dict, cache: bool, **config: int | None):
    from tombench.commands._common import resolve_model
    from tombench.tasks.exploretom.answerer import inspect_answerer

    return inspect_answerer(resolve_model(model, model_args=model_args, **config), cache=cache)


_CARD = """---
license: cc-by-nc-4.0
tags: [theory-of-mind, exploretom, tombench, adversarial]
---
# Adversarial ExploreToM stories

Stories found by `tombench search` against **{model}** ({n} stories, {settings} settings). Each row is one story:
its structure (`text`), the story as replayable actions plus context (`story_json`, `tombench.dsl.Story.from_dict`),
every question with its tracker answer and `interesting` / `false_belief` flags, and the target model's answers to
the searched questions (`answers_json`). Labels come from tombench's belief tracker, not from any model.

Stories found against one model must not be used as a fixed test of other models without saying so (ExploreToM's
authors' warning); use them for cross-model transfer (`tombench/exploretom_transfer`) or training.
"""


def export_hf_dataset(stories_path: Path, out: Path, *, model: str = "") -> int:
    """Write the found stories as a `datasets` dataset (save_to_disk) with a README card; returns the row count."""
    from datasets import Dataset

    from tombench.generators.exploretom.search.runner import read_jsonl

    rows = []
    for r in read_jsonl(stories_path):
        rows.append({
            "id": r["id"], "setting_id": r["setting_id"], "story_type": r["story_type"], "action_set": r["action_set"],
            "asymmetric": r["asymmetric"], "people": r["people"], "moves": r["moves"], "rooms": r["rooms"],
            "model": r["model"], "method": r["method"], "g": r["g"], "text": r["text"],
            "questions": [{k: q[k] for k in ("question", "expected_answer", "order", "kind", "interesting",
                                             "false_belief")} for q in r["questions"]],
            "story_json": json.dumps(r["story"]), "answers_json": json.dumps(r["answers"]),
        })
    if not rows:
        raise UserError(f"no stories in {stories_path} to export")
    ds = Dataset.from_list(rows)
    ds.save_to_disk(str(out))
    (out / "README.md").write_text(_CARD.format(model=model or "?", n=len(rows),
                                                settings=len({r["setting_id"] for r in rows})))
    return len(rows)
