"""How the ToM-Synth option-letter rewrite and the analysis check fare, now and at an earlier commit.

    python benchmarks/bench_tomsynth_letters.py                   # today's rewrite and check
    python benchmarks/bench_tomsynth_letters.py --before d725ed9  # also the rewrite and check of an earlier commit
    python benchmarks/bench_tomsynth_letters.py --misses          # list wrong rewrites and refusals
    python benchmarks/bench_tomsynth_letters.py --history         # the figures of the first rewrite (ea1aff7^)

Prints the two Markdown tables of docs/design-notes/tomsynth.md ("Option letters in analyses"). Rewrites: every analysis under
all 24 permutations of A-D, counted wrong when an option reference is not moved or another capital is; a refusal
(`UnreadableLetters`) is counted apart. The analyses are the hand-labelled ones of
`tests/generators/tomsynth/data/letter_analyses.txt` (written with the fix, held out after it, held out after the
check's second fix) and the generated ones
of `tests/generators/tomsynth/test_letters.py`, `analyses(1000, seed=7)`. Check: a rewrite is flagged when the
check of its commit fails it (`rewrite_contradicts` today; `analysis_verdict` + `claims_follow` before, as
`qc.analysis_check` ran them); contradictions are built by moving the options with one permutation and the
analysis with another (all 24 x 23 pairs whose rewrites differ). The thresholds are tested in
`tests/generators/tomsynth/test_letter_analyses.py`.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import types
from collections.abc import Callable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.generators.tomsynth import letter_analyses as L  # noqa: E402
from tests.generators.tomsynth.test_letters import FALSE_FRIENDS, analyses, moved, render, slots  # noqa: E402
from tests.generators.tomsynth.test_qc import make_item  # noqa: E402
from tombench.generators.tomsynth import letters as now  # noqa: E402
from tombench.generators.tomsynth import qc  # noqa: E402

Row = tuple[str, Callable[[Mapping[str, str]], str], str]  # (text, right rewrite under a mapping, key)
Check = Callable[[str, str, Mapping[str, str], str], bool]


def letters_at(rev: str, path: str = "tombench/generators/tomsynth/letters.py") -> types.ModuleType:
    """A module of the package as it was at git revision `rev` (its imports come from today's package: letters.py
    imports only the standard library, and qc.py's imports have not changed since the first rewrite)."""
    source = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=ROOT, check=True, capture_output=True,
                            text=True).stdout
    module = types.ModuleType(f"at_{rev}_{Path(path).stem}".replace("^", "_"))
    sys.modules[module.__name__] = module  # dataclasses look their module up
    exec(compile(source, f"{path}@{rev}", "exec"), module.__dict__)  # noqa: S102 - our own code at `rev`
    return module


def check_of(module: types.ModuleType) -> Check:
    """The check `qc.analysis_check` ran on a rewrite with this commit's letters.py."""
    if hasattr(module, "rewrite_contradicts"):
        return module.rewrite_contradicts
    if not hasattr(module, "claims_follow"):
        return lambda b, a, m, k: module.analysis_verdict(a, k) == "contradicts"
    return lambda b, a, m, k: module.analysis_verdict(a, k) == "contradicts" or not module.claims_follow(b, a, m)


def datasets() -> dict[str, list[Row]]:
    rows = L.load()
    generated = [(render(s, ls, n), (lambda m, s=s, ls=ls, n=n: render(s, moved(ls, m), n)), ls["k"])
                 for s, ls, n in analyses(1000, seed=7)]
    return {
        "labelled, written with the fix": [(r.text(), r.text, r.key) for r in rows if r.part == "fix"],
        "labelled, held out": [(r.text(), r.text, r.key) for r in rows if r.part == "held-out"],
        "labelled, held out 2": [(r.text(), r.text, r.key) for r in rows if r.part == "held-out 2"],
        "generated, analyses(1000, seed=7)": generated,
    }


