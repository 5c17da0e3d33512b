"""mkdocs-gen-files script (mkdocs.yml): writes the Reference pages `reference.py` generates into the site being
built. They exist only there: nothing under docs/reference/ is committed."""

from __future__ import annotations

import sys
from pathlib import Path

import mkdocs_gen_files
from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # docs._gen, as the tests import it

from docs._gen import reference  # noqa: E402

try:
    generated = reference.pages()
except reference.ReferenceMismatch as e:
    raise PluginError(f"the Reference no longer matches the code: {e}") from None  # one line, no traceback
for page, text in generated.items():
    with mkdocs_gen_files.open(page, "w") as f:
        f.write(text)
    origin = reference.eval_readmes().get(page)
    # an eval's page is edited in its README (the "edit this page" link, where mkdocs.yml sets a repo_url)
    mkdocs_gen_files.set_edit_path(page, origin.relative_to(ROOT).as_posix() if origin else None)
