"""The documentation site's generated Reference (docs/_gen) says what the code does, and fails when it cannot.

`.ci/run` builds the whole site with `mkdocs build --strict`; these tests check the generator itself in the test
suite: every registered task and each of its `-T` options is on the tasks page with its meaning, an option
without one (or a meaning without an option) is an error, every metric is on the metrics page, and the links of
a page are rewritten to resolve in the site.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest
import yaml

from docs._gen import links, reference

ROOT = Path(__file__).resolve().parents[1]


def _registered() -> dict[str, object]:
    from inspect_ai.util import registry_info

    registry = importlib.import_module("tombench._registry")
    out = {}
    for name, obj in vars(registry).items():
        try:
            if callable(obj) and registry_info(obj).type == "task":
                out[name] = obj
        except ValueError:
            continue
    return out


def test_tasks_page_lists_every_task_and_option_with_its_meaning() -> None:
    page = reference.tasks_page()
    sections = dict(re.findall(r"^## `(\w+)`\n(.*?)(?=^## |\Z)", page, flags=re.S | re.M))
    tasks = _registered()
    assert sorted(sections) == sorted(tasks)
    for name, fn in tasks.items():
        rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `-T (\w+)=` \|(.*)\|$", sections[name], re.M)}
        params = inspect.signature(inspect.unwrap(fn)).parameters  # type: ignore[arg-type]
        assert list(rows) == list(params), name
        for option, row in rows.items():
            meaning = row.rsplit("|", 1)[1].strip()
            assert len(meaning) > 10, (name, option, row)
    # a default and a type as the signature has them, a meaning from the docstring
    tomi = sections["tomi"]
    assert "| `-T split=` | `'test' \\| 'val' \\| 'train' \\| 'example'` | `test` |" in tomi
    assert "| `-T relabel=` | `bool` | `false` | score against the DSL tracker's answers" in tomi
    assert "(evals/tomi.md)" in tomi


def _documented(x: int = 1, y: str = "a") -> None:
    """A task function.

    Args:
        x: the first option, whose meaning
            goes on.
    """


def _over_documented(x: int = 1) -> None:
    """A task function.

    Args:
        x, y: two options.
    """


def test_an_undocumented_option_fails_the_reference() -> None:
    with pytest.raises(reference.ReferenceMismatch, match=r"task t: -T y has no line in the `Args:` section"):
        reference.task_options("t", _documented)
    with pytest.raises(reference.ReferenceMismatch, match=r"documents y, which it does not take"):
        reference.task_options("t", _over_documented)


def test_a_docstring_citing_a_page_links_it_and_a_missing_page_fails() -> None:
    assert reference._link_doc_pages("see docs/explanation/dsl.md, and `docs/gone.md` as code", "t") == (
        "see [docs/explanation/dsl.md](../explanation/dsl.md), and `docs/gone.md` as code")
    assert "[docs/reference/metrics.md](../reference/metrics.md)" in reference._link_doc_pages(
        "docs/reference/metrics.md", "t")  # a generated page
    with pytest.raises(reference.ReferenceMismatch, match=r"the docstring of task x cites docs/gone\.md, which is"):
        reference._link_doc_pages("(docs/gone.md)", "the docstring of task x")
    assert reference._link_doc_pages("docs/how-to/scale.md#shards; docs/explanation/dsl.md.", "t", "../../docs") == (
        "[docs/how-to/scale.md](../../docs/how-to/scale.md#shards); "
        "[docs/explanation/dsl.md](../../docs/explanation/dsl.md).")  # an anchor kept, from another folder
    assert "[docs/how-to/scale.md](../how-to/scale.md#shards-one-grid-over-several-processes-or-machines)" in (
        reference.tasks_page())  # exploretom_random's shard option


def test_docstring_args_reads_grouped_names_and_continuations() -> None:
    doc = inspect.getdoc(_documented) or ""
    assert reference.docstring_args(doc) == {"x": "the first option, whose meaning goes on."}
    assert reference.docstring_args("Args:\n    a, b: both.\n    c: one.\n\nReturns:\n    d: no.") == {
        "a": "both.", "b": "both.", "c": "one."}
    assert reference.docstring_args("No section.") == {}


def test_options_show_types_and_defaults_as_a_user_writes_them() -> None:
    options = {o.name: o for o in reference.task_options("exploretom_random", _registered()["exploretom_random"])}
    assert options["people"].type == "int | list[int] | str | None"
    assert options["people"].default == "none"
    assert options["check"].type == "'strict' | 'substring' | 'judge'"
    assert options["false_belief_only"].default == "`false`"


def _task_a(x: int = 1, mode: str = "fast") -> None:
    """A task function.

    Args:
        x: how many (at least 1).
        mode: `fast` or `slow`.
    """


def _task_b(x: int = 1, cache: bool = True) -> None:
    """A task function.

    Args:
        x: how many (at least 1).
        cache: use the cache.
    """


def _task_c(x: int = 2) -> None:
    """A task function.

    Args:
        x: how many (at least 1).
    """


def _fake_eval(monkeypatch: pytest.MonkeyPatch, folder: Path, tasks: dict[str, object]) -> Path:
    """An eval folder whose README has an outdated options block, and the registered tasks it holds."""
    monkeypatch.setattr(reference, "_registered_tasks", lambda: ((n, fn, None, folder) for n, fn in tasks.items()))
    readme = folder / "README.md"
    readme.write_text("# E\n\n## Options\n\nBefore.\n\n<!-- options:start -->\nold table\n<!-- options:end -->\n\n"
                      "After.\n", encoding="utf-8")
    return readme


def test_readme_options_block_is_rewritten_from_the_task_functions(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    readme = _fake_eval(monkeypatch, tmp_path, {"a": _task_a})
    text = reference.readme_with_options(readme)
    assert text.startswith("# E\n\n## Options\n\nBefore.\n\n<!-- options:start -->\n| option | type | default |")
    assert "| `-T mode=` | `str` | `fast` | `fast` or `slow`. |\n<!-- options:end -->\n\nAfter.\n" in text
    assert "old table" not in text
    # tasks that agree on every option they share: one table, a task column saying which take each option
    _fake_eval(monkeypatch, tmp_path, {"a": _task_a, "b": _task_b})
    merged = reference.options_block(tmp_path)
    assert "| `-T x=` | all | `int` | `1` | how many (at least 1). |" in merged
    assert "| `-T cache=` | `b` | `bool` | `true` | use the cache. |" in merged and "###" not in merged
    # a shared option with another default: a section per task
    _fake_eval(monkeypatch, tmp_path, {"a": _task_a, "c": _task_c})
    apart = reference.options_block(tmp_path)
    assert apart.startswith("### `a`\n\n| option |") and "\n### `c`\n\n" in apart
    assert "| `-T x=` | `int` | `2` |" in apart


def test_readme_without_the_markers_or_out_of_date_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    readme = _fake_eval(monkeypatch, tmp_path, {"a": _task_a})
    monkeypatch.setattr(reference, "eval_readmes", lambda: {"reference/evals/e.md": readme})
    monkeypatch.setattr(reference, "ROOT", tmp_path)
    before = readme.read_text(encoding="utf-8")
    assert reference.main(["--readmes", "--check"]) == 1 and readme.read_text(encoding="utf-8") == before
    assert "README.md: options table differs from the code" in capsys.readouterr().out
    assert reference.main(["--readmes"]) == 0 and "| `-T x=` |" in readme.read_text(encoding="utf-8")
    assert capsys.readouterr().out == "README.md: options table rewritten\n"
    assert reference.main(["--readmes", "--check"]) == 0 and capsys.readouterr().out == ""
    readme.write_text("# E\n\n## Options\n\nA table by hand.\n", encoding="utf-8")
    assert reference.main(["--readmes"]) == 1
    assert "README.md has no <!-- options:start --> ... <!-- options:end --> block" in capsys.readouterr().err


def test_metrics_page_lists_every_metric_and_scorer() -> None:
    page = reference.metrics_page()
    for name in ("breakdown", "wilson95", "accuracy_interval", "chance_level", "settings_filled", "model_calls",
                 "fantom_sets", "opentom_f1", "tombench_cells"):
        assert f"### `{name}`" in page
    for scorer in ("tom_answer", "choice_answer", "search_outcome", "persuasion_dynamic_scorer", "tomsynth_rl"):
        assert f"| `{scorer}` |" in page
    assert "`accuracy`: the mean of the scores" in page and "`stderr`:" in page
    assert "seeded bootstrap 95% interval" in page  # how an interval is computed: the metric's own docstring


def test_the_generated_pages_are_the_fixed_names() -> None:
    evals = sorted(p.parent.name for p in (ROOT / "tombench" / "tasks").glob("*/README.md"))
    assert reference.PAGES == ("reference/cli.md", "reference/tasks.md", "reference/metrics.md",
                               *(f"reference/evals/{e}.md" for e in evals))
    assert not (ROOT / "docs" / "reference").exists(), "the Reference is generated: nothing under docs/reference/"
    cli = reference.cli_page()
    assert ":module: tombench.cli" in cli and ":command: main" in cli


def test_mkdocs_config_fails_on_every_warning() -> None:
    """The site is built strict, its link and nav checks warn (so --strict fails), and the generator and hook are
    where mkdocs.yml says."""

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["strict"] is True and config["docs_dir"] == "docs"
    assert config["theme"]["font"] is False
    assert set(config["validation"]["links"].values()) == {"warn"}
    assert set(config["validation"]["nav"].values()) == {"warn"}
    plugins = {next(iter(p)) if isinstance(p, dict) else p: p for p in config["plugins"]}
    assert plugins["literate-nav"]["literate-nav"]["nav_file"] == "SUMMARY.md"
    for script in [*plugins["gen-files"]["gen-files"]["scripts"], *config["hooks"]]:
        assert (ROOT / script).is_file(), script


# ------------------------------------------------------------------------------------------------------ links
READMES = {"tombench/tasks/tomi/README.md": "reference/evals/tomi.md",
           "tombench/tasks/fantom/README.md": "reference/evals/fantom.md"}


def _rewrite(text: str, origin: str, page: str, repo_url: str | None = None) -> str:
    return links.rewrite_links(text, root=ROOT, origin=origin, page=page, readme_pages=READMES, repo_url=repo_url)


def test_a_docs_page_links_to_an_eval_readme_as_its_site_page() -> None:
    text = "See [ToMi's\n  README](../../tombench/tasks/tomi/README.md#dataset) and [DSL](../explanation/dsl.md)."
    assert _rewrite(text, "docs/how-to/baselines.md", "how-to/baselines.md") == (
        "See [ToMi's\n  README](../reference/evals/tomi.md#dataset) and [DSL](../explanation/dsl.md).")


def test_an_eval_readme_links_resolve_from_its_site_page() -> None:
    origin, page = "tombench/tasks/tomi/README.md", "reference/evals/tomi.md"
    assert _rewrite("[m](../../../docs/explanation/dsl.md) [f](../fantom/README.md#scoring)", origin, page) == (
        "[m](../../explanation/dsl.md) [f](fantom.md#scoring)")
    # a repository file the site does not hold: its text and path, or the file on the repository when one is set
    assert _rewrite("Install it as its [README](../../../README.md) says", origin, page) == (
        "Install it as its README (`README.md`) says")
    assert _rewrite("[the README](../../../README.md)", origin, page, repo_url="https://github.com/o/tombench") == (
        "[the README](https://github.com/o/tombench/blob/main/README.md)")


def test_code_web_addresses_and_missing_files_are_left_alone() -> None:
    origin, page = "tombench/tasks/tomi/README.md", "reference/evals/tomi.md"
    text = ("```bash\n[x](../../../docs/explanation/dsl.md)\n```\n`[y](../../../docs/explanation/dsl.md)` "
            "[w](https://example.org/a.md) [gone](../../../docs/gone.md) [here](#scoring)\n")
    assert _rewrite(text, origin, page) == text
