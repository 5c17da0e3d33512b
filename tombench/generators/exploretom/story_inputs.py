"""The stories an infill or an export reads: search results, infill outputs or plain `Story.to_dict()` lines, each
known by its content digest (`tombench.generators.exploretom.identity`), so merged runs join by story, never by a
search id.

Inputs may also be a `tombench search --out` folder (its `stories.jsonl`), a live adversarial task's Inspect log
(the stories its searches kept), or a folder of such logs: the N shards of a run (`--shard`, `-T shard=`) are read
together, and a story given twice is one story.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tombench.dsl import Story, StoryError
from tombench.generators.exploretom.identity import story_digest
from tombench.kit.errors import OptionError
from tombench.kit.logs import LOG_SUFFIXES, UnreadableLog, log_paths, read_log
from tombench.kit.reading import read_text

__all__ = ["InfillError", "NotAdversarialLog", "StoryInput", "expand_story_paths", "load_story_inputs", "story_type_and_setting"]


_EXPECTED = "one story per line as JSON (tombench search's stories.jsonl, an infill output, or Story.to_dict() lines)"


class InfillError(ValueError):
    """An input file that cannot be read as stories (the message names the file and the line)."""


class NotAdversarialLog(InfillError):
    """A readable Inspect log of another task: no stories to read. Named as an input it is an error; found in a
    folder (an `inspect eval-set` folder holds every task's log) it is skipped with one line."""


@dataclass(frozen=True)
class StoryInput:
    """One story to infill or export, with what the input line said about it."""

    id: str
    story: Story
    story_type: str = "unknown"
    setting: str = ""
    #: the input record itself (an infill output line keeps its infilled text here)
    record: dict[str, Any] = field(default_factory=dict, compare=False)
    #: the content identity (`tombench.generators.exploretom.identity.story_digest`): what every join and resume uses
    digest: str = ""

    def __post_init__(self) -> None:
        if not self.digest:
            object.__setattr__(self, "digest", story_digest(self.story, self.story_type))


def story_type_and_setting(rec: dict[str, Any]) -> tuple[str, str]:
    """A line's story type and setting id; lines written before `story_type` existed carry the type as the first
    field of their setting id ("tomi|p2|m2|r1"), so the digest computed from it is the same either way."""
    setting = next((rec[k] for k in ("setting", "setting_id") if isinstance(rec.get(k), str) and rec[k]), "")
    st = rec.get("story_type")
    if isinstance(st, str) and st:
        return st, setting or ""
    return (setting.split("|")[0] if setting else "unknown"), setting or ""


def expand_story_paths(paths: Iterable[str | Path], on_skip: Callable[[str], None] = lambda line: None) -> list[Path]:
    """The files behind the inputs: a search output folder is its `stories.jsonl`, another folder the Inspect logs
    in it (`kit.logs.log_paths`: an `inspect eval-set` folder's bookkeeping is left out with one line through
    `on_skip`); files as given. The same file named twice (a folder and its `stories.jsonl`) is read once."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = [p / "stories.jsonl"] if (p / "stories.jsonl").is_file() else log_paths([p], on_skip)
            if not found:
                raise InfillError(f"{p}: no stories.jsonl (a tombench search --out folder) and no Inspect logs")
            out += found
        else:
            out.append(p)
    unique: dict[Path, Path] = {}
    for p in out:
        unique.setdefault(p.resolve(), p)
    return list(unique.values())


def _kept_stories(sample: Any) -> list[dict[str, Any]]:
    """The story records a search sample kept: improved mode lists them, paper mode has at most one."""
    md = sample.metadata or {}
    found = md.get("search") or {}
    kept = found.get("stories") or ([{"id": f"{md.get('setting_id')}|{md.get('attempt')}", "story": found["story"]}]
                                    if found.get("story") else [])
    return [{"id": k.get("id"), "story": k["story"], "story_type": md.get("story_type"),
             "setting_id": md.get("setting_id")} for k in kept]


def _log_story_inputs(path: Path) -> list[StoryInput]:
    """The stories a live adversarial log's searches kept (its search samples' `search` metadata)."""
    try:
        log = read_log(path, exclude_fields={"messages", "events", "store"})
    except UnreadableLog as e:
        raise InfillError(str(e)) from None
    searches = [s for s in log.samples or [] if (s.metadata or {}).get("tombench_kind") == "search"]
    if not searches:
        raise NotAdversarialLog(f"{path}: not a live adversarial log (tombench/exploretom_adversarial): "
                                "no search samples")
    items = (_story_input(rec, f"{path}:{s.id}") for s in searches for rec in _kept_stories(s))
    return [it for it in items if it is not None]


def load_story_inputs(path: str | Path) -> tuple[list[StoryInput], int]:
    """Stories from a JSONL file: search results (`{"story": ...}`), infill outputs, or plain `Story.to_dict()` lines.

    Returns the stories and the number of lines without one (a search that found nothing writes `"story": null`).
    Anything else that does not load raises `InfillError` naming the line, because silently dropping a story would
    skew every rate computed downstream. Every story gets its content digest from what the line holds (files written
    before the `digest` field existed load the same); a line whose stored digest disagrees with its own story is an
    error, since joining by it would attach text or labels to another story.
    """
    path = Path(path)
    if path.suffix in LOG_SUFFIXES and path.is_file():
        return _log_story_inputs(path), 0
    try:  # the kit's strict reader: a missing, empty, binary or non-UTF-8 file is one line naming it
        text = read_text(path, what="stories", expected=_EXPECTED)
    except OptionError as e:
        raise InfillError(str(e)) from None
    out: list[StoryInput] = []
    empty = 0
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        item = _story_input(_json_object(line, f"{path}:{lineno}"), f"{path}:{lineno}")
        if item is None:
            empty += 1
        else:
            out.append(item)
    return out, empty


def _json_object(line: str, where: str) -> dict[str, Any]:
    """One JSONL line as an object, or an `InfillError` naming `where` (file:line)."""
    try:
        rec = json.loads(line)
    except json.JSONDecodeError as e:
        raise InfillError(f"{where}: invalid JSON ({e.msg})") from None
    if not isinstance(rec, dict):
        raise InfillError(f"{where}: expected a JSON object")
    return rec


def _story_data(rec: dict[str, Any], where: str) -> dict[str, Any] | None:
    """The story a line holds: its `story` (None for a search that found nothing) or the line itself (a plain
    `Story.to_dict()` line)."""
    if "story" in rec:
        data = rec["story"]
        if data is None:
            return None
    elif "actions" in rec:
        data = rec
    else:
        raise InfillError(f"{where}: no 'story' key and not a story (no 'actions')")
    if not isinstance(data, dict):
        raise InfillError(f"{where}: 'story' must be an object")
    return data


def _story_input(rec: dict[str, Any], where: str) -> StoryInput | None:
    """The story of one input line with its content digest, checked against the digest the line stores."""
    data = _story_data(rec, where)
    if data is None:
        return None
    try:
        story = Story.from_dict(data)
    except StoryError as e:
        raise InfillError(f"{where}: {e}") from None
    st, setting = story_type_and_setting(rec)
    digest = story_digest(story, st)
    stored = rec.get("digest") if "story" in rec else None
    if stored is not None and stored != digest:
        raise InfillError(f"{where}: stored digest {stored!r} does not match its story ({digest})")
    sid = rec.get("id") if isinstance(rec.get("id"), str) and rec.get("id") else digest
    return StoryInput(id=sid, story=story, story_type=st, setting=setting, record=rec, digest=digest)
