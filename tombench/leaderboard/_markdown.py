"""The Markdown format: one table per board, its legend as the caption (the dataset card's body)."""

from __future__ import annotations

import re

from ._view import Board, View, board_legend

#: Characters escaped wherever they are (tables, emphasis, code, HTML, links, entities, e-mail autolinks).
_MD_SPECIAL = str.maketrans({c: f"\\{c}" for c in "\\|*_`<>[]#&@~!"})
#: What would start an autolink (`https://...`, `www.`): its colon or dot escaped, so a URL in a name stays text.
_AUTOLINK = re.compile(r"(?i)(?<=[a-z0-9])(:)(?=//)|(?<=\bwww)(\.)")


def md_text(text: str) -> str:
    """`text` on one line, shown as typed: every Markdown syntax character escaped, autolinks defused."""
    return _AUTOLINK.sub(lambda m: "\\" + m.group(), " ".join(text.split()).translate(_MD_SPECIAL))


def _board_caption(b: Board) -> str:
    return " ".join(board_legend(b))


def markdown(view: View, title: str) -> str:
    """The page: a heading, then per board its heading, caption and table (cells escaped, whitespace collapsed)."""
    out = [f"# {md_text(title)}", ""]
    if view.skipped:  # damaged row files: named, escaped, one line each
        out += [f"- {md_text(line)}" for line in view.skipped] + [""]
    if not view.boards:
        out.append("No results yet.")
    for b in view.boards:
        out += [f"## {md_text(b.task)} (v{md_text(b.task_version)})", "", md_text(_board_caption(b)), ""]
        out.append("| " + " | ".join(md_text(c.title) for c in b.columns) + " |")
        out.append("|" + "|".join("---:" if c.kind == "num" else "---" for c in b.columns) + "|")
        for e in b.entries:
            out.append("| " + " | ".join(md_text(e.cells[c.key].text) for c in b.columns) + " |")
        out.append("")
    return "\n".join(out)
