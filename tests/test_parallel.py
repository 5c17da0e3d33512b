"""tests/parallel.py: how `pytest -n auto` shares the tests between workers."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from tests.parallel import REAL_MODEL_FILES, REAL_MODEL_SCOPE, heaviest_first, scope

ROOT = Path(__file__).resolve().parents[1]


def test_every_file_using_the_local_server_is_in_the_real_model_unit() -> None:
    """A file whose tests use the real model's server not in the list would start a second server in the other
    worker; a listed file that no longer uses it would be held in the real-model worker for nothing."""
    users = {str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("test_*.py") if p != Path(__file__)
             if "local_model_server" in p.read_text(encoding="utf-8")}
    assert users == REAL_MODEL_FILES


def test_units_are_files_and_the_real_model_files_are_one() -> None:
    assert scope("tests/dsl/test_answers.py::test_x[1]") == "tests/dsl/test_answers.py"
    assert {scope(f"{f}::test_y") for f in REAL_MODEL_FILES} == {REAL_MODEL_SCOPE}


def test_heaviest_first_keeps_files_whole_and_in_order() -> None:
    live = sorted(REAL_MODEL_FILES)
    ids = ["tests/a.py::t1", "tests/b.py::t1", "tests/b.py::t2", f"{live[0]}::t", "tests/c.py::t1", "tests/c.py::t2",
           f"{live[1]}::t"]
    items = [SimpleNamespace(nodeid=i) for i in ids]
    heaviest_first(items, slow={"tests/c.py::t1", "tests/c.py::t2", "tests/b.py::t2"})
    assert [i.nodeid for i in items] == [f"{live[0]}::t", f"{live[1]}::t", "tests/c.py::t1", "tests/c.py::t2",
                                         "tests/b.py::t1", "tests/b.py::t2", "tests/a.py::t1"]
