"""The three QC stages: format/consistency, answer balancing, cross-model verification (scripted verifier)."""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.generators.tomsynth.test_generation import STORY, scripted_model
from tombench.generators.tomsynth.items import LETTERS, Item
from tombench.generators.tomsynth.qc import (
    Stage1Limits,
    answer_distribution,
    check_item,
    length_balance,
    longest_is_correct_pct,
    remap_letters,
    run_qc,
    stage1_format,
    stage2_balance,
    stage3_verify,
)
from tombench.generators.tomsynth.units import all_units


def make_item(n: int, answer: str = "B", **changes: object) -> Item:
    unit = all_units()[n * 37 % len(all_units())]
    base = Item(
        id=f"{unit.id}#0",
        **unit.metadata(),
        text=f"{STORY} (case {n})",
        question=f"What does Ann believe about the report in case {n}?",
        options={letter: f"Option {letter} text for case {n}" for letter in LETTERS},
        answer=answer,
    )
    return replace(base, **changes)


def test_stage1_defects() -> None:
    assert check_item(make_item(0)) == []
    assert "duplicate_options" in check_item(make_item(0, options={"A": "Same.", "B": "same", "C": "x", "D": "y"}))
    assert "not_4_options" in check_item(make_item(0, options={"A": "a", "B": "b", "C": "c"}))
    assert "invalid_answer_key" in check_item(make_item(0, answer="E"))
    assert "text_length" in check_item(make_item(0, text="x" * 1201))
    assert "text_length" not in check_item(make_item(0, text="x" * 1201), Stage1Limits(max_text_chars=2000))
    assert "option_length" in check_item(make_item(0, options={"A": "a" * 401, "B": "b", "C": "c", "D": "d"}))
    assert "option_refers_to_options" in check_item(
        make_item(0, options={"A": "a", "B": "b", "C": "Both A and B", "D": "d"})
    )
    assert "option_refers_to_options" in check_item(
        make_item(0, options={"A": "a", "B": "b", "C": "c", "D": "All of the above"})
    )


def test_stage1_removes_invalid_and_duplicate_items_and_reports_why() -> None:
    good = [make_item(i) for i in range(5)]
    dup = replace(good[1], id="other#1")
    bad = make_item(9, options={"A": "x", "B": "x", "C": "y", "D": "z"})
    kept, removed = stage1_format([*good, dup, bad])
    assert kept == good
    assert removed == {"other#1": Counter({"duplicate_item": 1}), bad.id: Counter({"duplicate_options": 1})}


def test_stage2_balances_by_reordering_without_dropping() -> None:
    # a generator biased to B and C, as the paper reports
    items = [make_item(i, answer="B" if i % 3 else "C") for i in range(103)]
    balanced = stage2_balance(items, random.Random(0))
    assert [i.id for i in balanced] == [i.id for i in items]
    dist = answer_distribution(balanced)
    assert max(dist.values()) - min(dist.values()) <= 1 and sum(dist.values()) == 103
    for before, after in zip(items, balanced, strict=True):
        # the correct option's text follows the key; the distractors are the same set
        assert after.options[after.answer] == before.options[before.answer]
        assert sorted(after.options.values()) == sorted(before.options.values())
        assert after.original_answer == before.answer
    assert stage2_balance(items, random.Random(0)) == balanced


