"""Option parsing shared by the commands: one place for "a model or a one-line error" and integer lists."""

from __future__ import annotations

from typing import Any

from tombench.cli import UserError

__all__ = ["resolve_model", "int_list"]


def resolve_model(
    name: str,
    *,
    max_connections: int | None = None,
    max_retries: int | None = None,
    timeout: int | None = None,
    role: str | None = None,
    model_args: dict[str, Any] | None = None,
) -> Any:
    """An Inspect `Model` for `name`; an unknown provider, missing key or missing package is one line for the user.
    `max_connections`, `max_retries`, `timeout`: Inspect's `--max-connections`, `--max-retries`, `--timeout`."""
    from inspect_ai.model import GenerateConfig, get_model

    import tombench._registry  # noqa: F401  (the offline tombench/<name> models)

    config = GenerateConfig(max_connections=max_connections, max_retries=max_retries, timeout=timeout)
    try:
        return get_model(name, role=role, config=config, **(model_args or {}))
    except Exception as e:  # noqa: BLE001 - any provider error at construction is a user error here
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise UserError(f"cannot use model {name!r}: {first}") from None


def int_list(value: str, name: str) -> list[int]:
    """"2,3,4" -> [2, 3, 4], or a one-line error naming the option."""
    try:
        out = [int(x) for x in value.split(",") if x.strip()]
    except ValueError:
        raise UserError(f"--{name} must be a comma-separated list of integers, got {value!r}") from None
    if not out or any(x < 1 for x in out):
        raise UserError(f"--{name} needs positive integers, got {value!r}")
    return out


# ---- shared by the generation commands (infill, contexts, export-training): one formatter, one error wrapper ----
from collections.abc import Iterator  # noqa: E402
from contextlib import contextmanager  # noqa: E402

from tombench.kit.format import percent  # noqa: E402,F401  (re-exported: the one percentage formatter)


def first_line(e: BaseException) -> str:
    """The first line of an exception's message, or its type name when it has none."""
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


@contextmanager
def user_errors(
    *known: type[BaseException], stopped: str | None = None, saved: str | None = None
) -> Iterator[None]:
    """Turn errors into one-line `UserError`s: `known` types (bad input files) verbatim; with `stopped`, any other
    exception (a provider or network failure mid-run) as "<stopped> stopped (...); <saved>, re-run the same command
    to resume", because generation commands write as they go and resume."""
    try:
        yield
    except UserError:
        raise
    except known as e:  # type: ignore[misc]
        raise UserError(first_line(e)) from None
    except Exception as e:  # noqa: BLE001 - the point: no traceback for a run that can simply be resumed
        if stopped is None:
            raise
        where = f"; {saved}" if saved else ""
        raise UserError(
            f"{stopped} stopped ({type(e).__name__}: {first_line(e)[:200]}){where}, re-run the same command to resume"
        ) from None


# --- numeric options at the boundary: the ranges live in tombench.kit.options -------------------------------


def checked_ints(value: str, name: str, lo: int | None = 1, hi: int | None = None) -> list[int]:
    """"2,3,4" -> [2, 3, 4] within [lo, hi], or one line naming --name and the valid range."""
    from tombench.kit.errors import OptionError
    from tombench.kit.options import check_ints, valid_range

    try:
        return check_ints(name, value, lo, hi)
    except OptionError:
        raise UserError(
            f"--{name.replace('_', '-')} must be {valid_range(lo, hi, 'integers')}, comma-separated; got {value!r}"
        ) from None


def checked_int(value: Any, name: str, lo: int | None = None, hi: int | None = None) -> int:
    """One integer within [lo, hi] whose range depends on other options (else use `click.IntRange`)."""
    from tombench.kit.errors import OptionError
    from tombench.kit.options import check_int, valid_range

    try:
        return check_int(name, value, lo, hi)
    except OptionError:
        raise UserError(f"--{name.replace('_', '-')} must be {valid_range(lo, hi)}; got {value!r}") from None


# --- outputs: an output that cannot be written is one line before any work starts ---------------


def _checked_output(param: Any, value: Any, check: Any) -> Any:
    from tombench.kit.errors import OptionError

    if value is None:
        return None
    try:
        check(value, max(param.opts, key=len))
    except OptionError as e:
        raise UserError(str(e)) from None
    return value


def output_file(ctx: Any, param: Any, value: Any) -> Any:
    """click callback for an output file option (`kit.outputs.writable_file`): the value as given, or one line."""
    from tombench.kit.outputs import writable_file

    return _checked_output(param, value, writable_file)


def output_dir(ctx: Any, param: Any, value: Any) -> Any:
    """click callback for an output folder option (`kit.outputs.writable_dir`, which makes it): the value as given,
    or one line."""
    from tombench.kit.outputs import writable_dir

    return _checked_output(param, value, writable_dir)
