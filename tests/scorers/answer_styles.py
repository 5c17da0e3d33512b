"""The labelled answer-style set (issue #31 point 3): how each suite's matcher, and its authors' code, read answers.

`data/answer_styles/<suite>.jsonl` holds responses written for items in each suite's real layout, in every style
models answer in (bare letters, "Answer: X", bracketed, bold, letter plus text, text only, an explanation after the
answer, chain of thought ending in an answer, hedges naming two options, refusals), each labelled with what a
careful human grader credits: an option (a letter, a class label, a container) or `null` (nothing: a hedge, a
refusal, reasoning without a conclusion). `gold` is the item's correct answer.

Used by `tests/scorers/test_answer_styles.py` (the thresholds) and `benchmarks/bench_answer_styles.py` (the table
in docs/explanation/answer-matching.md). The authors' readings below are our own re-statements of the rules in their released
evaluation code (read, not copied): ToMBench `get_results.py`, SimpleToM `inference/utils.py` (`process_answer`),
BigToM `evaluate_conditions.py`, FANToM `eval_fantom.py`, OpenToM `opentom_evaluator.py`, and ExploreToM's
`expected in response.lower()` for ToMi.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data" / "answer_styles"
#: The labelled sets: every answer style (issue #31), and replies that name an option only to deny it (issue #42).
#: In both, the rows marked `"split": "heldout"` were written after the readers were fixed and were not used to
#: design them (the denial set's 27 held-out rows: first measured 25/27 agreeing, 2 false credits; see
#: docs/explanation/answer-matching.md, "Denials").
SETS: dict[str, Path] = {"styles": DATA, "denials": DATA.parent / "answer_denials"}
SUITES: tuple[str, ...] = ("tomi", "hitom", "bigtom", "opentom", "fantom_choice", "fantom_binary", "simpletom",
                           "tombench", "tomsynth")
NAMES = {"tomi": "ToMi / ExploreToM story questions", "hitom": "Hi-ToM", "bigtom": "BigToM", "opentom": "OpenToM",
         "fantom_choice": "FANToM belief choice", "fantom_binary": "FANToM yes/no", "simpletom": "SimpleToM",
         "tombench": "ToMBench", "tomsynth": "ToM-Synth (letter format)"}


def load(suite: str, labelled: str = "styles") -> list[dict[str, Any]]:
    """The rows of one suite in one labelled set (`SETS`)."""
    with open(SETS[labelled] / f"{suite}.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


# ------------------------------------------------------------------------------------------------------ our matchers
def _tomi(row: dict) -> str | None:
    from tombench.scorers.story_questions import judge

    md = {"answer_type": row["answer_type"], "candidates": row["candidates"], "question": row["question"]}
    return judge(row["response"], row["gold"], md, "strict", row["story"]).predicted


def _letter(protocol: str) -> Callable[[dict], str | None]:
    def read(row: dict) -> str | None:
        from tombench.scorers.suites.choice import match_choice

        return match_choice(row["response"], row["letters"], row["options"], protocol)  # type: ignore[arg-type]

    return read


def _tombench(row: dict) -> str | None:
    import inspect

    from tombench.scorers.suites.tom_bench import read_choice

    if "options" in inspect.signature(read_choice).parameters:
        return read_choice(row["response"], row["letters"], options=row["options"])
    return read_choice(row["response"], row["letters"])


def _fantom(row: dict, kind: str) -> str | None:
    from tombench.scorers.suites.fantom import score_response

    md = {"kind": kind, "correct": row["gold"], "options": row.get("options"), "wrong": None}
    return score_response(md, row["response"])[1]["predicted"]  # type: ignore[return-value]


def _opentom(row: dict) -> str | None:
    from tombench.scorers.suites.opentom import read_label

    return read_label(row["genre"], row["response"], topic=row["topic"])


def _tomsynth(row: dict) -> str | None:
    from tombench.scorers import tomsynth

    if hasattr(tomsynth, "read_letter"):
        return tomsynth.read_letter(row["response"], row["letters"], row["options"])
    return _inspect_choice(row)  # before issue #31: Inspect's multiple_choice parse decided


def _inspect_choice(row: dict) -> str | None:
    """What Inspect's `multiple_choice` solver reads (`parse_answers`: "ANSWER: X" only), the reading behind
    `choice()`."""
    from types import SimpleNamespace

    from inspect_ai.solver._multiple_choice import parse_answers

    state = SimpleNamespace(output=SimpleNamespace(completion=row["response"]), choices=row["options"])
    found = parse_answers(state, False)  # type: ignore[arg-type]
    return next(iter(found)) if len(found) == 1 else None


OURS: dict[str, Callable[[dict], str | None]] = {
    "tomi": _tomi,
    "hitom": _letter("letter"),
    "bigtom": _letter("bigtom"),
    "opentom": _opentom,
    "fantom_choice": lambda r: _fantom(r, "belief_choice"),
    "fantom_binary": lambda r: _fantom(r, "answerability_binary"),
    "simpletom": _letter("letter"),
    "tombench": _tombench,
    "tomsynth": _tomsynth,
}


# ------------------------------------------------------------------------------------------------------ the authors'
# Each returns the authors' verdict on the row: True (credited), False, or None where their code asks a model.
def _authors_tombench(row: dict) -> bool:
    text = row["response"]
    read = next((c for c in "ABCD" if f"[[{c}]]" in text), None) or next((c for c in "ABCD" if f"[{c}]" in text), None)
    if read is None:
        read = next((ch for ch in reversed(text) if ch in "ABCD"), "A")  # the last capital A-D, else "A"
    return read == row["gold"]


def _authors_simpletom(row: dict) -> bool:
    text = re.sub(r"(?ims)answer:?", "", row["response"]).strip()
    found: int | None = next((i for i, c in enumerate("ABCD") if f"({c})" in text), None)
    for probes in (["(A", "(B", "(C", "(D"], ["A", "B", "C", "D"]):
        if found is not None:
            break
        hits = [i for i, p in enumerate(probes) if p in text]
        found = hits[0] if len(hits) == 1 else (-1 if hits else None)
    return found is not None and found >= 0 and "ABCD"[found] == row["gold"]


def _authors_bigtom(row: dict) -> bool | None:
    low = row["response"].lower()
    other = "a" if row["gold"] == "b" else "b"
    if f"{row['gold']})" in low:
        return True
    if f"{other})" in low:
        return False
    return None  # the authors asked an LLM grader here


def _authors_fantom_choice(row: dict) -> bool:
    r = _fantom_parse(row["response"]).lower()
    a = row["gold"]
    return (any(r.startswith(a + s) for s in ").:,") or r.startswith(f"({a})") or f"({a})" in r or r == a)


def _fantom_parse(text: str) -> str:
    for marker in ("Answer:", "Choose an answer from above:"):
        if marker in text:
            return text.split(marker)[-1].strip()
    return text.strip()


def _authors_fantom_binary(row: dict) -> bool:
    t = _fantom_parse(row["response"]).lower().strip("'").strip('"')
    yes = any(p in t for p in (" yes,", " yes ", " yes.", " knows ")) or t.startswith(("yes", "true"))
    no = any(p in t for p in (" no,", " no ", " no.", " does not know ", " doesn't know ")) or t.startswith(("no", "false"))
    read = "yes" if yes else "no" if no else None
    return read == row["gold"]


def _authors_opentom(row: dict) -> bool:
    p = row["response"].lower()
    if row["genre"].startswith("loc_coarse"):
        read = "no" if "no" in p and "yes" not in p else "yes" if "yes" in p and "no" not in p else None
    elif row["topic"] == "fullness":
        q = p.replace(".", "")
        read = next((lab for lab, words in (("less full", ("less full", "emptier", "more empty")),
                                            ("more full", ("more full", "fuller")), ("equally full", ("equally full",)))
                     if any(w in q for w in words)), None)
    elif row["topic"] == "accessibility":
        q = p.replace(".", "")
        read = next((lab for lab in ("more accessible", "less accessible", "equally accessible") if lab in q), None)
    else:
        token = p.split("\n\n")[-1].split(":")[-1].split(".")[0].strip()
        named = [lab for lab in ("positive", "negative", "neutral") if lab in token]
        read = {"a": "positive", "b": "neutral", "c": "negative"}.get(token) or (named[0] if len(named) == 1 else None)
    return read == row["gold"]


def _authors_tomi(row: dict) -> bool:
    return row["gold"].lower() in row["response"].lower()


AUTHORS: dict[str, Callable[[dict], bool | None]] = {
    "tomi": _authors_tomi,
    "bigtom": _authors_bigtom,
    "opentom": _authors_opentom,
    "fantom_choice": _authors_fantom_choice,
    "fantom_binary": _authors_fantom_binary,
    "simpletom": _authors_simpletom,
    "tombench": _authors_tombench,
}


# ------------------------------------------------------------------------------------------------------ the counts
def _same(a: str | None, b: str | None) -> bool:
    return (a or "").lower() == (b or "").lower()


def ours(suite: str, labelled: str = "styles") -> dict[str, Any]:
    """Reading agreement (the option read equals the grader's, or both none) and false credit (an option read that
    the grader does not credit), plus the verdicts those readings give against the gold answer."""
    rows = load(suite, labelled)
    read = [OURS[suite](r) for r in rows]
    agree = [_same(p, r["label"]) for p, r in zip(read, rows, strict=True)]
    false = [r["id"] for p, r in zip(read, rows, strict=True) if p is not None and not _same(p, r["label"])]
    return {"n": len(rows), "agree": sum(agree), "false_credit": false,
            "misses": [r["id"] for a, p, r in zip(agree, read, rows, strict=True) if not a and p is None],
            "wrong_verdicts": sum(_same(p, r["gold"]) != _same(r["label"], r["gold"])
                                  for p, r in zip(read, rows, strict=True))}


def authors(suite: str, labelled: str = "styles") -> dict[str, Any] | None:
    """The authors' verdicts against the grader's (right iff the label is the gold answer): agreement, false credit
    (credited, the grader does not), missed credit; rows where their code asks a model count as agreeing."""
    if suite not in AUTHORS:
        return None
    rows = load(suite, labelled)
    out = {"n": len(rows), "agree": 0, "false_credit": [], "missed": [], "asked_model": 0}
    for r in rows:
        verdict = AUTHORS[suite](r)
        truth = _same(r["label"], r["gold"])
        if verdict is None:
            out["asked_model"] += 1
            verdict = truth
        out["agree"] += verdict == truth
        if verdict and not truth:
            out["false_credit"].append(r["id"])
        if truth and not verdict:
            out["missed"].append(r["id"])
    return out