def rewrites(rows: list[Row], module: types.ModuleType, misses: bool) -> dict[str, int]:
    refused = (module.UnreadableLetters,) if hasattr(module, "UnreadableLetters") else ()
    out = {"rewrites": 0, "wrong": 0, "refused": 0, "analyses wrong": 0, "analyses refused": 0}
    for text, right, _ in rows:
        bad = ref = 0
        for m in L.PERMUTATIONS:
            try:
                got = module.remap_letters(text, m)
            except refused:
                ref += 1
                continue
            bad += got != right(m)
            if misses and got != right(m):
                print(f"WRONG {got!r}\n   want {right(m)!r}")
        if misses and ref:
            print(f"REFUSED {ref}/24 {text!r}")
        out["rewrites"] += 24
        out["wrong"] += bad
        out["refused"] += ref
        out["analyses wrong"] += bad > 0
        out["analyses refused"] += ref > 0
    return out


def _wrong_mappings(m: Mapping[str, str], everyone: bool) -> list[dict[str, str]]:
    """The mappings a broken rewrite might apply instead of `m`: all other 23, or `m` after each of the 6 swaps of
    two letters (enough for the 1,000 generated analyses, where all pairs take minutes)."""
    if everyone:
        return [p for p in L.PERMUTATIONS if p != m]
    swaps = [(a, b) for i, a in enumerate(L.LETTERS) for b in L.LETTERS[i + 1 :]]
    return [{k: {a: b, b: a}.get(v, v) for k, v in m.items()} for a, b in swaps]


def checks(rows: list[Row], module: types.ModuleType, everyone: bool) -> dict[str, int]:
    """Right rewrites (not refused) the check fails, and contradictions built with wrong mappings: how many the
    check flags, and how many the text alone flags (`analysis_verdict`: a claim of another option or against the
    key)."""
    check = check_of(module)
    out = {"false alarms": 0, "contradictions": 0, "flagged": 0, "flagged from the text alone": 0}
    for text, right, key in rows:
        for m in L.PERMUTATIONS:
            out["false alarms"] += not module.unreadable_letters(text) and check(text, right(m), m, m[key])
            for bad in _wrong_mappings(m, everyone):
                after = right(bad)
                if after != right(m):
                    out["contradictions"] += 1
                    out["flagged"] += check(text, after, m, m[key])
                    out["flagged from the text alone"] += module.analysis_verdict(after, m[key]) == "contradicts"
    return out


def earlier_flagged(rows: list[Row], earlier: types.ModuleType) -> tuple[int, int, int]:
    """The earlier rewrite's wrong outputs: how many, flagged by today's check, flagged by the earlier check."""
    wrong = today = then = 0
    old_check = check_of(earlier)
    for text, right, key in rows:
        for m in L.PERMUTATIONS:
            if (got := earlier.remap_letters(text, m)) != right(m):
                wrong += 1
                today += now.rewrite_contradicts(text, got, m, m[key])
                then += old_check(text, got, m, m[key])
    return wrong, today, then


FIRST = "ea1aff7^"  # the commit before the first option-letter rule: remap_letters lived in qc.py


def history() -> None:
    """The figures docs/design-notes/tomsynth.md gives for the first rewrite (qc.py at ea1aff7^) on `analyses(1000, seed=7)`,
    with and without its false-friend sentences, the checks of that time (ea1aff7: claims against the key;
    7a4f945: claims that follow their options too) and today's, and a stage-2 run on 120 of those analyses."""
    first = letters_at(FIRST, "tombench/generators/tomsynth/qc.py")
    checks_then = {rev: check_of(letters_at(rev)) for rev in ("ea1aff7", "7a4f945")}
    lines = []
    for name, keep in (("with false friends", lambda _: True), ("without", lambda x: x not in FALSE_FRIENDS)):
        wrong, bad, flagged = 0, set(), dict.fromkeys([*checks_then, "today"], 0)
        for i, (sentences, ls, n) in enumerate(analyses(1000, seed=7)):
            kept = [x for x in sentences if keep(x)]
            text = render(kept, ls, n)
            for m in L.PERMUTATIONS:
                if (got := first.remap_letters(text, m)) != render(kept, moved(ls, m), n):
                    wrong += 1
                    bad.add(i)
                    for rev, check in [*checks_then.items(), ("today", now.rewrite_contradicts)]:
                        flagged[rev] += check(text, got, m, m[ls["k"]])
        lines.append([name, 24000, wrong, len(bad), *flagged.values()])
    print(_table(["analyses(1000, seed=7)", "rewrites", f"wrong @{FIRST}", "analyses wrong",
                  "flagged by the check @ea1aff7", "@7a4f945", "today"], lines), end="\n\n")
    alone = []
    for sentence in FALSE_FRIENDS:
        text = sentence.format(n="Ann")
        alone.append([sentence, sum(first.remap_letters(text, m) != text for m in L.PERMUTATIONS)])
    print(_table(["false-friend sentence alone", f"rewritten @{FIRST} (of 24)"], alone), end="\n\n")
    print(_table(["stage 2 on 120 analyses", "moved", f"broken @{FIRST}", "contradicts (today's check)",
                  "broken today", "consistent today"], [stage2_run(first, with_friends) for with_friends in (False, True)]))


