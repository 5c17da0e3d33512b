"""The model's answers to the context prompts (App. C.1, `context_prompts`), read into plain values: a context's
fields, state-change candidates, and numbered lists. A reply that cannot be read raises `MalformedOutput`."""

from __future__ import annotations

import re

from tombench.dsl.context import normalise_noun
from tombench.kit.calls import MalformedOutput
from tombench.kit.replies import find_json


def extract_json(text: str, kind: type[dict] | type[list]) -> dict | list:
    """The first JSON object (or list) in a model answer, ignoring prose and code fences around it."""
    value = find_json(text, kind, fenced_first=False)
    if value is None:
        raise MalformedOutput(f"no JSON {kind.__name__} in the answer")
    return value


def _str(d: dict, key: str) -> str:
    v = d.get(key)
    if not isinstance(v, str) or not v.strip():
        raise MalformedOutput(f"missing or empty field {key!r}")
    return " ".join(v.split())


def _str_list(d: dict, key: str) -> list[str]:
    v = d.get(key)
    if not isinstance(v, list) or not v or not all(isinstance(x, str) and x.strip() for x in v):
        raise MalformedOutput(f"field {key!r} must be a non-empty list of strings")
    return [" ".join(x.split()) for x in v]


def _person_name(entry: str) -> str:
    name = re.split(r"[,(:]| - | – ", entry, maxsplit=1)[0].strip().rstrip(".")
    if not re.fullmatch(r"[A-Z][A-Za-z'\-]*", name):
        raise MalformedOutput(f"person {entry!r} does not start with a single capitalised first name")
    return name


def _persona(entry: str, name: str) -> str:
    """The description after the name in "Emily, a meticulous office manager." ("" when there is none or it holds
    template braces): kept so the infilling prompts can say who the characters are (Fig. 10-12)."""
    rest = entry.strip()[len(name) :].strip().lstrip(",:(–-").strip().rstrip(").").strip()
    return "" if "{" in rest or "}" in rest else " ".join(rest.split())


def _noun(text: str) -> str:
    return normalise_noun(text.strip().rstrip("."))


def parse_context_answer(text: str) -> dict:
    """The Fig. 7 answer as a context dict without state changes (people, rooms, objects, containers, topics)."""
    d = extract_json(text, dict)
    assert isinstance(d, dict)
    entries = _str_list(d, "people")
    people = [_person_name(p) for p in entries]
    personas = {n: desc for n, e in zip(people, entries, strict=True) if (desc := _persona(e, n))}
    rooms = [_noun(_str(d, "room")), _noun(_str(d, "alternative_room"))]
    return {
        "setting": _str(d, "story_context"),
        "people": people,
        "rooms": rooms,
        "objects": [_noun(_str(d, "object"))],
        "containers": [_noun(c) for c in _str_list(d, "containers")],
        "topics": [_noun(t) for t in _str_list(d, "topics")],
        "personas": personas,
    }


#: Property names the DSL uses for locations and knowledge; a state change may not reuse them.
_RESERVED_PROPERTIES = frozenset({"room", "container", "topic", "topics"})


def parse_state_change_candidates(text: str, obj: str) -> list[dict]:
    """Candidate changes as {property, value, text} (visibility is the judge's call). Bad elements are dropped."""
    items = extract_json(text, list)
    out: list[dict] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        try:
            sentence, prop, state = _str(item, "sentence"), _str(item, "property"), _str(item, "resulting_state")
        except MalformedOutput:
            continue
        sentence = sentence.replace(f"the {obj}", "the {object}") if "{object}" not in sentence else sentence
        if "{person}" not in sentence or "{object}" not in sentence or re.search(r"\{(?!person\}|object\})", sentence):
            continue
        if not sentence.endswith("."):
            sentence += "."
        state = state.rstrip(".").strip()
        for prefix in (f"the {obj} ", "the {object} ", "it "):
            if state.lower().startswith(prefix.lower()):
                state = state[len(prefix) :]
        prop = normalise_noun(prop)
        if not re.fullmatch(r"[a-z][^{}]*", state) or prop in _RESERVED_PROPERTIES:
            continue
        out.append({"property": prop, "value": state, "text": sentence})
    if not out:
        raise MalformedOutput("no usable state change in the answer")
    return out


def parse_list(text: str) -> list[str]:
    """A numbered or bulleted list (Fig. 8 answers), one item a line, markers stripped."""
    items = []
    for line in text.splitlines():
        item = re.sub(r"^\s*(\d+[.)]|[-*•])\s*", "", line).strip().rstrip(".")
        if item and len(item) <= 80:
            items.append(item)
    return items
