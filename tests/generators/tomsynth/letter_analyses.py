"""The hand-labelled analyses of `data/letter_analyses.txt` and how a letter rewrite and the analysis check fare on
them under every permutation of A-D (shared by `test_letter_analyses.py` and
`benchmarks/bench_tomsynth_letters.py`).

In the file, "{X}" marks a capital that names option X; every other capital is not an option reference. So the
right rewrite of an analysis under a mapping is known: the markup filled with the moved letters.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

LETTERS = "ABCD"
DATA = Path(__file__).with_name("data") / "letter_analyses.txt"
PERMUTATIONS = [dict(zip(LETTERS, p, strict=True)) for p in itertools.permutations(LETTERS)]
_MARK = re.compile(r"\{([A-D])\}")


@dataclass(frozen=True)
class Labelled:
    """One labelled analysis: its key, its style, the part of the file it is in, and the marked text."""

    key: str
    style: str
    part: str  # "fix" (written while fixing), "held-out" (after the fix), "held-out 2" (after the check's fix)
    marked: str

    @property
    def held_out(self) -> bool:
        return self.part != "fix"

    def text(self, mapping: Mapping[str, str] | None = None) -> str:
        """The analysis, its option references moved by `mapping` (old -> new), or as written."""
        return _MARK.sub(lambda m: (mapping or {}).get(m.group(1), m.group(1)), self.marked)

    def references(self) -> list[tuple[int, str]]:
        """(position in `text()`, letter) of each option reference."""
        out, shift = [], 0
        for m in _MARK.finditer(self.marked):
            out.append((m.start() - shift, m.group(1)))
            shift += 2
        return out


def load(path: Path = DATA) -> list[Labelled]:
    rows: list[Labelled] = []
    style, part = "", "fix"
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## held-out"):
            part = line.removeprefix("## ").strip()
        elif line.startswith("# style:"):
            style = line.removeprefix("# style:").strip()
        elif line.strip() and not line.startswith("#"):
            key, marked = line.split(" | ", 1)
            rows.append(Labelled(key.strip(), style, part, marked.replace("\\n", "\n")))
    return rows


@dataclass
class Tally:
    """Rewrites of the labelled analyses under every permutation: right, wrong, refused (the rewrite reported an
    unreadable letter), and the analyses with at least one wrong or refused rewrite."""

    rewrites: int = 0
    wrong: int = 0
    refused: int = 0
    wrong_analyses: set[int] = field(default_factory=set)
    refused_analyses: set[int] = field(default_factory=set)
    examples: list[tuple[str, str, str]] = field(default_factory=list)  # (input, got, expected)


def tally(rows: list[Labelled], remap: Callable[[str, Mapping[str, str]], str],
          refused: tuple[type[BaseException], ...] = ()) -> Tally:
    t = Tally()
    for n, row in enumerate(rows):
        for mapping in PERMUTATIONS:
            t.rewrites += 1
            try:
                got = remap(row.text(), mapping)
            except refused:
                t.refused += 1
                t.refused_analyses.add(n)
                continue
            if got != row.text(mapping):
                t.wrong += 1
                t.wrong_analyses.add(n)
                if len(t.examples) < 20:
                    t.examples.append((row.text(), got, row.text(mapping)))
    return t
