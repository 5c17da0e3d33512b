"""OpenToM answer reading and its headline metric, macro-F1 per question genre (Xu et al., 2024).

OpenToM's questions are 2- or 3-way classifications asked in free text ("Answer with "more full", "equally full",
or "less full"."), so a response is read into one of the genre's class labels, or into no label at all (`None`:
the response names none or several of them). The paper's evaluator (`src/evaluate/opentom_evaluator.py`) reads
labels with substring tests; we read whole words, which fixes its two misreadings that matter: "no" inside "know"
or "not" counted as a No, and "neutral" answers to attitude questions read from the text after the last colon only.

Macro-F1 (`macro_f1_metric` below, by `genre`; its bootstrap interval vectorised in `macro_f1_interval`) is computed per genre cell of the paper's Table 3
(`loc_coarse_fo`, `loc_coarse_so`, `loc_fine_fo`, `loc_fine_so`, `multihop_fo`, `multihop_so`, `attitude`). A
response with no label counts as a miss of its gold class (it lowers recall) and as nobody's false positive; the
paper instead drops such responses from F1 and reports their share separately ("corrupted generation"), which we
log as `unreadable`.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence

import numpy as np
from inspect_ai.scorer import CORRECT, INCORRECT, Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

__all__ = [
    "GENRES",
    "GENRE_LABELS",
    "macro_f1",
    "macro_f1_interval",
    "macro_f1_metric",
    "opentom_answer",
    "place_words",
    "read_label",
    "fine_location_label",
]

#: The paper's Table 3 cells, in its column order.
GENRES: tuple[str, ...] = (
    "loc_coarse_fo",
    "loc_coarse_so",
    "loc_fine_fo",
    "loc_fine_so",
    "multihop_fo",
    "multihop_so",
    "attitude",
)

_FULLNESS = ("more full", "equally full", "less full")
_ACCESSIBILITY = ("more accessible", "equally accessible", "less accessible")

#: The class labels of each genre (multihop: fullness and accessibility are six distinct classes).
GENRE_LABELS: dict[str, tuple[str, ...]] = {
    "loc_coarse_fo": ("yes", "no"),
    "loc_coarse_so": ("yes", "no"),
    "loc_fine_fo": ("initial", "new"),
    "loc_fine_so": ("initial", "new"),
    "multihop_fo": _FULLNESS + _ACCESSIBILITY,
    "multihop_so": _FULLNESS + _ACCESSIBILITY,
    "attitude": ("positive", "neutral", "negative"),
}

#: Phrases that name each fullness class (the paper's synonyms: "emptier", "more empty", "fuller").
_FULLNESS_WORDS: dict[str, tuple[str, ...]] = {
    "less full": ("less full", "emptier", "more empty"),
    "more full": ("more full", "fuller"),
    "equally full": ("equally full",),
}
_ACCESSIBILITY_WORDS: dict[str, tuple[str, ...]] = {label: (label,) for label in _ACCESSIBILITY}
_ATTITUDE_WORDS: dict[str, tuple[str, ...]] = {label: (label,) for label in ("positive", "neutral", "negative")}

_WORD = re.compile(r"[a-z0-9]+")
_DETERMINERS = {"a", "an", "the"}


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("_", " ").replace("'s", ""))


def _named(text: str, phrases: Mapping[str, Sequence[str]]) -> str | None:
    """The label a response commits to, read as a careful grader reads it (issue #31 point 3); None if none or a hedge.

    Whole words only. Two labels offered as alternatives ("neutral or negative", "positive, or maybe neutral") read
    nothing; a label the response
    opens with is its answer ("Less full. It is not equally full any more."); otherwise labels said with "not"
    ("less full, not more full") are set aside and the one label left is read.
    """
    words = _words(text)
    if words[:1] == ["answer"]:
        words = words[1:]
    padded = " " + " ".join(words) + " "
    every = sorted(((label, p) for label, options in phrases.items() for p in options), key=lambda lp: -len(lp[1]))
    if any(re.search(rf" {p} or (?:\w+ ){{0,2}}{q} ", padded) for lab, p in every for other, q in every if lab != other):
        return None  # "neutral or negative", "positive, or maybe neutral"
    opening = next((label for label, p in every if padded.startswith(f" {p} ")), None)
    if opening is not None:
        return opening
    for _, p in every:
        padded = padded.replace(f" not {p} ", " ")
    found = {label for label, p in every if f" {p} " in padded}
    return found.pop() if len(found) == 1 else None


_NO_DETERMINER = r"(?!\s+(?:one|longer|reason|idea|way|matter|doubt|body|sign|need|indication|evidence|change)\b)"


def _yes_no(text: str) -> str | None:
    """Yes/no as a careful grader reads it: the opening yes/no decides ("Yes. As far as Sam knows, no one moved it."),
    else the one of them said as an answer; "no" before a noun ("no one", "no longer") is not an answer, "Yes or No"
    is a hedge. With neither word, a response that restates the question's location answers it ("... is not in
    its initial location" is a No)."""
    t = re.sub(r"[*_`]", "", text.lower()).strip()
    t = re.sub(r"^\W*answer\s*:?\s*", "", t)
    if re.search(r"\b(?:yes\s*(?:or|/)\s*no|no\s*(?:or|/)\s*yes)\b", t):
        return None
    if m := re.match(rf"\W*(yes|no)\b{_NO_DETERMINER}", t):
        return m.group(1)
    found = set(re.findall(r"\byes\b", t)) | {"no" for _ in re.finditer(r"\bno\b(?=\s*(?:[.,;:!]|$))", t)}
    if len(found) == 1:
        return found.pop()
    if not found and re.search(r"\bnot\s+(?:still\s+)?in\s+(?:its|the)\s+(?:initial|original)\b", t):
        return "no"
    if not found and re.search(r"\b(?:is|remains)\s+still\s+in\s+(?:its|the)\s+(?:initial|original)\b", t):
        return "yes"
    return None


def place_words(place: str) -> list[str]:
    """A location's content words: lower case, underscores as spaces, possessive "'s" and determiners dropped."""
    return [w for w in _words(place) if w not in _DETERMINERS]


def _overlap(response_words: set[str], place: str) -> tuple[float, int]:
    """The share of the place's words that the response contains, then how many (the tie-break)."""
    words = list(dict.fromkeys(place_words(place)))
    hits = sum(1 for w in words if w in response_words)
    return (hits / len(words) if words else 0.0, hits)


def fine_location_label(text: str, original_place: str, move_to_place: str) -> str | None:
    """`initial` or `new`: the location whose words `text` covers more of (the paper's lexical-overlap reading).

    When both are covered equally, the place with more words matched wins, so "another drawer" reads as the new
    place "another drawer" and not as the initial "drawer" (the paper's evaluator calls that a tie, so a right
    answer on the 13 such questions could never score). None on a full tie (neither place, or both alike).
    """
    if place_words(text) == place_words(original_place) != place_words(move_to_place):
        return "initial"
    if place_words(text) == place_words(move_to_place) != place_words(original_place):
        return "new"
    words = set(_words(text))
    initial, new = _overlap(words, original_place), _overlap(words, move_to_place)
    if initial == new:
        return None
    return "initial" if initial > new else "new"


def read_label(genre: str, text: str, *, original_place: str = "", move_to_place: str = "", topic: str = "") -> str | None:
    """The class label a response (or a gold answer) names for a question of `genre`; None if unreadable.

    `topic` tells multihop questions apart: "fullness" or "accessibility". Fine location questions need the two
    places of the story's plot.
    """
    if genre.startswith("loc_coarse"):
        return _yes_no(text)
    if genre.startswith("loc_fine"):
        return fine_location_label(text, original_place, move_to_place)
    if genre.startswith("multihop"):
        if topic not in ("fullness", "accessibility"):
            raise ValueError(f"multihop question needs topic fullness|accessibility, got {topic!r}")
        return _named(text, _FULLNESS_WORDS if topic == "fullness" else _ACCESSIBILITY_WORDS)
    if genre == "attitude":
        return _named(text, _ATTITUDE_WORDS)
    raise ValueError(f"unknown OpenToM genre {genre!r}. Must be one of: {list(GENRES)}")


@metric
def unreadable() -> Metric:
    """Share of responses that name no label of their genre (the paper's "corrupted generation" rate)."""

    def compute(scores: list[SampleScore]) -> float:
        flags = [(s.score.metadata or {}).get("predicted") is None for s in scores]
        return sum(flags) / len(flags) if flags else 0.0

    return compute


@scorer(metrics=[])
def opentom_answer() -> Scorer:
    """Right when the label read from the response is the gold label; metadata `gold` and `predicted` feed macro-F1."""

    async def score(state: TaskState, target: Target) -> Score:
        md = state.metadata
        predicted = read_label(
            md["genre"],
            state.output.completion,
            original_place=md.get("original_place") or "",
            move_to_place=md.get("move_to_place") or "",
            topic=md.get("topic") or "",
        )
        gold = md["label"]
        return Score(
            value=CORRECT if predicted == gold else INCORRECT,
            answer=predicted if predicted is not None else state.output.completion,
            explanation=f"read {predicted!r}; gold {gold!r} ({target.text!r})",
            metadata={"gold": gold, "predicted": predicted},
        )

    return score


# ------------------------------------------------------------------------------------------------------ macro-F1
def _f1_from_counts(pair_counts: Mapping[tuple[str, str | None], int]) -> float:
    """Macro-F1 from the counts of each (gold, predicted) pair: per gold label 2·tp / (gold + predicted count), the
    same integers as 2·tp / (2·tp + fp + fn), averaged over the gold labels in sorted order (so the same float)."""
    tp: Counter[str] = Counter()
    gold_n: Counter[str] = Counter()
    pred_n: Counter[str | None] = Counter()
    for (g, p), c in pair_counts.items():
        gold_n[g] += c
        pred_n[p] += c
        if g == p:
            tp[g] += c
    labels = sorted(lab for lab, c in gold_n.items() if c)
    if not labels:
        return 0.0
    f1s = [2 * tp[lab] / (gold_n[lab] + pred_n[lab]) if tp[lab] else 0.0 for lab in labels]
    return sum(f1s) / len(f1s)


def macro_f1(gold: Sequence[str], predicted: Sequence[str | None]) -> float:
    """Macro-averaged F1 over the gold label set (a prediction outside it, or None, is a miss for the gold class)."""
    return _f1_from_counts(Counter(zip(gold, predicted, strict=True)))


def _randrange_stream(seed: int, n: int, size: int) -> Iterator[np.ndarray]:
    """Blocks of `size` draws equal, value for value, to `random.Random(seed).randrange(n)` called again and again.

    CPython's `randrange(n)` takes the top `n.bit_length()` bits of the next 32-bit Mersenne Twister word and
    rejects values >= n; numpy's MT19937, set to the same state, yields the same words, so the draws are vectorised
    without changing a single one (the test compares them with `random.Random`).
    """
    words = np.random.MT19937()
    key = random.Random(seed).getstate()[1]
    words.state = {"bit_generator": "MT19937", "state": {"key": np.array(key[:624], dtype=np.uint32), "pos": key[624]}}
    shift = np.uint64(32 - n.bit_length())
    buffer = np.empty(0, dtype=np.int64)
    while True:
        while len(buffer) < size:
            raw = words.random_raw(size + size // 4 + 64) >> shift
            buffer = np.concatenate([buffer, raw[raw < n].astype(np.int64)])
        yield buffer[:size]
        buffer = buffer[size:]


def macro_f1_interval(
    gold: Sequence[str],
    predicted: Sequence[str | None],
    *,
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float]:
    """`bootstrap_interval(pairs, macro_f1)`: the same draws, the same interval to the last bit, ~30x faster.

    Every (gold, predicted) pair kind is coded once, so a resample is just the counts of the pair kinds it drew
    (`np.bincount`); its macro-F1 comes from those counts (`_f1_from_counts`). The indices are the ones
    `bootstrap_interval` draws (`random.Random(seed).randrange(n)`, n per resample, in order; `_randrange_stream`).
    """
    n = len(gold)
    if n == 0:
        return 0.0, 1.0
    kinds: dict[tuple[str, str | None], int] = {}
    codes = np.array([kinds.setdefault(pair, len(kinds)) for pair in zip(gold, predicted, strict=True)])
    pairs, k = list(kinds), len(kinds)
    block = max(1, min(resamples, 2_000_000 // n))  # resamples drawn at once (memory: block x n indices)
    stream = _randrange_stream(seed, n, block * n)
    stats: list[float] = []
    while len(stats) < resamples:
        rows = min(block, resamples - len(stats))
        drawn = codes[next(stream)[: rows * n]].reshape(rows, n) + (np.arange(rows) * k)[:, None]
        counts = np.bincount(drawn.ravel(), minlength=rows * k).reshape(rows, k)
        stats.extend(_f1_from_counts({pairs[j]: int(c) for j, c in enumerate(row) if c}) for row in counts)
    stats.sort()
    lo = stats[int(math.floor((1 - level) / 2 * (resamples - 1)))]
    hi = stats[int(math.ceil((1 + level) / 2 * (resamples - 1)))]
    return lo, hi


def _pairs_f1(pairs: Sequence[object]) -> float:
    return macro_f1([p[0] for p in pairs], [p[1] for p in pairs])  # type: ignore[index]


@metric
def macro_f1_metric(by: Sequence[str] = (), resamples: int = 1000) -> Metric:
    """Macro-F1 of the `gold`/`predicted` labels in each score's metadata, with a seeded bootstrap 95% interval.

    Keys: `macro_f1`, `macro_f1_ci_low`, `macro_f1_ci_high`, and per group of each `by` dimension
    `macro_f1:{dim}={value}` (with `:n`). Scores without a `gold` label are left out.
    """
    dims = list(by)

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        rows = [(s.score.metadata or {}, s.sample_metadata or {}) for s in scores]
        pairs = [(m["gold"], m.get("predicted"), sm) for m, sm in rows if m.get("gold") is not None]
        if not pairs:
            return {"macro_f1": 0.0}
        base = [(g, p) for g, p, _ in pairs]
        lo, hi = macro_f1_interval([g for g, _ in base], [p for _, p in base], resamples=resamples)
        out = {"macro_f1": _pairs_f1(base), "macro_f1_ci_low": lo, "macro_f1_ci_high": hi}
        for dim in dims:
            groups: dict[str, list[tuple[str, str | None]]] = {}
            for g, p, sm in pairs:
                if sm.get(dim) is not None:
                    groups.setdefault(str(sm[dim]), []).append((g, p))
            for value in sorted(groups):
                out[f"macro_f1:{dim}={value}"] = _pairs_f1(groups[value])
                out[f"macro_f1:{dim}={value}:n"] = float(len(groups[value]))
        return out

    return compute
