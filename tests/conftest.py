"""Shared pytest fixtures and hooks."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tombench.local import LocalServer


@pytest.fixture(scope="session")
def local_model_server() -> Iterator[LocalServer]:
    """The packaged SmolLM2-135M served by llama.cpp on 127.0.0.1 and a free port, for the whole session.

    Tests marked `local_model` use it; they run by default (CI installs the `local` extra and the model). When either
    is not installed they skip with the exact reason and install line; a server that is installed but fails to start
    is an error, never a skip. The server is stopped by its PID when the session ends.
    """
    from tombench.local import LocalModelUnavailable, ServerStartError, local_server

    with contextlib.ExitStack() as stack:
        try:
            server = stack.enter_context(local_server())
        except LocalModelUnavailable as exc:
            pytest.skip(f"local model not available: {exc}")
        except ServerStartError as exc:
            pytest.fail(f"{exc}\n{exc.log_tail}", pytrace=False)
        yield server
