"""Relative links of a page, made to work in the site as they work in the repository.

A page's links are written relative to where its source lies in the repository (docs/x.md, or
tombench/tasks/<eval>/README.md for an eval's page), so they work on GitHub and in an editor. In the site:

* a link to a file under docs/ points at that page (a link from docs/ to docs/ is left as written);
* a link to an eval's README points at its rendered page, `reference/evals/<eval>.md` (anchors kept);
* a link to another file of the repository (README.md, a module) points at the file on the project's repository
  when mkdocs.yml sets `repo_url` (`edit_uri`'s branch: `blob/main/` by default), else it becomes its text with
  the path beside it in code, since the site does not hold the file;
* anything else (a web address, an anchor, a file that does not exist) is left for mkdocs to check: with
  `--strict` a broken link fails the build.

Links inside code (fenced blocks, `inline code`) are never touched.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from pathlib import Path

__all__ = ["rewrite_links"]

#: inline code (group 1) or a Markdown link or image: [text](target "title") (groups 2-5)
_LINK_OR_CODE = re.compile(r"(`+)[^`]+?\1|(!?)\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(\s+\"[^\"]*\")?\s*\)")
_FENCE = re.compile(r"^\s*(```|~~~)")


def _repo_path(root: Path, origin: str, target: str) -> str | None:
    """The repository path (posix, relative to the root) a relative link of `origin` names, if it is a file of the
    repository; None for a web address, an anchor, a path outside the repository or one that does not exist."""
    if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith(("#", "/")):
        return None
    path = posixpath.normpath(posixpath.join(posixpath.dirname(origin), target))
    if path.startswith("../") or not (root / path).exists():
        return None
    return path


def _site_target(path: str, docs_dir: str, readme_pages: Mapping[str, str]) -> str | None:
    """The site page (relative to docs/) of a repository file, or None when the site does not hold it."""
    if path.startswith(f"{docs_dir}/"):
        return path[len(docs_dir) + 1:]
    return readme_pages.get(path)


def _outside(text: str, path: str, repo_url: str | None, branch: str) -> str:
    """A link to a repository file the site does not hold."""
    if repo_url:
        return f"[{text}]({repo_url.rstrip('/')}/blob/{branch}/{path})"
    return text if posixpath.basename(path) in text else f"{text} (`{path}`)"


def rewrite_links(markdown: str, *, root: Path, origin: str, page: str, docs_dir: str = "docs",
                  readme_pages: Mapping[str, str] | None = None, repo_url: str | None = None,
                  branch: str = "main") -> str:
    """`markdown` of the site page `page` (relative to docs/), whose source is the repository file `origin`,
    with its relative links made to resolve in the site (see the module's docstring)."""
    pages = dict(readme_pages or {})

    def one(m: re.Match[str]) -> str:
        if m.group(1):
            return m.group(0)  # inline code
        image, text, target, title = m.group(2), m.group(3), m.group(4), m.group(5) or ""
        base, _, anchor = target.partition("#")
        path = _repo_path(root, origin, base) if base else None
        if path is None or image:
            return m.group(0)
        site = _site_target(path, docs_dir, pages)
        if site is None:
            return _outside(text, path, repo_url, branch)
        if origin.startswith(f"{docs_dir}/") and path.startswith(f"{docs_dir}/"):
            return m.group(0)  # docs/ to docs/: mkdocs resolves it as written
        new = posixpath.relpath(site, posixpath.dirname(page) or ".") + (f"#{anchor}" if anchor else "")
        return f"[{text}]({new}{title})"

    out, prose, fenced = [], [], None
    for line in markdown.splitlines(keepends=True):
        fence = _FENCE.match(line)
        if fence and (fenced is None or fence.group(1) == fenced):
            if fenced is None:  # a code block starts: the prose before it is rewritten as one text (a link may
                out.append(_LINK_OR_CODE.sub(one, "".join(prose)))  # span lines)
                prose = []
            fenced = fence.group(1) if fenced is None else None
            out.append(line)
        elif fenced:
            out.append(line)
        else:
            prose.append(line)
    out.append(_LINK_OR_CODE.sub(one, "".join(prose)))
    return "".join(out)
