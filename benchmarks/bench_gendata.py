"""Generated-data pipeline figures for docs/design-notes/infill-and-export.md (issue #17), offline, with scripted models.

    tombench search --model tombench/recency --story-types tomi,tomi-object-state --asymmetric plain --people 2,3 \
        --moves 2 --stories-per-setting 3 --budget 20 --out runs/astar
    tombench search ... --method random --out runs/random
    python benchmarks/bench_gendata.py runs/astar/stories.jsonl runs/random/stories.jsonl

Prints three tables: (1) merging the runs in both orders, infilling and exporting: stories kept, infilled texts on
the right story; (2) infill acceptance with a noisy scripted writer and judge: first attempt vs final, by candidates
and whole-story rounds; (3) `export-training --size N` at the Fig. 5 shares, with and without --balance.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

from tombench.generators.exploretom.export import FIG5_SHARES, ExportConfig, ExportError, collect_units, export_records
from tombench.generators.exploretom.infill import InfillConfig, infill_file
from tombench.generators.exploretom.story_inputs import load_story_inputs
from tombench.kit.format import percent


def _rng(prompt: str, seen: Counter) -> random.Random:
    seen[prompt] += 1
    return random.Random(hashlib.sha256(f"{seen[prompt]}|{prompt}".encode()).digest())


def scripted(noisy: bool):
    """A writer and a judge: faithful and honest, or (noisy) each candidate 10% a template leftover, 10% an unknown
    person, 25% leaky (the judge says it does not convey the step), and 10% of judge calls answered 'maybe'."""
    seen: Counter = Counter()

    async def writer(prompt: str) -> str:
        if "TWO-SENTENCE" in prompt:
            return "The room was quiet and tidy. Sunlight lay across the floor."
        if "CHARACTERS GOALS" in prompt:
            return ""
        info = re.search(r"NEW ACTION OR INFORMATION TO INCLUDE: (.*)", prompt).group(1)
        k = len(re.findall(r"^STORY CONTINUATION: <fill>", prompt, re.M))
        rng = _rng(prompt, seen)
        cands = []
        for _ in range(k):
            x = rng.random() if noisy else 1.0
            cands.append(
                f"Then {{someone}} acted: {info}" if x < 0.10 else f"Zed looked on. {info}" if x < 0.20
                else f"LEAKY {info}" if x < 0.45 else info
            )
        return "\n\n".join(f"STORY CONTINUATION: {c}" for c in cands)

    async def judge(prompt: str) -> str:
        rng = _rng(prompt, seen)
        if noisy and rng.random() < 0.10:
            return "Maybe; it is hard to say."
        lines = []
        for m in re.finditer(r"^(\d+)\. (.*)$", prompt, re.M):
            q = m.group(2)
            expected_no = q.startswith(("Does the new text introduce", "Does the new text call", "Does the text",
                                        "Does the new text suggest", "Does the new text include", "In the new text"))
            verdict = "no" if expected_no else "yes"
            if "introduce a character" in q and "Zed" in prompt.split("NEW TEXT:")[-1]:
                verdict = "yes"
            if q.startswith("Does the new text convey") and "LEAKY" in prompt.split("NEW TEXT:")[-1]:
                verdict = "no"
            lines.append(f"{m.group(1)}: {verdict}")
        return "\n".join(lines)

    return writer, judge


def merge_table(paths: list[Path], tmp: Path) -> None:
    print("\n(1) merging runs, infilling, exporting (faithful scripted writer, honest judge)")
    print("| order | story lines | distinct stories | units | infilled | infilled text on another story |")
    print("|---|---|---|---|---|---|")
    for order in (paths, paths[::-1]):
        merged = tmp / "merged.jsonl"
        merged.write_text("".join(p.read_text() for p in order))
        items, _ = load_story_inputs(merged)
        out = tmp / "infilled.jsonl"
        out.unlink(missing_ok=True)
        writer, judge = scripted(noisy=False)
        asyncio.run(infill_file(writer, merged, out, judge=judge, config=InfillConfig(narration=False, goals=False)))
        units, _ = collect_units([*order, out])
        wrong = sum(1 for u in units for i in u.infills if i.text != u.story.text)
        names = " + ".join(p.parent.name for p in order)
        print(f"| {names} | {len(items)} | {len({i.digest for i in items})} | {len(units)} | "
              f"{sum(bool(u.infills) for u in units)} | {wrong} |")


def acceptance_table(paths: list[Path], tmp: Path) -> None:
    print("\n(2) infill acceptance, noisy scripted writer and judge (first attempt = the paper's single attempt)")
    print("| candidates k | step attempts | story attempts | stories | first attempt | final | final label checks "
          "passed | model calls |")
    print("|---|---|---|---|---|---|---|---|")
    src = tmp / "src.jsonl"
    src.write_text("".join(p.read_text() for p in paths))
    for k, sa, ra in ((1, 1, 1), (3, 1, 1), (3, 1, 3), (3, 2, 1), (3, 2, 3), (5, 1, 3)):
        out = tmp / f"acc_{k}_{sa}_{ra}.jsonl"
        out.unlink(missing_ok=True)
        writer, judge = scripted(noisy=True)
        cfg = InfillConfig(candidates=k, step_attempts=sa, story_attempts=ra, narration=False, goals=False)
        rep = asyncio.run(infill_file(writer, src, out, judge=judge, config=cfg))
        print(f"| {k} | {sa} | {ra} | {rep.final_of} | {percent(rep.first_round_ok, rep.first_round_of)} | "
              f"{percent(rep.final_ok, rep.final_of)} | {percent(rep.final_passed, rep.final_checks)} | "
              f"{rep.model_calls} |")
    units, _ = collect_units([src, out])
    recs, st = export_records(units, ExportConfig(text="infilled", balance=True))
    by_unit = {u.id: u for u in units}
    checked = sum(
        any((r["question"], r["answer"]) in (i.verified or ()) for i in by_unit[r["story_id"]].infills if i.text == r["text"])
        for r in recs
    )
    print(f"\nbalanced export of the last run's infilled texts: {st.records} records, by order {st.by_order}; "
          f"labels confirmed by the final judge: {checked}/{st.records}; labels left out as unconfirmed: "
          f"{st.unconfirmed_labels}")


def fig5_table(paths: list[Path]) -> None:
    print("\n(3) export-training --size N at the Fig. 5 shares (raw text)")
    print("| balance | size | share | records | ToM records | ToM stories | types (records) |")
    print("|---|---|---|---|---|---|---|")
    units, _ = collect_units(paths)
    for balance in (False, True):
        for size in (300, 1000):
            for share in FIG5_SHARES:
                try:
                    recs, st = export_records(units, ExportConfig(text="raw", size=size, tom_share=share,
                                                                  balance=balance))
                except ExportError as e:
                    print(f"| {balance} | {size} | {share} | {str(e)[:60]} | | | |")
                    continue
                print(f"| {balance} | {size} | {share} | {st.records} | {st.tom_records} | "
                      f"{st.tom_stories_selected}/{st.stories_selected} | "
                      f"{', '.join(f'{t} {n}' for t, n in st.by_type.items())} |")


def main(argv: list[str]) -> None:
    paths = [Path(a) for a in argv]
    if len(paths) < 2:
        raise SystemExit(__doc__)
    with tempfile.TemporaryDirectory() as d:
        merge_table(paths, Path(d))
        acceptance_table(paths, Path(d))
    fig5_table(paths)


if __name__ == "__main__":
    main(sys.argv[1:])
