"""Sentence templates (semantics §3, §4). These strings are the benchmark's format: byte-exact by contract."""

from __future__ import annotations

from collections.abc import Sequence

from tombench.dsl.actions import Fact

__all__ = [
    "join_names",
    "modifier_sentence",
    "fact_clause",
    "PEEK_TEMPLATE",
    "DISTRACTED_CLAUSE",
    "WHILE_PREFIX",
]

WHILE_PREFIX = "While this action was happening, "
PEEK_TEMPLATE = "{K} witnessed this action in secret (and only this action)"
DISTRACTED_CLAUSE = (
    "{D} got distracted and did not realize what happened, without anyone noticing the brief lack of attention, "
    "and going back to paying attention immediately after the action was finished"
)


def join_names(names: Sequence[str]) -> str:
    """"A", "A and B", "A, B, and C"."""
    if len(names) == 1:
        return names[0]
    if len(names) == 2:
        return f"{names[0]} and {names[1]}"
    return ", ".join(names[:-1]) + ", and " + names[-1]


def modifier_sentence(peekers: Sequence[str], distracted: Sequence[str]) -> str | None:
    """The separate sentence that follows a modified action, or None when there is no modifier."""
    if peekers and distracted:
        return (
            WHILE_PREFIX
            + PEEK_TEMPLATE.format(K=join_names(peekers))
            + "; also, "
            + DISTRACTED_CLAUSE.format(D=join_names(distracted))
            + "."
        )
    if peekers:
        return WHILE_PREFIX + PEEK_TEMPLATE.format(K=join_names(peekers)) + "."
    if distracted:
        return WHILE_PREFIX + DISTRACTED_CLAUSE.format(D=join_names(distracted)) + "."
    return None


def fact_clause(fact: Fact, is_person: bool) -> str:
    """`{e} is in the {v}` for a person, `the {e} is in the {v}` otherwise."""
    if is_person:
        return f"{fact.entity} is in the {fact.value}"
    return f"the {fact.entity} is in the {fact.value}"
