"""The house rules of docs/explanation/architecture.md, read from the code's own imports.

* `dsl/` is pure: it imports only itself and the standard library (no Inspect, no I/O libraries, no other part).
* `kit/` is the shared kit: it imports only itself and `dsl` (never a part that uses it).
* Families never import each other: a module of family F (`scorers/F`, `generators/F`, or `F.py` in those parts;
  under `tasks/` one folder per eval, each eval of one family: `tasks/tomi` is of the suites) imports no module of
  another family, and an eval imports no other eval. What two families share lives in `dsl`, `kit` or a shared
  module of a part (`tasks/shared/`, `scorers/story_questions.py`).
* `tasks/` holds one folder per eval (inspect_evals' layout, checked by `inspect-evals-lint`) and the helper
  package `tasks/shared/`; no module sits at its top.
* Data flows one way: generators never import tasks or scorers, scorers never import tasks, and no part imports
  the CLI (`cli.py`, `commands/`).
* No import cycle, and no private name crosses a module: a `_name` is imported only where it is defined, a
  `_module` only inside its own package.
* Inspect's private names (its `_modules`, `_names`, the underscored attributes of its objects) are used in
  `kit/inspect_internals.py` alone, where each is checked before use (issue #48).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "tombench"
FAMILIES = ("exploretom", "suites", "tomsynth", "persuasion")
PARTS = ("tasks", "scorers", "generators")
#: the evals under `tasks/` (one folder each) and the family each belongs to
EVALS = {"exploretom": "exploretom", "tomi": "suites", "hitom": "suites", "bigtom": "suites", "opentom": "suites",
         "fantom": "suites", "simpletom": "suites", "tom_bench": "suites", "tomsynth": "tomsynth",
         "persuasion": "persuasion"}
#: the helper packages under `tasks/` (inspect-evals-lint's `helper-dirs`)
TASK_HELPERS = ("shared",)


def _module(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, tree: ast.AST) -> set[str]:
    """Every tombench module a file imports, at the top or inside a function (absolute and relative)."""
    here = _module(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
    return {m for m in found if m == "tombench" or m.startswith("tombench.")}


#: every module's syntax tree, parsed once for all the checks
TREES = {_module(p): ast.parse(p.read_text(encoding="utf-8")) for p in sorted(PACKAGE.rglob("*.py"))}
MODULES = {_module(p): _imports(p, TREES[_module(p)]) for p in sorted(PACKAGE.rglob("*.py"))}


def _family(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) >= 3 and parts[1] == "tasks":
        return EVALS.get(parts[2])
    if len(parts) >= 3 and parts[1] in PARTS and parts[2] in FAMILIES:
        return parts[2]
    return None


def _eval(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) >= 3 and parts[1] == "tasks" and parts[2] in EVALS else None


def test_the_package_has_the_parts_of_the_design() -> None:
    """Every family has a task and a scorer home; every family that generates data (all but the classic suites, read
    from their authors' releases) a generator home, under the same name."""
    for part in PARTS:
        for family in FAMILIES if part != "generators" else ("exploretom", "tomsynth", "persuasion"):
            assert any(_family(m) == family and m.split(".")[1] == part for m in MODULES), (part, family)


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("tombench.dsl")))
def test_dsl_is_pure(module: str) -> None:
    tree = ast.parse((PACKAGE.parent / (module.replace(".", "/") + ".py")).read_text()
                     if not (PACKAGE.parent / module.replace(".", "/")).is_dir()
                     else (PACKAGE.parent / module.replace(".", "/") / "__init__.py").read_text())
    outside = set()
    for node in ast.walk(tree):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
        for name in names:
            top = name.split(".")[0]
            if name.startswith("tombench.dsl") or top == "__future__" or top in sys.stdlib_module_names:
                continue
            outside.add(name)
    assert not outside, f"{module} imports {sorted(outside)}"


def test_the_kit_uses_no_part() -> None:
    bad = {m: sorted(i for i in imps if not i.startswith(("tombench.kit", "tombench.dsl")))
           for m, imps in MODULES.items() if m.startswith("tombench.kit")}
    assert not {m: v for m, v in bad.items() if v}


