"""FANToM answer reading and its set-level scores, "All*" and "All" (Kim et al., 2023).

Reading follows the authors' `eval_fantom.py` with whole words instead of substrings (the paper's tests accept a
list answer "Al" inside "Allison" and read "No, she knows" as a yes):

* belief, multiple choice: the option letter, read by the shared `letter` protocol (`tombench.scorers.suites.choice`):
  "(a)" / "a)" / "a." at the start or "(a)" anywhere, as in the paper, and a response that names both letters is
  wrong (the paper counts it right for either);
* belief, free form: right when the response is closer to the correct answer than to the wrong one (paper: cosine
  of `all-roberta-large-v1` sentence embeddings; here by default token F1, or with `belief_matcher="embedding"`
  the paper's cosine rule over a sentence-transformers model, `tombench.scorers.suites.embedding`; see
  `closer_to_correct` and tombench/tasks/fantom/README.md for how often the two disagree);
* answerability / info-accessibility lists: every character of the correct answer named, none of the wrong one;
* yes/no questions: the response's yes or no (a leading yes/no/true/false, else the first clause saying whether the
  character knows; a hedge reads nothing);
* fact questions: token F1 against the correct answer (not part of any All score).

Set-level scores (`set_scores`): for the questions of one scenario (`inaccessible`, the paper's headline, or
`accessible`, its control task), a set counts as right only when every question in it is right. "All*" takes every
ToM question of the set (both belief formats, both list and both yes/no types); "All" leaves out the free-form
belief question. Sets are grouped by `set_id` (default), conversation part or whole conversation.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from tombench.dsl.denials import read_yes_no_affirmed
from tombench.kit.intervals import wilson_interval
from tombench.scorers.suites.choice import match_choice

__all__ = [
    "ALL_KINDS",
    "BELIEF_MATCHERS",
    "TOM_KINDS",
    "FantomResult",
    "binary_f1",
    "closer_to_correct",
    "fantom_answer",
    "fantom_sets",
    "read_binary",
    "list_correct",
    "set_scores",
    "strip_answer_prefix",
    "token_f1",
]

#: Question kinds (the authors' question_type, shortened).
TOM_KINDS: tuple[str, ...] = (
    "belief_choice",
    "belief_free",
    "answerability_list",
    "answerability_binary",
    "info_list",
    "info_binary",
)
ALL_KINDS: tuple[str, ...] = ("fact", *TOM_KINDS)
#: The kinds that count for "All" (the paper leaves the free-form belief question out).
ALL_SCORE_KINDS: tuple[str, ...] = tuple(k for k in TOM_KINDS if k != "belief_free")

_TOKEN = re.compile(r"\w+(?:'\w+)?")


def strip_answer_prefix(text: str) -> str:
    """The authors' `parse_response`: keep what follows the last "Answer:" (or "Choose an answer from above:")."""
    if "Answer:" in text:
        return text.split("Answer:")[-1].strip()
    if "Choose an answer from above:" in text:
        return text.split("Choose an answer from above:")[-1].strip()
    return text.strip()


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def token_f1(reference: str, response: str) -> float:
    """Token-overlap F1 (SQuAD style): lower case, punctuation dropped, multiset overlap of word tokens."""
    ref, pred = _tokens(reference), _tokens(response)
    common = sum((Counter(ref) & Counter(pred)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


BELIEF_MATCHERS: tuple[str, ...] = ("token_f1", "embedding")


def closer_to_correct(
    response: str,
    correct: str,
    wrong: str,
    similarity: Callable[[str, str, str], tuple[float, float]] | None = None,
) -> tuple[bool, float]:
    """Free-form belief: right iff the response is closer to the correct answer than to the wrong one (ties: wrong).

    Closeness is token F1 by default, or `similarity(response, correct, wrong)` -> (with correct, with wrong), e.g.
    the paper's embedding cosines (`suites_embedding.similarity`). Returns the verdict and the token F1 with the
    side it was judged closer to (the paper's "BeliefQ token-F1" input, its `word_overlap`).
    """
    right_f1, wrong_f1 = token_f1(correct, response), token_f1(wrong, response)
    right_sim, wrong_sim = (right_f1, wrong_f1) if similarity is None else similarity(response, correct, wrong)
    return (True, right_f1) if right_sim > wrong_sim else (False, wrong_f1)


def _names_in(names: Iterable[str], text: str) -> list[bool]:
    low = text.lower()
    return [re.search(rf"(?<!\w){re.escape(n.lower())}(?!\w)", low) is not None for n in names]


def list_correct(response: str, correct: Sequence[str], wrong: Sequence[str]) -> tuple[bool, bool, bool]:
    """(right, left out an aware character, included an unaware one) for a list question."""
    missed = not all(_names_in(correct, response))
    included = any(_names_in(wrong, response))
    return (not missed and not included), missed, included


_HEDGE = re.compile(
    r"\b(?:yes\s*(?:or|/)\s*no|no\s*(?:or|/)\s*yes|maybe|perhaps|possibly|not\s+sure|unsure|unclear|uncertain"
    r"|hard\s+to\s+(?:say|tell)|can(?:'t|not|\s+not)\s+(?:tell|say|determine|be\s+sure)|i\s+(?:don't|do\s+not)\s+know"
    r"|might|may\s+or\s+may\s+not|not\s+enough\s+information)\b"
)
_KNOWING = re.compile(r"\b(?:knows?|knew|is\s+aware|was\s+aware|heard|has\s+(?:heard|learned)|was\s+(?:there|present))\b")
_NEGATION = re.compile(r"\b(?:not|never|no\s+way|no\s+idea|unaware)\b|n't\b")
_FIRST_WORD = {"yes": "yes", "true": "yes", "yeah": "yes", "yep": "yes", "correct": "yes",
               "no": "no", "false": "no", "nope": "no", "nah": "no"}


def read_binary(text: str) -> str | None:
    """"yes", "no" or None, as a careful grader reads a yes/no answer.

    A hedge or refusal anywhere ("Yes or no, it is hard to say.", "It is unclear whether ...", "I don't know") reads
    nothing; else a leading yes/no/true/false (also "Nope", "Yeah") decides; else the first clause that says whether
    someone knows decides, negated or not ("Ines doesn't know", "There is no way Ines knows" are a no). A yes/no
    the reply denies ("Not yes.", "Yes - just kidding. No ...", "Yes is wrong; no.") is not its answer
    (`tombench.dsl.denials`).
    """
    t = re.sub(r"[*_`]", "", text).strip().strip("'\"").lower()
    if _HEDGE.search(t):
        return None
    return read_yes_no_affirmed(t, _stated_binary)


def _stated_binary(t: str) -> str | None:
    """`read_binary` on a lower-case reply without its denials."""
    first = re.match(r"\W*(\w+)", t)
    if first and first.group(1) in _FIRST_WORD:
        return _FIRST_WORD[first.group(1)]
    for clause in re.split(r"[,.;:!?]", t):
        if _KNOWING.search(clause):
            return "no" if _NEGATION.search(clause) else "yes"
    return None


def binary_f1(pairs: Iterable[tuple[str, str | None]]) -> float:
    """The paper's yes/no F1: support-weighted F1 of the yes and no classes; unreadable answers are misses."""
    pairs = list(pairs)
    if not pairs:
        return float("nan")
    total, out = len(pairs), 0.0
    for c in ("yes", "no"):
        support = sum(1 for g, _ in pairs if g == c)
        if not support:
            continue
        tp = sum(1 for g, p in pairs if g == c and p == c)
        fp = sum(1 for g, p in pairs if g != c and p == c)
        fn = support - tp
        out += support / total * (0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn))
    return out


@dataclass(frozen=True)
class FantomResult:
    """One scored FANToM question, as the set-level scores need it."""

    set_id: str
    kind: str
    accessibility: str | None
    correct: bool
    tom_type: str | None = None
    gold: str | None = None
    predicted: str | None = None
    overlap: float | None = None
    """Free-form belief: token F1 with the side the answer was judged closer to; fact: the token F1."""


def group_of(set_id: str, aggregate: str) -> str:
    """The unit an All score is taken over: the set, its conversation part ("c-p") or its conversation ("c")."""
    parts = str(set_id).split("-")
    if aggregate == "set":
        return str(set_id)
    if aggregate == "part":
        return "-".join(parts[:2])
    if aggregate == "conversation":
        return parts[0]
    raise ValueError(f"aggregate must be set, part or conversation, got {aggregate!r}")


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def _all_right(results: Iterable[FantomResult], aggregate: str) -> float:
    groups: dict[str, bool] = {}
    for r in results:
        key = group_of(r.set_id, aggregate)
        groups[key] = groups.get(key, True) and r.correct
    return _mean([1.0 if v else 0.0 for v in groups.values()])


def _all_scores(tom: Sequence[FantomResult], aggregate: str) -> dict[str, float]:
    """The "every question of the unit right" scores: the paper's All* and All, and the same over each of its two
    question families, so a low All can be traced to the family that sinks it."""
    return {
        "all_star": _all_right(tom, aggregate),
        "all": _all_right([r for r in tom if r.kind in ALL_SCORE_KINDS], aggregate),
        "answerability_all": _all_right([r for r in tom if r.kind.startswith("answerability")], aggregate),
        "info_all": _all_right([r for r in tom if r.kind.startswith("info")], aggregate),
    }


def _type_scores(by_kind: Mapping[str, list[FantomResult]]) -> dict[str, float]:
    """Each question type alone, as the paper's table reports it: accuracy for every type, plus the token F1 of the
    right free-form belief answers and the support-weighted F1 of the yes/no types (their accuracy hides a model
    that always says the same word)."""
    out = {kind: _mean([1.0 if r.correct else 0.0 for r in rows]) for kind, rows in by_kind.items()}
    out["belief_free_token_f1"] = _mean([r.overlap for r in by_kind["belief_free"] if r.correct and r.overlap is not None])
    for kind in ("answerability_binary", "info_binary"):
        out[f"{kind}_f1"] = binary_f1((r.gold or "", r.predicted) for r in by_kind[kind])
    return out


def _belief_by_order(belief_free: Iterable[FantomResult]) -> dict[str, float]:
    """The paper's order analysis: free-form belief accuracy by order ("first") and by full ToM type
    ("first:cyclic"); it reads the free-form belief questions only, as the paper does."""
    groups: dict[str, list[float]] = {}
    for r in belief_free:
        if not r.tom_type:
            continue
        for name in dict.fromkeys((r.tom_type.split(":")[0], r.tom_type)):
            groups.setdefault(name, []).append(1.0 if r.correct else 0.0)
    return {f"belief_free:{name}": _mean(vals) for name, vals in groups.items()}


def set_scores(results: Sequence[FantomResult], *, scenario: str = "inaccessible", aggregate: str = "set") -> dict[str, float]:
    """The paper's report for one scenario: All*, All, per-type accuracies and F1s (NaN where a type is absent)."""
    tom = [r for r in results if r.kind in TOM_KINDS and r.accessibility == scenario]
    by_kind: Mapping[str, list[FantomResult]] = {k: [r for r in tom if r.kind == k] for k in TOM_KINDS}
    out = {**_all_scores(tom, aggregate), **_type_scores(by_kind), **_belief_by_order(by_kind["belief_free"])}
    return {k: v for k, v in out.items() if not (isinstance(v, float) and math.isnan(v))}


def fact_f1(results: Iterable[FantomResult]) -> float:
    """Mean token F1 of the fact questions (the paper's FactQ token-F1)."""
    return _mean([r.overlap for r in results if r.kind == "fact" and r.overlap is not None])


# ------------------------------------------------------------------------------------------------------ Inspect glue
def score_response(
    md: Mapping[str, object],
    completion: str,
    similarity: Callable[[str, str, str], tuple[float, float]] | None = None,
) -> tuple[float, dict[str, object]]:
    """Score one response to the question described by sample metadata `md` (see `fantom.record_to_samples`);
    `similarity` replaces token F1 as the free-form belief rule (see `closer_to_correct`)."""
    response = strip_answer_prefix(completion)
    kind = str(md["kind"])
    correct_answer = md["correct"]
    if kind == "fact":
        f1 = token_f1(str(correct_answer), response)
        return f1, {"overlap": f1}
    if kind == "belief_free":
        right, overlap = closer_to_correct(response, str(correct_answer), str(md["wrong"]), similarity)
        return float(right), {"correct": right, "overlap": overlap}
    if kind == "belief_choice":
        options = [str(o) for o in md["options"]]  # type: ignore[union-attr]
        read = match_choice(response, "ab", options)
        return float(read == correct_answer), {"correct": read == correct_answer, "predicted": read,
                                                "gold": correct_answer}
    if kind.endswith("_list"):
        right, missed, included = list_correct(response, list(correct_answer), list(md["wrong"] or []))  # type: ignore[arg-type]
        return float(right), {"correct": right, "left_out_aware": missed, "included_unaware": included}
    if kind.endswith("_binary"):
        read = read_binary(response)
        return float(read == correct_answer), {"correct": read == correct_answer, "predicted": read,
                                                "gold": correct_answer}
    raise ValueError(f"unknown FANToM question kind {kind!r}")


@scorer(metrics=[])
def fantom_answer(belief_matcher: str = "token_f1", embedding_model: str | None = None) -> Scorer:
    """FANToM's reading of each question type (module docstring); fact questions score their token F1.

    `belief_matcher="embedding"` reads free-form belief answers by the paper's cosine rule with `embedding_model`
    (default: the packaged all-MiniLM-L6-v2; `suites_embedding`).
    """
    if belief_matcher not in BELIEF_MATCHERS:
        raise ValueError(f"belief_matcher must be one of {list(BELIEF_MATCHERS)}, got {belief_matcher!r}")
    similarity = None
    if belief_matcher == "embedding":
        from tombench.scorers.suites.embedding import PACKAGED_MODEL
        from tombench.scorers.suites.embedding import similarity as load_similarity

        similarity = load_similarity(embedding_model or PACKAGED_MODEL)

    async def score(state: TaskState, target: Target) -> Score:
        value, meta = score_response(state.metadata, state.output.completion, similarity)
        return Score(
            value=value,
            answer=strip_answer_prefix(state.output.completion),
            explanation=f"{state.metadata['kind']}: {meta}; expected {target.text!r}",
            metadata={"kind": state.metadata["kind"], **meta},
        )

    return score


def results_from_scores(scores: Sequence[SampleScore]) -> list[FantomResult]:
    out = []
    for s in scores:
        md, sm = s.score.metadata or {}, s.sample_metadata or {}
        kind = str(sm.get("kind") or md.get("kind"))
        out.append(
            FantomResult(
                set_id=str(sm.get("set_id")),
                kind=kind,
                accessibility=sm.get("accessibility"),
                correct=bool(md.get("correct")) if kind != "fact" else False,
                tom_type=sm.get("tom_type"),
                gold=md.get("gold"),
                predicted=md.get("predicted"),
                overlap=md.get("overlap"),
            )
        )
    return out


def _units(results: Sequence[FantomResult], kinds: Sequence[str], scenario: str, aggregate: str) -> tuple[int, int]:
    groups: dict[str, bool] = {}
    for r in results:
        if r.kind in kinds and r.accessibility == scenario:
            key = group_of(r.set_id, aggregate)
            groups[key] = groups.get(key, True) and r.correct
    return sum(groups.values()), len(groups)


@metric
def fantom_sets(aggregate: str = "set") -> Metric:
    """The paper's report: `all_star`, `all` (with Wilson 95% intervals over the units), per-type scores, yes/no F1s,
    belief by order, `fact_token_f1`, and the accessible control sets as `control:*`; also `accuracy` (over the ToM
    questions only, fact questions excluded) with its Wilson interval."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        results = results_from_scores(scores)
        out: dict[str, float] = {}
        tom = [r for r in results if r.kind in TOM_KINDS]
        right = sum(r.correct for r in tom)
        out["accuracy"] = right / len(tom) if tom else 0.0
        out["accuracy_ci_low"], out["accuracy_ci_high"] = wilson_interval(right, len(tom))
        for scenario, prefix in (("inaccessible", ""), ("accessible", "control:")):
            for key, value in set_scores(results, scenario=scenario, aggregate=aggregate).items():
                out[prefix + key] = value
            for name, kinds in (("all_star", TOM_KINDS), ("all", ALL_SCORE_KINDS)):
                k, n = _units(results, kinds, scenario, aggregate)
                if n:
                    out[f"{prefix}{name}_ci_low"], out[f"{prefix}{name}_ci_high"] = wilson_interval(k, n)
                    out[f"{prefix}{name}:n"] = float(n)
        f1 = fact_f1(results)
        if not math.isnan(f1):
            out["fact_token_f1"] = f1
        return out

    return compute
