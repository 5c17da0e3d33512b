"""FANToM's free-form belief rule: token F1 (our default) vs sentence-embedding cosine (the paper's rule).

    python benchmarks/bench_fantom_belief_matcher.py                      # token F1 only (no extra dependency)
    pip install 'tombench[embedding]'
    python benchmarks/bench_fantom_belief_matcher.py --embedding          # + packaged all-MiniLM-L6-v2
    python benchmarks/bench_fantom_belief_matcher.py --embedding --model sentence-transformers/all-roberta-large-v1
    python benchmarks/bench_fantom_belief_matcher.py --data fantom_v1.json --embedding   # the real release

Each item (`fantom_belief_paraphrases.json`, 20 FANToM-style belief questions written for this benchmark, in the
release's form: the correct answer, the wrong "omniscient" answer) is answered four ways: the correct answer, the
wrong one, a paraphrase of each. Both rules must call the first and third right and the others wrong. With
`--data` the real file's belief questions are used instead, answered only verbatim (no paraphrases exist there).
Prints, per response kind, how often each rule is right and how often the two rules agree. Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.console import Console
from rich.table import Table

from tombench.scorers.suites.fantom import closer_to_correct

ITEMS = Path(__file__).with_name("fantom_belief_paraphrases.json")
KINDS = {"correct": True, "wrong": False, "paraphrase_correct": True, "paraphrase_wrong": False}


def load_items(data: Path | None) -> list[dict[str, str]]:
    if data is None:
        return json.loads(ITEMS.read_text(encoding="utf-8"))
    from tombench.tasks.fantom.fantom import load_sets

    return [{"correct": str(b["correct_answer"]), "wrong": str(b["wrong_answer"]), "tom_type": str(b.get("tom_type")),
             "accessibility": str(b.get("missed_info_accessibility"))}
            for s in load_sets(data) for b in s.get("beliefQAs") or []]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--embedding", action="store_true", help="also the cosine rule (needs the embedding extra)")
    parser.add_argument("--model", default=None, help="sentence-transformers model (default: packaged MiniLM)")
    parser.add_argument("--data", type=Path, default=None, help="a real fantom_v1.json instead of the paraphrases")
    args = parser.parse_args()
    items = load_items(args.data)
    rules = {"token F1": None}
    if args.embedding:
        from tombench.scorers.suites.embedding import PACKAGED_MODEL, similarity

        rules[f"cosine {args.model or PACKAGED_MODEL}"] = similarity(args.model or PACKAGED_MODEL)

    table = Table(title=f"free-form belief verdicts, {len(items)} questions")
    table.add_column("response", justify="left")
    for name in rules:
        table.add_column(f"{name}: right", justify="right")
    if len(rules) == 2:
        table.add_column("rules agree", justify="right")
    for kind, expected in KINDS.items():
        rows = [item for item in items if kind in item]
        if not rows:
            continue
        verdicts = {name: [closer_to_correct(item[kind], item["correct"], item["wrong"], sim)[0] for item in rows]
                    for name, sim in rules.items()}
        cells = [f"{sum(v == expected for v in vs)}/{len(rows)}" for vs in verdicts.values()]
        if len(rules) == 2:
            a, b = verdicts.values()
            cells.append(f"{sum(x == y for x, y in zip(a, b, strict=True))}/{len(rows)}")
        table.add_row(kind, *cells)
    Console(width=120).print(table)


if __name__ == "__main__":
    main()
