"""Numeric and true/false options checked at the boundary: one line naming the option, its valid range and the value given.

Every task (`-T name=value`) and command (`--name value`) reads its numbers through these helpers, so a bad value
never reaches the code that would misuse it (`people=-1` sliced a list from the end and labelled 3-person
stories "p-1"; `people=0` ended in a 289-line traceback). Task errors are `OptionError` (Inspect prints them as one
line); commands turn them into `UserError` (tombench.commands._common.checked) or use click's `IntRange`.

    people = check_ints("people", people, lo=1, hi=people_limit(contexts), default=(2, 3, 4))
    budget = check_int("budget", budget, lo=1)
    refine = check_float("refine", refine, lo=0.0, hi=1.0)

Integers may come as ints or integer strings ("3", "2,3,4" for lists: Inspect's `-T` parser leaves "2,3" a string);
bools, fractions and other text are rejected, never truncated or coerced. A true/false option (`check_bool`)
takes a bool (Inspect's `-T` parser reads true/false/yes/no as one), 0 or 1, or those words in any case; anything
else ("maybe") is refused instead of running as true because a non-empty string is truthy.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tombench.kit.errors import OptionError

__all__ = ["MAX_MOVES", "SCHEDULER_INDEX", "check_bool", "check_float", "check_int", "check_ints", "check_shard",
           "check_workers", "in_shard", "people_limit", "rooms_limit", "scheduler_shard", "valid_range"]

#: A story has at most `Setting.max_sentences` (15) sentences and each important action is one of them.
MAX_MOVES = 15


def valid_range(lo: float | None, hi: float | None, what: str = "an integer") -> str:
    """'an integer from 1 to 6', 'an integer >= 1', 'a number from 0 to 1', 'an integer'."""
    if lo is not None and hi is not None:
        return f"{what} from {lo:g} to {hi:g}"
    if lo is not None:
        return f"{what} >= {lo:g}"
    if hi is not None:
        return f"{what} <= {hi:g}"
    return what


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None


def _in_range(n: int | None, lo: int | None, hi: int | None) -> bool:
    """Whether `n` is an integer within the bounds given (a None bound is open): the one test every int check
    shares, so a single value and a list item are judged alike."""
    return n is not None and (lo is None or n >= lo) and (hi is None or n <= hi)


def check_int(name: str, value: Any, lo: int | None = None, hi: int | None = None) -> int:
    """`value` as an int in [lo, hi] (either bound may be None), or an `OptionError` saying the valid range."""
    n = _as_int(value)
    if n is None or not _in_range(n, lo, hi):
        raise OptionError(f"Invalid {name} value: {value!r}. Must be {valid_range(lo, hi)}")
    return n


def check_float(name: str, value: Any, lo: float | None = None, hi: float | None = None) -> float:
    """`value` as a finite float in [lo, hi], or an `OptionError` saying the valid range."""
    x: float | None = None
    if not isinstance(value, bool):
        try:
            x = float(value)
        except (TypeError, ValueError):
            x = None
    if x is None or not math.isfinite(x) or (lo is not None and x < lo) or (hi is not None and x > hi):
        raise OptionError(f"Invalid {name} value: {value!r}. Must be {valid_range(lo, hi, 'a number')}")
    return x


def list_items(value: Any) -> list[Any]:
    """The items of a list option as given: Inspect's `-T` leaves "2,3" a string, a config file gives a list, and
    one value stands for a list of one. Empty pieces of a string ("2,,3", "") are not items; None is no items."""
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def check_ints(
    name: str,
    value: Any,
    lo: int | None = None,
    hi: int | None = None,
    default: Sequence[int] | None = None,
) -> list[int]:
    """A list of ints in [lo, hi] from an int, a list, or a comma-separated string; None gives `default`.

    An empty list is an error (a grid with no people has no settings), as is any item out of range; the message
    names all bad items and the range.
    """
    if value is None and default is not None:
        return list(default)
    items = list_items(value)
    out = [_as_int(v) for v in items]
    bad = [v for v, n in zip(items, out, strict=True) if not _in_range(n, lo, hi)]
    if not items or bad:
        shown = ",".join(str(b) for b in bad) if bad else repr(value)
        must = valid_range(lo, hi, "integers")
        raise OptionError(f"Invalid {name} value(s): {shown}. Must be {must}, one or a comma-separated list")
    return [n for n in out if n is not None]


def people_limit(contexts: Iterable[Any]) -> int:
    """The most people a story can have with these contexts (each story takes its people from one context)."""
    return max((len(c.people) for c in contexts), default=0)


def rooms_limit(contexts: Iterable[Any]) -> int:
    """The most rooms a story can use with these contexts."""
    return max((len(c.rooms) for c in contexts), default=0)


_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def check_bool(name: str, value: Any, *, allow_none: bool = False) -> bool | None:
    """A true/false option as a bool; `None` passes only where the option has a third, unset state."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    word = value.strip().lower() if isinstance(value, str) else None
    if word in _TRUE or word in _FALSE:
        return word in _TRUE
    raise OptionError(f"Invalid {name} value: {value!r}. Must be true or false")



