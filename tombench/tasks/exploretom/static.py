# inspect-evals-lint: ignore-file[main_file] -- ExploreToM's four tasks, one module each with its machinery
"""The public ExploreToM data sample (13,309 questions), or any local file or Hub dataset in its schema.

Paper: Sclar et al., "Explore Theory of Mind: Program-guided adversarial data generation for theory of mind
reasoning" (ICLR 2025, https://arxiv.org/abs/2412.12175). The public sample was searched adversarially against
Llama-3.1-70B-Instruct (10 story structures per setting, 50 nodes each) and then infilled; its card asks not to
treat it as the canonical test set (run `tombench/exploretom_random` or the search for that).

    inspect eval tombench/exploretom_static --model openai/gpt-4o-mini                 # Hub, pinned revision
    inspect eval tombench/exploretom_static -T text=infilled --model ...                # the infilled stories
    inspect eval tombench/exploretom_static -T data=ExploreToM-data-sample.csv --model tombench/oracle
    inspect eval tombench/exploretom_static -T relabel=true --model ...                 # labels from our tracker
    inspect eval tombench/exploretom_static -T check=substring --model ...              # the original answer test

Columns read: `story_structure`, `infilled_story`, `question`, `expected_answer`, `qprop=nth_order` (-1 memory, 1,
2), `qprop=non_unique_mental_state` (interesting), `param=story_type`, `param=num_people`, `param=num_moves`,
`param=num_rooms`; other columns are ignored. Every structure is parsed with the DSL (once per distinct story) to
learn the question's kind, false-belief flag and the story's containers and rooms (the matcher's candidates).
`relabel=true` replaces the expected answer (and the interesting flag) with the tracker's wherever the structure
parses and the question is one the tracker asks, and records `original_answer` and `relabeled` (True where the
label changed) in the metadata: a corrected split, since the paper's code had label bugs.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample

from tombench.dsl.answers import AnswerType, normalise
from tombench.kit.errors import OptionError
from tombench.kit.evals import task_data
from tombench.kit.options import check_bool, check_ints, list_items
from tombench.kit.pinning import HubFile, download_hub_file, load_hub_dataset
from tombench.kit.reading import first_line, read_records, read_text
from tombench.scorers.story_questions import CheckMode, task_check, tom_answer
from tombench.tasks.shared.story_questions import (
    HEADLINE,
    TOM_CONFIG,
    question_candidates,
    story_metadata,
    tom_sample,
    tom_solver,
)

__all__ = [
    "HUB_DATASET",
    "HUB_FILE",
    "HUB_REVISION",
    "HUB_ROWS",
    "StructureCache",
    "exploretom_static",
    "load_rows",
    "record_to_sample",
]

TASK_VERSION = "1.0.0"

#: The public sample on the Hub, pinned: 13,309 rows at this revision.
HUB_DATASET = "facebook/ExploreToM"
HUB_FILE = "ExploreToM-data-sample.csv"
HUB_REVISION = "209e0129d0d01fda1c1aa02b28d1dce0c52180ca"
HUB_ROWS = 13309
SOURCE = HubFile(HUB_DATASET, HUB_FILE, revision=HUB_REVISION)
DATA = task_data(__file__, "exploretom_static", {"data": SOURCE})

REQUIRED_COLUMNS = ("story_structure", "question", "expected_answer", "qprop=nth_order", "param=story_type")

_TRUE = {"true", "1", "yes", "t"}
_FALSE = {"false", "0", "no", "f", ""}


class DataError(ValueError):
    """Data a user pointed at cannot be read: the message says what to do, in one line."""


# ------------------------------------------------------------------------------------------------------- loading
_WHAT = "ExploreToM data"


def _read_csv(path: Path) -> list[dict[str, Any]]:
    text = read_text(path, what=_WHAT, expected="a CSV file with a header row", option="-T data=PATH")
    return list(csv.DictReader(io.StringIO(text, newline="")))


def _read_file(path: Path) -> list[dict[str, Any]]:
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return _read_csv(path)
    if suffix in (".jsonl", ".json"):
        return read_records(path, what=_WHAT, required_keys=REQUIRED_COLUMNS, list_key=None)
    if suffix == ".parquet":
        import pyarrow.parquet as pq

        try:
            return pq.read_table(path).to_pylist()
        except Exception as e:  # noqa: BLE001 - pyarrow raises several types for a file that is not parquet
            raise DataError(f"{_WHAT} file {str(path)!r} is not a readable parquet file ({first_line(e)})") from None
    raise DataError(f"unsupported data file {str(path)!r}: give a .csv, .jsonl, .json or .parquet file")


def _read_folder(path: Path) -> list[dict[str, Any]]:
    """A folder: a dataset saved by `datasets.save_to_disk`, or else the parquet/jsonl/csv files it holds."""
    if (path / "dataset_info.json").exists() or (path / "dataset_dict.json").exists():
        import datasets

        ds = datasets.load_from_disk(str(path))
        if isinstance(ds, datasets.DatasetDict):
            ds = ds[next(iter(ds))]
        return list(ds)
    files = sorted(p for p in path.rglob("*") if p.suffix.lower() in (".parquet", ".jsonl", ".csv"))
    if not files:
        raise DataError(f"no .parquet, .jsonl or .csv files in folder {str(path)!r}")
    return [row for f in files for row in _read_file(f)]


def _looks_local(data: str) -> bool:
    """A `data` value meant as a local path (so a missing one is reported as such, not looked up on the Hub)."""
    return data.startswith((".", "/", "~")) or data.endswith((".csv", ".jsonl", ".json", ".parquet")) or "/" not in data


def load_rows(data: str | None = None, revision: str | None = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Rows of the public sample (`data=None`, pinned revision), a local file or folder, or a Hub dataset id.

    Returns the rows and their provenance (recorded in the task metadata). A folder is read as a dataset saved by
    `datasets.save_to_disk`, or else as the parquet/jsonl/csv files it holds. The Hub is read through the kit's
    pinning module (a Hub id is resolved to the commit it points at, which is recorded).
    """
    if data is None:
        rev = revision or HUB_REVISION
        path = download_hub_file(HUB_DATASET, HUB_FILE, rev, suite="ExploreToM")
        return _read_csv(path), {"data": f"hf://datasets/{HUB_DATASET}/{HUB_FILE}", "revision": rev}
    path = Path(data).expanduser()
    if path.is_file():
        return _read_file(path), {"data": str(path)}
    if path.is_dir():
        return _read_folder(path), {"data": str(path)}
    if _looks_local(data):
        raise DataError(f"data file {data!r} does not exist: give an existing .csv/.jsonl/.parquet file, folder or "
                        "Hub id")
    rows, rev = load_hub_dataset(data, revision)
    return rows, {"data": data, "revision": rev.sha}


