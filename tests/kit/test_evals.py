"""`tombench.kit.evals`: an eval folder's eval.yaml read once, with one clear error for a file that is not one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tombench.kit.evals import read_eval_yaml, task_data
from tombench.kit.pinning import UrlFile

GOOD = """\
title: "Demo-ToM: a benchmark"
description: |
  Two lines
  of description.
arxiv: https://arxiv.org/abs/0000.00000
group: Reasoning
contributors: [someone]
tasks:
  - name: demo
    dataset_samples: 12
    version: "1.0.0"
    summary: a demo task
    data: demo.csv (pinned by SHA-256)
    items: 1,234 items
    license: MIT
    offline: -T data=PATH
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "eval.yaml"
    path.write_text(text, encoding="utf-8")
    read_eval_yaml.cache_clear()
    return path


def test_facts_are_read_with_whitespace_folded(tmp_path: Path) -> None:
    facts = read_eval_yaml(_write(tmp_path, GOOD))
    assert facts.title == "Demo-ToM: a benchmark" and facts.description == "Two lines of description."
    assert facts.contributors == ("someone",) and facts.group == "Reasoning" and facts.folder == tmp_path.name
    demo = facts.task("demo")
    assert (demo.dataset_samples, demo.version, demo.items, demo.license) == (12, "1.0.0", "1,234 items", "MIT")
    with pytest.raises(ValueError, match="no task 'nope'"):
        facts.task("nope")


def test_task_data_joins_the_facts_to_the_pinned_sources(tmp_path: Path) -> None:
    _write(tmp_path, GOOD)
    source = UrlFile("https://example.org/demo.csv", sha256="0" * 64)
    entry = task_data(str(tmp_path / "demo.py"), "demo", {"data": source})
    assert entry.task == "demo" and entry.sources == {"data": source}
    assert (entry.needs, entry.items, entry.license, entry.offline) == (
        "demo.csv (pinned by SHA-256)", "1,234 items", "MIT", "-T data=PATH")


@pytest.mark.parametrize(("text", "message"), [
    ("- a list\n", "must be a mapping"),
    ("title: x\n", "lacks description, group, contributors, tasks"),
    (GOOD.replace("    dataset_samples: 12\n", ""), "task 'demo' lacks dataset_samples"),
    (GOOD.replace("dataset_samples: 12", "dataset_samples: many"), "dataset_samples must be a whole number"),
    (GOOD.replace("tasks:\n", "tasks: []\nx:\n"), "`tasks` must be a non-empty list"),
    ("title: [unclosed\n", "cannot read eval.yaml"),
])
def test_a_bad_file_is_one_error_naming_it(tmp_path: Path, text: str, message: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(ValueError, match=message) as e:
        read_eval_yaml(path)
    assert str(path) in str(e.value) and "\n" not in str(e.value).strip()
