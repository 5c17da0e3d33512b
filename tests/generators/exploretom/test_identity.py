"""Story content identity (issue #17): the digest is written by the search runner, recomputed identically on read,
independent of ids, methods and file order, and used by the runner's resume."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tombench.dsl import DEFAULT_CONTEXT, Setting, Story, parse_structure
from tombench.generators.exploretom.identity import story_digest
from tombench.generators.exploretom.search.astar import AStar
from tombench.generators.exploretom.search.runner import RunConfig, read_jsonl, run_searches
from tombench.generators.exploretom.story_inputs import load_story_inputs

TEXT = "Anne entered the kitchen. Beth entered the kitchen. Anne moved the apple to the box, which is also located in the kitchen."


def test_digest_is_content_only() -> None:
    s = parse_structure(TEXT)
    again = Story.from_dict(json.loads(json.dumps(s.to_dict())))
    assert story_digest(s, "tomi") == story_digest(again, "tomi")
    assert story_digest(s, "tomi") != story_digest(s, "tomi+room-changes")  # the setting's story type counts
    other = parse_structure(TEXT.replace("box", "basket"))
    assert story_digest(s, "tomi") != story_digest(other, "tomi")


def _answer(prompts):  # every answer wrong: every search finds a story at once
    async def go(ps):
        return ["nowhere"] * len(ps)

    return go(prompts)


def test_search_records_carry_the_digest_and_old_lines_get_the_same_one(tmp_path: Path) -> None:
    run = RunConfig(stories_per_setting=2, budget_per_story=6, seed=1, search=AStar(budget=6), model="fake")
    out = tmp_path / "run"
    asyncio.run(run_searches([Setting.make("tomi", 2, 2)], [DEFAULT_CONTEXT], _answer, run, out))
    recs = read_jsonl(out / "stories.jsonl")
    assert recs and all(r["digest"] == story_digest(Story.from_dict(r["story"]), r["story_type"]) for r in recs)
    old = tmp_path / "old.jsonl"  # written before the field existed
    old.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "digest"}) + "\n" for r in recs))
    new_items, _ = load_story_inputs(out / "stories.jsonl")
    old_items, _ = load_story_inputs(old)
    assert [i.digest for i in new_items] == [i.digest for i in old_items] == [r["digest"] for r in recs]


def test_runner_resume_is_by_digest(tmp_path: Path) -> None:
    """A kill between a story line and its attempt line: the re-run writes no story twice (lines from before the
    digest field included)."""
    run = RunConfig(stories_per_setting=2, budget_per_story=6, seed=1, search=AStar(budget=6), model="fake")
    out = tmp_path / "run"
    settings = [Setting.make("tomi", 2, 2)]
    asyncio.run(run_searches(settings, [DEFAULT_CONTEXT], _answer, run, out))
    stories = read_jsonl(out / "stories.jsonl")
    (out / "attempts.jsonl").write_text("")  # as if killed before any attempt line was written
    (out / "stories.jsonl").write_text(
        "".join(json.dumps({k: v for k, v in r.items() if k != "digest"}) + "\n" for r in stories)
    )
    asyncio.run(run_searches(settings, [DEFAULT_CONTEXT], _answer, run, out))
    again = read_jsonl(out / "stories.jsonl")
    digests = [r.get("digest") or story_digest(Story.from_dict(r["story"]), r["story_type"]) for r in again]
    assert len(digests) == len(set(digests)) == len({r["digest"] for r in stories})