def stage2_run(first: types.ModuleType, with_friends: bool) -> list[object]:
    """`analyses(120, seed=7)`, keys B and C in turn (generators lean to B/C), balanced by stage 2
    (`random.Random(0)`) with the first rewrite and with today's: analyses broken, and today's check."""
    rng = random.Random(7)
    cases = []
    for i, (sentences, _, n) in enumerate(analyses(120, seed=7)):
        kept = [x for x in sentences if with_friends or x not in FALSE_FRIENDS]
        cases.append((kept, slots("BC"[i % 2], rng), n))
    items = [make_item(i, answer=ls["k"], analysis=render(s, ls, n)) for i, (s, ls, n) in enumerate(cases)]

    def broken(balanced: list) -> int:
        return sum(b.analysis != render(s, moved(ls, qc._moves(a, b)), n)
                   for (s, ls, n), a, b in zip(cases, items, balanced, strict=True))

    then = first.stage2_balance(items, random.Random(0))
    today = qc.stage2_balance(items, random.Random(0))
    moved_n = sum(a.answer != b.answer for a, b in zip(items, today, strict=True))
    return ["with false friends" if with_friends else "without", moved_n, broken(then),
            qc.analysis_check(then, before=items)["contradicts"], broken(today),
            qc.analysis_check(today, before=items)["consistent"]]


def _table(head: list[str], lines: list[list[object]]) -> str:
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    rows += ["| " + " | ".join(str(c) for c in line) + " |" for line in lines]
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", metavar="REV", help="also the rewrite and check at this git revision")
    parser.add_argument("--misses", action="store_true", help="print today's wrong rewrites and refusals")
    parser.add_argument("--history", action="store_true", help=f"only the figures of the first rewrite ({FIRST})")
    args = parser.parse_args()
    if args.history:
        history()
        return
    earlier = letters_at(args.before) if args.before else None
    data = datasets()
    head = ["analyses", "n", "rewrites"]
    if earlier is not None:
        head += [f"wrong @{args.before}", f"analyses wrong @{args.before}"]
    head += ["wrong", "refused", "analyses refused"]
    lines = []
    for name, rows in data.items():
        r = rewrites(rows, now, args.misses)
        cells: list[object] = [name, len(rows), r["rewrites"]]
        if earlier is not None:
            e = rewrites(rows, earlier, False)
            cells += [e["wrong"], e["analyses wrong"]]
        lines.append(cells + [r["wrong"], r["refused"], r["analyses refused"]])
    print(_table(head, lines), end="\n\n")
    head = ["analyses", "right rewrites failed", "wrong mappings", "contradictions built", "flagged",
            "flagged from the text alone"]
    if earlier is not None:
        head += [f"wrong rewrites @{args.before}", "flagged by today's check", f"flagged by the check @{args.before}"]
    lines = []
    for name, rows in data.items():
        everyone = not name.startswith("generated")
        c = checks(rows, now, everyone)
        cells = [name, c["false alarms"], "all 23" if everyone else "6 swaps", c["contradictions"], c["flagged"],
                 c["flagged from the text alone"]]
        if earlier is not None:
            cells += list(earlier_flagged(rows, earlier))
        lines.append(cells)
    print(_table(head, lines))


if __name__ == "__main__":
    main()
