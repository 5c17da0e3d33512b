"""The one module that holds Inspect's internals (`kit/inspect_internals.py`): with the installed Inspect every internal
is there and of its shape; with any one renamed or changed (tests/inspect_renames.py) the fast path is off, said in
one warning line per process that names the Inspect version tombench was tested with and the one running, and the
live task's model stays in the eval's process (`worker_target` is None). The live task itself under each rename:
tests/tasks/exploretom/test_inspect_internals.py."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from inspect_ai.model import GenerateConfig, get_model

import tombench._registry  # noqa: F401  (registers the tombench/<name> models)
from tests.inspect_renames import RENAMES
from tombench.kit import inspect_internals
from tombench.kit.errors import OptionError
from tombench.tasks.exploretom.worker_model import worker_target


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.fixture
def warnings() -> Iterator[list[str]]:
    """The seam's warning lines while the test runs, with the verdict forgotten before and after (the process's
    other tests see the installed Inspect again)."""
    handler = _Records()
    inspect_internals.logger.addHandler(handler)
    inspect_internals.forget()
    try:
        yield handler.lines
    finally:
        inspect_internals.logger.removeHandler(handler)
        inspect_internals.forget()


def test_the_installed_inspect_has_every_internal(warnings: list[str]) -> None:
    model = get_model("tombench/recency", config=GenerateConfig(max_retries=3), memoize=False)
    assert inspect_internals.fast_path()
    settings = inspect_internals.worker_settings(model)
    assert settings is not None and settings.config.max_retries == 3
    assert worker_target(model, True) is not None
    assert warnings == []


@pytest.mark.parametrize("rename", sorted(RENAMES))
def test_a_renamed_internal_turns_the_fast_path_off_with_one_warning(rename: str, warnings: list[str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    RENAMES[rename](monkeypatch)
    model = get_model("tombench/recency", memoize=False)
    for _ in range(3):  # as each search sample would ask
        assert worker_target(model, True) is None
        assert not inspect_internals.fast_path()
        assert inspect_internals.worker_settings(model) is None
    (line,) = warnings
    assert "\n" not in line
    assert f"tested with inspect-ai {inspect_internals.TESTED_WITH}, this is {inspect_internals.running_version()}" \
        in line, line


def test_forget_checks_again(warnings: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The verdict is the process's until forgotten: a rename undone is seen only after `forget()`."""
    with monkeypatch.context() as m:
        RENAMES["sample_model_usage-gone"](m)
        assert not inspect_internals.fast_path()
    assert not inspect_internals.fast_path()
    inspect_internals.forget()
    assert inspect_internals.fast_path() and len(warnings) == 1


def test_a_user_error_is_still_inspects_one_line_error() -> None:
    """`OptionError` is Inspect's `PrerequisiteError` (printed as its message alone), found through the seam."""
    from inspect_ai._util.error import PrerequisiteError

    err = OptionError("Invalid people value: 0. Must be >= 1")
    assert isinstance(err, PrerequisiteError) and isinstance(err, ValueError)
    assert str(err) == err.message == "Invalid people value: 0. Must be >= 1"


def test_without_inspects_prerequisite_error_a_user_error_is_a_plain_value_error() -> None:
    """Where Inspect no longer has `PrerequisiteError`, the seam stands in for it: an `OptionError` is still raised,
    still a ValueError with its one line (Inspect then prints a traceback with it)."""
    import subprocess
    import sys

    code = (
        "import sys, types\n"
        "import inspect_ai._util.error as real\n"
        "stand = types.ModuleType(real.__name__)\n"
        "vars(stand).update({k: v for k, v in vars(real).items() if k != 'PrerequisiteError'})\n"
        "sys.modules[real.__name__] = stand\n"
        "from tombench.kit.errors import OptionError\n"
        "err = OptionError('Invalid people value: 0')\n"
        "assert not isinstance(err, real.PrerequisiteError) and isinstance(err, ValueError), type(err).__mro__\n"
        "print(str(err))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout == "Invalid people value: 0\n", out.stderr
