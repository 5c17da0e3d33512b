# inspect-evals-lint: ignore-file[main_file] -- ExploreToM's four tasks, one module each with its machinery
"""ExploreToM, cross-model transfer: answer stories that were found adversarially against another model.

The paper's Table 2 asks whether stories hard for one model are hard for others. This task takes stories found by
`tombench search` (its `stories.jsonl` or its `--export-hf` folder), by the live task (its Inspect log), or from a Hub
dataset in the export's schema, and asks the model under test every question of every story. The generator model is
kept in each sample's metadata, so `tombench report transfer LOGS...` prints the generator x evaluator matrix.

    tombench search --model tombench/primacy --out runs/primacy
    inspect eval tombench/exploretom_transfer -T stories=runs/primacy/stories.jsonl --model tombench/recency
    inspect eval tombench/exploretom_transfer -T stories=logs/adversarial.eval --model openai/gpt-4o-mini
    tombench report transfer logs/
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from inspect_ai import Task, task

from tombench.dsl import Setting, Story
from tombench.kit.errors import OptionError
from tombench.kit.evals import task_data
from tombench.kit.options import check_ints
from tombench.kit.pinning import load_hub_dataset
from tombench.kit.reading import first_line, read_jsonl, require_keys
from tombench.scorers.story_questions import task_check, tom_answer
from tombench.tasks.shared.story_questions import TOM_CONFIG, story_samples, tom_solver

__all__ = ["exploretom_transfer", "load_found_stories", "FoundStory"]


#: a Hub dataset id (ORG/NAME): anything else that does not exist is a missing local path, not a Hub lookup
_HUB_ID = re.compile(r"^[\w.-]+/[\w.-]+$")


class FoundStory(dict):
    """{"id", "story": Story, "setting": Setting, "generator_model", "search_method"}: one adversarially found story."""


#: what every line of a stories.jsonl (or row of an export) must hold besides its story
STORY_KEYS = ("id", "story_type", "people", "moves", "rooms")
_WHAT = "stories"
TASK_VERSION = "0.1.0"
DATA = task_data(__file__, "exploretom_transfer")


def _setting(rec: dict[str, Any]) -> Setting:
    return Setting(rec["story_type"], int(rec["people"]), int(rec["moves"]), int(rec["rooms"]))


def _found(rec: dict[str, Any], source: str) -> FoundStory | None:
    story = rec.get("story")
    if story is None and rec.get("story_json"):
        story = json.loads(rec["story_json"])
    if story is None:
        return None
    return FoundStory(id=rec["id"], story=Story.from_dict(story), setting=_setting(rec),
                      generator_model=rec.get("model") or rec.get("generator_model") or source,
                      search_method=rec.get("method") or rec.get("search_method"))


def _from_records(records: Iterable[dict[str, Any]], source: str, unit: str = "row") -> list[FoundStory]:
    """The stories of the records (lines of a stories.jsonl, rows of an export); a record whose story does not
    replay is one line naming it."""
    out = []
    for n, rec in enumerate(records, start=1):
        require_keys(rec, STORY_KEYS, what=_WHAT, path=source, where=f"{unit} {n}")
        try:
            found = _found(rec, source)
        except (ValueError, TypeError, KeyError) as e:  # StoryError is a ValueError; json.JSONDecodeError too
            raise OptionError(f"{_WHAT} file {source!r}, {unit} {n}: its story does not load ({type(e).__name__}: "
                              f"{first_line(e)}); expected a story written by tombench search") from None
        if found is not None:
            out.append(found)
    return out


def _from_log(path: Path) -> list[FoundStory]:
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(str(path))
    except Exception as e:  # noqa: BLE001 - a truncated zip, a JSON file that is not a log: all one line
        raise OptionError(f"{_WHAT} log {str(path)!r} cannot be read ({type(e).__name__}: {first_line(e)}); expected "
                          "an Inspect log of the exploretom_adversarial task") from None
    out = []
    for s in log.samples or []:
        md = s.metadata or {}
        search = md.get("search") or {}
        if md.get("tombench_kind") != "search":
            continue
        # improved mode keeps several stories per search sample ("stories"); paper mode one ("story")
        kept = search.get("stories") or ([{"id": f"{md['setting_id']}|{md['attempt']}", "story": search["story"]}]
                                         if search.get("story") else [])
        for k in kept:
            out.append(FoundStory(id=k["id"], story=Story.from_dict(k["story"]), setting=_setting(md),
                                  generator_model=log.eval.model, search_method=search.get("method")))
    return out


def load_found_stories(stories: str, revision: str | None = None) -> list[FoundStory]:
    """Stories from a search output (.jsonl), an Inspect log (.eval/.json), an exported folder, or a Hub dataset id."""
    path = Path(stories).expanduser()
    if path.is_file() and path.suffix == ".jsonl":
        return _from_records(read_jsonl(path, what=_WHAT, option="-T stories=PATH"), str(path), "line")
    if path.is_file() and path.suffix in (".eval", ".json"):
        return _from_log(path)
    if path.is_dir() and (path / "dataset_info.json").exists():
        from datasets import load_from_disk

        return _from_records(iter(load_from_disk(str(path))), str(path))
    if path.is_dir() and (path / "stories.jsonl").exists():
        return load_found_stories(str(path / "stories.jsonl"))
    if path.exists():
        raise OptionError(f"{stories}: expected a stories.jsonl, an Inspect log, or a folder written by --export-hf")
    if not _HUB_ID.match(stories) or stories.endswith((".jsonl", ".json", ".eval")):
        raise OptionError(f"-T stories={stories}: no such file or folder (give a tombench search output, an "
                          "--export-hf folder, a live-task log, or a Hub dataset id ORG/NAME)")
    try:
        rows, _ = load_hub_dataset(stories, revision, option="-T stories=PATH")  # read at the commit it resolves to
    except OptionError as e:  # ORG/NAME may also have been meant as a local folder: say both
        raise OptionError(f"-T stories={stories}: no such local file or folder, and as a Hub dataset id: {e}") from None
    return _from_records(iter(rows), stories)


@task
def exploretom_transfer(
    stories: str = "",
    revision: str | None = None,
    question_orders: int | list[int] | str = "0,1,2",
    check: Literal["strict", "substring", "judge"] = "strict",
) -> Task:
    """Answer stories found against another model (paper Table 2).

    Args:
        stories: the stories found against another model (required): a `tombench search` output (`stories.jsonl` or
            its folder), an `--export-hf` folder, a live-task Inspect log (`.eval`), or a Hub dataset id in the
            export's schema.
        revision: the Hub revision of `stories`, a branch, tag or commit (default: `main`; pin it for reproducible
            results).
        question_orders: the ToM orders asked of every story: 0 (state tracking), 1, 2 (comma-separated).
        check: how answers are read: `strict` (tombench's whole-word matcher), `substring` (the original
            `expected in response.lower()`) or `judge` (a grader model: `--model-role grader=...`).
    """
    if not stories:
        raise OptionError("exploretom_transfer needs -T stories=PATH (a tombench search output, an --export-hf "
                         "folder, a live-task log, or a Hub dataset id)")
    mode = task_check(check)
    orders = check_ints("question_orders", question_orders, 0, 2)
    found = load_found_stories(stories, revision)
    if not found:
        raise OptionError(f"no found stories in {stories}")
    samples = []
    for f in found:
        samples += story_samples(f["story"], story_id=f["id"], setting=f["setting"], orders=orders,
                                 extra={"generator_model": f["generator_model"],
                                        "search_method": f.get("search_method")})
    return Task(
        dataset=samples,
        solver=tom_solver(cache=True),
        scorer=tom_answer(check=mode),
        config=TOM_CONFIG,
        metadata={"benchmark": "exploretom", "transfer_source": stories, "transfer_revision": revision,
                  "generator_models": sorted({f["generator_model"] for f in found})},
        version=TASK_VERSION,
    )
