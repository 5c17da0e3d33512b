"""Story contexts: the built-in bank and context files.

ExploreToM (Sclar et al., 2024, https://arxiv.org/abs/2412.12175, §2.1) samples a *context* (names, rooms, an object,
opaque containers, chit-chat topics and object-state changes) with an LLM before searching for stories. Most users
just want plausible contexts without a model key, so tombench ships a hand-written bank of them
(`tombench/data/contexts.json`), and any other list of contexts lives in a plain JSON/JSONL file that
`tombench search` and the tasks (`-T contexts=FILE`) read with `load_contexts`.

    from tombench.generators.exploretom.contexts import load_context_bank, load_contexts
    bank = load_context_bank()              # 76 validated contexts
    mine = load_contexts("my_contexts.jsonl")

This module reads and writes context files and holds the bank. What a *usable* context is beyond the DSL's own
validation is `context_checks.context_problems`; writing new contexts with an LLM is `context_generation`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Sequence
from importlib import resources
from pathlib import Path

from tombench.dsl.context import DEFAULT_CONTEXT, Context, ContextError

__all__ = [
    "BANK_RESOURCE",
    "ContextError",
    "context_by_id",
    "load_context_bank",
    "resolve_contexts",
    "load_contexts",
    "parse_contexts",
    "save_contexts",
]

#: Package-relative location of the built-in bank.
BANK_RESOURCE = "data/contexts.json"


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


def resolve_contexts(spec: str) -> list[Context]:
    """The contexts a `contexts` option names: "bank" (the built-in contexts), "default" (semantics §1's default
    names) or a JSON/JSONL file. Raises ContextError (one line) for a missing, malformed or empty file."""
    if spec == "bank":
        return load_context_bank()
    if spec == "default":
        return [DEFAULT_CONTEXT]
    if not Path(spec).exists():
        raise ContextError(f"{spec}: no such contexts file (use 'bank', 'default' or a JSON/JSONL file)")
    loaded = load_contexts(spec)
    if not loaded:
        raise ContextError(f"no contexts in {spec}")
    return loaded


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
