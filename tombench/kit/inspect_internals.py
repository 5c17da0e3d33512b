"""Inspect's private names, in one place: every one tombench uses is loaded and checked here, nowhere else.

Why: Inspect releases weekly and renames its private names freely. The live task's fast path (the search's model
calls made in its worker processes, `tasks/exploretom/worker_model.py`) needs a few of them, and a rename used to
fail every search sample (`ImportError: cannot import name 'sample_model_usage'`, no question sample) while
`inspect eval` exited 0. So the fast path asks `fast_path()` first: at first use in a process every internal below is
imported and checked for the shape tombench was written against (a ContextVar still a ContextVar, a function's
parameters, `NoEvents` still dropping events). Where one is missing or changed, the live task and `tombench search
--workers N` make their model calls in the eval's process through Inspect's public API, each a model event (as
`-T call_events=true` does): slower, the same samples and scores. One warning line says so, once per process, naming
the Inspect version tombench was tested with (`TESTED_WITH`) and the one running.

The internals, what each is for, and the public API that would replace it:

* `inspect_ai.log._transcript.init_transcript`: give a search's calls a transcript of their own that keeps nothing
  (`NoEvents`). Public: none (`inspect_ai.log.transcript()` only reads the current transcript).
* `Transcript._event`, `Transcript._event_updated` (overridden by `NoEvents`): drop the per-call model events the
  search's summary replaces, and pass the first sample-limit event on to the sample's transcript. Public: none (a
  public "no events here" switch on the transcript would do it).
* `inspect_ai.model._cache.epoch`: the ContextVar the response cache's key reads; a worker sets it to the sample's
  epoch (`TaskState.epoch`, passed down) so its cache entries are the question samples'. Public: none;
  `CachePolicy(per_epoch=False)` drops the epoch from the key, but it would change every key the question samples and
  `inspect eval-retry` read.
* `inspect_ai.model._model.model_usage_context_var`: where a worker's calls add their tokens, per job. Public: none
  (`inspect_ai.hooks.Hooks.on_model_usage` observes usage, but only through a hook registered for every eval).
* `inspect_ai.model._model.record_and_check_model_usage`: add a worker's calls' tokens to the sample's and the
  eval's usage, and check the sample's token and cost limits (in the sample's task: an exceeded one raises there),
  as Inspect does for its own calls. Public: none (`inspect_ai.util.token_limit` and `cost_limit` open new limits;
  nothing public adds usage to the open ones).
* `inspect_ai.model._model.sample_model_usage`: the sample's tokens so far, for the search's summary when its calls
  log no events. Public: `inspect_ai.util.sample_limits().token.usage` has the total only; the model events of
  `inspect_ai.log.transcript()` have every call's usage (what the public path reads).
* `Model._resolve_config`: the generate config a call of the eval's model would use (the model's, with the task's and
  the eval's merged: `--max-retries`, `--timeout`, `--temperature`, ...), for the worker's copy of the model.
  Public: none (`Model.config` lacks the task's and the eval's).
* `ModelAPI.api_key`: the key the model was built with, for the worker's copy (an attribute the public `ModelAPI`
  sets, not documented). Public: none.
* `inspect_ai._util.error.PrerequisiteError`: a user error Inspect prints as its message alone (`kit.errors`). Not
  the fast path's: where it is missing, errors show with a traceback and nothing else changes. Public: none.

Replaced by public API: `sample_state()` by the solver's `TaskState.epoch`, `Model._explicit_base_url` by
`Model.explicit_base_url`, `active_generate_config()` by the worker target's resolved config.
"""

from __future__ import annotations

import contextvars
import importlib
import inspect
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

try:
    from inspect_ai._util.error import PrerequisiteError
except ImportError:  # pragma: no cover - inspect-ai moved it; errors then show with a traceback
    class PrerequisiteError(Exception):  # type: ignore[no-redef]
        """Stands in for Inspect's one-line user error where Inspect no longer has it."""

        def __init__(self, message: str) -> None:
            super().__init__(message)
            self.message = message

__all__ = ["TESTED_WITH", "PrerequisiteError", "WorkerSettings", "begin_worker_job", "drop_events", "fast_path",
           "forget", "record_usage", "running_version", "sample_usage", "worker_settings"]

