"""The site's MkDocs hook (mkdocs.yml `hooks:`): every page's relative links made to resolve in the site as they do
in the repository (`links.py`), the eval READMEs' pages (`reference.py`) included."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # docs._gen, as the tests import it

from docs._gen import links, reference  # noqa: E402


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """The page's Markdown with its relative links rewritten for the site (links.rewrite_links)."""
    docs_dir = Path(config["docs_dir"]).resolve().relative_to(ROOT).as_posix()
    readmes = {p.relative_to(ROOT).as_posix(): site for site, p in reference.eval_readmes().items()}
    src = page.file.src_uri
    origin = next((repo for repo, site in readmes.items() if site == src), f"{docs_dir}/{src}")
    return links.rewrite_links(markdown, root=ROOT, origin=origin, page=src, docs_dir=docs_dir, readme_pages=readmes,
                               repo_url=config.get("repo_url"))
