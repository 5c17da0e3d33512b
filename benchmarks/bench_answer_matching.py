"""Precision and recall of each answer check on the labelled set of real SmolLM2-135M answers (issue #19).

    python benchmarks/bench_answer_matching.py                   # strict and substring, per answer type
    python benchmarks/bench_answer_matching.py --before 98fe1f8  # also the strict matcher of an earlier commit
    python benchmarks/bench_answer_matching.py --misses          # list every response a check credits wrongly
    python benchmarks/bench_answer_matching.py --judge local --judge-limit 60   # -T check=judge, SmolLM2 grading
    python benchmarks/bench_answer_matching.py --judge openai/gpt-4o-mini       # any Inspect model as the grader

Prints the Markdown table of docs/explanation/answer-matching.md ("The labelled set"). Positive class: the response commits
to the expected answer (the label); precision = share of a check's credits that are right, recall = share of right
answers it credits; 95% Wilson intervals. The numbers are pinned in tests/dsl/test_answer_labels.py.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "dsl"))

import labelled as L  # noqa: E402


def matcher_at(rev: str) -> types.ModuleType:
    """`tombench/dsl/answers.py` as it was at git revision `rev` (it imports only the standard library)."""
    source = subprocess.run(["git", "show", f"{rev}:tombench/dsl/answers.py"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout
    module = types.ModuleType(f"answers_{rev}")
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(source, f"{rev}:answers.py", "exec"), module.__dict__)  # noqa: S102 - our own file at a revision
    return module


def judge_verdicts(grader: Any, rows: list[dict], log_dir: str) -> dict[str, tuple[bool, bool]]:
    """Run `tom_answer(check="judge")` on the stored responses with `grader` in the grader role.

    The model under test is never called: a solver puts each stored response in place of a generation, so only the
    grader runs. Returns {row id: (judge's verdict, whether the grader gave no grade and strict was used)}.
    """
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput
    from inspect_ai.solver import Generate, TaskState, solver

    import tombench._registry  # noqa: F401
    from tombench.scorers.story_questions import tom_answer

    @solver
    def stored_response():
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            state.output = ModelOutput.from_content("stored", state.metadata["response"])
            return state

        return solve

    samples = [
        Sample(id=r["id"], input=f"{r['story']}\n{r['question']} Short Answer.", target=r["expected"],
               metadata={"response": r["response"], "answer_type": r["answer_type"], "candidates": r["candidates"],
                         "question": r["question"]})
        for r in rows
    ]
    task = Task(dataset=samples, solver=stored_response(), scorer=tom_answer(check="judge"))
    (log,) = eval(task, model="tombench/random", model_roles={"grader": grader}, log_dir=log_dir, display="none",
                  max_connections=1)
    out = {}
    if log.status != "success":
        raise SystemExit(f"the judge run ended with status {log.status}: {log.error.message if log.error else ''}")
    for s in log.samples:
        score = s.scores["tom_answer"]
        out[str(s.id)] = (score.value == "C", bool(score.metadata.get("judge_failed")))
    return out


def judge_table(rows: list[dict], verdicts: dict[str, tuple[bool, bool]]) -> str:
    lines = ["| answer type | n | agreement with the labels | precision | recall | no grade (strict used) |",
             "|---|---|---|---|---|---|"]
    for atype in [*L.TYPES, "all"]:
        subset = [r for r in rows if atype in ("all", r["answer_type"]) and r["id"] in verdicts]
        agree = sum(verdicts[r["id"]][0] == L.truly_correct(r) for r in subset)
        c = L.confusion(subset, lambda r: verdicts[r["id"]][0])
        failed = sum(verdicts[r["id"]][1] for r in subset)
        lines.append(f"| {atype} | {len(subset)} | {L.rate(agree, len(subset))} | {L.rate(c.tp, c.tp + c.fp)} "
                     f"| {L.rate(c.tp, c.tp + c.fn)} | {failed} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", help="git revision whose strict matcher to add as 'strict@REV'")
    parser.add_argument("--misses", action="store_true", help="list the responses each check gets wrong")
    parser.add_argument("--judge", help="grader for check=judge: an Inspect model, or 'local' for the packaged SmolLM2")
    parser.add_argument("--judge-limit", type=int, default=None, help="grade a seeded sample of this many responses")
    args = parser.parse_args()
    rows = L.load()
    if args.judge:
        import random
        import tempfile

        graded = rows if args.judge_limit is None else random.Random(0).sample(rows, min(args.judge_limit, len(rows)))
        if args.judge == "local":
            from inspect_ai.model import GenerateConfig

            from tombench.local import local_server

            with local_server() as server:  # greedy, and a grade fits in 64 tokens after a sentence of reasons
                grader = server.get_model(config=GenerateConfig(temperature=0.0, max_tokens=64))
                verdicts = judge_verdicts(grader, graded, tempfile.mkdtemp())
        else:
            verdicts = judge_verdicts(args.judge, graded, tempfile.mkdtemp())
        print(f"check=judge with grader {args.judge} on {len(graded)} labelled responses")
        print()
        print(judge_table(graded, verdicts))
        return
    checks = dict(L.CHECKS)
    if args.before:
        old = matcher_at(args.before)
        checks[f"strict@{args.before}"] = lambda r: old.check_answer(
            r["response"], r["expected"], r["answer_type"], r["candidates"], "strict", question=r["question"]
        ).correct
    sources = sorted({r["source"] for r in rows})
    counts = ", ".join(f"{s}: {sum(r['source'] == s for r in rows)}" for s in sources)
    print(f"{len(rows)} labelled responses ({counts})")
    print()
    print(L.table(rows, checks))
    if args.misses:
        for name, check in checks.items():
            print(f"\n{name}: false credit (FP) and missed answers (FN)")
            for r in rows:
                truth, credit = L.truly_correct(r), check(r)
                if truth != credit:
                    kind = "FP" if credit else "FN"
                    print(f"  {kind} {r['id']} [{r['category']}] expected {r['expected']!r}: {r['response'][:120]!r}")


if __name__ == "__main__":
    main()
