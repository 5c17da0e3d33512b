"""`tombench leaderboard`: turn Inspect logs into leaderboard rows, publish them to the Hub, and show them.

    tombench leaderboard push logs/ --repo my-org/tombench-leaderboard --submitter me
    tombench leaderboard push --repo my-org/tombench-leaderboard          # retry rows kept locally
    tombench leaderboard show --repo my-org/tombench-leaderboard
    tombench leaderboard show ./board --format html --output leaderboard.html
    tombench leaderboard eval-results --repo my-org/tombench-leaderboard --out eval_results/
    tombench leaderboard space --repo my-org/tombench-leaderboard --out space/ [--space my-org/tombench-board]

`HF_ENDPOINT` and the usual token sources (`hf auth login`, `HF_TOKEN`) apply.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from tombench.cli import UserError
from tombench.commands._common import output_dir, output_file


def _log_paths(inputs: tuple[str, ...]) -> list[Path]:
    from tombench.commands._logs import say
    from tombench.reports import log_paths

    try:
        return log_paths(inputs, say)
    except FileNotFoundError as e:
        raise UserError(str(e)) from None


def check_repo(name: str, value: str | None) -> None:
    """Refuse a repo id the Hub would refuse, before anything is read or written: ORG/NAME by the Hub's own rules
    (huggingface_hub's `validate_repo_id`: letters, digits, `-_.`, no `--` or `..`, at most 96 characters)."""
    if value is None:
        return
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    problem = "" if value.count("/") == 1 else "it must look like ORG/NAME"
    if not problem:
        try:
            validate_repo_id(value)
        except HFValidationError as e:
            problem = str(e).splitlines()[0].split(": '")[0].rstrip(".")  # the value is already in the line
    if problem:
        raise UserError(f"{name} {value!r} is not a Hub repo id: {problem}")


def _repo_id(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """click callback of every repo option, eager so that it runs before any folder option makes its folder."""
    check_repo(f"--{param.name}", value)
    return value


def _writable_store(root: str | Path) -> Path:
    """The local copy's folder (`--local-dir` or the default), made and checked before any log is read."""
    from tombench.kit.errors import OptionError
    from tombench.kit.outputs import writable_dir

    try:
        return writable_dir(root, "--local-dir")
    except OptionError as e:
        raise UserError(str(e)) from None


def _console():
    """The terminal, or (output piped or redirected) 120 columns: the width the boards are laid out for."""
    from rich.console import Console

    from tombench.leaderboard import TERMINAL_WIDTH

    console = Console()
    return console if console.is_terminal else Console(width=TERMINAL_WIDTH)


def _quiet_hub_logs() -> None:
    """huggingface_hub logs each of its retries as a warning ("Retrying in 1s [Retry 1/5]"); the command reports
    what came of the call itself in one line, so those lines are left out."""
    from huggingface_hub.utils import logging as hf_logging

    hf_logging.set_verbosity_error()


#: `--timeout`, shared by every command that reads from or writes to the Hub.
_timeout_option = click.option(
    "--timeout", type=click.FloatRange(min=0.1), default=30.0, show_default=True,
    help="Seconds each Hub operation (a read, an upload, the commit) may take, retries included, before the command "
         "gives up with one line.")


def _load_rows(source: str | None, repo: str | None, timeout: float = 30.0):
    """The rows (a `RowSet`: damaged files left out, one line each) of a Hub repo (`source`, when given, is the
    local copy whose rows need no download), or of the local copy `source`."""
    from tombench.leaderboard import LocalStore, PublishError, RowSet, default_local_dir, fetch_board

    if repo:
        _quiet_hub_logs()
        known = LocalStore(source or default_local_dir(repo)).rows()  # immutable rows copied here: not re-downloaded
        try:
            board = fetch_board(repo, known=known, timeout=timeout)
        except PublishError as e:
            raise UserError(str(e)) from None
        return RowSet(board.rows, board.skipped)
    root = Path(source) if source else default_local_dir(None)
    if not root.is_dir():
        raise UserError(f"no leaderboard folder at {root}: give a folder written by `push`, or --repo ORG/NAME")
    return LocalStore(root).load()


def _say_skipped(lines, console=None) -> None:  # noqa: ANN001
    """One warning line per damaged row file (on stderr unless a console is given), escaped: the name is data."""
    from rich.markup import escape

    for line in lines:
        if console is None:
            click.echo(f"warning: {line}", err=True)
        else:
            console.print(f"[yellow]warning:[/] {escape(line)}", highlight=False)


@click.group()
def leaderboard() -> None:
    """Rank models on tombench from Inspect eval logs; publish to and read from a Hub dataset repo."""


@leaderboard.command()
@click.argument("logs", nargs=-1, type=click.Path())
@click.option("--repo", is_eager=True, callback=_repo_id,
              help="Hub dataset repo ORG/NAME to publish to (created if needed). Omit to keep rows local.")
@click.option("--local-dir", type=click.Path(file_okay=False), help="Local copy of the leaderboard "
              "(default: ~/.cache/tombench/leaderboard/<repo>, or $TOMBENCH_LEADERBOARD_HOME).")
@click.option("--with-logs", is_flag=True, help="Also upload each eval log next to its row.")
@click.option("--submitter", help="Who ran the eval (shown with the row).")
@click.option("--notes", help="Free-text notes on the run.")
@click.option("--model-revision", help="Model revision (commit) if the log does not record it.")
@click.option("--open-weights/--closed-weights", default=None, help="Override whether the model's weights are open.")
@click.option("--model-size", type=click.FloatRange(0, min_open=True), help="Model size in billions of parameters.")
@click.option("--private", is_flag=True, help="Create the repo as private.")
@_timeout_option
def push(logs: tuple[str, ...], repo: str | None, local_dir: str | None, with_logs: bool, submitter: str | None,
         notes: str | None, model_revision: str | None, open_weights: bool | None, model_size: float | None,
         private: bool, timeout: float) -> None:
    """Add the results of eval LOGS (files or folders) to the leaderboard and push what the Hub lacks.

    Exit code 0: every given log is on the board (new or kept before); 1: some logs were refused (the others were
    added and pushed); 2: nothing could be added, or the push failed (rows stay in the local copy).
    """
    from tombench.commands._logs import progress
    from tombench.leaderboard import LocalStore, RowOverrides, add_logs, default_local_dir

    if not logs and not repo:
        raise UserError("give eval logs to add, and/or --repo ORG/NAME to push rows kept locally")
    store = LocalStore(_writable_store(local_dir or default_local_dir(repo)))
    console = _console()
    report = add_logs(store, progress(_log_paths(logs), "logs"),
                      RowOverrides(submitter, notes, model_revision, open_weights, model_size),
                      explicit={Path(p) for p in logs if not Path(p).is_dir()}, with_logs=with_logs,
                      say=lambda text, highlight: console.print(text, highlight=highlight))
    if logs and report.nothing:
        raise UserError(report.nothing)
    _say_skipped(store.load().skipped, console)
    store.write_site(repo)
    if repo:
        _push_store(store, repo, private, timeout, console)
    else:
        console.print(f"{len(store.rows())} row(s) in {store.root} (not pushed: no --repo)")
    _exit_partial(report.partial)


def _terminal_stderr():
    """A rich console on stderr when it is a terminal (progress is drawn there), else None (pipes and logs get
    only the result lines)."""
    from rich.console import Console

    err = Console(stderr=True)
    return err if err.is_terminal else None


@contextmanager
def _status(text: str) -> Iterator[Callable[[str], None]]:
    """A spinner with `text` on stderr while the Hub works (when stderr is a terminal); yields a way to change it."""
    err = _terminal_stderr()
    if err is None:
        yield lambda _text: None
        return
    with err.status(text) as status:
        yield lambda new: status.update(new)


def _push_store(store, repo: str, private: bool, timeout: float, console) -> None:  # noqa: ANN001
    """Push every row of the local copy that the Hub lacks, and say what happened."""
    from tombench.leaderboard import PublishError, keep_fetched, push_rows

    _quiet_hub_logs()
    rows = store.rows()
    log_files = {r.submission_id: p for r in rows if (p := store.log_path(r)) is not None}
    details = {r.submission_id: p for r in rows if (p := store.details_path(r)) is not None}

    def retry(n: int, why: str) -> None:
        console.print(f"[dim]attempt {n}: {why}[/]")
        update(f"pushing to {repo} (attempt {n + 1})")

    try:
        with _status(f"pushing {len(rows)} row(s) to {repo}") as update:
            result = push_rows(rows, repo, known=rows, logs=log_files, details=details, items=store.item_files(),
                               private=private, timeout=timeout, on_retry=retry)
    except PublishError as e:
        raise UserError(f"{e}. {len(rows)} row(s) are kept in {store.root}; push them later with "
                        f"`tombench leaderboard push --repo {repo}`") from None
    keep_fetched(store, result.fetched, repo)
    _say_skipped([f"{repo}: {line}" for line in result.skipped], console)
    if result.added:
        console.print(f"pushed {len(result.added)} new submission(s) to {repo} (commit {result.commit[:8]}, "
                      f"{result.attempts} attempt(s)); {len(result.already)} already there", highlight=False)
    else:
        console.print(f"nothing new to push: {repo} already has all {len(result.already)} submission(s)",
                      highlight=False)


def _exit_partial(message: str) -> None:
    """Exit 1 (after everything else was done) when some of the given logs were refused."""
    if message:
        click.echo(f"error: {message}", err=True)
        raise SystemExit(1)


@leaderboard.command()
@click.argument("source", required=False, type=click.Path())
@click.option("--repo", is_eager=True, callback=_repo_id,
              help="Read the rows from this Hub dataset repo instead of a local folder.")
@click.option("--local-dir", type=click.Path(file_okay=False), help="The local copy to read (as `push --local-dir` "
              "writes it; the same as giving SOURCE).")
@click.option("--format", "fmt", type=click.Choice(["terminal", "markdown", "html"]), default="terminal",
              show_default=True)
@click.option("--breakdowns", is_flag=True, help="Terminal: also show the per-category breakdowns (a second table; "
              "Markdown and HTML always have them).")
@click.option("--output", "-o", type=click.Path(dir_okay=False), callback=output_file,
              help="Write to this file instead of stdout.")
@click.option("--history", is_flag=True, help="Rank every submission, not only the newest per configuration.")
@click.option("--dimension", "dimensions", multiple=True,
              help="Breakdown dimension(s) to show (default: all). Repeatable.")
@_timeout_option
def show(source: str | None, repo: str | None, local_dir: str | None, fmt: str, breakdowns: bool,
         output: str | None, history: bool, dimensions: tuple[str, ...], timeout: float) -> None:
    """Print the ranked leaderboard from a local folder (SOURCE or --local-dir) or a Hub repo (--repo)."""
    from tombench.leaderboard import render

    if source and local_dir and Path(source) != Path(local_dir):
        raise UserError("give the local copy once: SOURCE or --local-dir, not both")
    found = _load_rows(local_dir or source, repo, timeout)
    _say_skipped(found.skipped)
    rows = found.rows
    dims = list(dimensions) or None
    if fmt == "terminal":
        from rich.console import Console

        from tombench.leaderboard import TERMINAL_WIDTH

        board = render(rows, "terminal", history=history, dimensions=dims, breakdowns=breakdowns or bool(dims))
        if not output:
            _console().print(board)
            return
        with open(output, "w", encoding="utf-8") as f:
            Console(file=f, width=TERMINAL_WIDTH).print(board)
        return
    text = render(rows, fmt, history=history, dimensions=dims, skipped=found.skipped)  # type: ignore[arg-type]
    if output:
        Path(output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)


@leaderboard.command("eval-results")
@click.argument("source", required=False, type=click.Path())
@click.option("--repo", is_eager=True, callback=_repo_id,
              help="Read the rows from this Hub dataset repo (also used as the results' source link).")
@click.option("--out", "out", required=True, type=click.Path(file_okay=False), callback=output_dir,
              help="Folder to write eval.yaml and <model>/.eval_results/<task>_<config>.yaml into.")
@click.option("--benchmark", is_eager=True, callback=_repo_id,
              help="Hub dataset ORG/NAME that hosts the benchmark's eval.yaml (the entries' "
              "`dataset.id`; default: --repo).")
@click.option("--open-pr", is_flag=True, help="Open a pull request with the entries on each Hub model repo.")
@_timeout_option
def eval_results(source: str | None, repo: str | None, out: str, benchmark: str | None, open_pr: bool,
                 timeout: float) -> None:
    """Write the Hub "Eval Results" files: the benchmark's eval.yaml and one entry file per model and variant.

    Read from --repo, the entries pin `dataset.revision` to the commit read and link the row files at that commit
    (on the Hub that HF_ENDPOINT names)."""
    from tombench.leaderboard import open_eval_result_prs, write_eval_results

    benchmark = benchmark or repo
    if not benchmark:
        raise UserError("Eval Results entries name the benchmark dataset that hosts eval.yaml: give --repo ORG/NAME "
                        "or --benchmark ORG/NAME")
    rows, files, revision = _load_board(source, repo, timeout)
    written = write_eval_results(rows, benchmark, out, files=files,
                                 revision=revision if benchmark == repo else None)
    variants = sum(len(v) for v in written.values())
    click.echo(f"wrote eval.yaml and {variants} entry file(s) for {len(written)} model(s) under {Path(out)}")
    if open_pr:
        for line in open_eval_result_prs(written, timeout=timeout):  # each PR: one line, within --timeout
            click.echo(line)


def _load_board(source: str | None, repo: str | None, timeout: float) -> tuple[list, set[str], str | None]:
    """(rows, details and item files, commit) of a Hub leaderboard (--repo) or a local folder (no commit)."""
    from tombench.leaderboard import LocalStore, PublishError, default_local_dir, fetch_board

    if not repo:
        found = _load_rows(source, None)
        _say_skipped(found.skipped)
        return found.rows, LocalStore(Path(source) if source else default_local_dir(None)).data_files(), None
    _quiet_hub_logs()
    try:
        board = fetch_board(repo, known=LocalStore(default_local_dir(repo)).rows(), timeout=timeout)
    except PublishError as e:
        raise UserError(str(e)) from None
    _say_skipped(board.skipped)
    return board.rows, board.files, board.revision


@leaderboard.command()
@click.option("--repo", is_eager=True, callback=_repo_id, required=True,
              help="The results dataset ORG/NAME the Space reads (at start and on every refresh).")
@click.option("--out", "out", default="space", show_default=True, type=click.Path(file_okay=False), callback=output_dir,
              help="Folder to write the Space into (README.md, requirements.txt, app.py).")
@click.option("--space", "space", is_eager=True, callback=_repo_id,
              help="Also push the folder to this Hub Space ORG/NAME (created as a Gradio Space).")
@click.option("--requirement", help="How the Space installs tombench (a requirements.txt line, e.g. "
              "`tombench @ git+https://...@COMMIT`; default: a copy of this tombench's source beside app.py, and its "
              "dependencies from the package index).")
@_timeout_option
def space(repo: str, out: str, space: str | None, requirement: str | None, timeout: float) -> None:
    """Write a Hub Space (Gradio) that shows the leaderboard of the results dataset --repo, and push it (--space).

    The app ranks with the same code as `show`: one tab per task, a cross-task tab, drawn intervals, a column
    chooser and links to the models' Hub pages. Preview it locally with `TOMBENCH_SPACE_LOCAL_DIR=<local copy>
    python <out>/app.py`."""
    from tombench.leaderboard import PublishError
    from tombench.leaderboard.space import push_space, write_space

    try:
        folder = write_space(repo, out, requirement)
    except ValueError as e:
        raise UserError(str(e)) from None
    copied = "" if requirement else ", tombench/"
    click.echo(f"wrote the Space for {repo} into {folder} (README.md, requirements.txt, app.py{copied})")
    if space:
        _quiet_hub_logs()
        try:
            commit = push_space(folder, space, timeout=timeout)
        except PublishError as e:
            raise UserError(str(e)) from None
        click.echo(f"pushed the Space to {space} (commit {commit[:8]})")
