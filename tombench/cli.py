"""The `tombench` command.

Sub-commands live in their own modules and are imported only when invoked, so `tombench --help` stays fast and a
missing optional dependency of one command never breaks another. To add a command, add one line to `_COMMANDS`.
"""

from __future__ import annotations

import errno
import importlib
import signal
import sys
import threading

import click

from tombench import __version__
from tombench._platform import unsupported

#: command name -> ("module:attribute" of a click command or group, one-line help shown by `tombench --help`)
_COMMANDS: dict[str, tuple[str, str]] = {
    "stats": ("tombench.commands.stats:stats", "Statistics of random stories (paper Tables 7-9)."),
    "search": ("tombench.commands.search:search", "A* search for the stories a model answers worst (resumable)."),
    "demo": ("tombench.commands.demo:demo", "Live adversarial search against a real local model, with its report."),
    "report": ("tombench.commands.report:report", "Paper tables from Inspect logs: Table 1, Table 6, Figure 3, transfer."),
    "tomsynth": ("tombench.commands.tomsynth:tomsynth", "ToM-Synth items: generate, quality-control, export."),
    "leaderboard": ("tombench.commands.leaderboard:leaderboard", "Rank models from eval logs; publish to the Hub."),
    "serve": ("tombench.commands.serve:serve", "Serve a local real model (llama.cpp, OpenAI-compatible API)."),
    "contexts": ("tombench.commands.contexts:contexts", "Story contexts: LLM-generate with a judge, or export the bank."),
    "persuasion": ("tombench.commands.persuasion:persuasion", "ToMMA persuasion: generate double-blind dialogues, CToM-audit datasets."),
    "infill": ("tombench.commands.infill:infill", "Infill story structures into natural text with a per-step LLM judge."),
    "tasks": ("tombench.commands.tasks:tasks", "Every task: the data it needs, its size and license, cached or not."),
    "data": ("tombench.commands.tasks:data", "Download and verify the tasks' pinned data once (then run offline)."),
    "export-training": ("tombench.commands.export_training:export_training", "Export (story, question, answer) training data: jsonl, HF dataset, chat."),
}


class UserError(click.ClickException):
    """An error the user can fix: printed as one line, exit code 2, no traceback."""

    exit_code = 2

    def show(self, file=None) -> None:  # noqa: ANN001 - click's signature
        click.echo(f"error: {self.format_message()}", err=True, file=file)


#: OS errors that say a path cannot be used (permissions, a read-only or full disk, a file where a folder should be):
#: the user's to fix, so one line, wherever in a command they happen
_PATH_ERRNOS = frozenset({errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.ENOTDIR,
                          errno.EISDIR})


def _as_user_error(e: Exception) -> UserError | None:
    """A kit `OptionError` (a bad data file, a bad option) or an unusable path as a one-line `UserError`. Checked by
    module so that this file never imports the kit (which imports inspect_ai): an OptionError can only exist once its
    module is loaded."""
    errors = sys.modules.get("tombench.kit.errors")
    if errors is not None and isinstance(e, errors.OptionError):
        return UserError(str(e))
    if isinstance(e, OSError) and e.errno in _PATH_ERRNOS and e.filename:
        return UserError(f"{e.filename}: {(e.strerror or type(e).__name__).lower()}")
    return None


class _LazyGroup(click.Group):
    def invoke(self, ctx: click.Context) -> object:
        try:
            result = super().invoke(ctx)
        except click.ClickException:
            if _stopped_by:
                raise _stopped() from None
            raise
        except Exception as e:
            if _stopped_by:
                raise _stopped() from None
            user_error = _as_user_error(e)
            if user_error is None:
                raise
            raise user_error from None
        except BaseException as e:  # KeyboardInterrupt, a cancelled event loop's CancelledError
            if _stopped_by and not isinstance(e, SystemExit):
                raise _stopped() from None
            raise
        if _stopped_by:  # the command caught the unwinding itself and returned
            raise _stopped()
        return result

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = _COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module_name, _, attr = entry[0].partition(":")
        module = importlib.import_module(module_name)
        return getattr(module, attr)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Listing commands must not import them (that is the point of the lazy group).
        rows = [(name, help_) for name, (_, help_) in sorted(_COMMANDS.items())]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


