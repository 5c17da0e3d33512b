"""What a *usable* story context is, beyond the DSL's own validation: enough people, rooms, containers and topics,
sentence templates that read well, and answer phrases that cannot shadow each other. The bank tests and the LLM
generator (`context_generation`) both ask `context_problems`."""

from __future__ import annotations

import re

from tombench.dsl.context import Context


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
    return [
        *_count_problems(
            ctx, min_people=min_people, rooms=rooms, min_containers=min_containers, min_topics=min_topics
        ),
        *_visibility_problems(ctx, min_visible=min_visible, min_invisible=min_invisible),
        *_shadowing_problems(ctx),
        *_state_change_text_problems(ctx),
        *_topic_problems(ctx),
    ]


def _count_problems(ctx: Context, *, min_people: int, rooms: int, min_containers: int, min_topics: int) -> list[str]:
    """Enough people, containers and topics for the searches to vary stories; the two rooms and the one object the
    ExploreToM story types are written for."""
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
    return problems


def _visibility_problems(ctx: Context, *, min_visible: int, min_invisible: int) -> list[str]:
    """Both kinds of state change: visible ones make true beliefs after a glance, invisible ones false beliefs."""
    visible = sum(1 for sc in ctx.state_changes if sc.visible)
    invisible = len(ctx.state_changes) - visible
    problems: list[str] = []
    if visible < min_visible:
        problems.append(f"needs at least {min_visible} visible state changes, has {visible}")
    if invisible < min_invisible:
        problems.append(f"needs at least {min_invisible} invisible state changes, has {invisible}")
    return problems


def _shadowing_problems(ctx: Context) -> list[str]:
    """Answers are matched by phrase, so one noun inside another would let a wrong answer match a right one."""
    nouns = [*ctx.rooms, *ctx.objects, *ctx.containers]
    return [
        f"{a!r} is part of {b!r}: answers could not be told apart"
        for a in nouns
        for b in nouns
        if a != b and _contains_phrase(b, a)
    ]


def _state_change_text_problems(ctx: Context) -> list[str]:
    """Each state change must render a sentence and a predicate ("the object <value>"), since stories and
    questions are made from them verbatim."""
    problems: list[str] = []
    for sc in ctx.state_changes:
        sentence = sc.sentence("Anne", ctx.objects[0] if ctx.objects else "object")
        if not sentence.endswith(".") or not sentence[:1].isupper() or "{" in sentence or "}" in sentence:
            problems.append(f"state-change text does not render a sentence: {sc.text!r}")
        if not re.fullmatch(r"[a-z][^{}]*[^.!?]", sc.value):
            problems.append(f"state value must read as a predicate after 'the object': {sc.value!r}")
    return problems


def _topic_problems(ctx: Context) -> list[str]:
    """Topics follow "talked about the", so one starting with an article would read "the the"."""
    return [f"topic must not start with an article: {t!r}" for t in ctx.topics if re.match(r"^(the|a|an)\s", t)]
