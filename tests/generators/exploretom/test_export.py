"""Training-data export (tombench.generators.exploretom.export): records, ToM mixture, per-type balance, chat, HF dataset, CLI."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from tombench.cli import main
from tombench.dsl import Story, build_prompt, parse_structure
from tombench.generators.exploretom.export import (
    FIG5_SHARES,
    ExportConfig,
    ExportError,
    collect_units,
    export_records,
    save_dataset,
    to_chat,
    write_jsonl,
)
from tombench.generators.exploretom.identity import story_digest
from tombench.generators.exploretom.infill_checks import final_checks

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
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def infill_line(search: dict, status: str = "ok", *, verified: bool = True, text: str | None = None) -> dict:
    """What `tombench infill` writes for a story (the fields the export reads); every label confirmed by the judge,
    or (`verified=False`) no final check at all, as infills made before it existed."""
    story = Story.from_dict(search["story"])
    stype = search["setting"].split("|")[0]
    rec = {
        "id": search.get("id", "x"),
        "digest": story_digest(story, stype),
        "status": status,
        "story_type": stype,
        "text": (text or "Some natural narration.") if status == "ok" else None,
        "story": search["story"],
    }
    if verified:
        rec["verified"] = [{"question": q.text, "answer": q.answer, "verdict": True} for q, _ in final_checks(story)]
    return rec


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
def test_tom_mixture_without_size_is_the_largest_exact_one(files: tuple[Path, Path], share: float) -> None:
    units, _ = collect_units(files)
    _, stats = export_records(units, ExportConfig(text="raw", tom_share=share))
    # 12 ToM stories x 10 questions, 12 others x 8: the largest record count at exactly this share
    assert stats.tom_records == round(share * stats.records)
    assert stats.records == {0.0: 96, 0.25: 128, 0.5: 192, 0.75: 160, 1.0: 120}[share]


def test_mixture_respects_max_stories_and_exclusions(files: tuple[Path, Path]) -> None:
    units, _ = collect_units(files)
    _, stats = export_records(units, ExportConfig(text="raw", tom_share=0.25, max_stories=8))
    assert stats.stories_selected <= 8 and stats.tom_records == round(0.25 * stats.records)
    _, stats = export_records(units, ExportConfig(text="raw", exclude_asymmetric=True))
    assert set(stats.by_type) == {"tomi"}


def fig5_units(tmp_path: Path) -> list:
    lines = search_lines(40, 80, types=("tomi", "tomi", "fantom-private"))
    return collect_units([write(tmp_path / "s.jsonl", lines)])[0]


@pytest.mark.parametrize("balance", [False, True])
@pytest.mark.parametrize("share", FIG5_SHARES)
def test_size_gives_exactly_n_records_at_every_fig5_share(tmp_path: Path, share: float, balance: bool) -> None:
    units = fig5_units(tmp_path)
    for size in (100, 257):
        records, stats = export_records(units, ExportConfig(text="raw", size=size, tom_share=share, balance=balance))
        assert len(records) == stats.records == size
        assert stats.tom_records == round(share * size)  # the record-level share is exact
        assert abs(stats.tom_story_share - share) <= 0.05  # and the story-level share follows it
        assert len({(r["story_id"], r["source"], r["question"]) for r in records}) == size  # no record twice
        per_story = Counter(r["story_id"] for r in records)
        assert max(per_story.values()) == stats.max_records_per_story
        if balance:
            counts = list(stats.by_type.values())
            assert max(counts) - min(counts) <= 1
            for t, n in stats.by_type.items():  # the share holds inside every type too
                tom = sum(r["requires_tom"] for r in records if r["story_type"] == t)
                assert abs(tom - share * n) <= 1


def test_size_beyond_the_inputs_is_a_clear_error(tmp_path: Path) -> None:
    units = fig5_units(tmp_path)
    with pytest.raises(ExportError, match=r"at most \d+ records"):
        export_records(units, ExportConfig(text="raw", size=10_000, tom_share=0.5))


def test_balance_gives_every_story_type_the_same_number_of_records(tmp_path: Path) -> None:
    lines = search_lines(6, 18, types=("tomi", "tomi", "fantom-private"))  # 16 tomi stories, 8 fantom-private
    units, _ = collect_units([write(tmp_path / "s.jsonl", lines)])
    records, stats = export_records(units, ExportConfig(text="raw", balance=True))
    assert len(set(stats.by_type.values())) == 1 and sum(stats.by_type.values()) == stats.records
    capped, stats = export_records(units, ExportConfig(text="raw", balance=True, questions_per_type=5))
    assert stats.by_type == {"fantom-private": 5, "tomi": 5}
    mixed, stats = export_records(units, ExportConfig(text="raw", balance=True, tom_share=0.5))
    for t in stats.by_type:
        of_type = [r for r in mixed if r["story_type"] == t]
        assert abs(sum(r["requires_tom"] for r in of_type) * 2 - len(of_type)) <= 1  # each type: up to rounding
    assert stats.tom_records == round(stats.records / 2)  # overall: exact
    # a type without any ToM story cannot give records at a 50% share: it is left out and named
    only_non = search_lines(0, 3, types=("tomi-object-state",))
    units, _ = collect_units([write(tmp_path / "s.jsonl", lines), write(tmp_path / "n.jsonl", only_non)])
    _, stats = export_records(units, ExportConfig(text="raw", balance=True, tom_share=0.5))
    assert stats.types_left_out == ["tomi-object-state"] and set(stats.by_type) == {"fantom-private", "tomi"}


def test_export_is_deterministic_for_a_seed(files: tuple[Path, Path]) -> None:
    units, _ = collect_units(files)
    cfg = ExportConfig(tom_share=0.25, balance=True, seed=7, size=50)
    assert export_records(units, cfg)[0] == export_records(units, cfg)[0]


def test_infilled_text_carries_only_the_labels_its_judge_confirmed(tmp_path: Path) -> None:
    lines = search_lines(2, 0)
    story = Story.from_dict(lines[0]["story"])
    line = infill_line(lines[0])
    line["verified"][0]["verdict"] = None  # unclear: that label is not used for the infilled text
    old = infill_line(lines[1], verified=False)  # an infill made before the final check: its text is not used
    units, _ = collect_units([write(tmp_path / "s.jsonl", lines), write(tmp_path / "i.jsonl", [line, old])])
    records, stats = export_records(units, ExportConfig(text="both"))
    infilled = [(r["question"], r["answer"]) for r in records if r["source"] == "infilled"]
    assert (
        len(infilled) == len(story.questions()) - 1
        and (line["verified"][0]["question"], line["verified"][0]["answer"]) not in infilled
    )
    assert stats.unverified_infills == 1 and stats.unconfirmed_labels == 1


def test_merging_runs_with_colliding_ids_in_every_order(tmp_path: Path) -> None:
    """Three runs reuse the same search ids for different stories (and share one story); two infill outputs. Every
    order of the five files gives the same units, each story once, each infilled text on its own story."""
    base = search_lines(9, 9, types=("tomi",))
    runs = [base[0:7], base[6:12], base[12:18]]  # story 6 is in runs 0 and 1
    paths = []
    for k, run in enumerate(runs):
        lines = [{**x, "id": f"tomi|p2|m2|r1|{i}"} for i, x in enumerate(run)]  # ids collide across runs
        paths.append(write(tmp_path / f"run{k}.jsonl", lines))
    infills = [
        [infill_line(x, text=f"Told as prose: {Story.from_dict(x['story']).text}") for x in run[:3]] for run in runs[:2]
    ]
    for k, lines in enumerate(infills):
        for i, x in enumerate(lines):
            x["id"] = f"tomi|p2|m2|r1|{i}"
        paths.append(write(tmp_path / f"inf{k}.jsonl", lines))
    seen = None
    for order in itertools.permutations(paths):
        units, _ = collect_units(order)
        assert len(units) == 18 and len({u.id for u in units}) == 18  # nothing dropped, nothing twice
        for u in units:
            assert all(i.text == f"Told as prose: {u.story.text}" for i in u.infills)  # never another story's text
        records, _ = export_records(units, ExportConfig(text="both"))
        key = [(r["story_id"], r["source"], r["question"], r["answer"]) for r in records]
        assert seen is None or key == seen
        seen = key
    infilled = base[0:3] + base[6:9]  # story 6 has ids 6 (run 0) and 0 (run 1): one unit, infilled once
    assert sum(1 for r in records if r["source"] == "infilled") == sum(
        len(Story.from_dict(x["story"]).questions()) for x in infilled
    )


def test_max_tokens_uses_the_target_tokenizer(tmp_path: Path, files: tuple[Path, Path]) -> None:
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import Tokenizer, models, pre_tokenizers

    from tombench.generators.exploretom.export import record_tokens
    from tombench.generators.exploretom.tokens import load_token_counter

    vocab = {"[UNK]": 0}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()  # every word and punctuation mark is one token
    tok.save(str(tmp_path / "tokenizer.json"))
    count = load_token_counter(str(tmp_path))
    assert count("Anne entered the kitchen.") == 5 and tokenizers.__version__
    units, _ = collect_units(files)
    everything, _ = export_records(units, ExportConfig(text="raw"))
    lengths = sorted(record_tokens(r, count) for r in everything)
    limit = lengths[len(lengths) // 2]
    kept, stats = export_records(units, ExportConfig(text="raw", max_tokens=limit), token_counter=count)
    assert kept and all(record_tokens(r, count) <= limit for r in kept)
    assert stats.too_long == sum(n > limit for n in lengths) > 0


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
    assert "search.jsonl" in card and f"{stats.tom_records} of {stats.records} records" in card
    chat = datasets.load_from_disk(str(save_dataset(records[:3], tmp_path / "chat", stats=stats, chat=True)))
    assert chat.column_names == ["messages"] and chat[0]["messages"][2]["content"] == records[0]["answer"]


# ---------------------------------------------------------------------------------------------------- CLI
def test_cli_export_training(files: tuple[Path, Path], tmp_path: Path) -> None:
    out, hf = tmp_path / "train.jsonl", tmp_path / "train_ds"
    args = ["export-training", *map(str, files), "--out", str(out), "--hf-dir", str(hf), "--tom-share", "0.75"]
    res = CliRunner().invoke(main, [*args, "--chat", "--orders", "1,2"])
    assert res.exit_code == 0, res.output
    assert "chat records from" in res.output
    first = json.loads(out.read_text().splitlines()[0])
    assert [m["role"] for m in first["messages"]] == ["system", "user", "assistant"]
    assert (hf / "README.md").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "at least one input"),
        (["missing.jsonl"], "does not exist"),
        (["{search}", "--orders", "1,3"], "--orders must be"),
        (["{search}", "--questions-per-type", "3"], "only applies with --balance"),
        (["{search}", "--text", "infilled"], "nothing to export"),
        (["{search}", "--max-tokens", "300"], "give --tokenizer"),
        (["{search}", "--max-tokens", "300", "--tokenizer", "tiktoken:nonesuch"], "cannot load tiktoken"),
        (["{search}", "--size", "100000"], "records under these settings"),
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


@pytest.mark.local_model
def test_max_tokens_with_the_packaged_smollm2_tokenizer(files: tuple[Path, Path], tmp_path: Path) -> None:
    """The real GGUF vocabulary of the local model, read by llama.cpp (no weights, no network)."""
    pytest.importorskip("llama_cpp", reason="install with: pip install -e '.[local]'")
    from tombench.generators.exploretom.tokens import TokenizerError, load_token_counter

    try:
        count = load_token_counter("smollm2")
    except TokenizerError as e:
        pytest.skip(str(e))
    assert count("Anne entered the kitchen.") == 5
    out = tmp_path / "t.jsonl"
    res = CliRunner().invoke(
        main,
        ["export-training", str(files[0]), "--out", str(out), "--max-tokens", "60", "--tokenizer", "smollm2"],
    )
    assert res.exit_code == 0, res.output
    assert "records over 60 tokens (dropped)" in res.output
