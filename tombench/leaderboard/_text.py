"""Strings from logs made inert for display: a model name, a task argument, a submitter or a note is whatever the
person who ran the eval typed, so every view shows it verbatim but never lets it act.

`inert` is the one rule every format starts from: characters that would move the cursor, recolour a terminal, end a
line, or reorder the text around them (C0/C1 controls, line and paragraph separators, bidirectional overrides) are
written as visible escapes (`\\x1b`, `\\u202e`). Each format then escapes its own syntax on top (rich markup,
Markdown, HTML). `clip` shortens a long name for a cell whose tooltip keeps the whole of it. `safe_name` turns any
string into a bounded file name that two different strings never share.
"""

from __future__ import annotations

import hashlib
import re

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def inert(text: str) -> str:
    """`text` with every control, invisible-formatting and direction-changing character written as an escape."""
    return _UNSAFE.sub(_escape, text)


def clip(text: str, width: int) -> str:
    """`text` cut to at most `width` characters, ending in an ellipsis when cut."""
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


#: Characters kept in file names (others become `_`): portable on every file system and in a Hub path.
_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def safe_name(text: str, width: int = 48) -> str:
    """A file or folder name for `text`: its letters and digits (at most `width` of them) then a digest of the whole
    string, so any string gives a short, portable name (no `/`, no `..`, no control characters) and two strings
    never share one."""
    slug = _NAME_UNSAFE.sub("_", text).strip("_")[:width] or "x"
    return f"{slug}-{hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()[:10]}"