# ------------------------------------------------------------------------------------------------------- parsing
def _bool(value: Any) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False if text else None
    return None  # "nan", "None" or anything unreadable: no flag, so the row is left out of that grouping


def _int(value: Any) -> int | None:
    if value is None or str(value).strip() in ("", "nan", "None"):
        return None
    return int(float(value))


_CONTAINER_NAMES = re.compile(r"to the ([^,.]+?), which is also located in")
_ROOM_NAMES = re.compile(r"(?:entered|left) the ([^,.]+?)\.")


def _answer_type(question: str, expected: str) -> AnswerType:
    """A row's answer type from its expected answer and question form (when the tracker does not know it)."""
    answer = normalise(expected)
    if answer in ("yes", "no"):
        return AnswerType.YES_NO
    if answer in ("knows about it", "does not know about it"):
        return AnswerType.KNOWLEDGE
    return AnswerType.ROOM if question.startswith("In which room") else AnswerType.CONTAINER


def _state_pattern(template: str) -> re.Pattern[str]:
    pattern = re.escape(template).replace(r"\{person\}", r"[A-Z][\w'-]*").replace(r"\{object\}", r".+")
    return re.compile(rf"^{pattern}$")


@dataclass
class ParsedStructure:
    """What the DSL makes of one story structure: the story (None if unparseable) and its questions by text."""

    story: Any = None
    questions: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


