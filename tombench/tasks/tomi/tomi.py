"""ToMi (Le et al., 2019): the full released test split (5,994 questions), asked and scored the ExploreToM way.

Paper: Le, Boureau and Nickel, "Revisiting the Evaluation of Theory of Mind through Question Answering" (EMNLP
2019, https://aclanthology.org/D19-1598). Data: the authors' release `tomi_balanced_story_types.zip` in
facebookresearch/ToMi at commit dea2bca9 (pinned by SHA-256), members `fb_all_{split}.txt` (bAbI-style numbered
lines, the question line `question<TAB>answer<TAB>1`) and `fb_all_{split}.trace` (one line per question: the story's
events, the question type, the story type). `split=example` runs instead the 100 items that ship with inspect-ai
(`example_dataset("theory_of_mind")`, offline).

    inspect eval tombench/tomi --model tombench/oracle                      # test split, pinned release
    inspect eval tombench/tomi -T data=tomi_balanced_story_types.zip ...     # a local copy (or fb_all_test.txt)
    inspect eval tombench/tomi -T split=example --model tombench/oracle      # the 100 inspect-ai items, offline
    inspect eval tombench/tomi -T check=substring --model openai/gpt-4o-mini

Each story (its lines without their numbers, one per line) is put to the model with the ExploreToM prompt
(`{story}\\n{question} Short Answer.`, temperature 0, 40 tokens) and read with the one tombench matcher, the
candidates being the containers the story names, so ToMi numbers sit next to ExploreToM ones. Accuracy is grouped
by `question_type` (memory, reality, first_order, second_order), `false_belief` (ToMi's `_tom` questions: a belief
that differs from where the object is), `order` and `story_type` (true_belief, false_belief,
second_order_false_belief). Every ToMi story also parses with the DSL (`tombench.dsl.parse_structure`, tomi
dialect), which is how `tombench/oracle` answers it.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any, Literal

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample

from tombench.kit.errors import OptionError
from tombench.kit.evals import task_data
from tombench.kit.options import check_bool
from tombench.kit.pinning import UrlFile, fetch
from tombench.kit.reading import read_text
from tombench.scorers.story_questions import CheckMode, task_check, tom_answer, tom_metrics
from tombench.tasks.shared.choices import digest
from tombench.tasks.shared.story_questions import HEADLINE, TOM_CONFIG, tom_sample, tom_solver
from tombench.tasks.shared.suite import suite_metadata

__all__ = [
    "PAPER_ITEMS",
    "SPLITS",
    "TASK_VERSION",
    "TOMI_DIMENSIONS",
    "TOMI_SHA256",
    "TOMI_URL",
    "containers",
    "question_type",
    "read_tomi",
    "record_to_sample",
    "tomi",
    "tracker_answer",
]

TASK_VERSION = "2.0.0"

#: The authors' release, pinned (checked 2026-06: the zip at this commit of facebookresearch/ToMi).
TOMI_URL = (
    "https://raw.githubusercontent.com/facebookresearch/ToMi/dea2bca9b366c41cdab0bd717353cc02453e193e/"
    "tomi_balanced_story_types.zip"
)
TOMI_SHA256 = "d8389ecf09749b4a49c56752a8ce44afac8c3d363391b5c29c8fa7032613ece6"
#: 999 stories (333 per story type) x 6 questions per split; the loader reads exactly this from the release.
PAPER_ITEMS = {"test": 5994, "val": 5994, "train": 5994, "example": 100}
OFFLINE = "-T split=example"
DATA = task_data(__file__, "tomi", {"release": UrlFile(TOMI_URL, TOMI_SHA256)})
LICENSE = DATA.license  # eval.yaml's, the one place it is written
SPLITS: tuple[str, ...] = ("test", "val", "train", "example")

#: The ToMi breakdown (question type as in Le et al. Table 3; false belief is ToMi's tom/no_tom split).
TOMI_DIMENSIONS: tuple[str, ...] = ("question_type", "false_belief", "order", "story_type", "label_disputed")

_QUESTION = re.compile(r"(Where [^.?]*\?)\s*$")
_TYPES: tuple[tuple[re.Pattern[str], str, int], ...] = (
    (re.compile(r"^Where was the \S+ at the beginning\?$"), "memory", 0),
    (re.compile(r"^Where is the \S+ really\?$"), "reality", 0),
    (re.compile(r"^Where will [A-Z]\w* look for the \S+\?$"), "first_order", 1),
    (re.compile(r"^Where does [A-Z]\w* think that [A-Z]\w* searches for the \S+\?$"), "second_order", 2),
)
_TRACE_TYPE = re.compile(r"^(?:(first_order|second_order)_[01]_(no_)?tom|(memory)|(reality))$")
_PLACED = re.compile(r"\bThe (\S+) is in the (\S+?)\.")
_MOVED = re.compile(r"\bmoved the (\S+) to the (\S+?)\.")
_LINE = re.compile(r"^(\d+) (.*)$")


def question_type(question: str) -> tuple[str, int]:
    """The ToMi question type and its ToM order, from the question's form; ValueError for an unknown form."""
    for pattern, name, order in _TYPES:
        if pattern.match(question):
            return name, order
    raise ValueError(f"not a ToMi question: {question!r}")


