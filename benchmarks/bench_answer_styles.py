"""How each suite's matcher reads answers, against a careful grader's labels (issue #31 point 3).

    python benchmarks/bench_answer_styles.py                  # our matchers now, and the authors' code
    python benchmarks/bench_answer_styles.py --before 6b3c13b # also our matchers at an earlier commit
    python benchmarks/bench_answer_styles.py --misses         # list every disagreement

Prints the Markdown table of docs/answer-matching.md ("Answer styles across the suites"): per suite, reading
agreement (the option read is the grader's, or both read nothing) and false credit (an option read that the grader
does not credit), then the authors' extraction as verdicts against the gold answer (agreement, false credit,
missed credit). The labelled rows are `tests/scorers/data/answer_styles/*.jsonl`; the thresholds are tested in
`tests/scorers/test_answer_styles.py`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "scorers"))

import answer_styles as S  # noqa: E402


def ours_now() -> dict[str, dict]:
    return {suite: S.ours(suite) for suite in S.SUITES}


def ours_at(rev: str) -> dict[str, dict]:
    """Our matchers as they were at git revision `rev` (the package exported and imported in a subprocess), on
    today's labelled rows."""
    archive = subprocess.run(["git", "archive", rev, "tombench"], cwd=ROOT, check=True, capture_output=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(tmp, filter="data")
        env = {**os.environ, "PYTHONPATH": tmp}
        out = subprocess.run([sys.executable, __file__, "--json"], env=env, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def _pct(k: int, n: int) -> str:
    return f"{100 * k / n:.1f}% ({k}/{n})"


def table(now: dict[str, dict], before: dict[str, dict] | None, rev: str | None) -> str:
    head = ["suite", "n"]
    if before is not None:
        head += [f"agreement @{rev}", f"false credit @{rev}"]
    head += ["agreement", "false credit", "authors' code: agreement", "false credit", "missed credit"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for suite in S.SUITES:
        r = now[suite]
        cells = [S.NAMES[suite], str(r["n"])]
        if before is not None:
            b = before[suite]
            cells += [_pct(b["agree"], b["n"]), str(len(b["false_credit"]))]
        cells += [_pct(r["agree"], r["n"]), str(len(r["false_credit"]))]
        a = S.authors(suite)
        if a is None:
            cells += ["–", "–", "–"]
        else:
            asked = f", {a['asked_model']} to their grader" if a["asked_model"] else ""
            cells += [_pct(a["agree"], a["n"]) + asked, str(len(a["false_credit"])), str(len(a["missed"]))]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def misses(now: dict[str, dict]) -> str:
    out = []
    for suite in S.SUITES:
        rows = {r["id"]: r for r in S.load(suite)}
        for rid in now[suite]["false_credit"] + now[suite]["misses"]:
            r = rows[rid]
            out.append(f"{rid}: read {S.OURS[suite](r)!r}, label {r['label']!r}: {r['response']!r}")
        a = S.authors(suite)
        for kind in ("false_credit", "missed"):
            for rid in (a or {}).get(kind, []):
                out.append(f"{rid}: authors' {kind.replace('_', ' ')} (gold {rows[rid]['gold']!r}, label "
                           f"{rows[rid]['label']!r}): {rows[rid]['response']!r}")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", metavar="REV", help="also our matchers at this git revision")
    parser.add_argument("--misses", action="store_true", help="list every disagreement")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # used by --before
    args = parser.parse_args()
    now = ours_now()
    if args.json:
        print(json.dumps(now))
        return
    before = ours_at(args.before) if args.before else None
    print(table(now, before, args.before))
    if args.misses:
        print()
        print(misses(now))


if __name__ == "__main__":
    main()
