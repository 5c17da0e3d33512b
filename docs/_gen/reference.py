"""The site's Reference pages, written from the code when the site is built, so that they cannot drift from it.

* `reference/cli.md`: every `tombench` command and option (mkdocs-click walks the click group of `tombench.cli`);
* `reference/tasks.md`: every task the Inspect entry point registers, with each `-T` option's type and default
  (the task function's signature), its meaning (the `Args:` section of its docstring) and the task's facts (its
  eval.yaml);
* `reference/metrics.md`: every metric a tombench scorer logs (the `@metric` and `@scorer` functions and their
  docstrings);
* `reference/evals/<eval>.md`: each eval's own README, rendered where it is (its links are rewritten by
  `links.py`, in the site's hook).

The options tables of the eval READMEs come from the same reading of the task functions: each README holds its
table between `<!-- options:start -->` and `<!-- options:end -->`, and `python -m docs._gen.reference --readmes`
rewrites those blocks (`--check` only reports the READMEs that differ; `tests/tasks/test_eval_folders.py` fails on
one), so a README cannot say other than the docstring and the signature do.

A task option without a line in its docstring, a docstring line naming no option, or a docstring citing a page
`docs/...md` that is not there is a `ReferenceMismatch`:
the site's build (`mkdocs build --strict`, run by `.ci/run`) and `tests/test_docs_site.py` fail on it, so a
new `-T` option cannot ship undocumented. No page is committed: `PAGES` names them, and `tests/test_doc_links.py`
accepts links to exactly these.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import re
import types
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["CLI_PAGE", "METRICS_PAGE", "OPTIONS_END", "OPTIONS_START", "PAGES", "ROOT", "TASKS_PAGE", "Option",
           "ReferenceMismatch", "cli_page", "docstring_args", "eval_readmes", "metrics_page", "options_block",
           "pages", "readme_with_options", "task_options", "tasks_page", "write_readmes"]

ROOT = Path(__file__).resolve().parents[2]
TASKS_DIR = ROOT / "tombench" / "tasks"
CLI_PAGE = "reference/cli.md"
TASKS_PAGE = "reference/tasks.md"
METRICS_PAGE = "reference/metrics.md"

#: Inspect's own metrics that tombench scorers log, in a line each (Inspect documents them: INSPECT_METRICS_URL);
#: a scorer that starts logging another one fails the build until it is described here
INSPECT_METRICS = {
    "accuracy": "the mean of the scores read as numbers (a correct answer 1, a wrong one 0)",
    "mean": "the mean of the scores",
    "stderr": "the standard error of that mean, sqrt(sample variance / n): `accuracy +/- 1.96 stderr` is the "
              "normal 95% interval Inspect shows",
}
INSPECT_METRICS_URL = "https://inspect.aisi.org.uk/scorers.html"


class ReferenceMismatch(Exception):
    """The code and its documentation disagree (an option without a meaning, a meaning without an option)."""


def eval_readmes() -> dict[str, Path]:
    """Site page -> eval README, for each eval folder under tombench/tasks that has a README.md."""
    return {f"reference/evals/{p.parent.name}.md": p for p in sorted(TASKS_DIR.glob("*/README.md"))}


#: every page the generator writes, relative to docs/ (they exist only in the built site)
PAGES: tuple[str, ...] = (CLI_PAGE, TASKS_PAGE, METRICS_PAGE, *eval_readmes())


# ------------------------------------------------------------------------------------------------------------ CLI
def cli_page() -> str:
    """The command reference: mkdocs-click expands the block into every command, its usage and options."""
    return "\n".join([
        "# Command line",
        "",
        "Every `tombench` command and option, generated from the command's own code (`tombench --help` and "
        "`tombench COMMAND --help` print the same).",
        "",
        "::: mkdocs-click",
        "    :module: tombench.cli",
        "    :command: main",
        "    :prog_name: tombench",
        "    :depth: 1",
        "    :style: plain",  # click's own help layout (the table style prints click 8.2's unset defaults)
        "    :list_subcommands: true",
        "",
    ])


# ---------------------------------------------------------------------------------------------------------- tasks
@dataclass(frozen=True)
class Option:
    """One `-T` option of a task: its name, type, default and meaning, as the task function states them."""

    name: str
    type: str
    default: str
    meaning: str


_ARGS = re.compile(r"^(\s*)Args:\s*$")


def docstring_args(doc: str) -> dict[str, str]:
    """The `Args:` section of a Google-style docstring: {name: meaning}, its continuation lines joined. An entry
    that names several parameters (`people, moves: ...`) gives each of them the meaning."""
    lines = doc.splitlines()
    start = next((i for i, line in enumerate(lines) if _ARGS.match(line)), None)
    if start is None:
        return {}
    indent = len(_ARGS.match(lines[start]).group(1))  # type: ignore[union-attr]
    entries: list[tuple[list[str], list[str]]] = []
    entry_indent = None
    for line in lines[start + 1:]:
        if not line.strip():
            if entries:
                break
            continue
        depth = len(line) - len(line.lstrip())
        if depth <= indent:
            break
        if entry_indent is None:
            entry_indent = depth
        if depth == entry_indent:
            names, _, text = line.strip().partition(":")
            entries.append(([n.strip() for n in names.split(",")], [text.strip()]))
        elif entries:
            entries[-1][1].append(line.strip())
    return {name: " ".join(text).strip() for names, text in entries for name in names}


def _type_text(hint: Any) -> str:
    """A type as a user writes the value: `Literal` choices quoted, unions with `|`, classes by name."""
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return " | ".join(repr(a) for a in typing.get_args(hint))
    if origin in (typing.Union, types.UnionType):
        return " | ".join(_type_text(a) for a in typing.get_args(hint))
    if origin is not None:
        args = ", ".join(_type_text(a) for a in typing.get_args(hint))
        return f"{getattr(origin, '__name__', str(origin))}[{args}]"
    if hint is type(None):
        return "None"
    return getattr(hint, "__name__", str(hint))


def _default_text(value: Any) -> str:
    """A default as `-T name=...` writes it (true/false, the bare string); `none` for None (the meaning says what
    the task does then), `""` for the empty string (an option the task requires)."""
    if value is None:
        return "none"
    if value == "":
        return '`""`'
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value}`"


def task_options(name: str, fn: Callable[..., Any]) -> list[Option]:
    """The `-T` options of a registered task function; ReferenceMismatch when its docstring's `Args:` section
    leaves one out or names one that it does not take."""
    target = inspect.unwrap(fn)
    hints = typing.get_type_hints(target)
    meanings = docstring_args(inspect.getdoc(target) or "")
    params = inspect.signature(target).parameters
    where = f"{target.__module__}.{target.__qualname__}"
    undocumented = [p for p in params if not meanings.get(p)]
    if undocumented:
        raise ReferenceMismatch(f"task {name}: -T {', '.join(undocumented)} has no line in the `Args:` section of "
                                f"the docstring of {where}: say what each option means there")
    unknown = [m for m in meanings if m not in params]
    if unknown:
        raise ReferenceMismatch(f"task {name}: the docstring of {where} documents {', '.join(unknown)}, which it "
                                "does not take")
    return [Option(p, _type_text(hints.get(p, Any)), _default_text(params[p].default), meanings[p]) for p in params]


def _registered_tasks() -> Iterator[tuple[str, Callable[..., Any], Any, Path]]:
    """(name, task function, its eval.yaml facts, its eval folder) of every task the Inspect entry point registers."""
    from tombench.commands.tasks import eval_facts

    registry = importlib.import_module("tombench._registry")
    for name, facts, folder in sorted(eval_facts(), key=lambda t: t[0]):
        yield name, getattr(registry, name), facts, folder


def _cell(text: str) -> str:
    """Text for a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


