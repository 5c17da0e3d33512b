"""Every eval folder under tombench/tasks/ as inspect_evals lays one out, its eval.yaml agreeing with the code.

The eval.yaml is the one place a task's facts are written (`tombench tasks`, README's task table and the eval's own
README read it); these tests hold it to what the code does: the tasks the package exports, their versions, the
pinned files the module downloads. README's task table is generated from it (`tombench tasks --markdown`), and each
eval README's options table from the task functions (`python -m docs._gen.reference --readmes`).
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

from tombench.kit.evals import read_eval_yaml

ROOT = Path(__file__).resolve().parents[2]
TASKS = ROOT / "tombench" / "tasks"
EVALS = sorted(p.name for p in TASKS.iterdir() if (p / "__init__.py").exists() and p.name != "shared")


def _exported_tasks(name: str) -> dict[str, object]:
    """The @task functions an eval package exports (its `__all__`)."""
    from inspect_ai.util import registry_info

    package = importlib.import_module(f"tombench.tasks.{name}")
    out = {}
    for attr in package.__all__:
        fn = getattr(package, attr)
        if callable(fn) and registry_info(fn).type == "task":
            out[attr] = fn
    return out


def test_every_eval_has_its_folder() -> None:
    assert EVALS == ["bigtom", "exploretom", "fantom", "hitom", "opentom", "persuasion", "simpletom", "tom_bench",
                     "tomi", "tomsynth"]


@pytest.mark.parametrize("name", EVALS)
def test_eval_yaml_lists_exactly_the_exported_tasks_at_their_versions(name: str) -> None:
    facts = read_eval_yaml(TASKS / name / "eval.yaml")
    exported = _exported_tasks(name)
    assert sorted(t.name for t in facts.tasks) == sorted(exported)
    for t in facts.tasks:
        module = importlib.import_module(exported[t.name].__module__)  # type: ignore[attr-defined]
        assert t.version == module.TASK_VERSION, t.name
        assert t.summary and t.data, t.name


@pytest.mark.parametrize("name", EVALS)
def test_pinned_assets_are_the_files_the_module_downloads(name: str) -> None:
    """Each asset eval.yaml names (a repository, a Hub dataset, a URL) is where one of the module's pinned
    sources comes from, so the register's listing and the download never disagree."""
    from tombench.commands.tasks import catalog

    raw = __import__("yaml").safe_load((TASKS / name / "eval.yaml").read_text(encoding="utf-8"))
    tasks = set(_exported_tasks(name))
    sources = [s for entry in catalog() if entry.task in tasks for s in entry.sources.values()]
    addresses = [getattr(s, "url", None) or f"hf:{s.repo}" for s in sources]
    for asset in raw.get("external_assets", []):
        source = asset["source"]
        if asset["type"] == "huggingface":
            assert f"hf:{source}" in addresses, (name, source)
        else:
            repo = source.removeprefix("https://github.com/")
            assert any(repo in a for a in addresses), (name, source, addresses)
    assert bool(sources) == bool(raw.get("external_assets")), name


def test_readme_task_table_is_generated_from_the_eval_yaml_files() -> None:
    """README's task table is `tombench tasks --markdown` (regenerate it with that command when an eval.yaml
    changes)."""
    from tombench.commands.tasks import task_table

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start, end = "<!-- tasks:start -->\n", "\n<!-- tasks:end -->"
    assert start in readme and end in readme
    assert readme.split(start, 1)[1].split(end, 1)[0] == task_table()


def test_task_functions_keep_their_defaults_visible() -> None:
    """Every task option has a default (`inspect eval` runs a task with none given; inspect-evals-lint IEBP004)."""
    for name in EVALS:
        for task_name, fn in _exported_tasks(name).items():
            params = inspect.signature(fn).parameters.values()  # type: ignore[arg-type]
            assert all(p.default is not inspect.Parameter.empty for p in params), task_name


@pytest.mark.parametrize("name", EVALS)
def test_readme_options_table_is_generated_from_the_task_functions(name: str) -> None:
    """Each eval README's options table is what the task functions say (signature: type and default; docstring:
    meaning), so a new `-T` option or a changed default cannot leave the README behind: regenerate the block with
    `python -m docs._gen.reference --readmes`."""
    from docs._gen import reference

    readme = TASKS / name / "README.md"
    text = readme.read_text(encoding="utf-8")
    section = text.split("\n## Options\n", 1)[1].split("\n## ", 1)[0]
    assert reference.OPTIONS_START in section and reference.OPTIONS_END in section, name
    assert reference.readme_with_options(readme) == text, (
        f"{name}/README.md: its options table differs from the task functions; run "
        "`python -m docs._gen.reference --readmes`")


#: the sections of an eval's README, in order (inspect_evals' layout, tombench's evaluation report)
README_SECTIONS = ("## Usage", "## Options", "## Dataset", "## Scoring", "## Evaluation report", "## Changelog")


@pytest.mark.parametrize("name", EVALS)
def test_readme_has_the_sections_and_names_every_option(name: str) -> None:
    """A user reads one file about an eval: what it measures, how to run it with every `-T` option, its data,
    scoring and an evaluation report; each task's every parameter is named as `-T <name>=`."""
    readme = TASKS / name / "README.md"
    if not readme.exists():
        pytest.skip(f"{name}: README.md not written yet")
    text = readme.read_text(encoding="utf-8")
    assert text.startswith("# "), name
    positions = [text.find(f"\n{s}\n") for s in README_SECTIONS]
    assert all(p > 0 for p in positions) and positions == sorted(positions), (name, positions)
    for task_name, fn in _exported_tasks(name).items():
        for param in inspect.signature(fn).parameters:  # type: ignore[arg-type]
            assert f"-T {param}=" in text, f"{name}/README.md does not name -T {param}= ({task_name})"
    assert "TODO" not in text


REPORT_MARKER = "<!-- evaluation-report -->"


def _report_section(text: str) -> str:
    """The README's `## Evaluation report` section, up to the next `## ` heading."""
    start = text.index("\n## Evaluation report\n") + 1
    end = text.find("\n## ", start + 1)
    return text[start:] if end < 0 else text[start:end]


@pytest.mark.parametrize("name", EVALS)
def test_readme_evaluation_report_is_filled(name: str) -> None:
    """The evaluation report holds measured rows, not the marker they replace: at least one Markdown table row names
    an offline `tombench/` model and the `inspect eval tombench/...` command that produced it, and every row with a
    command runs the model the row names."""
    text = (TASKS / name / "README.md").read_text(encoding="utf-8")
    section = _report_section(text)
    assert REPORT_MARKER not in text, f"{name}/README.md still holds {REPORT_MARKER}"
    rows = [line for line in section.splitlines() if line.startswith("|")]
    commands = [(row, re.search(r"`(inspect eval tombench/[^`]*)`", row)) for row in rows]
    measured = [(row, m.group(1)) for row, m in commands if m]
    assert any(re.match(r"\|\s*`tombench/\w+`\s*\|", row) for row, _ in measured), (
        f"{name}/README.md: no table row names a tombench/ model with an `inspect eval tombench/` command")
    for row, command in measured:
        model = re.match(r"\|\s*`([^`]+)`\s*\|", row)
        assert model and f"--model {model.group(1)}" in command, (name, row)
