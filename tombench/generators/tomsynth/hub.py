"""Export of a ToM-Synth item file as a Hugging Face dataset, with a card that lists the unit coverage.

The local folder has exactly the layout of the Hub repository (`README.md` + `data/train-*.parquet`), so
`datasets.load_dataset(folder)` and `load_dataset("org/name")` read the same thing, and the task accepts both.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from tombench.generators.tomsynth.items import LETTERS, Item
from tombench.generators.tomsynth.units import SPACES, all_units, mental_states

__all__ = ["dataset_card", "export_dataset", "push_to_hub", "tombench_reference"]

#: Where the evaluation harness lives (a real page: the Inspect AI documentation).
INSPECT_URL = "https://inspect.aisi.org.uk/"


def tombench_reference() -> str:
    """"tombench X.Y.Z", linked to the project page the installed package declares (Project-URL / Home-page), and
    never to a made-up address when it declares none."""
    from importlib import metadata

    try:
        md = metadata.metadata("tombench")
    except metadata.PackageNotFoundError:
        return "tombench"
    urls = [u.split(",", 1)[-1].strip() for u in md.get_all("Project-URL") or []] + [md.get("Home-page") or ""]
    url = next((u for u in urls if u.startswith("https://")), None)
    name = f"tombench {md.get('Version')}"
    return f"[{name}]({url})" if url else name


def _coverage_table(title: str, counts: Counter[str], order: Sequence[str]) -> list[str]:
    lines = [f"### {title}", "", "| value | items |", "|---|---:|"]
    lines += [f"| {value} | {counts.get(value, 0)} |" for value in order]
    return lines + [""]


def _front_matter(license: str) -> list[str]:
    """The card's YAML header: the Hub reads the license and where the rows are from it."""
    return [
        "---",
        f"license: {license}",
        "language: [en]",
        "task_categories: [multiple-choice, question-answering]",
        "tags: [theory-of-mind, synthetic, tombench]",
        "configs:",
        "- config_name: default",
        "  data_files:",
        "  - split: train",
        "    path: data/train-*",
        "---",
        "",
    ]


def _unit_coverage(items: Sequence[Item], spaces: Sequence[str]) -> list[str]:
    """How many of each space's units the items cover: the paper's point is covering the whole unit space."""
    lines = []
    for sp in spaces:
        total = len(all_units(sp))
        covered = len({i.unit_id for i in items if i.space == sp})
        lines.append(f"- units covered ({sp} space): **{covered} / {total}** ({100 * covered / total:.1f}%)")
    return lines


def _summary(items: Sequence[Item], name: str, license: str, spaces: Sequence[str]) -> list[str]:
    """The card's prose: what the items are, their license, counts, generators, answer keys and how to evaluate."""
    generators = sorted({i.generator for i in items if i.generator})
    answers = Counter(i.answer for i in items)
    unset = " (not chosen yet: set it with `tombench tomsynth export-hf --license`)" if license == "unknown" else ""
    return [
        f"# {name}",
        "",
        f"Multiple-choice theory-of-mind items synthesised with {tombench_reference()} following ToM-Synth "
        "(*Scaling Robust Theory of Mind in LLMs via 6,912 Structured Social Units*): each item is generated for "
        "one social unit = (mental state, social situation, presentation format).",
        "",
        f"- license: {license}" + unset,
        f"- items: **{len(items)}**",
        *_unit_coverage(items, spaces),
        f"- generator(s): {', '.join(generators) or 'unknown'}",
        f"- answer keys: {', '.join(f'{k}={answers.get(k, 0)}' for k in LETTERS)}",
        "",
        "Columns: `id` (`{unit_id}#{k}`, `contrast:{unit_id}#{k}` in the Contrast space), `unit_id`, `dimension`, "
        "`sub_dimension`, `domain`, `situation`, `format`, `text`, `question`, `options` (A-D), `answer`, `analysis`, "
        "`characters`, `generator`, `original_answer` (the key before answer balancing), `space`.",
        "",
        f"Evaluate with [Inspect AI]({INSPECT_URL}): `inspect eval tombench/tomsynth -T data=<this repo id> "
        "-T revision=<commit> --model <model>`.",
        "",
    ]


