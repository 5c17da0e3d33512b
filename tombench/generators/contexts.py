"""Story contexts: the built-in bank, context files, and quality checks.

ExploreToM (Sclar et al., 2024, https://arxiv.org/abs/2412.12175, §2.1) samples a *context* (names, rooms, an object,
opaque containers, chit-chat topics and object-state changes) with an LLM before searching for stories. Most users
just want plausible contexts without a model key, so tombench ships a hand-written bank of them
(`tombench/data/contexts.json`), and any other list of contexts lives in a plain JSON/JSONL file that
`tombench search` and the tasks (`-T contexts=FILE`) read with `load_contexts`.

    from tombench.generators.contexts import load_context_bank, load_contexts
    bank = load_context_bank()              # 76 validated contexts
    mine = load_contexts("my_contexts.jsonl")

`context_problems` is the one place that says what a *usable* context is beyond the DSL's own validation (counts,
sentence templates, answer phrases that cannot shadow each other); the bank tests and the LLM generator both use it.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Sequence
from importlib import resources
from pathlib import Path

from tombench.dsl.context import Context, ContextError

__all__ = [
    "BANK_RESOURCE",
    "ContextError",
    "context_by_id",
    "context_problems",
    "load_context_bank",
    "load_contexts",
    "parse_contexts",
    "save_contexts",
]

#: Package-relative location of the built-in bank.
BANK_RESOURCE = "data/contexts.json"


# ---------------------------------------------------------------------------------------------------------- quality
def _contains_phrase(haystack: str, needle: str) -> bool:
    return re.search(r"(?<![\w-])" + re.escape(needle) + r"(?![\w-])", haystack) is not None


def context_problems(
    ctx: Context,
    *,
    min_people: int = 6,
    rooms: int = 2,
    min_containers: int = 6,
    min_topics: int = 6,
    min_visible: int = 2,
    min_invisible: int = 2,
) -> list[str]:
    """What keeps a (DSL-valid) context from being a good ExploreToM context; empty when it is fine.

    Answers are matched by phrase, so no room, object or container may contain another as a whole phrase ("box" and
    "toolbox" are fine, "box" and "cardboard box" are not: the answer "cardboard box" would also match "box").
    """
    problems: list[str] = []
    if len(ctx.people) < min_people:
        problems.append(f"needs at least {min_people} people, has {len(ctx.people)}")
    if len(ctx.rooms) != rooms:
        problems.append(f"needs exactly {rooms} rooms, has {len(ctx.rooms)}")
    if len(ctx.objects) != 1:
        problems.append(f"needs exactly 1 object, has {len(ctx.objects)}")
    if len(ctx.containers) < min_containers:
        problems.append(f"needs at least {min_containers} containers, has {len(ctx.containers)}")
    if len(ctx.topics) < min_topics:
        problems.append(f"needs at least {min_topics} topics, has {len(ctx.topics)}")
    visible = sum(1 for sc in ctx.state_changes if sc.visible)
    invisible = len(ctx.state_changes) - visible
    if visible < min_visible:
        problems.append(f"needs at least {min_visible} visible state changes, has {visible}")
    if invisible < min_invisible:
        problems.append(f"needs at least {min_invisible} invisible state changes, has {invisible}")
    nouns = [*ctx.rooms, *ctx.objects, *ctx.containers]
    for a in nouns:
        for b in nouns:
            if a != b and _contains_phrase(b, a):
                problems.append(f"{a!r} is part of {b!r}: answers could not be told apart")
    for sc in ctx.state_changes:
        sentence = sc.sentence("Anne", ctx.objects[0] if ctx.objects else "object")
        if not sentence.endswith(".") or not sentence[:1].isupper() or "{" in sentence or "}" in sentence:
            problems.append(f"state-change text does not render a sentence: {sc.text!r}")
        if not re.fullmatch(r"[a-z][^{}]*[^.!?]", sc.value):
            problems.append(f"state value must read as a predicate after 'the object': {sc.value!r}")
    for t in ctx.topics:
        if re.match(r"^(the|a|an)\s", t):
            problems.append(f"topic must not start with an article: {t!r}")
    return problems


# ---------------------------------------------------------------------------------------------------------- files
def parse_contexts(text: str, *, source: str = "<string>") -> list[Context]:
    """Parse a JSON list of context objects, or JSONL (one object per line). Errors name the source and the entry."""
    stripped = text.strip()
    if not stripped:
        return []
    records: list[tuple[str, object]] = []
    if stripped.startswith("["):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as e:
            raise ContextError(f"{source}: invalid JSON at line {e.lineno}, column {e.colno}: {e.msg}") from None
        records = [(f"entry {i + 1}", rec) for i, rec in enumerate(data)]
    else:
        for lineno, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                records.append((f"line {lineno}", json.loads(line)))
            except json.JSONDecodeError as e:
                raise ContextError(f"{source}: line {lineno} is not valid JSON: {e.msg}") from None
    contexts: list[Context] = []
    for where, rec in records:
        try:
            contexts.append(Context.from_dict(rec))  # type: ignore[arg-type]
        except (ContextError, TypeError, ValueError) as e:
            ident = rec.get("id") if isinstance(rec, dict) else None
            label = f"{where} (id {ident!r})" if ident else where
            raise ContextError(f"{source}: {label}: {e}") from None
    return contexts


def load_contexts(path: str | Path) -> list[Context]:
    """Read contexts from a JSON list or a JSONL file (the format `save_contexts` and `tombench contexts` write)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ContextError(f"{p}: no such contexts file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ContextError(f"{p}: cannot read contexts file: {e}") from None
    return parse_contexts(text, source=str(p))


def save_contexts(path: str | Path, contexts: Iterable[Context]) -> None:
    """Write contexts as JSONL (`.jsonl`) or as an indented JSON list (anything else)."""
    p = Path(path)
    rows = [c.to_dict() for c in contexts]
    if p.suffix == ".jsonl":
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    else:
        text = json.dumps(rows, indent=1, ensure_ascii=False) + "\n"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


@functools.lru_cache(maxsize=1)
def _bank() -> tuple[Context, ...]:
    text = resources.files("tombench").joinpath(BANK_RESOURCE).read_text(encoding="utf-8")
    return tuple(parse_contexts(text, source=f"tombench/{BANK_RESOURCE}"))


def load_context_bank() -> list[Context]:
    """The built-in, hand-written contexts (validated once, then cached; contexts are immutable)."""
    return list(_bank())


def context_by_id(contexts: Sequence[Context], ident: str) -> Context:
    """The context with this id, or a ContextError listing a few valid ids."""
    for c in contexts:
        if c.id == ident:
            return c
    some = ", ".join(c.id for c in contexts[:5])
    raise ContextError(f"no context with id {ident!r} (e.g. {some}, ...)")