class StructureCache:
    """Parses each distinct story structure once (13,309 rows share a few thousand stories).

    Without a context, object-state sentences cannot be read; the structure is then retried with the context-bank
    contexts whose state-change templates match the failing sentence (the public data's contexts were generated by
    an LLM, so most such stories stay unparseable and keep their original labels).
    """

    def __init__(self) -> None:
        self._parsed: dict[str, ParsedStructure] = {}
        self._templates: list[tuple[re.Pattern[str], Any]] | None = None

    def _contexts_for(self, sentence: str | None) -> list[Any]:
        if not sentence:
            return []
        if self._templates is None:
            from tombench.generators.exploretom.contexts import load_context_bank

            self._templates = [(_state_pattern(sc.text), c) for c in load_context_bank() for sc in c.state_changes]
        return list({id(c): c for p, c in self._templates if p.match(sentence)}.values())

    def get(self, structure: str) -> ParsedStructure:
        if structure not in self._parsed:
            self._parsed[structure] = self._parse(structure)
        return self._parsed[structure]

    def _parse(self, structure: str) -> ParsedStructure:
        from tombench.dsl import StoryParseError, parse_structure
        from tombench.dsl.context import ContextError

        try:
            story = parse_structure(structure)
        except StoryParseError as e:
            story, error = None, str(e).splitlines()[0]
            for ctx in self._contexts_for(e.sentence):
                try:
                    story = parse_structure(structure, ctx)
                    break
                except (StoryParseError, ContextError):
                    continue
            if story is None:
                return ParsedStructure(error=error)
        except ContextError as e:
            return ParsedStructure(error=str(e).splitlines()[0])
        questions = {q.text: q for q in story.questions(first_order_room_questions=True)}
        return ParsedStructure(story=story, questions=questions)


def _candidates(parsed: ParsedStructure, answer_type: AnswerType, structure: str) -> list[str]:
    """The answers the matcher may choose between: the parsed story's, else the containers or rooms the structure
    names (an unparseable story still has its places in its text)."""
    if parsed.story is not None:
        return question_candidates(parsed.story, answer_type)
    if answer_type is AnswerType.CONTAINER:
        return list(dict.fromkeys(_CONTAINER_NAMES.findall(structure)))
    if answer_type is AnswerType.ROOM:
        return list(dict.fromkeys(_ROOM_NAMES.findall(structure)))
    return []


def _story_metadata(record: Mapping[str, Any], structure: str) -> dict[str, Any]:
    """The shared story metadata; rows of one story share its id (a hash of the structure), for story-clustered
    intervals."""
    return story_metadata(
        str(record["param=story_type"]).strip(),
        people=_int(record.get("param=num_people")),
        moves=_int(record.get("param=num_moves")),
        rooms=_int(record.get("param=num_rooms")),
        story_id="s-" + hashlib.sha256(structure.encode()).hexdigest()[:10],
    )


def _story_text(record: Mapping[str, Any], index: int, text: str, structure: str) -> str:
    """What the model reads: the structure itself, or the row's LLM-infilled story."""
    story_text = structure if text == "structure" else str(record.get("infilled_story") or "").strip()
    if not story_text:
        raise DataError(f"row {index + 1} has no {'story_structure' if text == 'structure' else 'infilled_story'}")
    return story_text


def record_to_sample(
    record: Mapping[str, Any],
    index: int,
    *,
    text: Literal["structure", "infilled"] = "structure",
    relabel: bool = False,
    structures: StructureCache | None = None,
) -> Sample:
    """One row of the public schema as a Sample (id `exploretom-{index:05d}`) with the shared ToM metadata."""
    structures = structures or StructureCache()
    structure = str(record["story_structure"]).strip()
    story_text = _story_text(record, index, text, structure)
    question = str(record["question"]).strip()
    original = str(record["expected_answer"]).strip()
    nth = _int(record.get("qprop=nth_order"))
    order = 0 if nth is None or nth < 0 else nth
    original_interesting = _bool(record.get("qprop=non_unique_mental_state")) if order > 0 else None

    parsed = structures.get(structure)
    q = parsed.questions.get(question)
    answer_type = q.answer_type if q is not None else _answer_type(question, original)
    # what only the tracker knows (None where the structure did not parse, or the tracker does not ask this question)
    kind, false_belief = (q.kind, q.false_belief) if q is not None else (None, None)
    answer, interesting, relabeled = original, original_interesting, None
    if relabel and q is not None:
        answer, interesting = q.answer, q.interesting
        relabeled = normalise(q.answer) != normalise(original)
    metadata = {
        **_story_metadata(record, structure),
        "order": order,
        "kind": kind,
        "interesting": interesting,
        "false_belief": false_belief,
        "answer_type": answer_type.value,
        "candidates": _candidates(parsed, answer_type, structure),
        "parsed": parsed.story is not None,
        "original_answer": original,
        "original_interesting": original_interesting,
        "relabeled": relabeled,
    }
    return tom_sample(f"exploretom-{index:05d}", story_text, question, answer, metadata)


def _check_columns(rows: Iterable[Mapping[str, Any]], where: str) -> None:
    first = next(iter(rows), None)
    if first is None:
        raise DataError(f"no rows in {where}")
    missing = [c for c in REQUIRED_COLUMNS if c not in first]
    if missing:
        raise DataError(f"{where} is not in the ExploreToM schema: missing columns {missing}")