#: the inspect-ai release these internals were checked against (tests/kit/test_inspect_internals.py runs the live
#: task with each one hidden); pyproject.toml, docs/getting-started/install.md and docs/design-notes/scale.md name it
#: too
TESTED_WITH = "0.3.285"

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Internals:
    """The loaded internals, each checked (see the module's docstring for what each is for)."""

    init_transcript: Callable[[Any], None]
    no_events: type
    cache_epoch: contextvars.ContextVar
    model_usage: contextvars.ContextVar
    record_and_check_model_usage: Callable[..., None]
    sample_model_usage: Callable[[], dict[str, Any]]


@dataclass(frozen=True)
class WorkerSettings:
    """What a worker needs to rebuild the eval's model that only Inspect's internals say."""

    #: the generate config a call of the model here would use (`Model._resolve_config`)
    config: Any
    #: the key the model was built with (`ModelAPI.api_key`)
    api_key: str | None


class _Changed(Exception):
    """An internal is missing or not of the shape tombench was written against (the message says which)."""


#: the once-per-process verdict, which is also the warning's flag: empty until the internals are first needed, then
#: {"internals": the loaded internals}, or {"internals": None} once one was found missing or changed (and the one
#: warning line printed)
_VERDICT: dict[str, _Internals | None] = {}


def fast_path() -> bool:
    """Whether the fast path's internals are all present and of the expected shape (checked once per process; the
    first miss prints the one warning)."""
    return _internals() is not None


def _internals() -> _Internals | None:
    if "internals" not in _VERDICT:
        try:
            _VERDICT["internals"] = _load()
        except _Changed as e:
            _degrade(str(e))
        except Exception as e:  # noqa: BLE001 - whatever a changed Inspect raises here, the public path still runs
            _degrade(f"checking them raised {type(e).__name__}: {e}")
    return _VERDICT["internals"]


def _degrade(what: str) -> None:
    """Turn the fast path off for this process; say so in one warning line, the first time only."""
    if _VERDICT.get("internals", False) is None:
        return
    _VERDICT["internals"] = None
    logger.warning(
        f"tombench: an Inspect internal the live search's fast path uses is missing or changed ({what}); tombench "
        f"was tested with inspect-ai {TESTED_WITH}, this is {running_version()}: the search's model calls are made in "
        "the eval's process instead, each a model event (slower; the same samples and scores)")


def forget() -> None:
    """Forget the verdict: the next use checks the internals again (tests that hide one; a reloaded Inspect)."""
    _VERDICT.clear()