#: the job engines whose task index `shard=auto/N` reads: (variable, its first index, the engine in words, how to
#: number its tasks 1..N). Kubernetes numbers an Indexed Job's pods 0..completions-1 and keeps a pod's index when it
#: retries it; a Slurm array's ids are whatever `--array` says, so `auto` asks for `--array=1-N` and takes the id
#: as K: a failed task re-run alone (`--array=2`) is shard 2 again, which an offset from SLURM_ARRAY_TASK_MIN
#: would not be.
SCHEDULER_INDEX = (
    ("JOB_COMPLETION_INDEX", 0, "a Kubernetes Indexed Job", "completions: N"),
    ("SLURM_ARRAY_TASK_ID", 1, "a Slurm array", "--array=1-N"),
)


def check_shard(name: str, value: Any, environ: Mapping[str, str] | None = None) -> tuple[int, int]:
    """A shard spec "K/N" (1 <= K <= N) as (K, N); None and "" are the whole grid, (1, 1); "auto/N" takes K from
    the job engine's task index (`scheduler_shard`).

    Why here: the CLI's `--shard` and the tasks' `-T shard=` must accept and refuse the same specs (0/2, 3/2, "a/b"
    are one line each), and `in_shard` must mean the same split in both (docs/design-notes/scale.md, "Beyond one machine")."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return 1, 1
    k_text, sep, n_text = str(value).strip().partition("/")
    k, n = _as_int(k_text), _as_int(n_text)
    if k_text.strip().lower() == "auto" and sep and n is not None and n >= 1:
        return scheduler_shard(name, value, n, environ), n
    if isinstance(value, bool) or not sep or k is None or n is None or n < 1 or not 1 <= k <= n:
        raise OptionError(f"Invalid {name} value: {value!r}. Must be K/N with 1 <= K <= N (e.g. 2/4: the second "
                          "of 4 shards), or auto/N in a Kubernetes Indexed Job or a Slurm array")
    return k, n


def scheduler_shard(name: str, value: Any, n: int, environ: Mapping[str, str] | None = None) -> int:
    """K of `auto/N`: the task index of the Kubernetes Indexed Job or Slurm array this process runs in
    (`SCHEDULER_INDEX`, read from `environ`, default this process's environment), or one line saying what is
    missing or out of range.

    Why: one array job runs the same command line N times; each copy must find its own shard without the user
    computing K in a shell (off by one: Kubernetes counts from 0, `-T shard=` from 1)."""
    environ = os.environ if environ is None else environ
    found = [(var, first, engine, how) for var, first, engine, how in SCHEDULER_INDEX if var in environ]
    if not found:
        names = " or ".join(f"{var} ({engine})" for var, _, engine, _ in SCHEDULER_INDEX)
        raise OptionError(f"Invalid {name} value: {value!r}. auto takes K from {names}, and neither is set: give K/N")
    if len(found) > 1:
        raise OptionError(f"Invalid {name} value: {value!r}. Both {' and '.join(f[0] for f in found)} are set, "
                          "so the shard is ambiguous: give K/N")
    var, first, engine, how = found[0]
    index = _as_int(environ[var])
    k = None if index is None else index - first + 1
    if k is None or not 1 <= k <= n:
        raise OptionError(f"Invalid {name} value: {value!r}. {var}={environ[var]!r} is not a shard of {n}: run "
                          f"{engine} with {how.replace('N', str(n))}")
    return k


def in_shard(index: int, shard: tuple[int, int]) -> bool:
    """Whether the setting at `index` of the canonical grid order belongs to shard (K, N): index mod N = K - 1.

    Round robin rather than contiguous blocks, so each shard gets a like mix of story types, people and moves (the
    grid is ordered by story type first) and shards take alike time."""
    k, n = shard
    return index % n == k - 1


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform has one, else the machine's)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def check_workers(name: str, value: Any) -> int:
    """Worker processes for the search's CPU: None, "" or "all" mean every core (`available_cores`), else an
    integer >= 1 (1: no worker processes, the search runs in the calling process).

    Why here: `tombench search --workers` and `-T workers=` of the live task must mean and refuse the same values
    (docs/design-notes/scale.md, "Every core")."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "all")):
        return available_cores()
    n = _as_int(value)
    if n is None or n < 1:
        raise OptionError(f"Invalid {name} value: {value!r}. Must be an integer >= 1, or 'all' (every core)")
    return n
