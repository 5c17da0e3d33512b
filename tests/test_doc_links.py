"""Every relative link in the user docs (README.md, docs/, each eval's README) names a file of the repository: a page
a doc cites must be here, not in a folder beside the checkout. The one exception is the site's generated Reference
(docs/reference/..., written when the site is built: `docs._gen.reference.PAGES`), linked to by exactly those names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from docs._gen import reference

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "tombench").rglob("README.md"))]
#: a Markdown link or image: [text](target) with an optional "title"
#: the generated pages, which exist only in the built site
GENERATED = frozenset((ROOT / "docs" / page).resolve() for page in reference.PAGES)
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def _relative_links(text: str) -> list[str]:
    """The link targets of a page's text that point into the repository (no scheme, no bare anchor)."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks are not links
    return [t for t in LINK.findall(text) if not re.match(r"[a-z][a-z0-9+.-]*:", t) and not t.startswith("#")]


def _missing(page: Path, text: str) -> list[str]:
    """The relative links of `page` (its `text`) that name neither a file here nor a generated page."""
    targets = [(t, (page.parent / t.split("#", 1)[0]).resolve()) for t in _relative_links(text)]
    return [t for t, path in targets if not path.exists() and path not in GENERATED]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_names_a_file_here(page: Path) -> None:
    missing = _missing(page, page.read_text(encoding="utf-8"))
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


def test_a_link_to_a_generated_page_is_accepted_and_no_other_missing_one() -> None:
    """Links to the generated pages pass; a link to a page the generator does not write does not."""
    page = ROOT / "docs" / "how-to" / "page.md"  # where a user page may be (it need not exist here)
    text = "[tasks](../reference/tasks.md#tomi) [ToMi](../reference/evals/tomi.md) [cli](../reference/cli.md)"
    assert _missing(page, text) == []
    assert _missing(page, "[x](../reference/nothing.md) [y](reference/tasks.md)") == [
        "../reference/nothing.md", "reference/tasks.md"]
