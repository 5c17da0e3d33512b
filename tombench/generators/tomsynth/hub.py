"""Export of a ToM-Synth item file as a Hugging Face dataset, with a card that lists the unit coverage.

The local folder has exactly the layout of the Hub repository (`README.md` + `data/train-*.parquet`), so
`datasets.load_dataset(folder)` and `load_dataset("org/name")` read the same thing, and the task accepts both.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from tombench.generators.tomsynth.items import LETTERS, Item
from tombench.generators.tomsynth.units import all_units, mental_states

__all__ = ["dataset_card", "export_dataset", "push_to_hub"]


def _coverage_table(title: str, counts: Counter[str], order: Sequence[str]) -> list[str]:
    lines = [f"### {title}", "", "| value | items |", "|---|---:|"]
    lines += [f"| {value} | {counts.get(value, 0)} |" for value in order]
    return lines + [""]


def dataset_card(items: Sequence[Item], *, name: str = "ToM-Synth", qc_report: dict | None = None) -> str:
    """A dataset card: what the data is, how it was made, and how much of the 6,912-unit space it covers."""
    units_total = len(all_units())
    units_covered = len({i.unit_id for i in items})
    subdims = [m.sub_dimension for m in mental_states()]
    dims = list(dict.fromkeys(m.dimension for m in mental_states()))
    domains = list(dict.fromkeys(u.situation.domain for u in all_units()))
    generators = sorted({i.generator for i in items if i.generator})
    answers = Counter(i.answer for i in items)
    lines = [
        "---",
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
        f"# {name}",
        "",
        "Multiple-choice theory-of-mind items synthesised with [tombench](https://github.com/) following ToM-Synth "
        "(*Scaling Robust Theory of Mind in LLMs via 6,912 Structured Social Units*): each item is generated for "
        "one social unit = (mental state, social situation, presentation format).",
        "",
        f"- items: **{len(items)}**",
        f"- units covered: **{units_covered} / {units_total}** ({100 * units_covered / units_total:.1f}%)",
        f"- generator(s): {', '.join(generators) or 'unknown'}",
        f"- answer keys: {', '.join(f'{k}={answers.get(k, 0)}' for k in LETTERS)}",
        "",
        "Columns: `id` (`{unit_id}#{k}`), `unit_id`, `dimension`, `sub_dimension`, `domain`, `situation`, `format`, "
        "`text`, `question`, `options` (A-D), `answer`, `analysis`, `characters`, `generator`, `original_answer` "
        "(the key before answer balancing).",
        "",
        "Evaluate with `inspect eval tombench/tomsynth -T data=<this repo id> --model <model>`.",
        "",
        "## Coverage",
        "",
    ]
    lines += _coverage_table("Mental-state dimension", Counter(i.dimension for i in items), dims)
    lines += _coverage_table("Sub-dimension", Counter(i.sub_dimension for i in items), subdims)
    lines += _coverage_table("Social domain", Counter(i.domain for i in items), domains)
    lines += _coverage_table("Format", Counter(i.format for i in items), ["Narrative", "Dialogue"])
    if qc_report:
        s1, s3 = qc_report.get("stage1", {}), qc_report.get("stage3", {})
        lines += [
            "## Quality control",
            "",
            f"- input: {qc_report.get('input')}",
            f"- stage 1 (format/consistency) removed: {s1.get('removed')} ({s1.get('removed_pct')}%)",
            f"- stage 2 (answer balancing) reordered: {qc_report.get('stage2', {}).get('reordered')}",
            f"- stage 3 (cross-model verification) removed: {s3.get('removed')} ({s3.get('removed_pct')}%)",
            f"- output: {qc_report.get('output')}",
            "",
        ]
    return "\n".join(lines)


def export_dataset(
    items: Sequence[Item], out_dir: str | Path, *, name: str = "ToM-Synth", qc_report: dict | None = None
) -> Path:
    """Write `README.md` (the card) and `data/train-00000-of-00001.parquet` under `out_dir`."""
    import datasets

    out = Path(out_dir)
    (out / "data").mkdir(parents=True, exist_ok=True)
    ds = datasets.Dataset.from_list([i.to_row() for i in items])
    # pyarrow directly: same file as `Dataset.to_parquet`, without its progress bar in our CLI output
    import pyarrow.parquet as pq

    pq.write_table(ds.data.table, str(out / "data" / "train-00000-of-00001.parquet"))
    (out / "README.md").write_text(dataset_card(items, name=name, qc_report=qc_report), encoding="utf-8")
    return out


def push_to_hub(folder: str | Path, repo_id: str, *, private: bool = False, token: str | None = None) -> str:
    """Upload an exported folder as a dataset repository; returns the commit id (the revision to pin)."""
    from huggingface_hub import HfApi

    api = HfApi(token=token)
    api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    info = api.upload_folder(folder_path=str(folder), repo_id=repo_id, repo_type="dataset")
    return info.oid