_DOC_PAGE = re.compile(r"(?<![\w/`])docs/([\w./-]+\.md)(#[\w-]+)?")


def _link_doc_pages(text: str, where: str, docs: str = "..") -> str:
    """`text` with each `docs/<page>.md` (or `docs/<page>.md#<anchor>`) it cites made a link to that page, `docs`
    being the way from the text's page to docs/ (`..` from a generated page under reference/); ReferenceMismatch
    naming `where` for a page that is not in docs/ (moved or gone)."""

    def link(m: re.Match[str]) -> str:
        page = m.group(1)
        if not (ROOT / "docs" / page).is_file() and page not in PAGES:
            raise ReferenceMismatch(f"{where} cites docs/{page}, which is not there: name the page where it is now")
        return f"[docs/{page}]({docs}/{page}{m.group(2) or ''})"

    return _DOC_PAGE.sub(link, text)


def _task_section(name: str, fn: Callable[..., Any], facts: Any, folder: Path) -> list[str]:
    doc = inspect.getdoc(inspect.unwrap(fn)) or ""
    lines = [f"## `{name}`", "", doc.split("\n\n", 1)[0].replace("\n", " "), "",
             f"`inspect eval tombench/{name} --model MODEL`: {facts.summary}.", ""]
    facts_rows = [("data", facts.data), ("size", facts.items), ("license", facts.license),
                  ("offline", facts.offline), ("version", facts.version)]
    lines += [f"* **{label}:** {_cell(value)}" for label, value in facts_rows if value]
    lines += [f"* **eval:** [{folder.name}](evals/{folder.name}.md) (its README: usage, data, scoring, "
              "evaluation report)", ""]
    return [*lines, *_options_table(name, task_options(name, fn)), ""]


