"""The Markdown format: one table per board, its legend as the caption (the dataset card's body)."""

from __future__ import annotations

from ._view import Board, View, board_legend

_MD_SPECIAL = str.maketrans({c: f"\\{c}" for c in "\\|*_`<>[]#"})


def _md(text: str) -> str:
    return " ".join(text.split()).translate(_MD_SPECIAL)


def _board_caption(b: Board) -> str:
    return " ".join(board_legend(b))


def markdown(view: View, title: str) -> str:
    """The page: a heading, then per board its heading, caption and table (cells escaped, whitespace collapsed)."""
    out = [f"# {_md(title)}", ""]
    if not view.boards:
        out.append("No results yet.")
    for b in view.boards:
        out += [f"## {_md(b.task)} (v{_md(b.task_version)})", "", _md(_board_caption(b)), ""]
        out.append("| " + " | ".join(_md(c.title) for c in b.columns) + " |")
        out.append("|" + "|".join("---:" if c.kind == "num" else "---" for c in b.columns) + "|")
        for e in b.entries:
            out.append("| " + " | ".join(_md(e.cells[c.key].text) for c in b.columns) + " |")
        out.append("")
    return "\n".join(out)
