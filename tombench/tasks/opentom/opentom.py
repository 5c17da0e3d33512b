"""OpenToM (Xu et al., 2024): 13,708 questions on 596 stories, macro-F1 per question genre.

Paper: Xu, Zhao, Zhu, Du and He, "OpenToM: A Comprehensive Benchmark for Evaluating Theory-of-Mind Reasoning
Capabilities of Large Language Models" (ACL 2024, https://arxiv.org/abs/2402.06044). Data: the authors' per-genre
files (`opentom_data/`), which carry the fine-location label fix of February 2025; the long-narrative variant
(OpenToM-L, 100 stories, 2,300 questions) with `-T narrative=long`.

    inspect eval tombench/opentom --model openai/gpt-4o-mini
    inspect eval tombench/opentom -T data=path/to/opentom_data --model tombench/recency
    inspect eval tombench/opentom -T genre=attitude,loc_fine_fo -T narrative=long --model ...

Each question is asked with the paper's vanilla prompt for its genre (the authors' system message "You are an
expert in modeling other's mental state.", then one user message, "Read and comprehend the following short story.
Then, answer the question that follows.", the story, the question and the genre's answer instruction). Per genre
(`loc_coarse_fo` ... `attitude`, the paper's Table 3 cells) the response is read as the authors' evaluator reads it
and scored with their macro-F1 (`tombench.scorers.suites.opentom.paper_reading`); the headline `macro_f1` is the
mean of those cells. Accuracy and `strict_f1` use our stricter whole-word reading (`read_label`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.solver import generate, system_message

from tombench.kit.errors import OptionError
from tombench.kit.evals import task_data
from tombench.kit.pinning import UrlFile, fetch_files
from tombench.kit.reading import problem, read_json
from tombench.scorers.suites.opentom import GENRE_LABELS, GENRES, read_label
from tombench.tasks.shared.suite import one_of, suite_metadata

__all__ = [
    "FILES",
    "GENRE_FILES",
    "GENRES",
    "LICENSE",
    "PAPER_ITEMS",
    "SYSTEM_PROMPT",
    "OpenToMQuestion",
    "build_prompt",
    "iter_questions",
    "load",
    "opentom",
    "record_to_sample",
]

TASK_VERSION = "1.1.0"

#: The authors' GitHub repository at the commit that fixed the fine-location labels (2 Feb 2025); the Hub copy
#: (`SeacowX/OpenToM`, commit 552b91a of the same day) holds the same files, but its full commit sha could not be
#: resolved here, so the files are pinned by SHA-256 (computed on the real files, 2026-11).
RELEASE = "github.com/seacowx/OpenToM@3f22b66276b2d7ca5fe573c28c79cc0d077aafc5"
_RAW = "https://raw.githubusercontent.com/seacowx/OpenToM/3f22b66276b2d7ca5fe573c28c79cc0d077aafc5/data/opentom_data/"
_SHA256 = {
    "attitude.json": "8c1d0cdd68d60ea6534700ae3d67436fb9a5b6c9cfab84c0d70185c9222e4047",
    "location_cg_fo.json": "4486b3a7dcc029c3e2c05a242d9e6f2e8175a08590253c4ebecc228fe4b394da",
    "location_cg_so.json": "ef3a711096b660a3a23bf9103d1a2b9babf9b57ed516f233d46f65fd8079f2b3",
    "location_fg_fo_new.json": "957b153a8dd55aa1495a82bda59397004bbf83c87c1039bd917ee6d02f7f29c2",
    "location_fg_so_new.json": "cddb5437c2697be99ce3642240b96af513f69ee06be7fe975b5ce02f8bfcfeb8",
    "multihop_fo.json": "fcd394c8aa4d080d0d5a8298dd62504dea7435935db7c7887792cd623f6dc121",
    "multihop_so.json": "f7fdc822dc5cc806b07735013a89a2e1879484010661523defbdcd8ef13d9561",
    "meta_data.json": "db3a568059c665fcf924f67af00d77bcce8a6a587b034fa0476b954a66e259c8",
    "meta_data_long.json": "6008fed8ef8f195a20a239356425278d50a7e2a54cab6b4685730c2140f199d4",
}
FILES: dict[str, UrlFile] = {name: UrlFile(url=_RAW + name, sha256=sha) for name, sha in _SHA256.items()}
#: Questions the paper and card report: 596 stories x 23 (OpenToM), 100 long stories x 23 (OpenToM-L).
PAPER_ITEMS = {"normal": 13708, "long": 2300}
DATA = task_data(__file__, "opentom", FILES)
LICENSE = DATA.license  # eval.yaml's, the one place it is written
#: The paper's decoding for its GPT runs (`src/inference/gpt_inference.py`): temperature 0, top_p 0.95, 1024 tokens.
CONFIG = GenerateConfig(temperature=0.0, top_p=0.95, max_tokens=1024)
DIMENSIONS: tuple[str, ...] = ("genre", "order", "topic", "perspective")
#: The system message of the authors' chat-model path (`src/utils/load_baseline_model.py`: GPT and Llama-2-Chat get
#: it as `chatgpt_prefix`; only their Mixtral path, a model without a system role, goes without).
SYSTEM_PROMPT = "You are an expert in modeling other's mental state."

#: Each genre's question file in the authors' `opentom_data/` folder (the first name that exists is read: the
#: February 2025 fix renamed the fine-location files to `*_new.json`).
GENRE_FILES: dict[str, tuple[str, ...]] = {
    "loc_coarse_fo": ("location_cg_fo.json",),
    "loc_coarse_so": ("location_cg_so.json",),
    "loc_fine_fo": ("location_fg_fo_new.json", "location_fg_fo.json"),
    "loc_fine_so": ("location_fg_so_new.json", "location_fg_so.json"),
    "multihop_fo": ("multihop_fo.json",),
    "multihop_so": ("multihop_so.json",),
    "attitude": ("attitude.json",),
}
#: The story metadata (plot, plot_info, narrative, ...): `meta_data.json` on GitHub, `metadata.json` on the Hub.
METADATA_FILES: dict[str, tuple[str, ...]] = {
    "normal": ("meta_data.json", "metadata.json"),
    "long": ("meta_data_long.json", "metadata_long.json"),
}
_ALIASES = {names[0]: names[1:] for names in METADATA_FILES.values()}

_INTRO = "Read and comprehend the following short story. Then, answer the question that follows."
_NO_EXPLANATION = "Answer the question without any explanation."
#: The answer instruction the paper's prompt builder (`src/utils/build_prompt.py`) adds for each genre.
_COARSE = 'Answer the question with "Yes" or "No". Do not give any explanation.'
_FULLNESS = 'Answer with "more full", "equally full", or "less full".'
_ACCESSIBILITY = 'Answer with "more accessible", "equally accessible", or "less accessible".'
_ATTITUDE = 'Answer with "positive", "neutral", or "negative". Answer without any explanation.'


@dataclass(frozen=True)
class OpenToMQuestion:
    """One question of one story, with what the prompt and the matcher need from the story's metadata."""

    story_key: str
    genre: str
    question: str
    answer: str
    narrative: str
    mover: str
    observer: str
    original_place: str
    move_to_place: str