def _option_cells(task: str, option: Option, docs: str) -> list[str]:
    """An option's cells: `-T name=`, its type, its default, its meaning (its docs/ pages linked from `docs`)."""
    meaning = _link_doc_pages(option.meaning, f"the docstring of task {task}", docs)
    return [f"`-T {option.name}=`", f"`{_cell(option.type)}`", _cell(option.default), _cell(meaning)]


def _options_table(task: str, options: list[Option], docs: str = "..") -> list[str]:
    """A task's options as a Markdown table (`No -T options.` for a task without any)."""
    if not options:
        return ["No `-T` options."]
    rows = ["| option | type | default | meaning |", "|---|---|---|---|"]
    return rows + ["| " + " | ".join(_option_cells(task, o, docs)) + " |" for o in options]


def tasks_page() -> str:
    """Every registered task: what it measures, its facts, and each `-T` option with type, default and meaning."""
    lines = ["# Tasks", "",
             "Every task `inspect eval tombench/<task>` runs, generated from the task functions (their signatures "
             "and docstrings) and each eval's `eval.yaml`. `-T name=value` sets an option; a list option takes "
             "comma-separated values; true/false options also take yes/no, on/off or 1/0. `tombench tasks` "
             "prints whether each task's data is cached.", ""]
    for name, fn, facts, folder in _registered_tasks():
        lines += _task_section(name, fn, facts, folder)
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------- README options
OPTIONS_START = "<!-- options:start -->"
OPTIONS_END = "<!-- options:end -->"
#: the way from an eval's README (tombench/tasks/<eval>/README.md) to docs/
_README_DOCS = "../../../docs"


def _eval_options(folder: Path) -> dict[str, list[Option]]:
    """{task: its options} of every registered task of an eval folder, in task-name order."""
    return {name: task_options(name, fn) for name, fn, _, where in _registered_tasks() if where == folder}


def _shared_alike(by_task: dict[str, list[Option]]) -> bool:
    """Whether every option that several tasks take is the same option in each (type, default and meaning)."""
    seen: dict[str, Option] = {}
    for options in by_task.values():
        for o in options:
            if seen.setdefault(o.name, o) != o:
                return False
    return True


def _merged_table(by_task: dict[str, list[Option]]) -> list[str]:
    """One table for tasks that agree on every option they share: a `task` column says which take each option."""
    takers: dict[str, list[str]] = {}
    first: dict[str, tuple[str, Option]] = {}
    for task, options in by_task.items():
        for o in options:
            takers.setdefault(o.name, []).append(task)
            first.setdefault(o.name, (task, o))
    rows = ["| option | task | type | default | meaning |", "|---|---|---|---|---|"]
    for name, (task, o) in first.items():
        which = "all" if len(takers[name]) == len(by_task) else ", ".join(f"`{t}`" for t in takers[name])
        cells = _option_cells(task, o, _README_DOCS)
        rows.append("| " + " | ".join([cells[0], which, *cells[1:]]) + " |")
    return rows


