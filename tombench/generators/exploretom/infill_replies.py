"""The writer's and the judge's answers to the infill prompts (`infill_prompts`, `infill_checks`), read into plain
values: candidate continuations, the characters' goals, one yes/no verdict per question. A reply that cannot be read
raises `MalformedOutput`."""

from __future__ import annotations

import re
from collections.abc import Sequence

from tombench.kit.calls import MalformedOutput
from tombench.kit.replies import read_yes_no

_MARKER = re.compile(r"^[\s*#>_-]*(?:\d+[.)]\s*)?story\s+continuation\s*(?:\d+\s*)?[*_]*\s*:[*_]*\s*", re.I | re.M)


def parse_candidates(text: str) -> list[str]:
    """The continuations after each `STORY CONTINUATION:` label; prose before the first label is ignored.

    Raises `MalformedOutput` when there is no label with text after it. Surrounding quotes of a whole candidate,
    a literal `<fill>` and trailing "Note: ..." paragraphs are removed; duplicates are dropped.
    """
    marks = list(_MARKER.finditer(text))
    out: list[str] = []
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        chunk = text[m.end() : end].replace("<fill>", "")
        chunk = re.split(r"\n\s*(?:\(?\s*note\b|\*\*note)", chunk, maxsplit=1, flags=re.I)[0]
        chunk = chunk.strip().strip("*").strip()
        if len(chunk) >= 2 and chunk[0] == chunk[-1] == '"' and chunk.count('"') == 2:
            chunk = chunk[1:-1].strip()
        if chunk and chunk not in out:
            out.append(chunk)
    if not out:
        raise MalformedOutput("no 'STORY CONTINUATION:' with text in the answer")
    return out


def parse_goals(text: str, people: Sequence[str]) -> dict[str, str]:
    """`Name: goal` lines for the story's people (markdown, bullets and braces around names tolerated).

    Lines about anyone else are dropped (Fig. 11 says "only the characters mentioned"). Raises `MalformedOutput`
    when no line names a story person.
    """
    goals: dict[str, str] = {}
    for line in text.splitlines():
        m = re.match(r"^\s*(?:[-*•]|\d+[.)])?\s*[*_{\[]*\s*([A-Z][\w'\-]*)\s*[*_}\]]*\s*[:\-–]\s*(.+)$", line)
        if m and m.group(1) in people and m.group(1) not in goals:
            goal = m.group(2).strip().strip("*").strip()
            if goal:
                goals[m.group(1)] = goal
    if not goals:
        raise MalformedOutput("no 'Name: goal' line for a story character")
    return goals


def parse_judge(text: str, n: int) -> list[bool | None]:
    """Verdicts for checks 1..n from `k: yes|no` lines; None for a check answered otherwise ("maybe") or not at all.

    With a single check, a bare "Yes."/"No." answer counts too.
    """
    verdicts: list[bool | None] = [None] * n
    for line in text.splitlines():
        m = re.match(r"^\s*[*#(\[]*\s*(?:q(?:uestion)?\s*)?(\d+)\s*[*)\]]*\s*[:.)\-]\s*(.*)$", line, re.I)
        if m:
            k = int(m.group(1))
            if 1 <= k <= n and verdicts[k - 1] is None:
                verdicts[k - 1] = read_yes_no(m.group(2).strip().strip("*"))
    if n == 1 and verdicts[0] is None:
        verdicts[0] = read_yes_no(text)
    return verdicts
