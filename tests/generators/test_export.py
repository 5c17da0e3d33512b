"""Training-data export (tombench.generators.export): records, ToM mixture, per-type balance, chat, HF dataset, CLI."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from tombench.cli import main
from tombench.dsl import build_prompt, parse_structure
from tombench.generators.export import (
    FIG5_SHARES,
    ExportConfig,
    balance_per_type,
    collect_units,
    export_records,
    save_dataset,
    to_chat,
    write_jsonl,
)
from tombench.generators.infill import story_id

NAMES = [
    "Anne", "Beth", "Carl", "Dana", "Eve", "Finn", "Gina", "Hugo", "Ivy", "Jack", "Kate", "Liam",
    "Mia", "Nick", "Olga", "Paul", "Rosa", "Sam", "Tina", "Uma", "Vic", "Walt", "Xena", "Yuri",
]  # fmt: skip


def structure(a: str, b: str, tom: bool) -> str:
    text = (
        f"{a} entered the kitchen. {b} entered the kitchen. {a} moved the apple to the box, which is also located in "
        "the kitchen."
    )
    if tom:  # b leaves before the second move: b's belief is false, the story requires ToM
        text += f" {b} left the kitchen. {a} moved the apple to the basket, which is also located in the kitchen."
    return text


def search_lines(n_tom: int, n_non: int, types: tuple[str, ...] = ("tomi", "tomi+asymmetric")) -> list[dict]:
    """Search-format lines: ToM stories first, then the others; story types alternate."""
    lines = []
    for i in range(n_tom + n_non):
        a, b = NAMES[i % 24], NAMES[(i + 1 + i // 24) % 24]
        story = parse_structure(structure(a, b, i < n_tom))
        lines.append({"method": "astar", "setting": f"{types[i % len(types)]}|p2|m2|r1", "story": story.to_dict()})
    return lines


def write(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def infill_line(search: dict, status: str = "ok") -> dict:
    """What `tombench infill` writes for a story (only the fields the export reads)."""
    return {
        "id": story_id(search["story"]),
        "status": status,
        "story_type": search["setting"].split("|")[0],
        "text": "Some natural narration." if status == "ok" else None,
        "story": search["story"],
    }


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    lines = search_lines(12, 12)
    infills = [infill_line(x) for x in lines[:4]] + [infill_line(lines[4], "failed"), infill_line(lines[20])]
    return write(tmp_path / "search.jsonl", lines), write(tmp_path / "infilled.jsonl", infills)


def test_collect_units_merges_search_and_infill_outputs(files: tuple[Path, Path]) -> None:
    units, inputs = collect_units(files)
    assert len(units) == 24 and [u.id for u in units] == sorted(u.id for u in units)
    assert sum(u.requires_tom for u in units) == 12
    assert sum(u.infilled is not None for u in units) == 5  # the failed infill is not training data
    assert Counter(u.story_type for u in units) == {"tomi": 12, "tomi+asymmetric": 12}
    assert [Path(i["path"]).name for i in inputs] == ["search.jsonl", "infilled.jsonl"]
    assert all(len(i["sha256"]) == 64 for i in inputs)


def test_records_carry_dsl_labels_for_raw_and_infilled_text(files: tuple[Path, Path]) -> None:
    units, _ = collect_units(files)
    records, stats = export_records(units, ExportConfig(text="both"))
    assert stats.by_source == {"infilled": 4 * 10 + 8, "raw": 12 * 10 + 12 * 8}  # 4 ToM and 1 other infilled
    r = next(r for r in records if r["source"] == "infilled")
    unit = next(u for u in units if u.id == r["story_id"])
    assert r["text"] == "Some natural narration."
    expected = {(q.text, q.answer) for q in unit.story.questions()}
    assert {
        (x["question"], x["answer"]) for x in records if x["story_id"] == unit.id and x["source"] == "raw"
    } == expected
    assert set(r) == {
        "story_id", "source", "text", "question", "answer", "order", "kind", "interesting", "false_belief",
        "story_type", "requires_tom",
    }  # fmt: skip
    raw_only, _ = export_records(units, ExportConfig(text="raw", orders=(1,)))
    assert {x["order"] for x in raw_only} == {1} and {x["source"] for x in raw_only} == {"raw"}
    infilled, st = export_records(units, ExportConfig(text="infilled"))
    assert {x["source"] for x in infilled} == {"infilled"} and st.stories_selected == 5


@pytest.mark.parametrize("share", FIG5_SHARES)
def test_tom_mixture_is_exact_at_the_story_level(files: tuple[Path, Path], share: float) -> None:
    units, _ = collect_units(files)
    _, stats = export_records(units, ExportConfig(text="raw", tom_share=share))
    assert stats.tom_story_share == share
    assert stats.stories_selected == {0.0: 12, 0.25: 16, 0.5: 24, 0.75: 16, 1.0: 12}[share]


def test_mixture_respects_max_stories_and_exclusions(files: tuple[Path, Path]) -> None:
    units, _ = collect_units(files)
    _, stats = export_records(units, ExportConfig(text="raw", tom_share=0.25, max_stories=8))
    assert (stats.stories_selected, stats.tom_stories_selected) == (8, 2)
    _, stats = export_records(units, ExportConfig(text="raw", exclude_asymmetric=True))
    assert set(stats.by_type) == {"tomi"}


def test_balance_gives_every_story_type_the_same_number_of_questions(tmp_path: Path) -> None:
    lines = search_lines(6, 18, types=("tomi", "tomi", "fantom-private"))  # 16 tomi stories, 8 fantom-private
    units, _ = collect_units([write(tmp_path / "s.jsonl", lines)])
    records, stats = export_records(units, ExportConfig(text="raw", balance=True))
    assert len(set(stats.by_type.values())) == 1 and sum(stats.by_type.values()) == stats.records
    capped, stats = export_records(units, ExportConfig(text="raw", balance=True, questions_per_type=5))
    assert stats.by_type == {"fantom-private": 5, "tomi": 5}
    mixed, stats = export_records(units, ExportConfig(text="raw", balance=True, tom_share=0.5))
    for t in stats.by_type:
        of_type = [r for r in mixed if r["story_type"] == t]
        assert sum(r["requires_tom"] for r in of_type) * 2 == len(of_type)
    assert stats.tom_record_share == 0.5


def test_balance_per_type_keeps_order_and_is_seeded() -> None:
    recs = [{"story_type": t, "requires_tom": i % 2 == 0, "i": i} for i, t in enumerate("aababbbbbb")]
    one = balance_per_type(recs, random.Random(1))
    assert Counter(r["story_type"] for r in one) == {"a": 3, "b": 3}
    assert [r["i"] for r in one] == sorted(r["i"] for r in one)
    assert one == balance_per_type(recs, random.Random(1))
    assert balance_per_type([], random.Random(0)) == []
    # a type without any ToM story cannot meet a 50% share: it is left out instead of emptying every type
    mixed = balance_per_type(
        recs + [{"story_type": "c", "requires_tom": False, "i": 99}], random.Random(1), tom_share=0.5
    )
    assert Counter(r["story_type"] for r in mixed) == {"a": 2, "b": 2}


def test_export_is_deterministic_for_a_seed(files: tuple[Path, Path]) -> None:
    units, _ = collect_units(files)
    cfg = ExportConfig(tom_share=0.25, balance=True, seed=7)
    assert export_records(units, cfg)[0] == export_records(units, cfg)[0]


def test_chat_records_use_the_benchmark_prompt() -> None:
    rec = {"text": "Anne entered the kitchen.", "question": "Where is Anne?", "answer": "kitchen"}
    prompt = build_prompt(rec["text"], rec["question"])
    assert to_chat(rec) == {
        "messages": [
            {"role": "system", "content": prompt.system},
            {"role": "user", "content": "Anne entered the kitchen.\nWhere is Anne? Short Answer."},
            {"role": "assistant", "content": "kitchen"},
        ]
    }


def test_jsonl_and_hf_dataset_round_trip(files: tuple[Path, Path], tmp_path: Path) -> None:
    import datasets

    units, inputs = collect_units(files)
    records, stats = export_records(units, ExportConfig(tom_share=0.5))
    stats.inputs = inputs
    assert write_jsonl(records, tmp_path / "t.jsonl") == len(records)
    assert [json.loads(x) for x in (tmp_path / "t.jsonl").read_text().splitlines()] == records
    out = save_dataset(records, tmp_path / "ds", stats=stats)
    ds = datasets.load_from_disk(str(out))
    assert ds.num_rows == len(records) and ds[0] == records[0]
    card = (out / "README.md").read_text()
    assert card.startswith("---\n") and "theory-of-mind" in card and f"records: {len(records)} " in card
    assert "search.jsonl" in card and "50.0% of stories" in card
    chat = datasets.load_from_disk(str(save_dataset(records[:3], tmp_path / "chat", stats=stats, chat=True)))
    assert chat.column_names == ["messages"] and chat[0]["messages"][2]["content"] == records[0]["answer"]


# ---------------------------------------------------------------------------------------------------- CLI
def test_cli_export_training(files: tuple[Path, Path], tmp_path: Path) -> None:
    out, hf = tmp_path / "train.jsonl", tmp_path / "train_ds"
    args = ["export-training", *map(str, files), "--out", str(out), "--hf-dir", str(hf), "--tom-share", "0.75"]
    res = CliRunner().invoke(main, [*args, "--chat", "--orders", "1,2"])
    assert res.exit_code == 0, res.output
    assert "chat records from 16 stories" in res.output
    first = json.loads(out.read_text().splitlines()[0])
    assert [m["role"] for m in first["messages"]] == ["system", "user", "assistant"]
    assert (hf / "README.md").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "at least one input"),
        (["missing.jsonl"], "no such file"),
        (["{search}", "--orders", "1,3"], "--orders must be"),
        (["{search}", "--questions-per-type", "3"], "only applies with --balance"),
        (["{search}", "--text", "infilled"], "nothing to export"),
    ],
)
def test_cli_export_user_errors_are_one_line(
    files: tuple[Path, Path], tmp_path: Path, args: list[str], message: str
) -> None:
    args = [a.replace("{search}", str(files[0])) for a in args]
    if args == ["missing.jsonl"]:
        args = [str(tmp_path / "missing.jsonl")]
    res = CliRunner().invoke(main, ["export-training", *args, "--out", str(tmp_path / "o.jsonl")])
    assert res.exit_code == 2 and message in res.output and res.output.strip().count("\n") == 0, res.output
