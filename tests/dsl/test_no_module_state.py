"""The DSL is pure: no module-level mutable state, no identity-keyed memo, no private name taken from another module.

A module-level cache is state shared by every caller of the process: results may depend on what ran before, and a
memo keyed by `id()` can return another object's entry once the first is collected and its id reused. The DSL's
memos live on an object the caller holds (`Context.memo`, `Conditions`' cached properties). These tests read the
source with `ast`, so they hold for code paths no other test runs.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import tombench.dsl

DSL = Path(tombench.dsl.__file__).parent
MODULES = sorted(DSL.glob("*.py"))

#: calls whose result is a mutable container
MUTABLE_CALLS = frozenset({"dict", "list", "set", "defaultdict", "OrderedDict", "Counter", "deque", "bytearray"})
#: decorators and wrappers that keep a memo in the function object (module-level state)
CACHES = frozenset({"cache", "lru_cache", "cached"})
MUTABLE_LITERALS = (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)


def _called_name(node: ast.AST) -> str | None:
    """The last name of what `node` calls (`functools.lru_cache(...)(f)` -> "lru_cache"), or None."""
    while isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def _mutable_value(value: ast.AST | None) -> str | None:
    """Why `value` is a mutable container or a cache, or None when it is not."""
    if value is None:
        return None
    if isinstance(value, MUTABLE_LITERALS):
        return type(value).__name__.lower() + " literal"
    if isinstance(value, ast.Call):
        name = _called_name(value)
        if name in MUTABLE_CALLS:
            return f"{name}(...)"
        if name in CACHES:
            return f"{name}(...)"
    return None


def _bindings(body: list[ast.stmt]) -> list[tuple[int, str, ast.AST | None]]:
    """(line, target, value) of each assignment in `body`, and of the bodies of its top-level if/try blocks."""
    out: list[tuple[int, str, ast.AST | None]] = []
    for node in body:
        if isinstance(node, ast.Assign):
            out += [(node.lineno, ast.unparse(t), node.value) for t in node.targets]
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            out.append((node.lineno, ast.unparse(node.target), node.value))
        elif isinstance(node, (ast.If, ast.Try)):
            out += _bindings(node.body + node.orelse)
    return out


def _module_state(tree: ast.Module) -> list[str]:
    """Each module-level or class-level mutable binding, and each function with a cache decorator."""
    problems = []
    scopes: list[tuple[str, list[ast.stmt]]] = [("", tree.body)]
    scopes += [(node.name + ".", node.body) for node in tree.body if isinstance(node, ast.ClassDef)]
    for prefix, body in scopes:
        for line, target, value in _bindings(body):
            why = _mutable_value(value)
            if why is not None and target != "__all__":  # the export list: a convention, read by tools only
                problems.append(f"line {line}: {prefix}{target} = {why}")
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for deco in node.decorator_list:
                    if _called_name(deco) in CACHES:
                        problems.append(f"line {node.lineno}: {prefix}{node.name} has a cache decorator")
    return problems


def _id_calls(tree: ast.Module) -> list[str]:
    return [
        f"line {node.lineno}: id(...)"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "id"
    ]


def _private_imports(tree: ast.Module) -> list[str]:
    """`from <a tombench.dsl module> import _name`, or the same relative import."""
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        module = node.module or ""
        if node.level == 0 and not module.startswith("tombench.dsl"):
            continue
        out += [f"line {node.lineno}: {alias.name} from {'.' * node.level}{module}"
                for alias in node.names if alias.name.startswith("_")]
    return out


def _parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def test_the_scan_sees_every_module() -> None:
    names = {p.name for p in MODULES}
    assert {"sampler.py", "tracker.py", "deferred.py", "answers.py", "memo.py"} <= names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_module_level_mutable_state(path: Path) -> None:
    problems = _module_state(_parse(path))
    assert not problems, f"{path.name} keeps module-level mutable state (use MappingProxyType, tuple, frozenset, " \
                         f"or a memo on an object the caller holds): {problems}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_identity_keys(path: Path) -> None:
    problems = _id_calls(_parse(path))
    assert not problems, f"{path.name} calls id(): an id is reused once its object is collected: {problems}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_private_names_across_dsl_modules(path: Path) -> None:
    problems = _private_imports(_parse(path))
    assert not problems, f"{path.name} imports another module's private names (make them public): {problems}"


def test_the_checks_catch_what_they_look_for() -> None:
    bad = ast.parse(
        "import functools\n"
        "from tombench.dsl.tracker import _APPLY\n"
        "_MEMO: dict[int, str] = {}\n"
        "SEEN = set()\n"
        "_f = functools.lru_cache(maxsize=8)(len)\n"
        "@functools.cache\n"
        "def g(x): return x\n"
        "class K:\n"
        "    table = [1]\n"
        "def h(a): return _MEMO.get(id(a))\n"
    )
    assert len(_module_state(bad)) == 5
    assert len(_id_calls(bad)) == 1
    assert len(_private_imports(bad)) == 1
    good = ast.parse(
        "from types import MappingProxyType\n"
        "TABLE = MappingProxyType({'a': 1})\n"
        "NAMES = ('a', 'b')\n"
        "KINDS = frozenset({'x'})\n"
        "def f():\n"
        "    local = {}\n"
        "    return local\n"
    )
    assert not _module_state(good) and not _id_calls(good) and not _private_imports(good)
