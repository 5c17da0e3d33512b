"""`tombench tomsynth`: list the unit space, generate items, run quality control, export to the Hub.

    tombench tomsynth units
    tombench tomsynth generate --model anthropic/claude-opus-4-5 --entries-per-unit 4 --units all --out ts.jsonl
    tombench tomsynth qc ts.jsonl --verifier google/gemini-3-pro-preview --out ts.qc.jsonl
    tombench tomsynth export-hf ts.qc.jsonl --out-dir ts_hf --repo-id me/tomsynth
    inspect eval tombench/tomsynth -T data=ts.qc.jsonl --model openai/gpt-4o-mini
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from tombench.cli import UserError
from tombench.commands._common import output_dir, output_file, resolve_model
from tombench.kit import aio

T = TypeVar("T")
_console = Console(stderr=True)


def _model(name: str, max_connections: int | None) -> Any:
    return resolve_model(name, max_connections=max_connections)


def _run(coro: Coroutine[Any, Any, T], what: str) -> T:
    try:
        return aio.run(coro)
    except UserError:
        raise
    except Exception as e:  # noqa: BLE001 - provider/network failures end the run; finished work is already saved
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise UserError(f"{what} stopped ({type(e).__name__}: {first[:200]}); finished items are saved, "
                        "re-run the same command to resume") from None


def _progress() -> Progress:
    return Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[info]}"),
        TimeElapsedColumn(), console=_console,
    )


@click.group()
def tomsynth() -> None:
    """ToM-Synth: synthesise multiple-choice ToM items over 6,912 social units, QC them, export them."""


_space = click.option("--space", type=click.Choice(["full", "contrast"]), default="full", show_default=True,
                      help="Unit space: full (36 mental states, 6,912 units) or contrast (12, 2,304 units; the "
                           "paper's ToM-Synth-27K-Contrast).")


@tomsynth.command()
@click.option("--list", "list_ids", is_flag=True, help="Print every unit id (one a line) instead of the summary.")
@_space
def units(list_ids: bool, space: str) -> None:
    """The unit space: 36 mental states x 96 situations x 2 formats (or the Contrast space's 12 x 96 x 2)."""
    from tombench.generators.tomsynth.units import all_units, mental_states, situations

    if list_ids:
        for u in all_units(space):
            click.echo(u.id)
        return
    table = Table(title=f"ToM-Synth unit space ({space}): {len(all_units(space))} units")
    table.add_column("dimension")
    table.add_column("mental-state values", justify="right")
    table.add_column("units", justify="right")
    per_dim = Counter(m.dimension for m in mental_states(space))
    for dim, n in per_dim.items():
        table.add_row(dim, str(n), str(n * len(situations()) * 2))
    Console().print(table)
    click.echo(f"{len(situations())} situations in {len({s.domain for s in situations()})} domains; formats: "
               "Narrative, Dialogue")


@tomsynth.command()
@click.option("--model", "-m", required=True, help="Inspect model that writes the items, e.g. anthropic/claude-...")
@click.option("--entries-per-unit", "-k", type=click.IntRange(1), default=4, show_default=True)
@click.option("--units", "units_spec", default="all", show_default=True,
              help="'all', a number N (seeded sample of N units) or comma-separated unit ids.")
@click.option("--dimension", multiple=True, help="Only units of this mental-state dimension (repeatable).")
@click.option("--domain", multiple=True, help="Only units of this social domain (repeatable).")
@click.option("--format", "formats_", multiple=True, type=click.Choice(["Narrative", "Dialogue"], case_sensitive=False))
@_space
@click.option("--out", "-o", required=True, type=click.Path(dir_okay=False, path_type=Path), callback=output_file,
              help="Output jsonl (appended; a re-run skips items already there).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--max-retries", type=click.IntRange(0), default=2, show_default=True,
              help="Extra attempts for an output that does not parse.")
@click.option("--max-connections", type=click.IntRange(1), default=None, help="Concurrent requests to the model.")
@click.option("--temperature", type=click.FloatRange(0), default=None)
@click.option("--no-cache", is_flag=True, help="Do not use Inspect's model-response cache.")
def generate(model: str, entries_per_unit: int, units_spec: str, dimension: tuple[str, ...], domain: tuple[str, ...],
             formats_: tuple[str, ...], space: str, out: Path, seed: int, max_retries: int,
             max_connections: int | None, temperature: float | None, no_cache: bool) -> None:
    """Synthesise K items per unit with the App. B prompt.

    The paper's sets: ToM-Synth-27K is `--units all -k 4`; ToM-Synth-27K-Contrast `--space contrast --units all
    -k 12`; the scaling runs vary -k (6,912 x 1-4) or use `--space contrast -k 4` (2,304 x 4)."""
    from inspect_ai.model import GenerateConfig

    from tombench.generators.tomsynth.generation import failures_path, generate_items
    from tombench.generators.tomsynth.units import select_units

    try:
        chosen = select_units(units_spec, seed=seed, dimensions=dimension or None, domains=domain or None,
                              formats_=formats_ or None, space=space)
    except (KeyError, ValueError) as e:
        raise UserError(f"--units: {e.args[0]} (see `tombench tomsynth units --list --space {space}`)") from None
    if not chosen:
        raise UserError("no units match the filters; see `tombench tomsynth units`")
    m = _model(model, max_connections)
    total = len(chosen) * entries_per_unit
    counts = Counter()

    with _progress() as progress:
        task = progress.add_task("generating", total=total, info="")

        def on_item(iid: str, ok: bool) -> None:
            counts["ok" if ok else "failed"] += 1
            progress.update(task, advance=1, info=f"ok {counts['ok']} failed {counts['failed']}")

        async def go() -> Any:
            from tombench.generators.tomsynth.items import read_jsonl_ids
            from tombench.generators.tomsynth.units import item_id

            done = read_jsonl_ids(out)
            progress.update(task, completed=sum(item_id(u, k) in done for u in chosen for k in range(entries_per_unit)))
            return await generate_items(m, chosen, entries_per_unit, out, seed=seed, max_retries=max_retries,
                                        config=GenerateConfig(temperature=temperature), cache=not no_cache,
                                        on_item=on_item)

        stats = _run(go(), "generation")

    table = Table(title=f"ToM-Synth generation -> {out}")
    table.add_column("count")
    table.add_column("n", justify="right")
    for k, v in stats.to_dict().items():
        if k != "parse_errors":
            table.add_row(k, str(v))
    for kind, v in sorted(stats.parse_errors.items()):
        table.add_row(f"parse error: {kind}", str(v))
    Console().print(table)
    if stats.retried:
        click.echo(f"{stats.retried} items that failed in an earlier run were asked again: {stats.recovered} recovered")
    if stats.failed:
        click.echo(f"{stats.failed} items failed every attempt (see {failures_path(out)}); re-run to retry them "
                   "(with fresh calls: a retry never replays the cached failure)")


def _keys(dist: dict[str, int]) -> str:
    return " ".join(f"{k}={v}" for k, v in dist.items())


def _report_table(report: dict[str, Any]) -> Table:
    table = Table(title="ToM-Synth quality control (paper: stage 1 removed 0.32%, stage 3 removed 6.2%)")
    for col in ("stage", "removed", "%", "detail"):
        table.add_column(col, justify="right" if col in ("removed", "%") else "left")
    s1, lb, s2, s3 = report["stage1"], report["length_bias"], report["stage2"], report["stage3"]
    fb = report["final_balance"]
    table.add_row("input", "", "", str(report["input"]))
    table.add_row("1 format/consistency", str(s1["removed"]), f"{s1['removed_pct']:.2f}",
                  ", ".join(f"{k}={v}" for k, v in sorted(s1["defects"].items())))
    table.add_row("length bias", str(lb["removed"]), f"{lb['removed_pct']:.2f}",
                  f"correct option the longest in {lb['longest_correct_pct_before']:.1f}%; "
                  f"cap {lb['max_longest_correct_pct']:g}%")
    table.add_row("2 answer balancing", str(s2["unreadable_dropped"]), f"{s2['unreadable_dropped_pct']:.2f}",
                  f"reordered {s2['reordered']}; keys {_keys(s2['answers_before'])} -> {_keys(s2['answers_after'])}; "
                  f"dropped {s2['unreadable_dropped']} whose analysis letters cannot be read")
    table.add_row("3 cross-model verification", str(s3["removed"]), f"{s3['removed_pct']:.2f}",
                  ", ".join(f"{k}={v}" for k, v in sorted(s3["judgments"].items())))
    table.add_row("length bias + balancing again", str(lb["removed_after_stage3"]), "",
                  f"reordered {fb['reordered']}; keys {_keys(fb['answers'])}")
    an = report["analysis"]
    table.add_row("analyses naming the key", "", "",
                  " -> ".join(f"{a['consistent']} ok, {a['contradicts']} contradict, {a['unchecked']} unchecked"
                              for a in (an["before_stage2"], an["after_stage2"])))
    table.add_row("output", "", "", f"{report['output']} (correct option is the longest in "
                  f"{report['longest_option_is_correct_pct']:.1f}%; chance 25%)")
    return table


def _read_items(path: Path) -> list:
    """The items of a generated file: a binary, empty or unreadable file, or a row that is not an item, is one line
    (OptionError, shown by the CLI as one line). A torn last line left by an interrupted `generate` is still skipped,
    as `generate` itself does when it resumes."""
    from tombench.generators.tomsynth.items import Item, read_jsonl
    from tombench.kit.reading import JSONL, convert_records, read_text

    text = read_text(path, what="ToM-Synth items", expected=JSONL)
    items = convert_records(read_jsonl(path), Item.from_row, what="ToM-Synth items", path=path, unit="item",
                            expected="an item row written by `tombench tomsynth generate`")
    if not items:
        lines = sum(1 for line in text.splitlines() if line.strip())
        raise UserError(f"{path} holds no items ({lines} line(s), none valid JSON: torn lines of an interrupted "
                        "generate are skipped)")
    return items


@tomsynth.command()
@click.argument("items_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--verifier", "-v", default=None, help="Second Inspect model for stage 3 (omit with --no-verify).")
@click.option("--no-verify", is_flag=True, help="Skip stage 3 (format checks and balancing only).")
@click.option("--out", "-o", required=True, type=click.Path(dir_okay=False, path_type=Path), callback=output_file)
@click.option("--report", type=click.Path(dir_okay=False, path_type=Path), default=None, callback=output_file,
              help="Where to write the JSON report (default: OUT with .report.json).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the answer balancing.")
@click.option("--max-text-chars", type=click.IntRange(1), default=1200, show_default=True)
@click.option("--max-longest-correct", type=click.FloatRange(0, 100), default=35.0, show_default=True,
              help="Drop the most lopsided items until the correct option is the strictly longest in at most this "
                   "percentage of items (chance 25%; 100 turns it off).")
@click.option("--max-retries", type=click.IntRange(0), default=2, show_default=True)
@click.option("--max-connections", type=click.IntRange(1), default=None)
@click.option("--no-cache", is_flag=True)
def qc(items_file: Path, verifier: str | None, no_verify: bool, out: Path, report: Path | None, seed: int,
       max_text_chars: int, max_longest_correct: float, max_retries: int, max_connections: int | None,
       no_cache: bool) -> None:
    """Three-stage QC: format/consistency, answer balancing, cross-model verification, plus a length-bias cap."""
    from tombench.generators.tomsynth.items import append_jsonl
    from tombench.generators.tomsynth.qc import Stage1Limits, run_qc

    if verifier is None and not no_verify:
        raise UserError("give --verifier MODEL for stage 3, or --no-verify to skip it")
    items = _read_items(items_file)
    v = None if no_verify else _model(verifier or "", max_connections)
    verdicts_path = out.with_name(out.name + ".verdicts.jsonl")

    with _progress() as progress:
        task = progress.add_task("verifying", total=len(items), info="", visible=v is not None)
        seen: Counter[str] = Counter()

        def on_verdict(iid: str, judgment: str) -> None:
            seen[judgment] += 1
            progress.update(task, advance=1, info=" ".join(f"{k}={n}" for k, n in sorted(seen.items())))

        kept, rep = _run(
            run_qc(items, v, seed=seed, limits=Stage1Limits(max_text_chars=max_text_chars),
                   max_longest_correct_pct=max_longest_correct,
                   verdicts_path=verdicts_path if v is not None else None, max_retries=max_retries,
                   cache=not no_cache, on_verdict=on_verdict),
            "verification",
        )
        progress.update(task, total=rep.input - rep.stage1_removed)

    out.unlink(missing_ok=True)
    append_jsonl(out, (i.to_row() for i in kept))
    report_path = report or out.with_name(out.name + ".report.json")
    report_dict = {"items_file": str(items_file), "verifier": verifier, **rep.to_dict()}
    report_path.write_text(json.dumps(report_dict, indent=2))
    Console().print(_report_table(report_dict))
    click.echo(f"kept {len(kept)} of {len(items)} items -> {out} (report: {report_path})")


@tomsynth.command("export-hf")
@click.argument("items_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--out-dir", required=True, type=click.Path(file_okay=False, path_type=Path), callback=output_dir,
              help="Folder written in the Hub layout (README.md card + data/*.parquet).")
@click.option("--repo-id", default=None, help="Also upload to this Hub dataset repository (needs HF_TOKEN).")
@click.option("--private", is_flag=True)
@click.option("--qc-report", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="QC report JSON to summarise in the card (default: ITEMS_FILE.report.json if present).")
@click.option("--name", default="ToM-Synth", show_default=True, help="Dataset title in the card.")
@click.option("--license", "license_", default="unknown", show_default=True,
              help="Hub license id of the generated items for the card (e.g. cc-by-4.0; check the generator's "
                   "terms of use).")
def export_hf(items_file: Path, out_dir: Path, repo_id: str | None, private: bool, qc_report: Path | None,
              name: str, license_: str) -> None:
    """Export items as a Hugging Face dataset with a unit-coverage card."""
    from tombench.generators.tomsynth.hub import export_dataset, push_to_hub
    from tombench.kit.hub import HubError

    items = _read_items(items_file)
    default_report = items_file.with_name(items_file.name + ".report.json")
    report_file = qc_report or (default_report if default_report.exists() else None)
    report = json.loads(report_file.read_text()) if report_file else None
    folder = export_dataset(items, out_dir, name=name, qc_report=report, license=license_)
    click.echo(f"wrote {len(items)} items to {folder}")
    if license_ == "unknown":
        click.echo("the card's license is 'unknown': pass --license with the terms you publish the items under")
    if repo_id:
        try:
            sha = push_to_hub(folder, repo_id, private=private)
        except HubError as e:  # missing token, offline, timeout, conflict: already one line
            raise UserError(f"upload to {repo_id} failed: {e}") from None
        except Exception as e:  # noqa: BLE001 - anything else the Hub client raises: one line
            raise UserError(f"upload to {repo_id} failed ({type(e).__name__}); check HF_TOKEN and network") from None
        click.echo(f"uploaded to https://huggingface.co/datasets/{repo_id} at revision {sha}")
        click.echo(f"evaluate: inspect eval tombench/tomsynth -T data={repo_id} -T revision={sha} --model ...")