@settings(max_examples=50, deadline=None)
@given(st.lists(st.sampled_from(LETTERS), min_size=0, max_size=40), st.integers(0, 2**16))
def test_stage2_property_even_and_answer_preserving(answers: list[str], seed: int) -> None:
    items = [make_item(i, answer=a) for i, a in enumerate(answers)]
    balanced = stage2_balance(items, random.Random(seed))
    dist = answer_distribution(balanced)
    assert max(dist.values()) - min(dist.values()) <= (1 if items else 0)
    # items whose key was already needed keep their order: moves are minimal (no more than the imbalance)
    moved = sum(a.answer != b.answer for a, b in zip(items, balanced, strict=True))
    before = answer_distribution(items)
    assert moved <= sum(max(0, before[k] - len(items) // 4) for k in LETTERS)
    assert all(b.options[b.answer] == a.options[a.answer] for a, b in zip(items, balanced, strict=True))


def _verdict(judgment: str, correct: str | None = None) -> str:
    return json.dumps({"judgment": judgment, "correct_answer": correct, "reason": f"because {judgment}"})


def _case(prompt: str) -> int:
    return int(re.search(r"in case (\d+)\?", prompt).group(1))


def test_stage3_keeps_only_pass_and_resumes_from_verdict_file(tmp_path: Path) -> None:
    items = [make_item(i) for i in range(6)]
    replies = {
        0: _verdict("PASS"),
        1: _verdict("AMBIGUOUS"),
        2: _verdict("FALSE", "C"),
        3: _verdict("OTHER"),
        4: "```json\n" + _verdict("PASS") + "\n```",
        5: "I think it's fine.",
    }
    prompts: list[str] = []

    def script(p: str, n: int) -> str:
        prompts.append(p)
        return replies[_case(p)]

    path = tmp_path / "verdicts.jsonl"
    verdicts = asyncio.run(stage3_verify(items, scripted_model(script), verdicts_path=path, max_retries=1, cache=False))
    assert [verdicts[i.id]["judgment"] for i in items] == ["PASS", "AMBIGUOUS", "FALSE", "OTHER", "PASS", "UNPARSED"]
    assert verdicts[items[2].id]["correct_answer"] == "C"
    assert len(prompts) == 7  # the unparseable one was retried once
    p0 = next(p for p in prompts if _case(p) == 0)
    assert "### Narrative:" in p0 or "### Dialogue:" in p0
    assert "Is the labeled answer B the unique correct option?" in p0 and "A. Option A text for case 0" in p0
    # resume: readable verdicts are reused; the unreadable one is asked again (and is still unreadable here)
    again = asyncio.run(stage3_verify(items, scripted_model(script), verdicts_path=path, max_retries=1, cache=False))
    assert again == verdicts and len(prompts) == 9 and {_case(p) for p in prompts[7:]} == {5}


def test_unparsed_verdicts_are_asked_again_with_fresh_calls_under_the_default_cache(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    items = [make_item(i) for i in range(3)]
    calls: Counter[int] = Counter()

    def script(p: str, n: int) -> str:  # item 2 is unreadable for its first two calls, then readable
        calls[_case(p)] += 1
        return "hmm, hard to say" if _case(p) == 2 and calls[2] <= 2 else _verdict("PASS")

    path = tmp_path / "verdicts.jsonl"
    model = scripted_model(script)
    first = asyncio.run(stage3_verify(items, model, verdicts_path=path, max_retries=1))  # default cache
    assert first[items[2].id]["judgment"] == "UNPARSED" and calls == {0: 1, 1: 1, 2: 2}
    second = asyncio.run(stage3_verify(items, model, verdicts_path=path, max_retries=1))
    assert second[items[2].id]["judgment"] == "PASS" and calls == {0: 1, 1: 1, 2: 3}  # a new call, not a replay
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["judgment"] for r in rows if r["id"] == items[2].id] == ["UNPARSED", "PASS"]


def test_run_qc_reports_each_stage(tmp_path: Path) -> None:
    items = [make_item(i, answer="B") for i in range(40)]
    items.append(make_item(50, options={"A": "x", "B": "x", "C": "y", "D": "z"}))  # stage 1
    items.append(replace(items[0], id="dup#0"))  # stage 1 duplicate
    # verifier: AMBIGUOUS for cases 0-2, FALSE for 3, PASS otherwise
    judged = {0: "AMBIGUOUS", 1: "AMBIGUOUS", 2: "AMBIGUOUS", 3: "FALSE"}
    model = scripted_model(lambda p, n: _verdict(judged.get(_case(p), "PASS"), "A" if _case(p) == 3 else None))
    kept, report = asyncio.run(run_qc(items, model, seed=1, cache=False))
    d = report.to_dict()
    assert d["input"] == 42
    assert d["stage1"] == {"removed": 2, "removed_pct": 4.76, "defects": {"duplicate_options": 1, "duplicate_item": 1}}
    assert d["stage2"]["answers_before"] == {"A": 0, "B": 40, "C": 0, "D": 0}
    assert d["stage2"]["answers_after"] == {"A": 10, "B": 10, "C": 10, "D": 10}
    assert d["stage2"]["reordered"] == 30
    assert d["stage3"]["removed"] == 4 and d["stage3"]["removed_pct"] == 10.0
    assert d["stage3"]["judgments"] == {"PASS": 36, "AMBIGUOUS": 3, "FALSE": 1, "OTHER": 0, "UNPARSED": 0}
    assert d["output"] == len(kept) == 36
    assert all(i.original_answer == "B" for i in kept)


def test_run_qc_without_verifier_skips_stage3() -> None:
    kept, report = asyncio.run(run_qc([make_item(i) for i in range(8)], None))
    assert len(kept) == 8 and report.stage3_removed == 0 and report.answers_after == {k: 2 for k in LETTERS}


def _long_correct(n: int, extra: int) -> Item:
    options = {"A": f"short {n}", "B": f"the correct option {n}" + " and more" * extra, "C": f"brief {n}",
               "D": f"tiny {n}"}
    return make_item(n, options=options, answer="B")


def test_length_bias_is_measured_and_capped() -> None:
    items = [_long_correct(i, extra=i) for i in range(3)] + [make_item(9, answer="B")]
    assert longest_is_correct_pct(items) == 75.0
    _, report = asyncio.run(run_qc(items, None, max_longest_correct_pct=100))
    assert report.to_dict()["longest_option_is_correct_pct"] == 75.0  # cap off: only measured
    kept, report = asyncio.run(run_qc(items, None))  # default cap 35%
    d = report.to_dict()
    assert d["length_bias"]["longest_correct_pct_before"] == 75.0 and d["length_bias"]["removed"] == 3
    assert d["longest_option_is_correct_pct"] == 0.0 and len(kept) == 1


def test_length_balance_drops_the_most_lopsided_first_and_no_more_than_needed() -> None:
    items = [_long_correct(i, extra=i) for i in range(6)] + [make_item(10 + i) for i in range(4)]
    assert longest_is_correct_pct(items) == 60.0
    kept, removed = length_balance(items, 40.0)
    # (6 - r) / (10 - r) <= 0.4  ->  r >= 3.33  ->  4 removed, the ones with the longest correct option
    assert removed == [items[i].id for i in (2, 3, 4, 5)]
    assert longest_is_correct_pct(kept) <= 40.0 and len(kept) == 6
    assert length_balance(items, 60.0) == (items, [])


def test_reordering_keeps_the_analysis_naming_the_right_option() -> None:
    analysis = ("The correct answer is B: Ann left before the report moved. A is wrong because she never saw it, "
                "options C and D confuse the two folders. A careful reader notices the tray.")
    items = [make_item(i, answer="B", analysis=analysis) for i in range(8)]
    balanced = stage2_balance(items, random.Random(3))
    for item in balanced:
        new = {old: next(k for k in LETTERS if item.options[k] == items[0].options[old].replace("case 0", f"case {_n(item)}"))
               for old in LETTERS}
        assert item.analysis == (
            f"The correct answer is {item.answer}: Ann left before the report moved. {new['A']} is wrong because she "
            f"never saw it, options {new['C']} and {new['D']} confuse the two folders. A careful reader notices the tray."
        )


def _n(item: Item) -> int:
    return int(re.search(r"case (\d+)", item.text).group(1))


@settings(max_examples=50, deadline=None)
@given(st.permutations(LETTERS))
def test_remap_letters_follows_any_permutation(perm: list[str]) -> None:
    mapping = dict(zip(LETTERS, perm, strict=True))
    text = "Answer: A. Option B misreads her; (C) is plausible, D is not. A friend would see that A is right."
    assert remap_letters(text, mapping) == (
        f"Answer: {mapping['A']}. Option {mapping['B']} misreads her; ({mapping['C']}) is plausible, {mapping['D']} "
        f"is not. A friend would see that {mapping['A']} is right."
    )


def test_keys_are_balanced_again_after_verification() -> None:
    items = [make_item(i, answer="B") for i in range(40)]
    # the verifier rejects every item whose key ended on A after stage 2: stage 3 alone would leave no A keys
    model = scripted_model(lambda p, n: _verdict("FALSE" if "labeled answer A " in p else "PASS"))
    kept, report = asyncio.run(run_qc(items, model, seed=1, cache=False))
    d = report.to_dict()
    assert d["stage2"]["answers_after"] == {"A": 10, "B": 10, "C": 10, "D": 10} and d["stage3"]["removed"] == 10
    final = d["final_balance"]["answers"]
    assert final["A"] > 0 and max(final.values()) - min(final.values()) <= 1
    assert sum(d["final_balance"]["answers"].values()) == len(kept) == 30 and d["final_balance"]["reordered"] > 0
    assert all(i.options[i.answer] == items[0].options["B"].replace("case 0", f"case {_n(i)}") for i in kept)
