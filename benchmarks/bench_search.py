"""A* (paper and improved modes) vs over-generate-and-filter at equal budget, against offline baseline targets.

    python benchmarks/bench_search.py                       # 12 settings x 5 stories x 200 calls, 3 targets
    python benchmarks/bench_search.py --settings 6 --stories 3 --targets recency
    python benchmarks/bench_search.py --model openai-api/local/smollm2-135m   # any Inspect model as an extra target
    python benchmarks/bench_search.py --latency-only        # wall time with 0.2 s injected latency, 16 connections
    python benchmarks/bench_search.py --repeats 3 --floor-mult 10 --no-latency --methods "over-generate, pooled,A* improved"

For each target and method, every setting gets the same budget (stories x budget per story, in model calls by
default; `--budget-unit nodes` for the paper's node evaluations) and the runner keeps its `stories` hardest
adversarial stories (the model got at least one question wrong), distinct: one per context, no two shapes more alike
than `--max-similarity` (tombench.generators.exploretom.search.diversity). Reported per method:

* mean acc: the kept stories' first-order accuracy, a missing story counting as 1.0 (lower = harder); the gain over
  pooled over-generation (one over-generation with the whole setting budget keeping its best N: the fair baseline)
  and the share of the headroom to the floor it takes (floor: per setting, the hardest kept set of every run,
  over-generation with `--floor-mult` x the budget included; with `--repeats`, each method's mean over its runs);
* `--repeats R`: each method runs R times on the same settings with other run seeds (other slot contexts and
  draws); the table shows means and the standard errors of the mean accuracy and shape similarity (one run's kept
  set is partly luck: against the random target a setting's mean moves by 0.03-0.05 between seeds);
* fill: share of settings with all N stories;
* diversity: mean pairwise sentence Jaccard of each setting's kept stories (the issue's measure: stories in
  different contexts share no sentence) and mean pairwise *shape* similarity (names replaced by roles, so renaming
  does not count as diverse); lower = more diverse;
* transfer: the other targets' first-order accuracy on the kept stories (lower = hard beyond the target searched);
* what the numbers measure (issue #28 point 6): beside equal model calls, the CPU seconds each method spent (free
  draws cost no call but cost CPU: improved A* draws and screens many stories per call); beside the mean of
  per-story accuracies, the question-weighted accuracy of the kept stories and their questions per story (a story
  of few questions is likelier to be all wrong by chance, so a method that keeps shorter question sets looks harder
  on the per-story mean); against the `random` target, the held-out accuracy: the kept stories' questions asked
  again with fresh seeds. A target that guesses has nothing to find: the kept stories' accuracy is a selection
  effect (the search picked the stories the guesses happened to miss), and the held-out accuracy shows it
  (docs/design-notes/search.md, "What the numbers measure").

Prints tables; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import math
import random
import resource
import statistics
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from tombench.dsl import AnswerType, Prompt, Story, build_prompt, check_answer, settings_grid
from tombench.generators.exploretom.contexts import load_context_bank
from tombench.generators.exploretom.search.diversity import (
    DEFAULT_MAX_SIMILARITY,
    mean_pairwise,
    sentence_jaccard,
    shape_similarity,
    story_shape,
)
from tombench.generators.exploretom.search.evaluator import chosen_questions
from tombench.generators.exploretom.search.refinement import REFINE_SCREEN
from tombench.generators.exploretom.search.registry import method_names
from tombench.generators.exploretom.search.run_options import run_config
from tombench.generators.exploretom.search.runner import read_jsonl, run_searches

#: label -> (method, A* mode, scope, refine share or None for the method's default, prune, screen): experiment rows
#: (`bench_throughput` lists every registered method's presets)
METHODS = {
    "over-generate": ("over-generate", "paper", "story", None, True, 1),
    "over-generate, pooled": ("over-generate", "paper", "setting", None, True, 1),
    "A* paper": ("astar", "paper", "story", None, True, 1),
    "A* improved/story, no refine": ("astar", "improved", "story", 0.0, True, REFINE_SCREEN),
    "A* improved, no refine": ("astar", "improved", "setting", 0.0, True, REFINE_SCREEN),
    "A* improved, no prune": ("astar", "improved", "setting", None, False, REFINE_SCREEN),
    "A* improved, no screen": ("astar", "improved", "setting", None, True, 1),
    "A* improved": ("astar", "improved", "setting", None, True, REFINE_SCREEN),
}
BASELINE = "over-generate, pooled"
assert {m for m, *_ in METHODS.values()} <= set(method_names()), "a row names an unregistered method"


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


#: fresh seeds of the random target for the held-out accuracy (the searched target answers with seed 0)
HELD_OUT_SEEDS = (1, 2, 3, 4, 5)


def baseline_answerer(name: str, latency: float = 0.0, connections: int = 16, seed: int = 0):
    """A target answering with an offline baseline, optionally behind an injected per-call latency. `seed` only
    matters for `random` (its guess per prompt is seeded by the prompt and this seed)."""
    from tombench.models._baselines import answer

    sems: dict[int, asyncio.Semaphore] = {}  # one per event loop: each run_one is a fresh asyncio.run

    async def one(p: Prompt) -> str:
        if latency:
            sem = sems.setdefault(id(asyncio.get_running_loop()), asyncio.Semaphore(connections))
            async with sem:
                await asyncio.sleep(latency)
        return answer(name, p.user, seed=seed)

    async def answer_all(prompts: list[Prompt]) -> list[str]:
        return list(await asyncio.gather(*(one(p) for p in prompts)))

    return answer_all


def sample_settings(n: int, seed: int, story_types: list[str] | None = None):
    grid = [s for s in settings_grid() if story_types is None or s.story_type in story_types]
    return random.Random(seed).sample(grid, min(n, len(grid)))


def run_one(target, settings, contexts, method, mode, stories, budget, seed, parallel, unit="calls", scope="setting",
            width=4, g="acc", refine=None, prune=True, max_similarity=DEFAULT_MAX_SIMILARITY, screen=REFINE_SCREEN):
    run = dataclasses.replace(
        run_config(method=method, stories_per_setting=stories, budget=budget, seed=seed, scope=scope, mode=mode,
                   budget_unit=unit, g=g, prune=prune, max_similarity=max_similarity, screen=screen, refine=refine),
        expand_width=width)
    with tempfile.TemporaryDirectory() as tmp:
        t0, c0 = time.perf_counter(), _cpu()
        progress = asyncio.run(run_searches(settings, contexts, target, run, Path(tmp), parallel_settings=parallel))
        wall, cpu = time.perf_counter() - t0, _cpu() - c0
        found = read_jsonl(Path(tmp) / "stories.jsonl")
    by_setting: dict[str, list[dict]] = {}
    for r in found:
        assert r["g"] < 1, "the runner keeps adversarial stories only"
        by_setting.setdefault(r["setting_id"], []).append(r)
    if any(len(v) > stories for v in by_setting.values()):
        raise AssertionError("the runner kept more stories than asked")
    accs, lengths, sent, shape, ctxs = [], [], [], [], []
    right = asked = 0
    per_setting, per_setting_sim = {}, {}
    filled = 0
    for s in settings:
        best = sorted(by_setting.get(s.id, []), key=lambda r: r["g"])
        filled += len(best) >= stories
        # a slot with no adversarial story counts as accuracy 1.0, the same for every method
        slots = [r["g"] for r in best] + [1.0] * (stories - len(best))
        per_setting[s.id] = statistics.mean(slots)
        accs += slots
        for r in best:
            right += sum(1 for q in r["answers"] if q["correct"])
            asked += len(r["answers"])
        lengths += [sum(len(x) for x in r["story"]["sentences"]) for r in best]
        objs = [Story.from_dict(r["story"]) for r in best]
        if len(objs) >= 2:
            sent.append(mean_pairwise(objs, sentence_jaccard))
            shapes = [story_shape(x) for x in objs]
            shape.append(mean_pairwise(shapes, shape_similarity))
            per_setting_sim[s.id] = shape[-1]
        if objs:
            ctxs.append(len({r["context_id"] for r in best}))
    return {
        "found_in": {s.id for s in settings if by_setting.get(s.id)},
        "filled_in": {s.id for s in settings if len(by_setting.get(s.id, [])) >= stories},
        "acc": statistics.mean(accs),
        # over the kept stories only: right answers / questions asked, and questions per kept story
        "acc_q": right / asked if asked else float("nan"),
        "questions": asked / len(found) if found else float("nan"),
        "per_setting": per_setting,
        "per_setting_sim": per_setting_sim,
        "kept": [r for v in by_setting.values() for r in v],
        "stories": sum(len(v) for v in by_setting.values()),
        "fill": filled / len(settings),
        "sentence_jaccard": statistics.mean(sent) if sent else float("nan"),
        "shape_similarity": statistics.mean(shape) if shape else float("nan"),
        "contexts": statistics.mean(ctxs) if ctxs else float("nan"),
        "length": statistics.mean(lengths) if lengths else float("nan"),
        "calls": sum(p.model_calls for p in progress),
        "wasted": sum(p.wasted_calls for p in progress),
        "nodes": sum(p.spent for p in progress),
        "wall": wall,
        "cpu": cpu,
    }


def merge_runs(runs: list[dict]) -> dict:
    """Several runs of one method (other run seeds, same settings) as one row: means, the acc's standard error, every
    kept story (for transfer), a setting filled or found when it was in every run / in any run."""
    out = dict(runs[0])
    for key in ("acc", "acc_q", "questions", "fill", "sentence_jaccard", "shape_similarity", "contexts", "length",
                "cpu"):
        out[key] = statistics.mean(r[key] for r in runs)
    for key in ("calls", "wasted", "nodes", "stories"):
        out[key] = round(statistics.mean(r[key] for r in runs))
    out["wall"] = statistics.mean(r["wall"] for r in runs)
    out["acc_se"] = statistics.stdev(r["acc"] for r in runs) / len(runs) ** 0.5
    sims = [r["shape_similarity"] for r in runs if not math.isnan(r["shape_similarity"])]
    out["shape_similarity_se"] = statistics.stdev(sims) / len(sims) ** 0.5 if len(sims) > 1 else float("nan")
    out["per_setting"] = {k: statistics.mean(r["per_setting"][k] for r in runs) for k in runs[0]["per_setting"]}
    out["per_setting_sim"] = {k: statistics.mean(v) for k in runs[0]["per_setting"]
                              if (v := [r["per_setting_sim"][k] for r in runs if k in r["per_setting_sim"]])}
    out["kept"] = [x for r in runs for x in r["kept"]]
    out["found_in"] = set().union(*(r["found_in"] for r in runs))
    out["filled_in"] = set.intersection(*(set(r["filled_in"]) for r in runs))
    return out


def transfer_accuracy(records: list[dict], answerer, g: str = "acc") -> float:
    """Another target's accuracy on the kept stories' searched questions (mean over stories, as g)."""
    async def one(r: dict) -> float:
        story = Story.from_dict(r["story"])
        qs = chosen_questions(story, g)
        responses = await answerer([build_prompt(story.text, q.text) for q in qs])
        ok = 0
        for q, resp in zip(qs, responses, strict=True):
            cands = story.context.rooms if q.answer_type == AnswerType.ROOM else story.context.containers
            ok += check_answer(resp, q.answer, q.answer_type, cands, "strict", question=q.text).correct
        return ok / len(qs)

    async def all_() -> list[float]:
        return list(await asyncio.gather(*(one(r) for r in records)))

    return statistics.mean(asyncio.run(all_())) if records else float("nan")


def held_out_accuracy(records: list[dict], g: str = "acc") -> float:
    """The random target's accuracy on the kept stories' searched questions asked again with fresh seeds (mean over
    the seeds of the mean over stories): what the stories are worth against a guesser once the selection is gone."""
    return statistics.mean(transfer_accuracy(records, baseline_answerer("random", seed=s), g)
                           for s in HELD_OUT_SEEDS)


def _split_methods(value: str) -> list[str]:
    """Method labels contain commas ("A* improved, no refine"): match the known labels, longest first."""
    out, rest = [], value.strip()
    while rest:
        label = next((m for m in sorted(METHODS, key=len, reverse=True) if rest.startswith(m)), None)
        if label is None:
            raise SystemExit(f"unknown method in {rest!r}; choose from: {'; '.join(METHODS)}")
        out.append(label)
        rest = rest[len(label):].lstrip(" ,")
    return out


def _number(kind: type, low: float, high: float | None = None):
    """An argparse type: a `kind` number in [low, high], refused with a one-line message otherwise."""
    def parse(text: str):
        try:
            v = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if v < low or (high is not None and v > high):
            bound = f"at least {low}" if high is None else f"between {low} and {high}"
            raise argparse.ArgumentTypeError(f"must be {bound}, got {text}")
        return v
    return parse


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--settings", type=_number(int, 1), default=12, help="settings sampled from the 162-setting grid")
    ap.add_argument("--stories", type=_number(int, 1), default=5, help="stories per setting")
    ap.add_argument("--budget", type=_number(int, 1), default=200, help="budget per story, in --budget-unit")
    ap.add_argument("--budget-unit", choices=("calls", "nodes"), default="calls",
                    help="compare at equal model calls (default) or equal node evaluations (the paper's unit)")
    ap.add_argument("--targets", default="recency,primacy,random", help="offline baselines to search against")
    ap.add_argument("--model", action="append", default=[], help="an Inspect model as an extra target (repeatable)")
    ap.add_argument("--seed", type=int, default=0, help="samples the settings and seeds the first run")
    ap.add_argument("--repeats", type=_number(int, 1), default=1,
                    help="run every method this many times on the same settings (run seeds seed, seed+1000, ...) and "
                         "report the mean and its standard error: one run's kept set is partly luck")
    ap.add_argument("--parallel-settings", type=_number(int, 1), default=12)
    ap.add_argument("--story-types", default=None,
                    help="sample settings only of these comma-separated story types (e.g. all,all+asymmetric)")
    ap.add_argument("--methods", default="over-generate,over-generate, pooled,A* paper,A* improved",
                    help=f"comma-separated rows, from: {'; '.join(METHODS)}")
    ap.add_argument("--floor-mult", type=_number(int, 0), default=0,
                    help="also run pooled over-generation with this many times the budget; per setting, the hardest "
                         "kept set of all runs estimates the floor, and 'headroom taken' = (pooled over-gen - method) "
                         "/ (pooled over-gen - floor)")
    ap.add_argument("--g", default="acc", choices=("acc", "acc-int", "acc2", "acc2-int"),
                    help="the objective and the reported accuracy: first-order (acc) or second-order (acc2) questions, "
                         "-int: interesting ones only")
    ap.add_argument("--refine", type=_number(float, 0, 1), default=None,
                    help="improved A*: share of the budget for refinement (default: the method's)")
    ap.add_argument("--max-similarity", type=_number(float, 0, 1), default=DEFAULT_MAX_SIMILARITY,
                    help="cap on the shape similarity of two kept stories of a setting (1 = no cap)")
    ap.add_argument("--width", type=_number(int, 1), default=4, help="improved A*: nodes expanded per round (expand_width)")
    ap.add_argument("--per-setting", action="store_true", help="also print each setting's mean accuracy per method")
    ap.add_argument("--transfer-to", default="recency,primacy,random",
                    help="offline baselines that answer the stories found against each target (the target itself "
                         "is skipped)")
    ap.add_argument("--no-transfer", action="store_true", help="skip asking the other targets (transfer column)")
    ap.add_argument("--no-latency", action="store_true", help="skip the wall-time table")
    ap.add_argument("--latency-only", action="store_true")
    ap.add_argument("--latency", type=_number(float, 0), default=0.2)
    ap.add_argument("--connections", type=_number(int, 1), default=16)
    args = ap.parse_args()
    methods = _split_methods(args.methods)
    console = Console(width=240)
    types = [t.strip() for t in args.story_types.split(",")] if args.story_types else None
    settings = sample_settings(args.settings, args.seed, types)
    if not settings:
        ap.error(f"no setting of story types {types}")
    contexts = load_context_bank()

    def run(target, label, budget=args.budget, seed=args.seed):
        method, mode, scope, refine, prune, screen = METHODS[label]
        return run_one(target, settings, contexts, method, mode, args.stories, budget, seed,
                       args.parallel_settings, args.budget_unit, scope, args.width, args.g,
                       args.refine if refine is None else refine, prune, args.max_similarity, screen)

    def repeated(target, label):
        runs = [run(target, label, seed=args.seed + 1000 * i) for i in range(args.repeats)]
        return runs[0] if len(runs) == 1 else merge_runs(runs)

    if not args.latency_only:
        targets = [(t, baseline_answerer(t)) for t in args.targets.split(",") if t]
        if args.model:
            import tombench._registry  # noqa: F401
            from tombench.tasks.exploretom.answerer import inspect_answerer

            targets += [(m, inspect_answerer(m)) for m in args.model]
        table = Table(title=f"Search vs over-generation at equal budget: {args.settings} settings x {args.stories} "
                            f"stories x {args.budget} {args.budget_unit} (seed {args.seed}, max shape similarity "
                            f"{args.max_similarity}); kept stories' accuracy, a missing story counting as 1.0")
        for col in ("target", "method", "mean acc (lower=harder)", f"gain vs {BASELINE} (points)", "headroom taken",
                    "q-weighted acc (kept)", "questions / kept story", "held-out acc (fresh seeds)",
                    "fill", "fill (feasible)", "sentence Jaccard", "shape similarity", "contexts / setting",
                    "transfer acc", "mean length", "model calls", "CPU s", "wall s"):
            table.add_column(col, justify="right")
        for name, target in targets:
            rows = {label: repeated(target, label) for label in methods}
            floor = None
            if args.floor_mult:
                long = run(target, BASELINE, args.budget * args.floor_mult)
                floor = statistics.mean(
                    min([long["per_setting"][s.id]] + [r["per_setting"][s.id] for r in rows.values()])
                    for s in settings)
            # feasible: settings where some method found at least one adversarial story for this target (a setting
            # whose questions all have a single candidate answer has no goal at all: not a search failure)
            feasible = set().union(*(r["found_in"] for r in rows.values()))
            ref = rows.get(BASELINE)
            others = [(n, baseline_answerer(n)) for n in args.transfer_to.split(",") if n and n != name]
            for label, r in rows.items():
                gain = "–" if ref is None else f"{100 * (ref['acc'] - r['acc']):+.1f}"
                room = None if ref is None or floor is None else ref["acc"] - floor
                taken = "–" if not room else f"{(ref['acc'] - r['acc']) / room:.0%}"
                fill_f = f"{len(r['filled_in'] & feasible) / len(feasible):.0%}" if feasible else "–"
                tr = "–"
                if others and not args.no_transfer:
                    tr = " / ".join(f"{transfer_accuracy(r['kept'], t, args.g):.3f}" for _, t in others)
                acc = f"{r['acc']:.3f}" + (f" ± {r['acc_se']:.3f}" if "acc_se" in r else "")
                shape = f"{r['shape_similarity']:.3f}" + (f" ± {r['shape_similarity_se']:.3f}"
                                                          if "shape_similarity_se" in r else "")
                held = f"{held_out_accuracy(r['kept'], args.g):.3f}" if name == "random" and r["kept"] else "–"
                table.add_row(name, label, acc, gain, taken, f"{r['acc_q']:.3f}", f"{r['questions']:.1f}", held,
                              f"{r['fill']:.0%}", fill_f,
                              f"{r['sentence_jaccard']:.2f}", shape, f"{r['contexts']:.1f}",
                              tr, f"{r['length']:.1f}", str(r["calls"]), f"{r['cpu']:.1f}", f"{r['wall']:.1f}")
            if name == "random":
                console.print("random: the kept stories' accuracy is a selection effect (the guesses the search saw "
                              "happened to miss them); held-out acc asks their questions again with seeds "
                              f"{', '.join(map(str, HELD_OUT_SEEDS))}, what is left of it")
            if others and not args.no_transfer:
                console.print(f"{name}: transfer acc = accuracy of {' / '.join(n for n, _ in others)} on the stories "
                              f"found against {name}")
            if args.per_setting:
                detail = Table(title=f"{name}: each setting's {args.stories} kept stories: mean accuracy / mean "
                                     "pairwise shape similarity")
                detail.add_column("setting")
                for label in rows:
                    detail.add_column(label, justify="right")
                if floor is not None:
                    detail.add_column("floor", justify="right")
                for s in settings:
                    cells = [f"{r['per_setting'][s.id]:.3f} / {r['per_setting_sim'].get(s.id, float('nan')):.2f}"
                             for r in rows.values()]
                    if floor is not None:
                        cells.append(f"{min([long['per_setting'][s.id]] + [r['per_setting'][s.id] for r in rows.values()]):.3f}")
                    detail.add_row(s.id, *cells)
                console.print(detail)
            if floor is not None:
                console.print(f"{name}: estimated floor {floor:.3f} (hardest kept set per setting of every run, pooled "
                              f"over-generation with {args.floor_mult}x the budget included); headroom from "
                              f"{BASELINE}: {100 * (ref['acc'] - floor) if ref else float('nan'):.1f} points")
            infeasible = [s.id for s in settings if s.id not in feasible]
            if infeasible:
                console.print(f"{name}: no method found any adversarial story in {', '.join(infeasible)}")
        console.print(table)

    if args.no_latency:
        return
    # wall time against a slow model: is the search keeping the connections busy?
    table = Table(title=f"Wall time with {args.latency}s injected latency and {args.connections} connections "
                        "(bound = calls x latency / connections)")
    for col in ("method", "model calls", "of them wasted", "CPU s", "CPU ms / call", "wall s", "bound s",
                "wall / bound"):
        table.add_column(col, justify="right")
    target = baseline_answerer("recency", args.latency, args.connections)
    for label in methods:
        r = run(target, label)
        bound = r["calls"] * args.latency / args.connections
        table.add_row(label, str(r["calls"]), str(r["wasted"]), f"{r['cpu']:.1f}",
                      f"{1000 * r['cpu'] / r['calls']:.2f}" if r["calls"] else "–", f"{r['wall']:.1f}",
                      f"{bound:.1f}", f"{r['wall'] / bound:.2f}" if bound else "–")
    console.print(table)


if __name__ == "__main__":
    main()
