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