def test_families_never_import_each_other() -> None:
    crossing = {}
    for module, imports in MODULES.items():
        family = _family(module)
        if family is None:
            continue
        other = sorted(i for i in imports if _family(i) not in (None, family))
        if other:
            crossing[module] = other
    assert not crossing


def test_evals_never_import_each_other() -> None:
    crossing = {m: sorted(i for i in imps if _eval(i) not in (None, _eval(m))) for m, imps in MODULES.items()
                if _eval(m) is not None}
    assert not {m: v for m, v in crossing.items() if v}


def test_tasks_hold_one_folder_per_eval() -> None:
    """Every folder under `tasks/` is an eval or a helper package, every eval has its folder, nothing else is there."""
    tasks = PACKAGE / "tasks"
    folders = {p.name for p in tasks.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == set(EVALS) | set(TASK_HELPERS)
    assert sorted(p.name for p in tasks.glob("*.py")) == ["__init__.py"]


def test_data_flows_one_way() -> None:
    rules = {"tombench.generators": ("tombench.tasks", "tombench.scorers"), "tombench.scorers": ("tombench.tasks",)}
    wrong = {}
    for module, imports in MODULES.items():
        banned = [b for prefix, bs in rules.items() if module.startswith(prefix) for b in bs]
        banned += ["tombench.cli", "tombench.commands"] if not module.startswith(("tombench.cli", "tombench.commands",
                                                                                  "tombench.__main__")) else []
        bad = sorted(i for i in imports if i.startswith(tuple(banned)))
        if bad:
            wrong[module] = bad
    assert not wrong


def _ancestors(module: str) -> set[str]:
    parts = module.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def _cycles() -> list[list[str]]:
    """The groups of modules that import each other, directly or through others (Tarjan's strongly connected
    components over every import, `TYPE_CHECKING` and function-level ones included). An import of a module's own
    parent package is not an edge: Python runs the parents' `__init__` before any submodule anyway."""
    graph = {m: sorted(i for i in imps if i in MODULES and i != m and i not in _ancestors(m))
             for m, imps in MODULES.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle() -> None:
    """A cycle makes the import order matter and the parts impossible to read one at a time."""
    assert not _cycles()


def _private_imports(module: str) -> list[str]:
    """What `module` imports that is private to another module: a `_name` from another module, or a `_module` of
    another package (a package's private modules are its own; its `__init__` re-exports what others use)."""
    home = module if (PACKAGE.parent / module.replace(".", "/")).is_dir() else module.rsplit(".", 1)[0]
    bad = []
    for name in MODULES[module]:
        parts = name.split(".")
        for i, part in enumerate(parts):
            if not part.startswith("_") or part.startswith("__"):
                continue
            owner = ".".join(parts[:i])
            if ".".join(parts[: i + 1]) not in MODULES or not (home == owner or home.startswith(owner + ".")):
                bad.append(name)
                break
    return bad


def test_no_private_name_crosses_a_module() -> None:
    """A private name is the module's own business: what another module needs is made public where it lives."""
    crossing = {m: _private_imports(m) for m in MODULES}
    assert not {m: v for m, v in crossing.items() if v}


#: the one module that may use Inspect's private names (issue #48: Inspect renames them freely; there each is checked
#: before use and the live task falls back to Inspect's public API where one is gone). Every other module uses the
#: public API only.
INSPECT_SEAM = "tombench.kit.inspect_internals"
#: underscored attributes of objects tombench did not define that it reads on purpose, none of them Inspect's: any
#: other such access is taken for Inspect's (its `Model`, `Transcript`, `ModelAPI`...) and belongs in the seam
FOREIGN_PRIVATE_OK = {
    "_replace": "a namedtuple's own API (underscored so as not to clash with its fields)",
    "_exit": "os._exit, the documented way for a process to end without clean-up (kit/orphans.py)",
    "_get_running_loop": "asyncio's loop or None, from a signal handler (cli.py)",
    "_remote_oid": "huggingface_hub's own mark of an unchanged file (kit/hub.py)",
}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


_DEFS = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
_ATTRIBUTE_CALLS = ("getattr", "hasattr", "setattr", "delattr")


def _inspect_private_path(node: ast.AST, docstrings: set[int]) -> list[str]:
    """The dotted paths `node` names that are private to Inspect (`inspect_ai._util.error`, `inspect_ai.model._model.x`,
    `from inspect_ai.log import _transcript`, such a path as a string: an `importlib.import_module` argument)."""
    if isinstance(node, ast.Import):
        paths = [a.name for a in node.names]
    elif isinstance(node, ast.ImportFrom) and not node.level:
        paths = [f"{node.module}.{a.name}" for a in node.names]
    elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
        paths = [node.value] if node.value.startswith("inspect_ai.") and " " not in node.value else []
    else:
        return []
    return [p for p in paths if p.split(".")[0] == "inspect_ai" and any(map(_private, p.split(".")[1:]))]


def _attribute_read(node: ast.AST) -> str | None:
    """The attribute `node` reads from an object other than `self` or `cls` (`model._resolve_config`,
    `getattr(model, "_explicit_base_url")`), if it does."""
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
        return None if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls") else node.attr
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _ATTRIBUTE_CALLS
            and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
        return node.args[1].value
    return None


def _defined(node: ast.AST) -> str | None:
    """The name `node` defines: a function, a class, an attribute or a variable assigned (`self._x = ...`)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
        return node.attr
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        return node.id
    return None


def _private_uses(tree: ast.AST) -> tuple[set[str], list[str], list[tuple[str, str]]]:
    """One module in one walk (parents before children, so its docstrings are known before their text): the
    underscored names it defines, the private Inspect paths it names (`_inspect_private_path`), and the underscored
    attributes it reads from other objects than `self` and `cls` (name, where)."""
    defined: set[str] = set()
    paths: list[str] = []
    reads: list[tuple[str, str]] = []
    docstrings: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, _DEFS) and node.body and isinstance(node.body[0], ast.Expr):
            docstrings.add(id(node.body[0].value))
        paths += _inspect_private_path(node, docstrings)
        for name, into in ((_defined(node), None), (_attribute_read(node), reads)):
            if name is not None and _private(name):
                if into is None:
                    defined.add(name)
                else:
                    into.append((name, f"line {node.lineno}: {ast.unparse(node)[:60]}"))  # type: ignore[attr-defined]
    return defined, paths, reads


def _inspect_private_uses(scans: dict[str, tuple[set[str], list[str], list[tuple[str, str]]]]) -> dict[str, list[str]]:
    """Per module, what it uses of Inspect's privates: their paths, and underscored attributes read from objects
    tombench did not define (a name no tombench module defines, not in FOREIGN_PRIVATE_OK)."""
    own = set().union(*(defined for defined, _, _ in scans.values()))
    return {m: paths + [where for name, where in reads if name not in own and name not in FOREIGN_PRIVATE_OK]
            for m, (_, paths, reads) in scans.items()}


def test_only_the_seam_uses_inspects_private_names() -> None:
    """Inspect's private modules, names and attributes are used in `kit/inspect_internals.py` alone: a rename in a
    new Inspect release then turns the live task's fast path off there (one warning) instead of failing every search
    sample (tests/tasks/exploretom/test_inspect_internals.py)."""
    found = _inspect_private_uses({m: _private_uses(tree) for m, tree in TREES.items()})
    assert not {m: v for m, v in found.items() if v and m != INSPECT_SEAM}, "move these into " + INSPECT_SEAM


def test_the_seam_check_sees_what_it_is_meant_to() -> None:
    """The check above, on code that does what the live task once did: each use is found."""
    code = ast.parse(
        "from inspect_ai.model._model import sample_model_usage\n"
        "import inspect_ai._util.error\n"
        "from inspect_ai.log import _transcript\n"
        "importlib.import_module('inspect_ai.model._cache')\n"
        "config = model._resolve_config(None)\n"
        "url = getattr(model, '_explicit_base_url', None)\n"
        "fine = self._mine + other._own + state.metadata + k._replace(x=1)\n")
    own = ast.parse("class Mine:\n    def __init__(self):\n        self._own = 1\n")
    found = _inspect_private_uses({"code": _private_uses(code), "mine": _private_uses(own)})["code"]
    assert len([f for f in found if f.startswith("inspect_ai")]) == 4
    assert sorted(f.split(":")[0] for f in found if f.startswith("line")) == ["line 5", "line 6"]