def options_block(folder: Path) -> str:
    """The options of an eval's tasks, as its README shows them between the markers: one table for one task or for
    tasks that agree on every option they share, else a `### task` section with a table for each."""
    by_task = _eval_options(folder)
    if not by_task:
        raise ReferenceMismatch(f"{folder.name}: no registered task comes from this folder")
    if len(by_task) == 1:
        [(task, options)] = by_task.items()
        return "\n".join(_options_table(task, options, _README_DOCS))
    if _shared_alike(by_task):
        return "\n".join(_merged_table(by_task))
    lines: list[str] = []
    for task, options in by_task.items():
        lines += [f"### `{task}`", "", *_options_table(task, options, _README_DOCS), ""]
    return "\n".join(lines).rstrip("\n")


def readme_with_options(readme: Path) -> str:
    """The text of an eval's README with its options block as the code has it; ReferenceMismatch when the README
    lacks the markers."""
    text = readme.read_text(encoding="utf-8")
    start, end = text.find(OPTIONS_START + "\n"), text.find("\n" + OPTIONS_END)
    if start < 0 or end < start:
        raise ReferenceMismatch(f"{readme.relative_to(ROOT)} has no {OPTIONS_START} ... {OPTIONS_END} block under "
                                "## Options: add the two lines, then run `python -m docs._gen.reference --readmes`")
    head = text[:start + len(OPTIONS_START) + 1]
    return head + options_block(readme.parent) + text[end:]


def write_readmes(check: bool = False) -> list[Path]:
    """The eval READMEs whose options block differs from the code's, each rewritten unless `check`."""
    stale = []
    for readme in eval_readmes().values():
        text = readme_with_options(readme)
        if text != readme.read_text(encoding="utf-8"):
            stale.append(readme)
            if not check:
                readme.write_text(text, encoding="utf-8")
    return stale


# -------------------------------------------------------------------------------------------------------- metrics
def _registered_name(node: ast.FunctionDef, decorator: str) -> str | None:
    """The name `@decorator` or `@decorator(...)` registers `node` under (`name=` when given), or None when it is
    not so decorated."""
    for d in node.decorator_list:
        call = d if isinstance(d, ast.Call) else None
        target = call.func if call else d
        if isinstance(target, ast.Name) and target.id == decorator:
            named = [k.value.value for k in (call.keywords if call else [])
                     if k.arg == "name" and isinstance(k.value, ast.Constant)]
            return str(named[0]) if named else node.name
    return None