def _coverage(items: Sequence[Item], spaces: Sequence[str]) -> list[str]:
    """Items per dimension, sub-dimension, domain and format, zeros included, so gaps in the data are visible."""
    subdims = list(dict.fromkeys(m.sub_dimension for sp in spaces for m in mental_states(sp)))
    dims = list(dict.fromkeys(m.dimension for m in mental_states()))
    domains = list(dict.fromkeys(u.situation.domain for u in all_units()))
    lines = ["## Coverage", ""]
    lines += _coverage_table("Mental-state dimension", Counter(i.dimension for i in items), dims)
    lines += _coverage_table("Sub-dimension", Counter(i.sub_dimension for i in items), subdims)
    lines += _coverage_table("Social domain", Counter(i.domain for i in items), domains)
    lines += _coverage_table("Format", Counter(i.format for i in items), ["Narrative", "Dialogue"])
    return lines


def _quality_control(qc_report: dict) -> list[str]:
    """What each QC stage removed or reordered, from `tombench tomsynth qc`'s report."""
    s1, s3 = qc_report.get("stage1", {}), qc_report.get("stage3", {})
    lb, s2 = qc_report.get("length_bias", {}), qc_report.get("stage2", {})
    return [
        "## Quality control",
        "",
        f"- input: {qc_report.get('input')}",
        f"- stage 1 (format/consistency) removed: {s1.get('removed')} ({s1.get('removed_pct')}%)",
        f"- length bias: correct option the strictly longest in {lb.get('longest_correct_pct_before')}% of "
        f"items; removed {lb.get('removed')} + {lb.get('removed_after_stage3')} to cap it at "
        f"{lb.get('max_longest_correct_pct')}%",
        f"- stage 2 (answer balancing) reordered: {s2.get('reordered')}"
        + (f"; dropped {s2['unreadable_dropped']} whose analysis letters cannot be read"
           if s2.get("unreadable_dropped") else ""),
        f"- stage 3 (cross-model verification) removed: {s3.get('removed')} ({s3.get('removed_pct')}%)",
        f"- balanced again after stage 3: reordered {qc_report.get('final_balance', {}).get('reordered')}",
        f"- output: {qc_report.get('output')} (correct option the longest in "
        f"{qc_report.get('longest_option_is_correct_pct')}%; chance 25%)",
        "",
    ]


def dataset_card(
    items: Sequence[Item], *, name: str = "ToM-Synth", qc_report: dict | None = None, license: str = "unknown"
) -> str:
    """A dataset card: what the data is, its license, how it was made, and how much of each unit space it covers.

    `license` is the Hub license id the publisher chooses for the generated items (the generator's terms of use
    apply to its outputs); "unknown" until they do."""
    spaces = [sp for sp in SPACES if any(i.space == sp for i in items)] or ["full"]
    lines = _front_matter(license) + _summary(items, name, license, spaces) + _coverage(items, spaces)
    if qc_report:
        lines += _quality_control(qc_report)
    return "\n".join(lines)


def export_dataset(
    items: Sequence[Item],
    out_dir: str | Path,
    *,
    name: str = "ToM-Synth",
    qc_report: dict | None = None,
    license: str = "unknown",
) -> Path:
    """Write `README.md` (the card) and `data/train-00000-of-00001.parquet` under `out_dir`."""
    import datasets

    out = Path(out_dir)
    (out / "data").mkdir(parents=True, exist_ok=True)
    ds = datasets.Dataset.from_list([i.to_row() for i in items])
    # pyarrow directly: same file as `Dataset.to_parquet`, without its progress bar in our CLI output
    import pyarrow.parquet as pq

    pq.write_table(ds.data.table, str(out / "data" / "train-00000-of-00001.parquet"))
    (out / "README.md").write_text(dataset_card(items, name=name, qc_report=qc_report, license=license), encoding="utf-8")
    return out


def push_to_hub(folder: str | Path, repo_id: str, *, private: bool = False, token: str | None = None) -> str:
    """Upload an exported folder as a dataset repository; returns the commit id (the revision to pin).

    Goes through the kit's Hub writer: a per-request timeout, a commit on top of the head it read, and one-line
    `HubError`s (missing token, offline, timeout, conflict)."""
    from tombench.kit.hub import HubRepo

    return HubRepo(repo_id, token=token).upload_folder(folder, "Upload folder using huggingface_hub", private=private)