def topic(question: str) -> str | None:
    """`fullness` or `accessibility` for a multihop question (from its wording), else None."""
    text = question.lower()
    if "fullness" in text:
        return "fullness"
    if "accessibility" in text:
        return "accessibility"
    return None


def build_prompt(genre: str, narrative: str, question: str) -> str:
    """The paper's vanilla prompt for one question (`chatgpt_*.txt` templates plus the builder's instructions)."""
    if genre.startswith("loc_coarse"):
        asked = f"{question} {_COARSE}"
    elif genre.startswith("loc_fine"):
        asked = f"{question} {_NO_EXPLANATION}"
    elif genre.startswith("multihop"):
        options = _FULLNESS if topic(question) == "fullness" else _ACCESSIBILITY
        asked = f"{question} {options} {_NO_EXPLANATION}"
    elif genre == "attitude":
        # the builder turns "..., assuming that you observed the action?" into the question it asks
        asked = f"{question.split('?')[0].strip()}, assuming that you observed the action? {_ATTITUDE}"
    else:
        raise ValueError(f"unknown OpenToM genre {genre!r}")
    return f"{_INTRO}\n\n{narrative.strip()}\n\nQuestion: {asked}"


def _perspective(question: str, mover: str, observer: str) -> str:
    """Whose perspective the question takes ("From Amir's perspective, ..."): mover, observer or narrator."""
    head = question.split(",")[0]
    if head.startswith(f"From {mover}'s"):
        return "mover"
    if head.startswith(f"From {observer}'s") or head.startswith(f"As {observer}"):
        return "observer"
    return "narrator" if "narrator" in head else "other"


def record_to_sample(q: OpenToMQuestion) -> Sample:
    """One OpenToM question as a Sample: the vanilla prompt, the gold class label and the breakdown metadata.

    The sample id is a digest of the story key, genre and question text (stable across file order).
    """
    qtopic = topic(q.question) if q.genre.startswith("multihop") else None
    gold = read_label(
        q.genre, q.answer, original_place=q.original_place, move_to_place=q.move_to_place, topic=qtopic or ""
    )
    if gold is None:
        raise ValueError(f"OpenToM story {q.story_key}: cannot read gold answer {q.answer!r} for {q.question!r}")
    digest = hashlib.sha256(f"{q.story_key}\n{q.genre}\n{q.question}".encode()).hexdigest()[:12]
    order = "second" if q.genre.endswith("_so") else "first" if q.genre.endswith("_fo") else None
    return Sample(
        id=f"opentom-{q.story_key}-{digest}",
        input=build_prompt(q.genre, q.narrative, q.question),
        target=q.answer,
        metadata={
            "genre": q.genre,
            "order": order,
            "topic": qtopic,
            "perspective": _perspective(q.question, q.mover, q.observer),
            "label": gold,
            "labels": list(GENRE_LABELS[q.genre]),
            # answers the prompt offers (2: Yes/No, 3: the multihop and attitude words); None: fine location is free
            "k": None if q.genre.startswith("loc_fine") else 2 if q.genre.startswith("loc_coarse") else 3,
            "story_key": q.story_key,
            "question": q.question,
            "original_place": q.original_place,
            "move_to_place": q.move_to_place,
        },
    )