@functools.cache
def _decorated(decorator: str, under: Path) -> tuple[tuple[str, str, str], ...]:
    """(module, function, registered name) of each function in a module under `under` decorated with
    `@decorator` or `@decorator(...)`, in source order."""
    found = []
    for path in sorted(under.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if f"@{decorator}" not in source:
            continue  # parsing every module of the package is most of the build's time otherwise
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for node in ast.parse(source).body:
            name = _registered_name(node, decorator) if isinstance(node, ast.FunctionDef) else None
            if name is not None:
                found.append((module, node.name, name))
    return tuple(found)


def _docstring(module: str, function: str) -> str:
    """A function's docstring as written (a registered metric's wrapper keeps none of its own)."""
    path = ROOT.joinpath(*module.split(".")).with_suffix(".py")
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            return ast.get_docstring(node) or ""
    return ""


def _metric_names(metrics: Any) -> list[str]:
    """The names of a scorer's declared metrics: a list of metric objects, or {score key: [metrics]}."""
    from inspect_ai.util import registry_info

    if isinstance(metrics, dict):
        return [f"{key} ({', '.join(_metric_names(ms))})" for key, ms in metrics.items()]
    return [registry_info(m).name.removeprefix("inspect_ai/") for m in metrics]


def _scorer_rows() -> list[str]:
    from inspect_ai.util import registry_info

    rows = ["| scorer | module | metrics it declares | what it scores |", "|---|---|---|---|"]
    for module, function, _ in _decorated("scorer", ROOT / "tombench"):
        declared = registry_info(getattr(importlib.import_module(module), function)).metadata.get("metrics", [])
        names = ", ".join(f"`{n}`" for n in _metric_names(declared)) or "set by the task (`Task(metrics=...)`)"
        summary = _docstring(module, function).split("\n\n", 1)[0].replace("\n", " ")
        rows.append(f"| `{function}` | `{module}` | {_cell(names)} | {_cell(summary)} |")
    return rows


def _inspect_metrics_used() -> list[str]:
    """Inspect's own metrics that a tombench scorer declares; ReferenceMismatch for one not described here."""
    from inspect_ai.util import registry_info

    used: set[str] = set()
    for module, function, _ in _decorated("scorer", ROOT / "tombench"):
        declared = registry_info(getattr(importlib.import_module(module), function)).metadata.get("metrics", [])
        for ms in declared.values() if isinstance(declared, dict) else [declared]:
            used.update(registry_info(m).name for m in ms)
    inspect_used = sorted(n.removeprefix("inspect_ai/") for n in used if n.startswith("inspect_ai/"))
    missing = [n for n in inspect_used if n not in INSPECT_METRICS]
    if missing:
        raise ReferenceMismatch(f"tombench scorers log Inspect's {', '.join(missing)}: describe it in "
                                "INSPECT_METRICS (docs/_gen/reference.py)")
    return inspect_used


def metrics_page() -> str:
    """Every metric tombench logs: its own (`@metric` functions, with their docstrings), Inspect's that its scorers
    use, and which scorer declares which."""
    lines = ["# Metrics", "",
             "Every metric a tombench task logs, generated from the scorers' code. A task logs its scorer's metrics "
             "or those it passes as `Task(metrics=...)`; its eval's README (Scoring) names the keys and the "
             "headline. In a log, a metric that returns several values is one key per value (`breakdown` gives "
             "`order=1` and `order=1:n`).", "", "## Scorers", "", *_scorer_rows(), "", "## tombench's metrics", ""]
    for module, function, name in _decorated("metric", ROOT / "tombench"):
        doc = _docstring(module, function)
        if not doc:
            raise ReferenceMismatch(f"metric {name} ({module}) has no docstring: say what it means and how its "
                                    "interval is computed")
        lines += [f"### `{name}`", "", f"`{module}.{function}`", "",
                  _link_doc_pages(doc, f"the docstring of metric {name}"), ""]
    lines += ["## Inspect's metrics", "", f"Used by tombench's scorers; [Inspect's documentation]"
              f"({INSPECT_METRICS_URL}) has the details.", ""]
    lines += [f"* `{n}`: {INSPECT_METRICS[n]}." for n in _inspect_metrics_used()]
    return "\n".join([*lines, ""])


# ------------------------------------------------------------------------------------------------------ the pages
def pages() -> dict[str, str]:
    """Every generated page (its path under docs/ -> its Markdown)."""
    out = {CLI_PAGE: cli_page(), TASKS_PAGE: tasks_page(), METRICS_PAGE: metrics_page()}
    out |= {page: readme.read_text(encoding="utf-8") for page, readme in eval_readmes().items()}
    assert tuple(out) == PAGES
    return out


def main(argv: list[str] | None = None) -> int:
    """`python -m docs._gen.reference --readmes [--check]`: rewrite (or only check) the eval READMEs' options
    blocks from the task functions. Exit status 1 when `--check` finds one that differs, or on a mismatch."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="python -m docs._gen.reference", description=main.__doc__)
    parser.add_argument("--readmes", action="store_true", required=True,
                        help="the eval READMEs' options tables (between the options markers)")
    parser.add_argument("--check", action="store_true", help="change nothing; list the READMEs that differ")
    args = parser.parse_args(argv)
    try:
        stale = write_readmes(check=args.check)
    except ReferenceMismatch as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    for readme in stale:
        verb = "differs from the code" if args.check else "rewritten"
        print(f"{readme.relative_to(ROOT)}: options table {verb}")
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    raise SystemExit(main())
