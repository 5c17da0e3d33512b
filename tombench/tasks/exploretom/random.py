# inspect-evals-lint: ignore-file[main_file] -- ExploreToM's four tasks, one module each with its machinery
"""ExploreToM questions on random stories generated from a seed: offline, reproducible, the default main job.

Paper: Sclar et al., "Explore Theory of Mind: Program-guided adversarial data generation for theory of mind
reasoning" (ICLR 2025, https://arxiv.org/abs/2412.12175). The paper searches for stories adversarially (A*, §2.3)
and reports random isDesired stories as the baseline (§3, Table 1 "random"); this task is that baseline split, drawn
on the fly, so a run needs no data download, no search model and no network.

    inspect eval tombench/exploretom_random --model tombench/oracle
    inspect eval tombench/exploretom_random -T stories_per_setting=3 -T seed=7 --model openai/gpt-4o-mini
    inspect eval tombench/exploretom_random -T story_types=tomi,tomi+asymmetric -T false_belief_only=true --model ...
    inspect eval tombench/exploretom_random -T check=substring --model ...     # the original answer test

For every setting (story type x people x moves, the paper's 162-setting grid by default) it draws
`stories_per_setting` isDesired stories with `random.Random(derive_seed(seed, setting.id, k))`, each on a context
drawn from the built-in bank (or the one default context, or a contexts file), and asks all of each story's
questions of the requested ToM orders. Same arguments, same samples, same ids, on every machine.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample

from tombench.kit.errors import OptionError
from tombench.kit.evals import task_data
from tombench.kit.options import (
    MAX_MOVES,
    check_bool,
    check_int,
    check_ints,
    check_shard,
    in_shard,
    list_items,
    people_limit,
)
from tombench.scorers.story_questions import CheckMode, task_check, tom_answer
from tombench.tasks.shared.story_questions import HEADLINE, TOM_CONFIG, story_samples, tom_solver

__all__ = ["exploretom_random", "random_samples", "TASK_VERSION"]

TASK_VERSION = "1.0.0"
DATA = task_data(__file__, "exploretom_random")


def _contexts(contexts: str) -> list:
    from tombench.generators.exploretom.contexts import resolve_contexts

    return resolve_contexts(contexts)


def random_samples(
    *,
    story_types: Sequence[str],
    people: Sequence[int],
    moves: Sequence[int],
    stories_per_setting: int,
    seed: int,
    contexts: list,
    false_belief_only: bool = False,
    orders: Sequence[int] = (0, 1, 2),
    max_tries: int = 200,
    shard: tuple[int, int] = (1, 1),
) -> tuple[list[Sample], list[str]]:
    """The samples of the split, and the ids of settings for which no story could be drawn.

    A story is drawn with its own `random.Random(derive_seed(seed, setting.id, k))`; with `false_belief_only`, draws
    are repeated (same rng) until the story requires ToM (at least one interesting question, §5.3). Story ids are
    `seed{seed}|{setting.id}|s{k}`, sample ids `{story_id}|q{index:02d}`. `shard` (K, N): only every N-th setting
    of the grid from the K-th (`kit.options.in_shard`); each story's seed depends on its setting alone, so the N
    shards' samples are the unsharded split's.
    """
    from tombench.dsl import derive_seed, random_story, settings_grid

    samples: list[Sample] = []
    skipped: list[str] = []
    for j, setting in enumerate(settings_grid(story_types, people, moves)):
        if not in_shard(j, shard):
            continue
        for k in range(stories_per_setting):
            rng = random.Random(derive_seed(seed, setting.id, k))
            story = None
            for _ in range(max_tries):
                ctx = rng.choice(contexts)
                story = random_story(ctx, setting, rng, max_tries=max_tries)
                if story is None or not false_belief_only or story.requires_tom():
                    break
                story = None
            if story is None:
                skipped.append(setting.id)
                break
            story_id = f"seed{seed}|{setting.id}|s{k}"
            samples += story_samples(
                story, story_id=story_id, setting=setting, orders=orders, extra={"context_id": story.context.id}
            )
    return samples, skipped


@task
def exploretom_random(
    story_types: str | list[str] | None = None,
    people: int | list[int] | str | None = None,
    moves: int | list[int] | str | None = None,
    stories_per_setting: int = 1,
    seed: int = 0,
    contexts: str = "bank",
    false_belief_only: bool = False,
    question_orders: int | list[int] | str | None = None,
    check: CheckMode = "strict",
    cache: bool = False,
    shard: str | None = None,
) -> Task:
    """Random isDesired ExploreToM stories per setting, all their questions, scored with the one matcher.

    Args:
        story_types: the story types drawn (comma-separated, e.g. `tomi,tomi+asymmetric`; default: all 18).
        people: numbers of people p: integers from 1 to 6, 7 with `contexts=default` (comma-separated; default:
            2,3,4).
        moves: numbers of important actions m: integers from 1 to 15 (comma-separated; default: 2,3,4).
        stories_per_setting: stories drawn per setting, at least 1 (1: 162 stories, 3,605 questions).
        seed: the split's seed, any integer; every story has its own seed derived from it and the setting.
        contexts: the contexts stories are drawn on: `bank` (the built-in contexts), `default` (the one default
            context: it has no topics or object states, so FANToM and object-state story types are skipped and listed as
            `settings_skipped`) or a contexts `.json` / `.jsonl` file.
        false_belief_only: redraw until the story has an interesting question, so that it requires theory of mind
            (`true` or `false`).
        question_orders: the ToM orders asked: 0 (memory and state tracking), 1, 2 (comma-separated; default: all
            three).
        check: how answers are read: `strict` (tombench's whole-word matcher), `substring` (the original
            `expected in response.lower()`) or `judge` (a grader model: `--model-role grader=...`).
        cache: use Inspect's response cache for the model's calls (`true` or `false`).
        shard: `K/N` (1 <= K <= N) draws every N-th setting of the grid from the K-th (one of N machines,
            docs/how-to/scale.md#shards-one-grid-over-several-processes-or-machines); the N shards' logs are one run
            for `tombench report` and `tombench leaderboard push`. `auto/N` takes K from a Kubernetes Indexed Job's
            or a Slurm array's task index (`kit.options.scheduler_shard`). Default: the whole grid.
    """

    false_belief_only = check_bool("false_belief_only", false_belief_only)
    cache = check_bool("cache", cache)
    shard_kn = check_shard("shard", shard)
    from tombench.dsl import STORY_TYPES
    from tombench.dsl.context import ContextError

    mode = task_check(check)
    types = list_items(story_types) or list(STORY_TYPES)
    bad = [t for t in types if t not in STORY_TYPES]
    if bad:
        raise OptionError(f"Invalid story_types value(s): {bad}. Must be among: {list(STORY_TYPES)}")
    orders = check_ints("question_orders", question_orders, 0, 2, default=(0, 1, 2))
    stories_per_setting = check_int("stories_per_setting", stories_per_setting, lo=1)
    seed = check_int("seed", seed)
    try:
        ctxs = _contexts(contexts)
    except ContextError as e:
        raise OptionError(f"exploretom_random contexts: {e}") from None
    people_ = check_ints("people", people, 1, people_limit(ctxs), default=(2, 3, 4))
    moves_ = check_ints("moves", moves, 1, MAX_MOVES, default=(2, 3, 4))

    samples, skipped = random_samples(
        story_types=types,
        people=people_,
        moves=moves_,
        stories_per_setting=stories_per_setting,
        seed=seed,
        contexts=ctxs,
        false_belief_only=false_belief_only,
        orders=orders,
        shard=shard_kn,
    )
    if not samples:
        hint = "" if contexts == "bank" else "; try -T contexts=bank"
        raise OptionError(
            f"exploretom_random: no story could be drawn for any setting (people={people_}, moves={moves_}) "
            f"with contexts={contexts!r}{hint}"
        )
    return Task(
        dataset=MemoryDataset(samples, name="exploretom_random", location=f"seed={seed}"),
        solver=tom_solver(cache=cache),
        scorer=tom_answer(check=mode),
        config=TOM_CONFIG,
        version=TASK_VERSION,
        headline_metric=HEADLINE,
        metadata={
            "benchmark": "exploretom",
            "split": "random",
            "seed": seed,
            "check": mode,
            "contexts": contexts,
            "false_belief_only": false_belief_only,
            "settings_skipped": skipped,
            **({"shard": f"{shard_kn[0]}/{shard_kn[1]}"} if shard_kn[1] > 1 else {}),
        },
    )
