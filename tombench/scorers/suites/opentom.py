"""OpenToM answer reading and its headline metric, macro-F1 per question genre (Xu et al., 2024).

OpenToM's questions are 2- or 3-way classifications asked in free text ("Answer with "more full", "equally full",
or "less full"."), so a response is read into one of the genre's classes. Two readings are kept, because they serve
two purposes:

* the authors' (`paper_reading`, `paper_f1`): their evaluator's substring tests and class ids, with their label
  rules (fine location's tie class, multihop's shared ids) and their macro-F1 per genre, which drops responses it
  cannot read. It makes the per-genre cells `macro_f1:genre=<cell>` comparable with the paper's Table 3, so it is
  the headline (`opentom_f1`; `macro_f1` is the mean of the cells);
* ours (`read_label`): the class a careful grader reads (whole words, a hedge or no class is unreadable, `None`;
  docs/explanation/answer-matching.md), so "I don't know" is not a No. It decides right/wrong (accuracy per genre,
  `unreadable`) and `strict_f1`, where an unreadable response is a miss of its gold class and multihop has six
  classes.

The cells are those of the paper's Table 3 (`loc_coarse_fo`, `loc_coarse_so`, `loc_fine_fo`, `loc_fine_so`,
`multihop_fo`, `multihop_so`, `attitude`). tombench/tasks/opentom/README.md compares both with the authors' script on the release.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
from inspect_ai.scorer import CORRECT, INCORRECT, Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from tombench.dsl.denials import read_yes_no_affirmed, strip_denials

__all__ = [
    "GENRES",
    "GENRE_LABELS",
    "macro_f1",
    "macro_f1_interval",
    "macro_f1_metric",
    "opentom_answer",
    "opentom_f1",
    "paper_f1",
    "paper_reading",
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
    """The label a response commits to, read as a careful grader reads it; None if none or a hedge.

    Whole words only. Two labels offered as alternatives ("neutral or negative", "positive, or maybe neutral") read
    nothing; what the response denies ("not more full", "It isn't less full.", "Positive? No.": the shared rule of
    `tombench.dsl.denials`) is set aside; then a label the response opens with is its answer ("Less full. It is not
    equally full any more."), otherwise the one label left is read.
    """
    words = _words(strip_denials(text))
    if words[:1] == ["answer"]:
        words = words[1:]
    padded = " " + " ".join(words) + " "
    every = sorted(((label, p) for label, options in phrases.items() for p in options), key=lambda lp: -len(lp[1]))
    if any(re.search(rf" {p} or (?:\w+ ){{0,2}}{q} ", padded) for lab, p in every for other, q in every if lab != other):
        return None  # "neutral or negative", "positive, or maybe neutral"
    opening = next((label for label, p in every if padded.startswith(f" {p} ")), None)
    if opening is not None:
        return opening
    found = {label for label, p in every if f" {p} " in padded}
    return found.pop() if len(found) == 1 else None


_NO_DETERMINER = r"(?!\s+(?:one|longer|reason|idea|way|matter|doubt|body|sign|need|indication|evidence|change)\b)"


def _yes_no(text: str) -> str | None:
    """Yes/no as a careful grader reads it: the opening yes/no decides ("Yes. As far as Sam knows, no one moved it."),
    else the one of them said as an answer; "no" before a noun ("no one", "no longer") is not an answer, "Yes or No"
    is a hedge, a denied one ("Not yes.", "Yes - just kidding, no.") is no answer. With neither word, a response
    that restates the question's location answers it ("... is not in its initial location" is a No)."""
    t = re.sub(r"[*_`]", "", text.lower()).strip()
    t = re.sub(r"^\W*answer\s*:?\s*", "", t)
    if re.search(r"\b(?:yes\s*(?:or|/)\s*no|no\s*(?:or|/)\s*yes)\b", t):
        return None
    return read_yes_no_affirmed(t, _stated_yes_no)


def _stated_yes_no(t: str) -> str | None:
    """`_yes_no` on a lower-case reply without its denials."""
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
    """Right when the label read from the response is the gold label; metadata `gold` and `predicted` (our reading)
    feed `strict_f1`, `paper` (the authors' [gold id, predicted id], or None for a question they skip) the cells."""

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
        paper = paper_reading(
            md["genre"],
            state.output.completion,
            target.text,
            question=md.get("question") or "",
            original_place=md.get("original_place") or "",
            move_to_place=md.get("move_to_place") or "",
        )
        return Score(
            value=CORRECT if predicted == gold else INCORRECT,
            answer=predicted if predicted is not None else state.output.completion,
            explanation=f"read {predicted!r}; gold {gold!r} ({target.text!r})",
            metadata={"gold": gold, "predicted": predicted, "paper": list(paper) if paper is not None else None},
        )

    return score


# ------------------------------------------------------------------------------------ the authors' reading (paper)
# The authors' evaluator (`src/evaluate/opentom_evaluator.py` and `src/evaluate.py` at the pinned commit) reads every
# response into a class id by substring tests and scores each genre with scikit-learn's macro-F1 over the ids that
# occur among the gold and the predicted labels, after dropping responses it cannot read (id -1) and questions whose
# gold answer it cannot label (None). Rewritten here from the description of those rules, id for id, so the
# per-genre cells can be compared with the paper's Table 3; checked against their script on the real files
# (tombench/tasks/opentom/README.md).
#: A response the authors' evaluator cannot read ("corrupted generation"): dropped from their F1.
PAPER_CORRUPTED = -1


def _strip_article(text: str) -> str:
    """The authors' article removal: a leading "a", "an" or "the" is cut as characters, not as a word, so "armoire"
    becomes "rmoire" and "an urn" becomes "n urn" (both the gold answer and the places get the same cut)."""
    for article in ("a", "an", "the"):
        if text.startswith(article):
            return text[len(article):].strip()
    return text


def _paper_overlap(response: str, place: str) -> float:
    """Share of the place's words among the response's distinct words (the authors' lexical overlap): both lower
    case, "_" as space, "'s" removed; the response also loses its full stops; words split on white space only."""
    response = response.lower().replace("_", " ").replace("'s", "").replace(".", "")
    words = place.lower().replace("_", " ").replace("'s", "").split()
    return sum(1 for w in dict.fromkeys(response.split()) if w in words) / len(words) if words else 0.0


def _paper_fine(response: str, answer: str, original_place: str, move_to_place: str) -> tuple[int | None, int]:
    """Fine location: 1 initial place, 2 new place, 3 a prediction that overlaps both places equally (a class of its
    own in the authors' F1); gold None when the answer is neither place as written in the plot."""
    initial, new = _strip_article(original_place).lower(), _strip_article(move_to_place).lower()
    gold_text = _strip_article(answer).lower()
    gold = 1 if gold_text == initial else 2 if gold_text == new else None
    a, b = _paper_overlap(response, initial), _paper_overlap(response, new)
    return gold, 3 if a == b else 1 if a > b else 2


def _paper_coarse(response: str, answer: str) -> tuple[int | None, int]:
    """Coarse location: 0 "no", 1 "yes" as substrings ("know" holds a "no"), -1 for both or neither."""
    text, gold_text = response.lower(), answer.lower()
    has_no, has_yes = "no" in text, "yes" in text
    pred = 0 if has_no and not has_yes else 1 if has_yes and not has_no else PAPER_CORRUPTED
    gold = 0 if "no" in gold_text else 1 if "yes" in gold_text else None
    return gold, pred


_PAPER_FULLNESS = ((1, ("less full", "emptier", "more empty")), (2, ("more full", "fuller")), (3, ("equally full",)))
_PAPER_ACCESS = ((1, ("more accessible",)), (2, ("less accessible",)), (3, ("equally accessible",)))


def _first_id(text: str, table: tuple[tuple[int, tuple[str, ...]], ...]) -> int:
    """The id of the first entry of `table` one of whose phrases is in `text`, else -1 (the authors' order)."""
    return next((i for i, phrases in table if any(p in text for p in phrases)), PAPER_CORRUPTED)


def _paper_multihop(response: str, answer: str, question: str) -> tuple[int | None, int] | None:
    """Fullness ids 1 less / 2 more / 3 equally full; accessibility ids 1 more / 2 less / 3 equally accessible (the
    same three ids: the authors' multihop cell mixes both). None: a question naming neither is skipped."""
    text = response.replace(".", "").lower()
    if "fullness" in question:
        gold = {"less full": 1, "more full": 2, "equally full": 3}.get(answer)
        return gold, _first_id(text, _PAPER_FULLNESS)
    if "accessibility" in question:
        answer = "equally accessible" if "|" in answer else answer
        return {"more accessible": 1, "less accessible": 2}.get(answer, 3), _first_id(text, _PAPER_ACCESS)
    return None


def _paper_attitude(response: str, answer: str) -> tuple[int | None, int]:
    """Attitude ids 1 positive, 2 negative, 3 neutral, read from the last paragraph's text after its last colon, up
    to the first full stop: "a"/"b"/"c" as options, else the one attitude word in it (two words: -1)."""
    gold = {"positive": 1, "negative": 2}.get(answer.lower(), 3)
    token = response.lower().split("\n\n")[-1].split(":")[-1].split(".")[0].strip()
    if token in ("a", "b", "c"):
        return gold, {"a": 1, "b": 3, "c": 2}[token]
    named = [i for word, i in (("positive", 1), ("negative", 2), ("neutral", 3)) if word in token]
    return gold, named[0] if len(named) == 1 else PAPER_CORRUPTED


def paper_reading(
    genre: str, response: str, answer: str, *, question: str = "", original_place: str = "", move_to_place: str = ""
) -> tuple[int | None, int] | None:
    """(gold id, predicted id) as the authors' evaluator reads a response; gold None or predicted -1 are dropped
    from their F1. None for a multihop question that names neither fullness nor accessibility (they skip it).

    `response` and `answer` are taken stripped, as the evaluator does."""
    response, answer = response.strip(), answer.strip()
    if genre.startswith("loc_coarse"):
        return _paper_coarse(response, answer)
    if genre.startswith("loc_fine"):
        return _paper_fine(response, answer, original_place, move_to_place)
    if genre.startswith("multihop"):
        return _paper_multihop(response, answer, question)
    if genre == "attitude":
        return _paper_attitude(response, answer)
    raise ValueError(f"unknown OpenToM genre {genre!r}. Must be one of: {list(GENRES)}")


def paper_f1_from_counts(pair_counts: Mapping[tuple[object, object], int]) -> float:
    """scikit-learn's `f1_score(average="macro")` on the kept pairs: per id in the union of gold and predicted ids,
    2·tp / (gold count + predicted count) (0 without a true positive), averaged. A predicted id that no gold answer
    has (fine location's tie, 3) is a class of its own with F1 0. Pairs with gold None or predicted -1 are dropped
    first (the authors' "corrupted generation")."""
    kept = {(g, p): c for (g, p), c in pair_counts.items() if c and g is not None and p != PAPER_CORRUPTED}
    tp: Counter[object] = Counter()
    gold_n: Counter[object] = Counter()
    pred_n: Counter[object] = Counter()
    for (g, p), c in kept.items():
        gold_n[g] += c
        pred_n[p] += c
        if g == p:
            tp[g] += c
    labels = sorted(set(gold_n) | set(pred_n))  # type: ignore[type-var]
    if not labels:
        return 0.0
    return sum(2 * tp[lab] / (gold_n[lab] + pred_n[lab]) for lab in labels) / len(labels)


def paper_f1(pairs: Sequence[tuple[object, object]]) -> float:
    """`paper_f1_from_counts` of a list of (gold id, predicted id) pairs."""
    return paper_f1_from_counts(Counter(pairs))


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
    return counts_interval(list(zip(gold, predicted, strict=True)), _f1_from_counts,
                           resamples=resamples, seed=seed, level=level)


def counts_interval(
    kinds: Sequence[Hashable],
    stat: Callable[[Mapping[Any, int]], float],
    *,
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[float, float]:
    """Seeded percentile bootstrap of a statistic that depends only on how often each kind of sample occurs.

    Each sample is reduced to its kind (a (gold, predicted) pair, or (genre, gold id, predicted id)); a resample is
    the counts of the kinds it drew and `stat` reads those counts. The draws are `bootstrap_interval`'s.
    """
    n = len(kinds)
    if n == 0:
        return 0.0, 1.0
    index: dict[Hashable, int] = {}
    codes = np.array([index.setdefault(kind, len(index)) for kind in kinds])
    names, k = list(index), len(index)
    block = max(1, min(resamples, 2_000_000 // n))  # resamples drawn at once (memory: block x n indices)
    stream = _randrange_stream(seed, n, block * n)
    stats: list[float] = []
    while len(stats) < resamples:
        rows = min(block, resamples - len(stats))
        drawn = codes[next(stream)[: rows * n]].reshape(rows, n) + (np.arange(rows) * k)[:, None]
        counts = np.bincount(drawn.ravel(), minlength=rows * k).reshape(rows, k)
        stats.extend(stat({names[j]: int(c) for j, c in enumerate(row) if c}) for row in counts)
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


def _genre_mean(kind_counts: Mapping[Any, int]) -> float:
    """The headline from counts of (genre, gold id, predicted id): the mean over genres of the authors' F1."""
    by_genre: dict[str, Counter[tuple[object, object]]] = {}
    for (genre, g, p), c in kind_counts.items():
        by_genre.setdefault(genre, Counter())[(g, p)] += c
    cells = [paper_f1_from_counts(by_genre[genre]) for genre in sorted(by_genre)]
    return sum(cells) / len(cells) if cells else 0.0


def _paper_cells(rows: Sequence[tuple[str, str | None, list[Any]]]) -> dict[str, float]:
    """Per genre: the authors' F1 (`macro_f1:genre=...`, multihop also per topic) and their dropped share."""
    out: dict[str, float] = {}
    cells: dict[str, list[tuple[object, object]]] = {}
    for genre, topic, (g, p) in rows:
        cells.setdefault(genre, []).append((g, p))
        if topic:
            cells.setdefault(f"{genre}_{topic}", []).append((g, p))
    for cell in sorted(cells):
        pairs = cells[cell]
        out[f"macro_f1:genre={cell}"] = paper_f1(pairs)
        out[f"macro_f1:genre={cell}:n"] = float(len(pairs))
        out[f"corrupted:genre={cell}"] = sum(g is None or p == PAPER_CORRUPTED for g, p in pairs) / len(pairs)
    return out


@metric
def opentom_f1(resamples: int = 1000) -> Metric:
    """OpenToM's F1 as the authors compute it, per genre, and the headline mean over genres with its interval.

    Keys: `macro_f1` (the mean of the genre cells run; the paper reports only the cells), `macro_f1_ci_low/_high`
    (seeded bootstrap over questions), `macro_f1:genre=<genre>` with `:n` (multihop also `<genre>_fullness` and
    `<genre>_accessibility`, the authors' two sub-scores), `corrupted:genre=<genre>` (share the authors drop), and
    our stricter reading of the same responses as `strict_f1` / `strict_f1:genre=<genre>` (whole words, multihop
    over six classes, an unreadable response a miss).
    """

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        rows = [(s.score.metadata or {}, s.sample_metadata or {}) for s in scores]
        paper = [(str(sm["genre"]), sm.get("topic"), m["paper"]) for m, sm in rows if m.get("paper") is not None]
        ours = [(m["gold"], m.get("predicted"), str(sm.get("genre"))) for m, sm in rows if m.get("gold") is not None]
        if not paper:
            return {"macro_f1": 0.0}
        kinds = [(genre, g, p) for genre, _, (g, p) in paper]
        lo, hi = counts_interval(kinds, _genre_mean, resamples=resamples)
        out = {"macro_f1": _genre_mean(Counter(kinds)), "macro_f1_ci_low": lo, "macro_f1_ci_high": hi}
        out.update(_paper_cells(paper))
        out["strict_f1"] = macro_f1([g for g, _, _ in ours], [p for _, p, _ in ours]) if ours else 0.0
        for genre in sorted({genre for _, _, genre in ours}):
            cell = [(g, p) for g, p, x in ours if x == genre]
            out[f"strict_f1:genre={genre}"] = _pairs_f1(cell)
        return out

    return compute
