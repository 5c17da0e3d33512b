"""`tombench demo`: the live adversarial loop against a real language model, offline.

Starts the packaged SmolLM2-135M-Instruct behind llama.cpp's OpenAI-compatible server on 127.0.0.1 (or uses
`--model`), lets the model drive the A* search on a small grid, scores it on the stories it failed, and prints the
report: accuracy per action set and asymmetry, interesting vs uninteresting, and the found stories with the model's
wrong answers highlighted. The Inspect log is written to `--log-dir` (open it with `inspect view`).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.panel import Panel
from rich.table import Table

from tombench.cli import UserError
from tombench.commands._common import output_dir

if TYPE_CHECKING:
    from tombench.local import LocalServer


def _run(model: str, *, action_sets: str, people: int, moves: int, budget: int, stories: int, seed: int,
         log_dir: Path, max_connections: int, console: Console):
    from inspect_ai import eval as inspect_eval

    import tombench._registry  # noqa: F401  (tasks and the offline models)
    from tombench.tasks.exploretom.adversarial import exploretom_adversarial

    try:
        task = exploretom_adversarial(action_sets=action_sets, asymmetric="both", people=people, moves=moves,
                                      budget=budget, stories_per_setting=stories, seed=seed)
    except ValueError as e:
        raise UserError(str(e)) from None
    console.print(f"[bold]Searching adversarial stories against {model}[/bold] "
                  f"({action_sets}, plain and asymmetric, {people} people, {moves} moves, budget {budget})")
    logs = inspect_eval(task, model=model, log_dir=str(log_dir), max_connections=max_connections, display="rich")
    if not logs or logs[0].status == "cancelled":  # Ctrl-C: Inspect ends the eval and returns what it has
        raise UserError(f"interrupted; the log so far is in {log_dir} (`inspect eval-retry <log>` resumes it)")
    (log,) = logs
    if log.status != "success":
        raise UserError(f"the evaluation ended with status {log.status}: {log.error.message if log.error else ''}")
    return log


def _folded(table: Table) -> Table:
    """Long headers (a model string like openai-api/local/smollm2-135m) wrap onto more lines instead of ending in
    an ellipsis on an 80-column terminal."""
    for column in table.columns:
        column.overflow = "fold"
    return table


def _report(log, console: Console) -> None:
    from tombench.reports import interesting_table, load_records, per_action_set_table

    searches = _samples(log, "search")
    questions = _samples(log, "question")
    found = [s for s in searches if s.metadata["search"]["found"]]
    calls = sum(s.metadata["search"]["model_calls"] for s in searches)
    console.print(f"\n[bold]{len(found)}/{len(searches)} searches found a story the model gets wrong[/bold] "
                  f"({calls} questions asked during the search; {len(questions)} questions scored).")
    recs = load_records([log.location])
    if recs:
        for t in (per_action_set_table(recs), interesting_table(recs)):
            console.print(_folded(t.rich()))
    by_story: dict[str, list] = {}
    for q in questions:
        by_story.setdefault(q.metadata["story_id"], []).append(q)
    for s in found:
        sid = f"{s.metadata['setting_id']}|{s.metadata['attempt']}"
        console.print(_story_panel(s, sid, by_story.get(sid, [])))
    console.print(f"Inspect log: {log.location}  (open with: inspect view --log-dir {Path(log.location).parent})")


def _samples(log, kind: str) -> list:
    """The log's samples of one kind: the task logs both its searches and the questions scored on what they found."""
    return [s for s in log.samples if (s.metadata or {}).get("tombench_kind") == kind]


def _story_panel(search, sid: str, questions: list) -> Panel:
    """A found story with every question scored on it, the model's wrong answers in red."""
    lines = [search.metadata["search"]["text"], ""]
    right = 0
    for q in questions:
        line, ok = _answer_line(q)
        right += ok
        lines.append(line)
    # the search's g is the accuracy on first-order questions only (g=acc); the list has every order
    title = (f"{sid}  (first-order accuracy in the search {search.metadata['search']['g']:.2f}; "
             f"{right}/{len(questions)} of all its questions right)")
    return Panel("\n".join(lines), title=title, title_align="left")


def _answer_line(q) -> tuple[str, bool]:
    """One scored question as a line (mark, order, question, expected and given answer) and whether it was right."""
    score = next(iter(q.scores.values())) if q.scores else None
    ok = score is not None and score.value == "C"
    answer = (q.output.completion or "").strip().replace("\n", " ")
    mark = "[green]✓[/green]" if ok else "[red]✗[/red]"
    shown = answer if ok else f"[red]{answer}[/red]"
    order = q.metadata.get("order")
    line = (f"{mark} [dim]order {order}[/dim] {q.metadata['question']}  expected [bold]{q.target}[/bold], "
            f"answered {shown}")
    return line, ok


#: seconds between checks that the local server still runs
SERVER_POLL = 0.5


@contextmanager
def _stop_if_server_dies(server: LocalServer) -> Iterator[None]:
    """While the block runs, watch the server process: if it exits, end the command at once with one line naming
    the likely cause and the fix. Why: Inspect retries a refused connection with backoff, so an eval against a dead
    server would wait, silently, for a very long time."""
    from tombench.cli import stop_command

    done = threading.Event()

    def watch() -> None:
        while not done.wait(SERVER_POLL):
            if not server.running:
                stop_command(f"the local server died during the demo ({server.exit_cause()}); see its log: "
                             f"{server.log_path}")
                return

    threading.Thread(target=watch, daemon=True, name="tombench-demo-server-watch").start()
    try:
        yield
    finally:
        done.set()


@click.command()
@click.option("--model", default=None, help="An Inspect model string; default: serve the packaged SmolLM2-135M.")
@click.option("--action-sets", default="tomi,tomi-object-state,fantom-private", show_default=True)
@click.option("--people", type=click.IntRange(1, 6), default=2, show_default=True)
@click.option("--moves", type=click.IntRange(1, 15), default=2, show_default=True)
@click.option("--budget", type=click.IntRange(1), default=12, show_default=True, help="Node evaluations per search.")
@click.option("--stories-per-setting", type=click.IntRange(1), default=1, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--max-connections", type=click.IntRange(1), default=4, show_default=True)
@click.option("--log-dir", default="logs/demo", show_default=True, type=click.Path(file_okay=False, path_type=Path),
              callback=output_dir)
def demo(model: str | None, action_sets: str, people: int, moves: int, budget: int, stories_per_setting: int,
         seed: int, max_connections: int, log_dir: Path) -> None:
    """Live adversarial search against a real local model (no key, GPU or internet), then its report."""
    console = Console()
    opts = dict(action_sets=action_sets, people=people, moves=moves, budget=budget, stories=stories_per_setting,
                seed=seed, log_dir=log_dir, max_connections=max_connections, console=console)
    if model is not None:
        _report(_run(model, **opts), console)
        return
    from tombench.local import LocalModelError, local_server

    try:
        with local_server(export_env=True) as server, _stop_if_server_dies(server):
            console.print(f"Serving the local model as [bold]{server.model}[/bold] at {server.base_url}")
            log = _run(server.model, **opts)
    except LocalModelError as e:
        raise UserError(f"{e} (or pass --model to use another model)") from None
    _report(log, console)
