"""The house rules of docs/architecture.md, read from the code's own imports.

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


def _imports(path: Path) -> set[str]:
    """Every tombench module a file imports, at the top or inside a function (absolute and relative)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
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


MODULES = {_module(p): _imports(p) for p in sorted(PACKAGE.rglob("*.py"))}


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


def _module_path(module: str) -> Path:
    path = PACKAGE.parent / module.replace(".", "/")
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


TREES = {m: ast.parse(_module_path(m).read_text(encoding="utf-8")) for m in MODULES}


def _own_private_names() -> set[str]:
    """The underscored names tombench defines itself, as attributes (`self._x = ...`, a class's `_x` field or method)
    or module members: reading one of them from an object is tombench reading its own."""
    names: set[str] = set()
    for tree in TREES.values():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return {n for n in names if _private(n)}


def _private_inspect_imports(tree: ast.AST) -> list[str]:
    """Inspect's private modules and names a module imports (`inspect_ai._util...`, `inspect_ai.model._model`,
    `from inspect_ai.x import _y`), or names as a string (an `importlib.import_module` argument)."""
    found = []
    docstrings = {id(n.body[0].value) for n in ast.walk(tree) if isinstance(n, (ast.Module, ast.ClassDef,
                  ast.FunctionDef, ast.AsyncFunctionDef)) and n.body and isinstance(n.body[0], ast.Expr)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            paths = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            paths = [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            paths = [node.value] if node.value.startswith("inspect_ai.") and " " not in node.value else []
        else:
            continue
        found += [p for p in paths if p.split(".")[0] == "inspect_ai" and any(map(_private, p.split(".")[1:]))]
    return found


def _foreign_private_attributes(tree: ast.AST, own: set[str]) -> list[str]:
    """Underscored attributes read from an object tombench did not define (`model._resolve_config`,
    `getattr(model, "_explicit_base_url")`): not `self`'s or `cls`'s, not a name tombench defines, not allowed."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and not (isinstance(node.value, ast.Name)
                                                    and node.value.id in ("self", "cls")):
            name = node.attr
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in ("getattr", "hasattr", "setattr", "delattr") and len(node.args) >= 2
              and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
            name = node.args[1].value
        else:
            continue
        if _private(name) and name not in own and name not in FOREIGN_PRIVATE_OK:
            found.append(f"line {node.lineno}: {ast.unparse(node)[:60]}")
    return found


def test_only_the_seam_uses_inspects_private_names() -> None:
    """Inspect's private modules, names and attributes are used in `kit/inspect_internals.py` alone: a rename in a
    new Inspect release then turns the live task's fast path off there (one warning) instead of failing every search
    sample (tests/tasks/exploretom/test_inspect_internals.py)."""
    own = _own_private_names()
    bad = {m: _private_inspect_imports(tree) + _foreign_private_attributes(tree, own)
           for m, tree in TREES.items() if m != INSPECT_SEAM}
    assert not {m: v for m, v in bad.items() if v}, "move these into " + INSPECT_SEAM


def test_the_seam_check_sees_what_it_is_meant_to() -> None:
    """The check above, on code that does what the live task once did: each use is found."""
    code = ast.parse(
        "from inspect_ai.model._model import sample_model_usage\n"
        "import inspect_ai._util.error\n"
        "from inspect_ai.log import _transcript\n"
        "importlib.import_module('inspect_ai.model._cache')\n"
        "config = model._resolve_config(None)\n"
        "url = getattr(model, '_explicit_base_url', None)\n"
        "fine = self._own + state.metadata + k._replace(x=1)\n")
    assert len(_private_inspect_imports(code)) == 4
    assert sorted(f.split(":")[0] for f in _foreign_private_attributes(code, {"_own"})) == ["line 5", "line 6"]