def iter_questions(
    metadata: Mapping[str, Mapping[str, Any]],
    genre_records: Mapping[str, Mapping[str, list[Mapping[str, Any]]]],
    *,
    narrative: str = "normal",
) -> Iterator[OpenToMQuestion]:
    """Join each genre file's questions to their story by the story key (the files' shared content id)."""
    text_key = "long_narrative" if narrative == "long" else "narrative"
    for genre in GENRES:
        for key, questions in genre_records.get(genre, {}).items():
            story = metadata.get(key)
            if story is None:
                continue  # the long variant's metadata holds 100 of the 596 stories
            info = story["plot_info"]
            for q in questions:
                yield OpenToMQuestion(
                    story_key=str(key),
                    genre=genre,
                    question=str(q["question"]).strip(),
                    answer=str(q["answer"]).strip(),
                    narrative=str(story[text_key]),
                    mover=str(info["mover"]),
                    observer=str(info["observer"]),
                    original_place=str(info["original_place"]),
                    move_to_place=str(info["move_to_place"]),
                )


def _json_object(path: Any, expected: str) -> dict[str, Any]:
    value = read_json(path, what="OpenToM data", expected=expected)
    if not isinstance(value, dict):
        raise OptionError(f"OpenToM data file {str(path)!r}: a JSON {type(value).__name__}; expected {expected}")
    return value


def load(data: str | None, narrative: str) -> tuple[list[OpenToMQuestion], dict[str, Any]]:
    """Every question of the pinned release (or of the local folder `data`) and the provenance of the files read."""
    wanted = [names[0] for names in GENRE_FILES.values()] + [METADATA_FILES[narrative][0]]
    paths, provenance = fetch_files(
        {n: FILES[n] for n in wanted}, data, suite="OpenToM", release=RELEASE, aliases=_ALIASES
    )
    meta_path = paths[METADATA_FILES[narrative][0]]
    metadata = _json_object(meta_path, "OpenToM's narrative metadata (a JSON object)")
    records = {g: _json_object(paths[names[0]], "an OpenToM genre file (a JSON object)") for g, names in GENRE_FILES.items()}
    try:
        return list(iter_questions(metadata, records, narrative=narrative)), provenance
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise OptionError(f"OpenToM data {data or RELEASE!r}: {problem(e)}; expected the released layout of every "
                          "genre file and its metadata") from None


@task
def opentom(
    data: str | None = None,
    narrative: str = "normal",
    genre: str | list[str] | None = None,
) -> Task:
    """OpenToM with the paper's vanilla prompts; headline macro-F1 per genre.

    Args:
        data: read this local copy of the authors' `data/opentom_data/` folder instead of the pinned release (default):
            the seven genre files under their names at the pinned commit (`location_cg_fo.json`, `location_cg_so.json`,
            `location_fg_fo_new.json`, `location_fg_so_new.json`, `multihop_fo.json`, `multihop_so.json`,
            `attitude.json`) and `meta_data.json` (or the Hub's `metadata.json`; `meta_data_long.json` for the long
            stories); each file's SHA-256 is recorded, and whether the set is the pinned one.
        narrative: `normal` (the 596 stories, 13,708 questions) or `long` (OpenToM-L's 100 long narratives of the same
            plots, 2,300 questions).
        genre: keep questions of these genres (the paper's Table 3 cells; `_fo` first order, `_so` second order):
            `loc_coarse_fo`, `loc_coarse_so`, `loc_fine_fo`, `loc_fine_so`, `multihop_fo`, `multihop_so`, `attitude`
            (comma-separated or repeated; default: all seven).
    """
    from tombench.scorers.suites.choice import suite_metrics
    from tombench.scorers.suites.opentom import opentom_answer, opentom_f1, unreadable

    (narrative,) = one_of("narrative", narrative, ("normal", "long")) or ["normal"]
    genres = one_of("genre", genre, GENRES)
    questions, provenance = load(data, narrative)
    records = len(questions)
    if genres:
        questions = [q for q in questions if q.genre in genres]
    samples = [record_to_sample(q) for q in questions]
    return Task(
        dataset=MemoryDataset(samples, name=f"opentom-{narrative}", location=provenance["dataset_id"]),
        solver=[system_message(SYSTEM_PROMPT), generate()],
        scorer=opentom_answer(),
        metrics=[*suite_metrics(DIMENSIONS), opentom_f1(), unreadable()],
        config=CONFIG,
        version=TASK_VERSION,
        metadata=suite_metadata(
            "opentom",
            provenance=provenance,
            records=records,
            chance=None,
            paper_items=PAPER_ITEMS[narrative],
            narrative=narrative,
            genres=genres,
            license=LICENSE,
        ),
    )
