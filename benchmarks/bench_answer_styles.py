"""How each suite's matcher reads answers, against a careful grader's labels (issue #31 point 3).

    python benchmarks/bench_answer_styles.py                  # our matchers now, and the authors' code
    python benchmarks/bench_answer_styles.py --before 6b3c13b # also our matchers at an earlier commit
    python benchmarks/bench_answer_styles.py --misses         # list every disagreement
    python benchmarks/bench_answer_styles.py --before d725ed9 # the denial rows before issue #42's readers

Prints the Markdown table of docs/explanation/answer-matching.md ("Answer styles across the suites"): per suite, reading
agreement (the option read is the grader's, or both read nothing) and false credit (an option read that the grader
does not credit), then the authors' extraction as verdicts against the gold answer (agreement, false credit,
missed credit). The labelled rows are `tests/scorers/data/answer_styles/*.jsonl` and, as rows of their own ("denials:
..."), `tests/scorers/data/answer_denials/*.jsonl` (replies that name an option only to deny it); the thresholds are
tested in `tests/scorers/test_answer_styles.py`.
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


def _key(labelled: str, suite: str) -> str:
    return suite if labelled == "styles" else f"{labelled}:{suite}"


def ours_now() -> dict[str, dict]:
    """Our readings of every suite's rows in every labelled set, keyed by `_key`."""
    return {_key(labelled, suite): S.ours(suite, labelled) for labelled in S.SETS for suite in S.SUITES}


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
    for labelled in S.SETS:
        for suite in S.SUITES:
            lines.append(_row(labelled, suite, now, before))
        if labelled != "styles":
            lines.append(_total(labelled, now, before))
    return "\n".join(lines)


def _row(labelled: str, suite: str, now: dict[str, dict], before: dict[str, dict] | None) -> str:
    key = _key(labelled, suite)
    r = now[key]
    name = S.NAMES[suite] if labelled == "styles" else f"{labelled}: {S.NAMES[suite]}"
    cells = [name, str(r["n"])]
    if before is not None:
        b = before[key]
        cells += [_pct(b["agree"], b["n"]), str(len(b["false_credit"]))]
    cells += [_pct(r["agree"], r["n"]), str(len(r["false_credit"]))]
    a = S.authors(suite, labelled)
    if a is None:
        cells += ["–", "–", "–"]
    else:
        asked = f", {a['asked_model']} to their grader" if a["asked_model"] else ""
        cells += [_pct(a["agree"], a["n"]) + asked, str(len(a["false_credit"])), str(len(a["missed"]))]
    return "| " + " | ".join(cells) + " |"


def _total(labelled: str, now: dict[str, dict], before: dict[str, dict] | None) -> str:
    """One row summing a set over the suites (our readers only), so a small set is read as a whole too."""
    def summed(results: dict[str, dict]) -> tuple[int, int, int]:
        parts = [results[_key(labelled, suite)] for suite in S.SUITES]
        return sum(p["n"] for p in parts), sum(p["agree"] for p in parts), sum(len(p["false_credit"]) for p in parts)

    n, agree, false = summed(now)
    cells = [f"{labelled}: all suites", str(n)]
    if before is not None:
        _, b_agree, b_false = summed(before)
        cells += [_pct(b_agree, n), str(b_false)]
    cells += [_pct(agree, n), str(false), "–", "–", "–"]
    return "| " + " | ".join(cells) + " |"


def misses(now: dict[str, dict]) -> str:
    out = []
    for labelled in S.SETS:
        for suite in S.SUITES:
            out += _suite_misses(labelled, suite, now)
    return "\n".join(out)


def _suite_misses(labelled: str, suite: str, now: dict[str, dict]) -> list[str]:
    out = []
    rows = {r["id"]: r for r in S.load(suite, labelled)}
    result = now[_key(labelled, suite)]
    for rid in result["false_credit"] + result["misses"]:
        r = rows[rid]
        out.append(f"{rid}: read {S.OURS[suite](r)!r}, label {r['label']!r}: {r['response']!r}")
    a = S.authors(suite, labelled)
    for kind in ("false_credit", "missed"):
        for rid in (a or {}).get(kind, []):
            out.append(f"{rid}: authors' {kind.replace('_', ' ')} (gold {rows[rid]['gold']!r}, label "
                       f"{rows[rid]['label']!r}): {rows[rid]['response']!r}")
    return out


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