#: signals that end a command the way Ctrl-C does: its clean-up runs (worker processes and servers it started are
#: stopped, files closed), then it exits with 128 + the signal's number, as a shell expects
_ENDING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))

#: the signal a command sends itself to end from another thread (`stop_command`): only the main thread can unwind it
_STOP_SIGNAL = getattr(signal, "SIGUSR1", None)  # None where no command runs (`_platform.unsupported`)

#: (the one line to print, the exit code) once the command is being ended by a signal or `stop_command`: then,
#: whatever the command raises or returns while it unwinds, it ends with these
_stopped_by: list[tuple[str, int]] = []
_stop_requests: list[str] = []


def _end_on_signal(signum: int, frame: object) -> None:
    """First SIGTERM/SIGHUP: unwind the command as Ctrl-C does, so every `finally` and context manager runs. In an
    event loop its tasks are cancelled (as asyncio does for Ctrl-C: an exception raised inside a task would end
    only that task); elsewhere KeyboardInterrupt is raised. A second signal during the clean-up ends the process at
    once (the default action)."""
    import asyncio

    for sig in _ENDING_SIGNALS:
        signal.signal(sig, signal.SIG_DFL)
    if signum == _STOP_SIGNAL:
        _stopped_by.append((f"error: {_stop_requests[-1]}", UserError.exit_code))
    else:
        _stopped_by.append((f"stopped by {signal.Signals(signum).name}", 128 + signum))
    loop = asyncio._get_running_loop()
    if loop is None:
        raise KeyboardInterrupt
    for task in asyncio.all_tasks(loop):
        task.cancel()
    loop.call_soon_threadsafe(lambda: None)  # wake the loop if it waits


def _handle_ending_signals(ctx: click.Context) -> None:
    """Install `_end_on_signal` for the command's run (main thread only: elsewhere signals cannot be handled), and
    put the previous handlers back after it (a command invoked in-process leaves its caller's handlers alone)."""
    if threading.current_thread() is not threading.main_thread():
        return
    _stopped_by.clear()
    _stop_requests.clear()
    old = {sig: signal.signal(sig, _end_on_signal) for sig in (*_ENDING_SIGNALS, _STOP_SIGNAL)}
    ctx.call_on_close(lambda: [signal.signal(sig, h) for sig, h in old.items()])


def stop_command(reason: str) -> bool:
    """End the running command from any thread, as SIGTERM would (its clean-up runs), with `reason` as its one-line
    error and exit code 2; e.g. a server it depends on died, and the command would otherwise wait on it forever.
    False (nothing done) outside a command run by the `tombench` CLI."""
    if _STOP_SIGNAL is None or signal.getsignal(_STOP_SIGNAL) is not _end_on_signal:
        return False
    _stop_requests.append(reason)
    signal.pthread_kill(threading.main_thread().ident, _STOP_SIGNAL)  # type: ignore[arg-type]
    return True


def _stopped() -> SystemExit:
    """The exit of a command ended by a signal or `stop_command`: its one line and exit code."""
    line, code = _stopped_by[0]
    click.echo(line, err=True)
    return SystemExit(code)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tombench")
@click.pass_context
def main(ctx: click.Context) -> None:
    """tombench: theory-of-mind benchmarks, adversarial story search and leaderboards."""
    line = unsupported()
    if line is not None:
        raise UserError(line)
    _handle_ending_signals(ctx)


def run() -> None:  # pragma: no cover - thin wrapper: the `tombench` command and `python -m tombench`
    """The command line's entry point: `main`, then the process's exit with Ctrl-C ignored. Once the command is
    over (its results written or its error printed) only the interpreter's exit is left (the search's workers
    stopped by their bounded clean-up); a Ctrl-C landing there would kill the process by the signal without a word
    (Python puts the default action back as it finalises), where the work is done and its exit code already set."""
    try:
        main(standalone_mode=True)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
    finally:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)