def running_version() -> str:
    """The installed inspect-ai's version, as its package metadata says."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("inspect_ai")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree
        return "unknown"


def _attr(module: str, name: str) -> Any:
    """`module.name`, or `_Changed` naming it."""
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        raise _Changed(f"{module}.{name} is gone") from None


def _params(fn: Any, where: str, names: tuple[str, ...]) -> Any:
    """`fn`, checked to take `names` first (positionally) and nothing else without a default; else `_Changed`."""
    if fn is None:
        raise _Changed(f"{where} is gone")
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        raise _Changed(f"{where} is not a function") from None
    first = tuple(p.name for p in params[: len(names)])
    rest_required = [p.name for p in params[len(names):] if p.default is inspect.Parameter.empty
                     and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if first != names or rest_required:
        raise _Changed(f"{where} takes ({', '.join(p.name for p in params)}), not ({', '.join(names)})")
    return fn


def _context_var(module: str, name: str) -> contextvars.ContextVar:
    var = _attr(module, name)
    if not isinstance(var, contextvars.ContextVar):
        raise _Changed(f"{module}.{name} is of type {type(var).__name__}, not a ContextVar")
    return var


def _no_events_class() -> type:
    """`NoEvents`, checked to drop what a transcript records: Inspect still routes events through the two hooks it
    overrides (a rename of either would leave every call's event logged)."""
    from inspect_ai.log import Transcript

    for hook in ("_event", "_event_updated"):
        _params(getattr(Transcript, hook, None), f"Transcript.{hook}", ("self", "event"))

    from inspect_ai.event import SampleLimitEvent

    class NoEvents(Transcript):
        """A transcript that keeps nothing: the search's calls are summarised, not logged one by one. The first
        limit event (a sample limit the calls exceeded) goes on to `forward`, the sample's transcript, where Inspect
        would have logged it; the calls refused after it, one event each, are summarised with the rest."""

        def __init__(self, forward: Transcript | None = None) -> None:
            super().__init__()
            self.tombench_forward = forward

        def _event(self, event: Any) -> None:
            if self.tombench_forward is not None and isinstance(event, SampleLimitEvent):
                self.tombench_forward._event(event)
                self.tombench_forward = None

        def _event_updated(self, event: Any) -> None:
            pass

    probe = NoEvents()
    probe.info("probe")
    if len(probe.events):
        raise _Changed("Transcript.info no longer goes through Transcript._event")
    return NoEvents


def _load() -> _Internals:
    """Every fast-path internal, imported and checked (`_Changed` for the first that is not as expected)."""
    from inspect_ai.model import Model

    _params(getattr(Model, "_resolve_config", None), "Model._resolve_config", ("self", "config"))
    return _Internals(
        init_transcript=_params(_attr("inspect_ai.log._transcript", "init_transcript"), "init_transcript",
                                ("transcript",)),
        no_events=_no_events_class(),
        cache_epoch=_context_var("inspect_ai.model._cache", "epoch"),
        model_usage=_context_var("inspect_ai.model._model", "model_usage_context_var"),
        record_and_check_model_usage=_params(_attr("inspect_ai.model._model", "record_and_check_model_usage"),
                                             "record_and_check_model_usage", ("model", "usage")),
        sample_model_usage=_params(_attr("inspect_ai.model._model", "sample_model_usage"), "sample_model_usage", ()),
    )


def _need() -> _Internals:
    """The internals, for a caller on the fast path (it asked `fast_path()` first)."""
    found = _internals()
    if found is None:
        raise RuntimeError("the fast path's Inspect internals are not usable: ask fast_path() first")
    return found


def worker_settings(model: Any) -> WorkerSettings | None:
    """What a worker needs to rebuild `model` beyond its public attributes; None where the fast path is off (or this
    finds it must be: the fast path is then off for the process, with the one warning)."""
    if not fast_path():
        return None
    try:
        config = model._resolve_config(None)
    except Exception as e:  # noqa: BLE001 - a changed internal: the public path still runs
        _degrade(f"Model._resolve_config raised {type(e).__name__}: {e}")
        return None
    from inspect_ai.model import GenerateConfig

    if not isinstance(config, GenerateConfig):
        _degrade(f"Model._resolve_config returned type {type(config).__name__}, not a GenerateConfig")
        return None
    api_key = getattr(model.api, "api_key", ...)
    if api_key is not None and not isinstance(api_key, str):
        _degrade("ModelAPI.api_key is gone" if api_key is ... else "ModelAPI.api_key is not a string")
        return None
    return WorkerSettings(config, api_key)


def drop_events() -> None:
    """In the current context, a transcript that keeps nothing (the search's calls are summarised instead) but the
    event of a sample limit they exceed, which goes to the transcript it replaces (the sample's)."""
    from inspect_ai.log import transcript

    found = _need()
    found.init_transcript(found.no_events(transcript()))


def begin_worker_job(epoch: int | None, usage: dict[str, Any]) -> None:
    """In the current context (one job of a search worker): a transcript that keeps nothing, `epoch` (the sample's;
    None: none, as outside a sample) in the response cache's keys, and every call's tokens added to `usage` (per
    model; cache hits left out). One call per job, none per model call."""
    found = _need()
    found.init_transcript(found.no_events())
    if epoch is not None:
        found.cache_epoch.set(epoch)
    found.model_usage.set(usage)


def record_usage(model: Any, usage: Any) -> None:
    """Add `usage` (calls `model` made elsewhere, a worker's) to the sample's and the eval's usage, as Inspect adds
    its own calls' (its token limits checked)."""
    _need().record_and_check_model_usage(model, usage)


def sample_usage() -> dict[str, Any]:
    """A copy of the current sample's token usage so far, per model."""
    return {k: v.model_copy() for k, v in _need().sample_model_usage().items()}