def containers(story: str) -> list[str]:
    """The containers a ToMi story names ("The X is in the C.", "A moved the X to the C."), in order of mention."""
    found = [(m.start(), m.group(2)) for m in _PLACED.finditer(story)]
    found += [(m.start(), m.group(2)) for m in _MOVED.finditer(story)]
    return list(dict.fromkeys(c for _, c in sorted(found)))


def _true_location(story: str) -> str | None:
    events = sorted([(m.start(), m.group(2)) for m in (*_PLACED.finditer(story), *_MOVED.finditer(story))])
    return events[-1][1] if events else None


@functools.lru_cache(maxsize=4096)
def _tracker_answers(story: str) -> dict[str, str]:
    from tombench.dsl import StoryParseError, parse_structure

    try:
        parsed = parse_structure(story, dialect="tomi")
    except StoryParseError:
        return {}
    return {q.text: q.answer for q in parsed.questions()}


def tracker_answer(story: str, question: str) -> str | None:
    """The DSL tracker's answer to a ToMi question (the story parsed in the tomi dialect); None if it has none."""
    from tombench.dsl import tomi_question

    asked = tomi_question(question)
    return _tracker_answers(story).get(asked) if asked else None


# ------------------------------------------------------------------------------------------------------- reading
def _read_questions(text: str) -> list[dict[str, Any]]:
    """The question records of a `.txt` file: bAbI numbering restarts at 1 for each story, and every question line
    closes a record over the story told so far (several questions share one story)."""
    records: list[dict[str, Any]] = []
    story: list[str] = []
    for n, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        m = _LINE.match(raw)
        if m is None:
            raise ValueError(f"line {n} is not a numbered ToMi line: {raw[:60]!r}")
        if m.group(1) == "1":
            story = []
        body = m.group(2)
        if "\t" in body:
            question, answer, *_ = body.split("\t")
            records.append({"story": list(story), "question": question.strip(), "answer": answer.strip()})
        else:
            story.append(body.strip())
    return records


def _apply_trace(number: int, record: dict[str, Any], line: str) -> None:
    """Add one trace line's story type and tom flag to its record, after checking that the line describes it: the
    trace has no key, so its question type and event count are the only guard against joining the wrong line."""
    *events, qtrace, story_type = line.split(",")
    m = _TRACE_TYPE.match(qtrace)
    if m is None:
        raise ValueError(f"trace line {number}: unknown question type {qtrace!r}")
    kind = m.group(1) or m.group(3) or m.group(4)
    acting = [s for s in record["story"] if not re.match(r"^\S+ (?:likes|dislikes|loves|hates) the ", s)]
    if kind != question_type(record["question"])[0] or len(events) != len(acting) - 1:
        raise ValueError(f"trace line {number} does not describe question {number} ({qtrace}, {len(events)} events)")
    record["story_type"] = story_type
    record["tom"] = (m.group(2) is None) if m.group(1) else None


def read_tomi(text: str, trace: str | None = None) -> list[dict[str, Any]]:
    """The question records of a ToMi `.txt` file, joined with its `.trace` file when given.

    Each question line closes one record: the story is every line since the last line numbered 1. The trace has one
    line per question and no key of its own, so it is joined by position and checked by content: its question type
    must be the question's and its event count the story's number of non-distractor sentences minus the placement;
    any mismatch is an error, never a silent misalignment.
    """
    records = _read_questions(text)
    if trace is None:
        return records
    lines = [ln.strip() for ln in trace.splitlines() if ln.strip()]
    if len(lines) != len(records):
        raise ValueError(f"the trace has {len(lines)} lines for {len(records)} questions")
    for i, (rec, line) in enumerate(zip(records, lines, strict=True)):
        _apply_trace(i + 1, rec, line)
    return records


def record_to_sample(record: dict[str, Any], *, relabel: bool = False) -> Sample:
    """One ToMi question as a Sample with the shared ToM metadata (id: a digest of story and question).

    `record`: `story` (a list of sentences, or one string as in the inspect-ai items), `question`, `answer`, and
    from the trace, when known, `story_type` and `tom`. The DSL tracker answers every question too:
    `tracker_answer` and `label_disputed` (the release label differs from it) are in the metadata, and with
    `relabel` the target becomes the tracker's answer (`original_answer` keeps the release's).
    """
    story_lines = record["story"]
    story = "\n".join(story_lines) if isinstance(story_lines, list) else str(story_lines).strip()
    question, target = record["question"], record["answer"]
    qtype, order = question_type(question)
    tracked = tracker_answer(story, question)
    disputed = None if tracked is None else tracked != target
    original = target
    if relabel and tracked is not None:
        target = tracked
    tom = record.get("tom")
    if tom is None and order > 0:
        where = _true_location(story)
        tom = (target != where) if where is not None else None
    metadata: dict[str, Any] = {
        "suite": "tomi",
        "question_type": qtype,
        "order": order,
        "kind": qtype,
        "false_belief": tom if order > 0 else None,
        "story_type": record.get("story_type"),
        "answer_type": "container",
        "candidates": containers(story),
        "story_id": "tomi-" + digest(story)[:10],
        "tracker_answer": tracked,
        "label_disputed": disputed,
    }
    if relabel:
        metadata |= {"original_answer": original, "relabeled": target != original}
    return tom_sample(f"tomi-{digest(story, question)[:12]}", story, question, target, metadata)


