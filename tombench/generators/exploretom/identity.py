"""The content identity of a story: one digest that every generated-data file carries and every join uses.

Search ids (`tomi|p2|m2|r1|0`) name a setting and an attempt; they repeat across runs, methods, seeds and models, so
joining files by them drops or mislabels stories as soon as two runs are combined. A story is what the
DSL replays and labels: its actions, its context (names, rooms, containers, topics, state changes, metadata such as
personas) and the story type it was generated for. The setting's other parameters (people, important actions,
rooms) are counts of that same structure and context, so they add nothing to the identity.

    from tombench.generators.exploretom.identity import story_digest
    story_digest(story, "tomi")            # '3f0c9d2a71b4e8c5'

The digest is computed from the replayed `Story` (not from the raw JSON), so two files that spell the same story
differently (key order, whitespace, names normalised on load) agree on it, and an old file without a digest field
gets the same digest on read as a new one has written in it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from tombench.dsl import Story

__all__ = ["DIGEST_LENGTH", "story_digest", "content_key"]

#: hex characters kept (64 bits: a collision among a million stories has odds of about 1 in 10^7)
DIGEST_LENGTH = 16


def content_key(story: Story, story_type: str) -> dict[str, Any]:
    """What the digest covers: the actions, the context, and the story type (never ids, seeds or model names)."""
    d = story.to_dict()
    return {"actions": d["actions"], "context": d["context"], "story_type": story_type or "unknown"}


def story_digest(story: Story, story_type: str) -> str:
    """A stable hex digest of `content_key`: equal for the same story in any file, run, method, seed or order."""
    payload = json.dumps(content_key(story, story_type), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:DIGEST_LENGTH]
