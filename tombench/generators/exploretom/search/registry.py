"""The search methods, one line each: the one list that `tombench search --method`, the live task's `-T method=`, the
runner and the benchmarks read.

A method is a module with one class behind `method.SearchMethod`. Adding one is that module and one line below:
`"name": "module.path:Class"`. Names map to import paths so that listing the names (a command's --help, the
choices of an option) imports nothing heavy; a method's module is imported when it is first built.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from tombench.generators.exploretom.search.method import SearchMethod

__all__ = ["METHODS", "method_names", "method_class", "build_method", "variants", "describe"]

_HERE = "tombench.generators.exploretom.search"

#: name -> "module:Class" of every search method
METHODS: dict[str, str] = {
    "astar": f"{_HERE}.astar:AStar",
    "over-generate": f"{_HERE}.over_generate:OverGenerate",
    "random": f"{_HERE}.random_story:RandomStory",
}


def method_names() -> list[str]:
    """Every method's name, in registry order."""
    return list(METHODS)


def method_class(name: str) -> type[SearchMethod]:
    """The class of method `name`; ValueError naming the choices for an unknown one."""
    if name not in METHODS:
        raise ValueError(f"Invalid method {name!r}. Must be one of: {method_names()}")
    module, _, cls = METHODS[name].partition(":")
    found = getattr(importlib.import_module(module), cls)
    if found.name != name:
        raise ValueError(f"method {name!r} is registered to {METHODS[name]}, whose name is {found.name!r}")
    return found


def build_method(name: str, **options: Any) -> SearchMethod:
    """Method `name` configured by `options`; options it has no knob for are left out (the command line and the live
    task offer every method's knobs, and a knob a method does not read cannot change its search). ValueError with
    the user's message for a bad value."""
    cls = method_class(name)
    known = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    return cls(**{k: v for k, v in options.items() if k in known})


def variants() -> dict[str, tuple[str, Mapping[str, Any]]]:
    """Every method's named presets (label -> (method name, options)), in registry order: the rows the benchmarks
    offer and the docs list."""
    out: dict[str, tuple[str, Mapping[str, Any]]] = {}
    for name in METHODS:
        for label, options in method_class(name).variants.items():
            out[label] = (name, options)
    return out


def describe(method: SearchMethod) -> str:
    """A method and the preset it matches, as summaries print it ("astar/improved", "over-generate")."""
    label = next((lbl for lbl, opts in method.variants.items()
                  if all(getattr(method, k) == v for k, v in opts.items())), None)
    return method.name if label in (None, method.name) else f"{method.name}/{label}"
