"""Every relative link in the user docs (README.md, docs/, each eval's README) names a file of the repository: a page
a doc cites must be here, not in a folder beside the checkout."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "tombench").rglob("README.md"))]
#: a Markdown link or image: [text](target) with an optional "title"
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
#: the reference pages the site generates at build time from the code (never committed), which a page may link to;
#: a temporary allowance until the site's generator provides this list itself
GENERATED = {ROOT / "docs" / "reference" / name for name in ("cli.md", "tasks.md", "metrics.md")} | {
    ROOT / "docs" / "reference" / "evals" / f"{readme.parent.name}.md"
    for readme in (ROOT / "tombench" / "tasks").glob("*/README.md")}


def _relative_links(page: Path) -> list[str]:
    """The link targets of a page that point into the repository (no scheme, no bare anchor)."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)  # code blocks are not links
    return [t for t in LINK.findall(text) if not re.match(r"[a-z][a-z0-9+.-]*:", t) and not t.startswith("#")]


def _resolves(page: Path, target: str) -> bool:
    """Whether a relative link names a file of the repository or a generated reference page."""
    path = (page.parent / target.split("#", 1)[0]).resolve()
    return path.exists() or path in GENERATED


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_names_a_file_here(page: Path) -> None:
    missing = [t for t in _relative_links(page) if not _resolves(page, t)]
    assert not missing, f"{page.relative_to(ROOT)} links to files that are not in the repository: {missing}"


def test_no_page_cites_a_file_outside_the_repository() -> None:
    outside = [str(p.relative_to(ROOT)) for p in PAGES if "../shared/" in p.read_text(encoding="utf-8")]
    assert not outside, f"pages citing ../shared/ (not part of the repository): {outside}"


def test_every_page_is_in_the_navigation() -> None:
    """docs/SUMMARY.md is the site's navigation (mkdocs-literate-nav): a page missing from it is on no menu."""
    nav = (ROOT / "docs" / "SUMMARY.md").read_text(encoding="utf-8")
    listed = {(ROOT / "docs" / target).resolve() for target in LINK.findall(nav)}
    pages = {p.resolve() for p in (ROOT / "docs").rglob("*.md") if p.name != "SUMMARY.md"}
    assert not pages - listed, f"pages missing from docs/SUMMARY.md: {sorted(str(p.relative_to(ROOT)) for p in pages - listed)}"
    assert listed - pages <= GENERATED, f"docs/SUMMARY.md lists pages that do not exist: {sorted(map(str, listed - pages - GENERATED))}"