def _example_records() -> list[dict[str, Any]]:
    from inspect_ai.dataset import example_dataset

    rows = []
    for i, s in enumerate(example_dataset("theory_of_mind")):
        text = s.input if isinstance(s.input, str) else s.input[-1].text
        m = _QUESTION.search(text)
        if m is None:
            raise ValueError(f"ToMi example item {i} has no 'Where ...?' question: {text[-80:]!r}")
        target = s.target if isinstance(s.target, str) else s.target[0]
        rows.append({"story": text[: m.start()].strip(), "question": m.group(1), "answer": target})
    return rows


_EXPECTED = "ToMi's numbered story lines (fb_all_{split}.txt or the release zip)"
_EXPECTED_TRACE = "ToMi's trace lines, one per question"


def load_records(split: str, data: str | None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The split's records and their provenance: the pinned release, a local zip or `.txt` (+ `.trace` beside it)."""
    if split == "example":
        if data:
            raise OptionError("split=example reads the items shipped with inspect-ai: drop -T data, or pick a split")
        return _example_records(), {"dataset_id": "inspect_ai example_dataset('theory_of_mind')",
                                    "dataset_revision": None}
    txt_path, prov = fetch(UrlFile(TOMI_URL, TOMI_SHA256, member=f"fb_all_{split}.txt"), data, suite="ToMi",
                          offline=OFFLINE)
    trace_path: Path | None
    if data and txt_path == Path(data).expanduser():  # a local .txt: its .trace beside it, if any
        candidate = txt_path.with_suffix(".trace")
        trace_path = candidate if candidate.is_file() else None
    else:  # the release zip (downloaded or local): its trace member
        trace_path, _ = fetch(UrlFile(TOMI_URL, TOMI_SHA256, member=f"fb_all_{split}.trace"), data, suite="ToMi",
                                offline=OFFLINE)
    try:
        records = read_tomi(read_text(txt_path, what="ToMi data", expected=_EXPECTED, option="-T data=PATH"),
                           read_text(trace_path, what="ToMi trace", expected=_EXPECTED_TRACE) if trace_path else None)
    except ValueError as e:
        raise OptionError(f"cannot read ToMi data {str(txt_path)!r}: {e}") from None
    return records, prov


@task
def tomi(
    split: Literal["test", "val", "train", "example"] = "test",
    data: str | None = None,
    check: CheckMode = "strict",
    relabel: bool = False,
    cache: bool = False,
) -> Task:
    """ToMi with the ExploreToM prompt and matcher, accuracy by ToMi question type and story type.

    Args:
        split: which split of the authors' release to run: `test` (5,994 questions), `val` or `train`; or `example`,
            the 100 ToMi items that ship with inspect-ai (`example_dataset("theory_of_mind")`), offline.
        data: read this local copy instead of the pinned release (default): `tomi_balanced_story_types.zip`, or one
            `fb_all_{split}.txt` (its `.trace` is read from beside it when there; without one, samples have no story
            type); its SHA-256 is recorded, and whether it is the pinned file. Not with `split=example`.
        check: the answer test: `strict` (tombench's whole-word matcher), `substring` (the original
            `expected in response.lower()`) or `judge` (a grader model: `--model-role grader=...`, required).
        relabel: score against the DSL tracker's answers instead of the release labels (`true` or `false`; 464 of the
            1,998 second-order test labels differ: the README's Dataset section).
        cache: use Inspect's response cache for the model's calls (`true` or `false`).
    """
    relabel = check_bool("relabel", relabel)
    cache = check_bool("cache", cache)
    mode = task_check(check)
    if split not in SPLITS:
        raise OptionError(f"Invalid split value: {split!r}. Must be one of: {list(SPLITS)}")
    records, provenance = load_records(split, data)
    samples = [record_to_sample(r, relabel=relabel) for r in records]
    return Task(
        dataset=MemoryDataset(samples, name=f"tomi-{split}", location=str(provenance["dataset_id"])),
        solver=tom_solver(cache=cache),
        scorer=tom_answer(check=mode),
        metrics=tom_metrics(TOMI_DIMENSIONS),
        config=TOM_CONFIG,
        version=TASK_VERSION,
        headline_metric=HEADLINE,
        metadata=suite_metadata(
            "tomi", provenance=provenance,
            records=len(records), chance=None, check=mode, split=split, relabel=relabel,
            labels_disputed=sum(1 for s in samples if s.metadata["label_disputed"]),
        ),
    )
