"""The one strict reader of user data files (issue #32 point 2): every failure is one line with file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tombench.kit.errors import OptionError
from tombench.kit.reading import convert_records, read_json, read_jsonl, read_records, read_text


def _write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    p = tmp_path / name
    (p.write_bytes if isinstance(content, bytes) else p.write_text)(content)  # type: ignore[operator]
    return p


def _message(call, *args, **kwargs) -> str:  # noqa: ANN001 - any reader
    with pytest.raises(OptionError) as err:
        call(*args, **kwargs)
    assert "\n" not in str(err.value)
    return str(err.value)


def test_jsonl_rows_and_blank_lines(tmp_path: Path) -> None:
    p = _write(tmp_path, "a.jsonl", '{"id": 1, "x": 2}\n\n{"id": 2, "x": 3}\n')
    assert read_jsonl(p, what="T data", required_keys=("id",)) == [{"id": 1, "x": 2}, {"id": 2, "x": 3}]


def test_jsonl_corrupt_line_names_file_line_and_column(tmp_path: Path) -> None:
    p = _write(tmp_path, "a.jsonl", '{"id": 1}\n\n{"id": \n')
    m = _message(read_jsonl, p, what="T data")
    assert m.startswith("T data file ") and "a.jsonl', line 3: not valid JSON (Expecting value at column 8)" in m
    assert m.endswith("expected one JSON object per line")


def test_binary_and_non_utf8_name_the_line(tmp_path: Path) -> None:
    p = _write(tmp_path, "b.jsonl", b'{"id": 1}\n{"id": 2}\n\xff\xfe')
    assert "b.jsonl', line 3: not UTF-8 text (byte 0xff)" in _message(read_jsonl, p, what="T data")
    p = _write(tmp_path, "n.jsonl", b'{"id": 1}\n\x00\x01')
    assert "n.jsonl', line 2: binary data" in _message(read_jsonl, p, what="T data")


def test_missing_keys_and_non_objects(tmp_path: Path) -> None:
    p = _write(tmp_path, "k.jsonl", '{"id": 1, "text": "t"}\n{"id": 2}\n')
    m = _message(read_jsonl, p, what="T data", required_keys=("id", "text", "answer"))
    assert "k.jsonl', line 1: missing key(s) 'answer'; expected an object with keys id, text, answer" in m
    p = _write(tmp_path, "l.jsonl", "[1, 2]\n")
    assert "line 1: a JSON list; expected an object" in _message(read_jsonl, p, what="T data")


def test_empty_missing_and_folder(tmp_path: Path) -> None:
    p = _write(tmp_path, "e.jsonl", "\n  \n")
    assert "e.jsonl' is empty" in _message(read_jsonl, p, what="T data")
    assert read_jsonl(p, what="T data", allow_empty=True) == []
    m = _message(read_text, tmp_path / "nope.txt", what="T data", option="-T data=PATH")
    assert "nope.txt' does not exist (give an existing file with -T data=PATH)" in m
    assert "is a folder, not a file" in _message(read_text, tmp_path, what="T data")


def test_records_from_a_list_a_data_object_or_lines(tmp_path: Path) -> None:
    assert read_records(_write(tmp_path, "a.json", '[{"a": 1}]'), what="T") == [{"a": 1}]
    assert read_records(_write(tmp_path, "b.json", '{"data": [{"a": 1}]}'), what="T") == [{"a": 1}]
    assert read_records(_write(tmp_path, "c.json", '{"a": 1}\n{"a": 2}\n'), what="T") == [{"a": 1}, {"a": 2}]
    assert read_records(_write(tmp_path, "d.json", '{"a": 1}'), what="T") == [{"a": 1}]
    m = _message(read_records, _write(tmp_path, "e.json", '[{"a": 1}, {"b": 2}]'), what="T", required_keys=("a",))
    assert "e.json', record 2: missing key(s) 'a'" in m
    m = _message(read_records, _write(tmp_path, "f.json", '[\n  {"a": 1},\n  {"a": }\n]'), what="T")
    assert "f.json', line 3: not valid JSON" in m
    assert "holds no records" in _message(read_records, _write(tmp_path, "g.json", "[]"), what="T")
    assert "a JSON str" in _message(read_records, _write(tmp_path, "h.json", '"x"'), what="T")


def test_read_json_error_has_line(tmp_path: Path) -> None:
    m = _message(read_json, _write(tmp_path, "a.json", '{\n "a": 1,\n}'), what="T", expected="a config")
    assert "a.json', line 3: not valid JSON" in m and m.endswith("expected a config")


def test_convert_records_names_the_record_and_the_missing_key(tmp_path: Path) -> None:
    assert convert_records([{"a": 1}], lambda r: r["a"] + 1, what="T", path="f.jsonl") == [2]
    m = _message(convert_records, [{"a": 1}, {"b": 2}], lambda r: r["a"], what="T", path="f.jsonl", unit="line",
                 expected="an object with a")
    assert m == "T file 'f.jsonl', line 2: missing key 'a'; expected an object with a"
    m = _message(convert_records, [{"a": "x"}], lambda r: int(r["a"]), what="T", path="f.jsonl")
    assert "record 1: ValueError: invalid literal" in m
