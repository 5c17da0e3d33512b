"""tombench/exploretom_static: the public schema from a local fixture (csv/jsonl/parquet), relabel, offline errors.

The fixture `fixtures/exploretom_sample.csv` (30 rows, written by `fixtures/make_exploretom_sample.py`) has the
public columns, a pandas index column, one deliberately wrong label (row 2) and one story with an object-state
sentence nobody's context knows (rows 28-29, unparseable).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai._util.error import PrerequisiteError

from tests.scorers.test_story_questions import replying
from tombench.scorers.story_questions import TOM_DIMENSIONS
from tombench.tasks.exploretom.static import (
    HUB_REVISION,
    HUB_ROWS,
    StructureCache,
    exploretom_static,
    load_rows,
    record_to_sample,
)

FIXTURE = Path(__file__).parent / "fixtures" / "exploretom_sample.csv"
LABEL_BUG = 2


def rows() -> list[dict]:
    with FIXTURE.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def test_record_to_sample_structure_and_infilled() -> None:
    row = rows()[0]
    s = record_to_sample(row, 0)
    assert s.id == "exploretom-00000"
    assert s.input == f"{row['story_structure']}\n{row['question']} Short Answer."
    assert s.target == row["expected_answer"]
    md = s.metadata
    assert (md["action_set"], md["asymmetric"], md["people"], md["moves"], md["rooms"]) == ("tomi", False, 2, 2, 1)
    assert (md["order"], md["kind"], md["interesting"], md["answer_type"]) == (1, "C1", False, "container")
    assert md["setting_id"] == "tomi|p2|m2|r1"
    assert md["parsed"] is True and md["relabeled"] is None
    assert set(md["candidates"]) >= {"box", "drawer"}
    infilled = record_to_sample(row, 0, text="infilled")
    assert infilled.input.startswith("It was an ordinary day.")
    assert infilled.metadata["candidates"] == md["candidates"]  # candidates come from the structure


def test_memory_questions_have_order_zero_and_no_interesting_flag() -> None:
    row = next(r for r in rows() if r["qprop=nth_order"] == "-1")
    md = record_to_sample(row, 4).metadata
    assert md["order"] == 0 and md["interesting"] is None and md["kind"].startswith("M-")


def test_asymmetric_and_answer_types() -> None:
    samples = [record_to_sample(r, i, structures=StructureCache()) for i, r in enumerate(rows())]
    kinds = {s.metadata["answer_type"] for s in samples}
    assert kinds == {"container", "room", "yes_no", "knowledge"}
    asym = [s for s in samples if s.metadata["story_type"] == "tomi+asymmetric"]
    assert asym and all(s.metadata["action_set"] == "tomi" and s.metadata["asymmetric"] for s in asym)


def test_relabel_fixes_the_wrong_label_and_records_it() -> None:
    cache = StructureCache()
    row = rows()[LABEL_BUG]
    plain = record_to_sample(row, LABEL_BUG, structures=cache)
    fixed = record_to_sample(row, LABEL_BUG, relabel=True, structures=cache)
    assert plain.target == row["expected_answer"] == "basket"
    assert fixed.target == "drawer"
    assert fixed.metadata["original_answer"] == "basket" and fixed.metadata["relabeled"] is True
    same = record_to_sample(rows()[0], 0, relabel=True, structures=cache)
    assert same.metadata["relabeled"] is False


def test_unparseable_structure_keeps_its_label() -> None:
    row = rows()[28]
    s = record_to_sample(row, 28, relabel=True)
    assert s.metadata["parsed"] is False and s.metadata["relabeled"] is None and s.metadata["kind"] is None
    assert s.target == "trunk"
    assert s.metadata["candidates"] == ["trunk"]  # read from the structure's "which is also located" sentences


def test_object_state_story_parses_with_a_bank_context() -> None:
    s = next(record_to_sample(r, i) for i, r in enumerate(rows()) if r["param=story_type"] == "tomi-object-state")
    assert s.metadata["parsed"] is True and s.metadata["kind"] == "S1"


@pytest.mark.parametrize("fmt", ["jsonl", "parquet", "folder"])
def test_local_formats(fmt: str, tmp_path: Path) -> None:
    data = rows()[:6]
    if fmt == "jsonl":
        path = tmp_path / "d.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in data), encoding="utf-8")
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        folder = tmp_path / "ds"
        folder.mkdir()
        path = folder / "train.parquet" if fmt == "folder" else tmp_path / "d.parquet"
        pq.write_table(pa.Table.from_pylist(data), path)
        path = folder if fmt == "folder" else path
    loaded, provenance = load_rows(str(path))
    assert [r["question"] for r in loaded] == [r["question"] for r in data]
    assert provenance == {"data": str(path)}
    assert len(exploretom_static(data=str(path)).dataset) == 6


def test_filters_and_bad_options(tmp_path: Path) -> None:
    task = exploretom_static(data=str(FIXTURE), story_types="tomi,tomi+asymmetric", question_orders="1,2")
    assert {s.metadata["story_type"] for s in task.dataset} == {"tomi", "tomi+asymmetric"}
    assert {s.metadata["order"] for s in task.dataset} == {1, 2}
    with pytest.raises(ValueError, match="Invalid text value"):
        exploretom_static(data=str(FIXTURE), text="prose")
    with pytest.raises(ValueError, match="Invalid check value"):
        exploretom_static(data=str(FIXTURE), check="exact")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("missing.csv", "data file 'missing.csv' does not exist"),
        ("notes.txt", "unsupported data file"),
        ("badschema.csv", "not in the ExploreToM schema: missing columns"),
    ],
)
def test_user_errors_are_one_line(data: str, message: str, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    (tmp_path / "badschema.csv").write_text("question,answer\nWhere?,box\n")
    path = str(tmp_path / data) if data != "missing.csv" else data
    with pytest.raises(PrerequisiteError, match=message) as err:
        exploretom_static(data=path)
    assert "\n" not in str(err.value.message)


def test_offline_hub_download_is_one_clear_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))  # an empty cache: nothing to fall back on
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path))
    with pytest.raises(PrerequisiteError) as err:
        exploretom_static()
    message = str(err.value.message)
    assert "\n" not in message
    assert "facebook/ExploreToM" in message and HUB_REVISION[:12] in message and "-T data=PATH" in message


def test_end_to_end_grouped_metrics(tmp_path: Path) -> None:
    """A model that answers from the original labels: right everywhere except the relabeled row."""
    data = {(r["story_structure"], r["question"]): r["expected_answer"] for r in rows()}

    def original_label(user: str) -> str:
        story, question = user.rsplit("\n", 1)
        return data[(story, question.removesuffix(" Short Answer."))]

    task = exploretom_static(data=str(FIXTURE), relabel=True)
    assert task.metadata["relabeled"] == 1 and task.metadata["parsed"] == 28 and task.metadata["rows"] == 30
    log = inspect_eval(task, model=replying(original_label), log_dir=str(tmp_path), display="none")[0]
    assert log.status == "success"
    metrics = {k: v.value for k, v in log.results.scores[0].metrics.items()}
    assert metrics["accuracy"] == pytest.approx(29 / 30)
    assert metrics["order=2"] < 1.0 and metrics["order=1"] == 1.0 and metrics["order=0"] == 1.0
    for dim in TOM_DIMENSIONS:
        assert any(k.startswith(f"{dim}=") for k in metrics), dim
    assert metrics["action_set=tomi:n"] == 10  # tomi and tomi+asymmetric
    assert log.eval.metadata["relabel"] is True and log.eval.scorers[0].options == {"check": "strict"}
    wrong = [s for s in log.samples if s.scores["tom_answer"].value != "C"]
    assert [s.id for s in wrong] == [f"exploretom-{LABEL_BUG:05d}"]


@pytest.mark.network
def test_public_sample_from_the_hub() -> None:
    task = exploretom_static()
    assert len(task.dataset) == HUB_ROWS
    assert task.metadata["revision"] == HUB_REVISION
    orders = {s.metadata["order"] for s in task.dataset}
    assert orders == {0, 1, 2}
