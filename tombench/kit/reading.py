"""Reading a data file a user pointed at: the one reader every loader shares, so a bad file is one line.

A corrupt line, a binary file, a record without a key the task needs, an empty or missing file: each is one
`OptionError` naming the file, the line (or record) and what was expected, instead of a `JSONDecodeError`,
`UnicodeDecodeError` or `KeyError` traceback from deep inside a task. Loaders describe the data
(`what="ToM-Synth data"`) and the keys a record must have; the reader does the rest.

    from tombench.kit.reading import read_jsonl, read_records
    rows = read_jsonl(path, what="ToM-Synth data", required_keys=("id", "text", "question", "options", "answer"))
    rows = read_records(path, what="FANToM data")        # a JSON list (or {"data": [...]}) or JSON lines

These readers are strict: a bad line is an error, never skipped. The resumable writers' own readers (which drop a
torn last line left by an interrupted run) stay where they are; data given to a task is not such a file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from tombench.kit.errors import OptionError

__all__ = ["check_file", "convert_records", "first_line", "problem", "read_json", "read_json_or_lines", "read_jsonl", "read_records", "read_text", "require_keys"]

JSONL = "one JSON object per line"
T = TypeVar("T")


def first_line(e: BaseException) -> str:
    """The first line of an exception's message, or its type name when it has none."""
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _name(path: Path | str) -> str:
    return repr(str(path))


def check_file(path: str | Path, *, what: str, option: str | None = None) -> Path:
    """`path` as an existing file, or one line saying it does not exist (or is a folder)."""
    p = Path(path).expanduser()
    hint = f" (give an existing file with {option})" if option else ""
    if p.is_dir():
        raise OptionError(f"{what} {_name(path)} is a folder, not a file{hint}")
    if not p.is_file():
        raise OptionError(f"{what} file {_name(path)} does not exist{hint}")
    return p


def read_text(path: str | Path, *, what: str, expected: str = "a UTF-8 text file", option: str | None = None) -> str:
    """The file's text; a binary or non-UTF-8 file is one line with the line number of the first bad byte."""
    p = check_file(path, what=what, option=option)
    data = p.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise OptionError(f"{what} file {_name(path)}, line {line}: not UTF-8 text (byte 0x{data[e.start]:02x}); "
                          f"expected {expected}") from None
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise OptionError(f"{what} file {_name(path)}, line {line}: binary data (a NUL byte); expected {expected}")
    if not text.strip():
        raise OptionError(f"{what} file {_name(path)} is empty; expected {expected}")
    return text


def require_keys(record: Any, keys: Sequence[str], *, what: str, path: str | Path, where: str) -> None:
    """One line when `record` is not an object or lacks any of `keys` (`where` is "line 3" or "record 3")."""
    if not isinstance(record, Mapping):
        raise OptionError(f"{what} file {_name(path)}, {where}: a JSON {type(record).__name__}; expected an object"
                          + (f" with keys {', '.join(keys)}" if keys else ""))
    missing = [k for k in keys if k not in record]
    if missing:
        raise OptionError(f"{what} file {_name(path)}, {where}: missing key(s) {', '.join(map(repr, missing))}; "
                          f"expected an object with keys {', '.join(keys)}")


def _check_all(rows: Iterable[tuple[str, Any]], keys: Sequence[str], what: str, path: str | Path) -> None:
    for where, row in rows:
        require_keys(row, keys, what=what, path=path, where=where)


def read_jsonl(path: str | Path, *, what: str, required_keys: Sequence[str] = (), allow_empty: bool = False,
               option: str | None = None) -> list[dict[str, Any]]:
    """Every object of a JSON-lines file (blank lines skipped); any bad line is one `OptionError` naming it."""
    p = check_file(path, what=what, option=option)
    if allow_empty and not p.read_bytes().strip():
        return []
    text = read_text(p, what=what, expected=JSONL, option=option)
    rows: list[dict[str, Any]] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise OptionError(f"{what} file {_name(path)}, line {lineno}: not valid JSON ({e.msg} at column "
                              f"{e.colno}); expected {JSONL}") from None
        require_keys(row, required_keys, what=what, path=path, where=f"line {lineno}")
        rows.append(row)
    return rows


def read_json(path: str | Path, *, what: str, expected: str = "a JSON file", option: str | None = None) -> Any:
    """The value of a JSON file; invalid JSON is one line with the line and column."""
    text = read_text(path, what=what, expected=expected, option=option)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise OptionError(f"{what} file {_name(path)}, line {e.lineno}: not valid JSON ({e.msg} at column "
                          f"{e.colno}); expected {expected}") from None


def _looks_like_lines(text: str, list_key: str | None) -> bool:
    """JSON lines rather than one JSON document: the first non-blank line is a whole object by itself (and not the
    one-line `{list_key: [...]}` document)."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    try:
        value = json.loads(first)
    except json.JSONDecodeError:
        return False
    return isinstance(value, dict) and not (list_key and isinstance(value.get(list_key), list))


def read_json_or_lines(path: str | Path, *, what: str, expected: str, list_key: str | None = None,
                       option: str | None = None) -> Any:
    """One JSON document (tried first: a one-line document is a document), else the objects of a JSON-lines file."""
    text = read_text(path, what=what, expected=expected, option=option)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        if _looks_like_lines(text, list_key):
            return read_jsonl(path, what=what, option=option)
        raise OptionError(f"{what} file {_name(path)}, line {e.lineno}: not valid JSON ({e.msg} at column "
                          f"{e.colno}); expected {expected}") from None


def read_records(path: str | Path, *, what: str, required_keys: Sequence[str] = (), list_key: str | None = "data",
                 option: str | None = None) -> list[dict[str, Any]]:
    """Records of a JSON list, of a JSON object holding the list under `list_key`, or of JSON lines."""
    expected = f"a JSON list of objects{f' (or {{{list_key!r}: [...]}})' if list_key else ''} or {JSONL}"
    value = read_json_or_lines(path, what=what, expected=expected, list_key=list_key, option=option)
    if list_key and isinstance(value, Mapping) and isinstance(value.get(list_key), list):
        value = value[list_key]
    elif isinstance(value, Mapping):  # one object: a JSON-lines file of one line
        value = [value]
    if not isinstance(value, list):
        raise OptionError(f"{what} file {_name(path)}: a JSON {type(value).__name__}; expected {expected}")
    if not value:
        raise OptionError(f"{what} file {_name(path)} holds no records; expected {expected}")
    _check_all(((f"record {i + 1}", row) for i, row in enumerate(value)), required_keys, what, path)
    return value


def problem(e: BaseException) -> str:
    """What a conversion error says about the record: "missing key 'x'" for a KeyError, else type and message."""
    if isinstance(e, KeyError):
        return f"missing key {e.args[0]!r}" if e.args else "a missing key"
    return f"{type(e).__name__}: {first_line(e)}"


def convert_records(records: Iterable[Any], convert: Callable[[Any], T], *, what: str, path: str | Path,
                    unit: str = "record", expected: str = "a record in the released layout") -> list[T]:
    """`convert` applied to every record; a record it cannot read (a missing key, a value of the wrong type) is one
    line naming the file and the record (1-based), instead of a `KeyError` from inside the conversion."""
    out = []
    for n, record in enumerate(records, start=1):
        try:
            out.append(convert(record))
        except OptionError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
            raise OptionError(f"{what} file {_name(path)}, {unit} {n}: {problem(e)}; expected {expected}") from None
    return out
