"""Each Inspect internal tombench uses (`tombench/kit/inspect_internals.py`), hidden as a new Inspect release would
hide it: renamed or of another shape, as seen from tombench, while Inspect's own code still works.

Why not `monkeypatch.delattr` on Inspect's module: Inspect calls most of these itself (`sample_model_usage` from its
own generate), so deleting one breaks Inspect, not only tombench; a real rename changes Inspect's uses too. So a
module's internal is hidden behind a stand-in module in `sys.modules` that answers every other name, and that one
name as renamed only to tombench's code (Inspect's functions read their module's globals, never the stand-in); a
method or an attribute is replaced by one of another signature or shape that still works where Inspect calls it.

    for name, hide in RENAMES.items():
        hide(monkeypatch)   # then inspect_internals.forget(): the next use checks again
"""

from __future__ import annotations

import inspect
import sys
import types
from collections.abc import Callable
from typing import Any

import pytest

__all__ = ["RENAMES"]

_GONE = object()


def _asked_by_tombench() -> bool:
    """Whether the code reading the attribute (the frame above the stand-in's `__getattr__`) is tombench's."""
    return str(sys._getframe(2).f_globals.get("__name__", "")).startswith("tombench")


class _Renamed(types.ModuleType):
    """`real` with `name` gone (or `replacement` in its place) for tombench's code, unchanged for anyone else."""

    def __init__(self, real: types.ModuleType, name: str, replacement: Any = _GONE) -> None:
        super().__init__(real.__name__, real.__doc__)
        vars(self).update(_real=real, _hidden=name, _replacement=replacement)

    def __getattr__(self, attr: str) -> Any:
        if attr == vars(self)["_hidden"] and _asked_by_tombench():
            if vars(self)["_replacement"] is _GONE:
                raise AttributeError(f"module {self.__name__!r} has no attribute {attr!r}")
            return vars(self)["_replacement"]
        return getattr(vars(self)["_real"], attr)


def _module_name(module: str, name: str, replacement: Any = _GONE) -> Callable[[pytest.MonkeyPatch], None]:
    def hide(monkeypatch: pytest.MonkeyPatch) -> None:
        __import__(module)
        monkeypatch.setitem(sys.modules, module, _Renamed(sys.modules[module], name, replacement))

    return hide


def _method(owner: str, name: str, new_param: str) -> Callable[[pytest.MonkeyPatch], None]:
    """`owner.name(self, x)` replaced by a wrapper whose parameter is called `new_param` (Inspect calls it
    positionally, so Inspect works as before)."""
    def hide(monkeypatch: pytest.MonkeyPatch) -> None:
        module, cls_name = owner.rsplit(".", 1)
        cls = getattr(__import__(module, fromlist=[cls_name]), cls_name)
        original = getattr(cls, name)

        def renamed(self: Any, *args: Any) -> Any:
            return original(self, *args)

        kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
        renamed.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [inspect.Parameter("self", kind), inspect.Parameter(new_param, kind)])
        monkeypatch.setattr(cls, name, renamed)

    return hide


def _api_key_gone(monkeypatch: pytest.MonkeyPatch) -> None:
    """`ModelAPI.api_key` renamed: stored and read as before by Inspect's providers, gone for tombench."""
    from inspect_ai.model import ModelAPI

    def get(self: Any) -> Any:
        if _asked_by_tombench():
            raise AttributeError("api_key")
        return vars(self).get("_renamed_api_key", vars(self).get("api_key"))

    def put(self: Any, value: Any) -> None:
        vars(self)["_renamed_api_key"] = value

    monkeypatch.setattr(ModelAPI, "api_key", property(get, put), raising=False)


def _info_bypasses_event(monkeypatch: pytest.MonkeyPatch) -> None:
    """`Transcript.info` routed through another hook than `_event` (a rename of the hook it calls)."""
    from inspect_ai.event import InfoEvent
    from inspect_ai.log import Transcript

    real_event = Transcript._event

    def info(self: Any, data: Any, *, source: str | None = None) -> None:
        real_event(self, InfoEvent(source=source, data=data))

    monkeypatch.setattr(Transcript, "info", info)


def _resolve_config_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    """`Model._resolve_config` of the same parameters that fails when tombench calls it (it now needs something the
    eval sets up), and works for Inspect."""
    from inspect_ai.model import Model

    original = Model._resolve_config

    def _resolve_config(self: Any, config: Any) -> Any:
        if _asked_by_tombench():
            raise KeyError("generate_config")
        return original(self, config)

    monkeypatch.setattr(Model, "_resolve_config", _resolve_config)


def _transcript_needs_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    """A `Transcript` subclass can no longer be made without arguments (the check's own probe fails)."""
    from inspect_ai.log import Transcript

    original = Transcript.__init__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if type(self) is not Transcript and not args and not kwargs:
            raise TypeError("Transcript() missing 1 required argument: 'history_provider'")
        original(self, *args, **kwargs)

    monkeypatch.setattr(Transcript, "__init__", __init__)


def _not_a_function(usage: Any) -> None:
    pass


#: one way each internal can disappear or change (the key: the internal, then how; a pytest id); the live task must
#: run on its public path under every one
RENAMES: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    "init_transcript-gone": _module_name("inspect_ai.log._transcript", "init_transcript"),
    "Transcript._event-parameters": _method("inspect_ai.log.Transcript", "_event", "logged"),
    "Transcript._event_updated-parameters": _method("inspect_ai.log.Transcript", "_event_updated", "changed"),
    "Transcript.info-bypasses-_event": _info_bypasses_event,
    "cache.epoch-not-a-ContextVar": _module_name("inspect_ai.model._cache", "epoch", 0),
    "cache.epoch-gone": _module_name("inspect_ai.model._cache", "epoch"),
    "model_usage_context_var-not-a-ContextVar": _module_name("inspect_ai.model._model", "model_usage_context_var", {}),
    "record_and_check_model_usage-parameters": _module_name("inspect_ai.model._model",
                                                                      "record_and_check_model_usage", _not_a_function),
    "sample_model_usage-gone": _module_name("inspect_ai.model._model", "sample_model_usage"),
    "Model._resolve_config-parameters": _method("inspect_ai.model.Model", "_resolve_config", "generate"),
    "Model._resolve_config-raises": _resolve_config_raises,
    "Transcript-needs-arguments": _transcript_needs_arguments,
    "ModelAPI.api_key-gone": _api_key_gone,
}