def _samples(rows: Sequence[Mapping[str, Any]], where: str, *, text: Literal["structure", "infilled"],
             relabel: bool) -> list[Sample]:
    """Every row as a sample; a row whose values cannot be read (an order that is not a number) is one line."""
    structures = StructureCache()
    out = []
    for i, r in enumerate(rows):
        try:
            out.append(record_to_sample(r, i, text=text, relabel=relabel, structures=structures))
        except DataError:
            raise
        except (ValueError, TypeError, KeyError) as e:
            raise DataError(f"{where}, row {i + 1}: cannot read it ({type(e).__name__}: {first_line(e)}); expected "
                            f"the ExploreToM columns {', '.join(REQUIRED_COLUMNS)}") from None
    return out


def _keep(samples: list[Sample], story_types: list[str] | None,
          question_orders: int | str | list[int] | None) -> list[Sample]:
    """The samples of the story types and question orders asked for (all when not given)."""
    if story_types is not None:
        samples = [s for s in samples if s.metadata and s.metadata["story_type"] in story_types]
    if question_orders is not None:
        wanted = set(check_ints("question_orders", question_orders, 0, 2))
        samples = [s for s in samples if s.metadata and s.metadata["order"] in wanted]
    return samples


@task
def exploretom_static(
    data: str | None = None,
    revision: str | None = None,
    text: Literal["structure", "infilled"] = "structure",
    relabel: bool = False,
    check: CheckMode = "strict",
    story_types: str | list[str] | None = None,
    question_orders: int | str | list[int] | None = None,
    cache: bool = False,
) -> Task:
    """The public ExploreToM sample (or a file in its schema), the paper's prompt, the one matcher.

    Args:
        data: the rows to ask, in the public schema: a `.csv`, `.jsonl`, `.json` or `.parquet` file, a folder (saved
            with `datasets.save_to_disk`, or holding such files), or a Hub dataset id (default: the public sample
            `facebook/ExploreToM`, pinned to revision `HUB_REVISION`).
        revision: the Hub revision of `data`, a branch, tag or commit, resolved to a commit and recorded (default: the
            pinned commit for the public sample, `main` for another id).
        text: ask about the story `structure` (the language's own sentences) or the `infilled` story (the
            LLM-infilled prose).
        relabel: take expected answers (and the interesting flag) from tombench's tracker wherever the structure
            parses (`true` or `false`); the original label is kept in the metadata (`original_answer`, `relabeled`).
        check: how answers are read: `strict` (tombench's whole-word matcher), `substring` (the original
            `expected in response.lower()`) or `judge` (a grader model: `--model-role grader=...`).
        story_types: keep rows of these story types (comma-separated, e.g. `tomi,tomi+asymmetric`; default: all).
        question_orders: keep rows of these ToM orders: 0 (memory), 1, 2 (comma-separated; default: all).
        cache: use Inspect's response cache for the model's calls (`true` or `false`).
    """

    relabel = check_bool("relabel", relabel)
    cache = check_bool("cache", cache)
    mode = task_check(check)
    if text not in ("structure", "infilled"):
        raise OptionError(f"Invalid text value: {text!r}. Must be one of: ['structure', 'infilled']")
    try:
        rows, provenance = load_rows(data, revision)
        _check_columns(rows, provenance["data"])
        samples = _samples(rows, provenance["data"], text=text, relabel=relabel)
    except (DataError, OptionError) as e:
        raise OptionError(f"exploretom_static: {e}") from None
    samples = _keep(samples, [str(t) for t in list_items(story_types)] or None, question_orders)
    if not samples:
        raise OptionError(f"exploretom_static: no rows left in {provenance['data']} after filtering")
    md = [s.metadata or {} for s in samples]
    return Task(
        dataset=MemoryDataset(samples, name="exploretom_static", location=provenance["data"]),
        solver=tom_solver(cache=cache),
        scorer=tom_answer(check=mode),
        config=TOM_CONFIG,
        version=TASK_VERSION,
        headline_metric=HEADLINE,
        metadata={
            "benchmark": "exploretom",
            "split": "static",
            **provenance,
            "text": text,
            "relabel": relabel,
            "check": mode,
            "rows": len(samples),
            "parsed": sum(1 for m in md if m.get("parsed")),
            "relabeled": sum(1 for m in md if m.get("relabeled")),
        },
    )
