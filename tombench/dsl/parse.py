"""Parsing rendered story structures back into actions (`parse_structure`).

The parser reads the exact templates of the semantics document (the format of the public ExploreToM data), replays
the actions through the tracker, and checks that every sentence re-renders byte-identically. A sentence that is not
a template sentence, or that describes an impossible action, raises `StoryParseError` naming it. Free-text
object-state sentences are matched against the state-change templates of a supplied context.

ToMi stories (Le et al. 2019: "Aria entered the front_yard.", "The grapefruit is in the green_bucket.", "Aria moved
the grapefruit to the blue_container.", "Aiden exited the front_yard.", and distractors such as "Owen likes the
peas" without a full stop) are read by the `tomi` dialect, chosen automatically when a story uses one of those
forms. Its sentences become the same DSL actions (enter, leave, move to a container; the placement "The O is in the
C." is a move by someone in the room, which every person there witnesses, exactly as ToMi's oracle updates its
observers), distractors change nothing, and the context is marked `open_containers` (ToMi's world: whoever enters a
room sees what its containers hold). The replayed `Story` renders in the ExploreToM templates.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Literal

from tombench.dsl.actions import (
    Action,
    EnterRoom,
    Fact,
    LeaveRoom,
    MoveObjectContainer,
    MoveObjectRoom,
    TellPrivate,
    TellPublic,
    UpdateObjectState,
)
from tombench.dsl.context import Context, ContextError, StateChange
from tombench.dsl.render import DISTRACTED_CLAUSE, PEEK_TEMPLATE, WHILE_PREFIX
from tombench.dsl.story import Story

__all__ = ["Dialect", "parse_structure", "split_sentences", "detect_dialect", "tomi_question", "StoryParseError"]


class StoryParseError(ValueError):
    """A story structure that cannot be parsed; the message names the offending sentence."""

    def __init__(self, message: str, sentence: str | None = None, index: int | None = None) -> None:
        where = f"sentence {index + 1} {sentence!r}: " if sentence is not None and index is not None else ""
        super().__init__(where + message)
        self.sentence = sentence
        self.index = index


#: a capital letter (Latin-1 accented capitals too: "Élise"), then word characters, apostrophes or hyphens
_UPPER = "A-ZÀ-ÖØ-Þ"
_NAME = rf"([{_UPPER}][\w'\-]*)"
_PHRASE = r"(.+?)"
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("enter", re.compile(rf"^{_NAME} entered the {_PHRASE}\.$")),
    ("leave", re.compile(rf"^{_NAME} left the {_PHRASE}\.$")),
    ("move_container", re.compile(rf"^{_NAME} moved the {_PHRASE} to the {_PHRASE}, which is also located in the {_PHRASE}\.$")),
    ("move_room_leaving", re.compile(rf"^{_NAME} moved the {_PHRASE} to the {_PHRASE}, leaving the {_PHRASE} in its original location\.$")),
    ("move_room", re.compile(rf"^{_NAME} moved the {_PHRASE} to the {_PHRASE}\.$")),
    ("tell_private_topic", re.compile(rf"^{_NAME} told privately to {_NAME} about the {_PHRASE}\.$")),
    ("tell_private_fact", re.compile(rf"^{_NAME} told privately to {_NAME} that (?:the {_PHRASE}|{_NAME}) is in the {_PHRASE}\.$")),
    ("tell_public_topic", re.compile(rf"^{_NAME} told out loud about the {_PHRASE}\.$")),
    ("tell_public_fact", re.compile(rf"^{_NAME} told out loud that (?:the {_PHRASE}|{_NAME}) is in the {_PHRASE}\.$")),
)
_PEEK_ONLY = re.compile("^" + re.escape(WHILE_PREFIX) + "(.+?) " + re.escape(PEEK_TEMPLATE.format(K="")[1:]) + r"\.$")
_DISTRACTED_ONLY = re.compile(
    "^" + re.escape(WHILE_PREFIX) + "(.+?) " + re.escape(DISTRACTED_CLAUSE.format(D="")[1:]) + r"\.$"
)
_BOTH = re.compile(
    "^"
    + re.escape(WHILE_PREFIX)
    + "(.+?) "
    + re.escape(PEEK_TEMPLATE.format(K="")[1:])
    + re.escape("; also, ")
    + "(.+?) "
    + re.escape(DISTRACTED_CLAUSE.format(D="")[1:])
    + r"\.$"
)
_SPLIT = re.compile(rf"(?<=\.)\s+(?=[{_UPPER}])")

Dialect = Literal["auto", "exploretom", "tomi"]

#: ToMi's sentence forms (tomi/actions.py of facebookresearch/ToMi). Entity names are single tokens there
#: (underscores join words: "green_pepper", "TV_room"), but phrases are accepted as in the ExploreToM templates.
_TOMI_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("enter", re.compile(rf"^{_NAME} entered the {_PHRASE}\.$")),
    ("leave", re.compile(rf"^{_NAME} exited the {_PHRASE}\.$")),
    ("move_container", re.compile(rf"^{_NAME} moved the {_PHRASE} to the {_PHRASE}\.$")),
    ("place", re.compile(rf"^The {_PHRASE} is in the {_PHRASE}\.$")),
    ("located", re.compile(rf"^{_NAME} is in the {_PHRASE}\.$")),
    ("located_two", re.compile(rf"^{_NAME} and {_NAME} are in the {_PHRASE}\.$")),
    ("noise", re.compile(rf"^{_NAME} (?:likes|dislikes|loves|hates) the ([^.]+?)\.?$")),
)
#: A distractor has no full stop in ToMi, so in a story joined by spaces it runs into the next sentence.
_TOMI_NOISE_PREFIX = re.compile(rf"^({_NAME} (?:likes|dislikes|loves|hates) the [^\s.]+) (?=[{_UPPER}])")
#: Forms only ToMi uses: one of them in a story selects the tomi dialect (ExploreToM never says "exited", and its
#: only "is in the" clauses are lower-case, inside tells).
_TOMI_ONLY = re.compile(rf"(?:^|\s)(?:{_NAME} exited the [^.]+\.|The [^.]+? is in the [^.]+\.)")


def split_sentences(text: str) -> list[str]:
    """Split a rendered structure into sentences (joined by spaces or newlines in the wild)."""
    text = " ".join(text.split())
    return [s for s in _SPLIT.split(text) if s]


#: ToMi's four question forms and the DSL questions (semantics §5) that ask the same thing.
_TOMI_QUESTIONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^Where was the (?P<o>\S+) at the beginning\?$"), "In which container was the {o} at the beginning?"),
    (re.compile(r"^Where is the (?P<o>\S+) really\?$"), "In which container is the {o} now?"),
    (re.compile(r"^Where will (?P<p>\S+) look for the (?P<o>\S+)\?$"), "In which container will {p} search for the {o}?"),
    (re.compile(r"^Where does (?P<p>\S+) think that (?P<q>\S+) searches for the (?P<o>\S+)\?$"),
     "In which container does {p} think that {q} will search for the {o}?"),
)


def tomi_question(question: str) -> str | None:
    """The DSL question a ToMi question asks ("Where will A look for the O?" -> "In which container will A search
    for the O?"): memory (M-begin), reality (M-now), first- and second-order (C1, C2); None for another form."""
    for pattern, template in _TOMI_QUESTIONS:
        if m := pattern.match(question.strip()):
            return template.format(**m.groupdict())
    return None


def _tomi_sentences(text: str) -> list[str]:
    """ToMi sentences: one per line when the story keeps ToMi's lines, else split after full stops; a distractor
    without a full stop is split off the sentence it runs into."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()] if "\n" in text.strip() else [text]
    out: list[str] = []
    for line in lines:
        for sentence in split_sentences(line):
            while m := _TOMI_NOISE_PREFIX.match(sentence):
                out.append(m.group(1))
                sentence = sentence[m.end() :]
            out.append(sentence)
    return out


def detect_dialect(text: str) -> Literal["exploretom", "tomi"]:
    """`tomi` when the story uses a form only ToMi has ("exited the", "The O is in the C.", a distractor)."""
    return "tomi" if _TOMI_ONLY.search(text) else "exploretom"


def _names(s: str) -> tuple[str, ...]:
    """Inverse of `join_names`: "A", "A and B", "A, B, and C"."""
    parts = re.split(r", and |, | and ", s)
    return tuple(p.strip() for p in parts if p.strip())


@dataclass
class _Raw:
    kind: str
    groups: tuple[str | None, ...]
    sentence: str
    index: int
    peekers: tuple[str, ...] = ()
    distracted: tuple[str, ...] = ()
    modifier: str | None = None
    change: StateChange | None = None


@dataclass
class _Names:
    people: list[str] = field(default_factory=list)
    rooms: list[str] = field(default_factory=list)
    objects: list[str] = field(default_factory=list)
    containers: list[str] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)

    def add(self, kind: str, name: str | None) -> None:
        lst = getattr(self, kind)
        if name is not None and name not in lst:
            lst.append(name)


def _state_change_patterns(ctx: Context | None) -> list[tuple[re.Pattern[str], StateChange]]:
    if ctx is None:
        return []
    out = []
    for sc in ctx.state_changes:
        # named groups: a template may name the object before the person
        pat = (re.escape(sc.text).replace(re.escape("{person}"), rf"(?P<person>[{_UPPER}][\w'\-]*)", 1)
               .replace(re.escape("{object}"), r"(?P<object>.+?)", 1))
        out.append((re.compile("^" + pat + "$"), sc))
    return out


def _attach_modifier(raws: list[_Raw], s: str, i: int) -> None:
    """Read modifier sentence s into the action it follows: a modifier only ever describes the action just before
    it, and that action can have only one."""
    if not raws:
        raise StoryParseError("a modifier sentence must follow an action", s, i)
    prev = raws[-1]
    if prev.modifier is not None:
        raise StoryParseError("an action can have only one modifier sentence", s, i)
    if m := _BOTH.match(s):
        prev.peekers, prev.distracted = _names(m.group(1)), _names(m.group(2))
    elif m := _PEEK_ONLY.match(s):
        prev.peekers = _names(m.group(1))
    elif m := _DISTRACTED_ONLY.match(s):
        prev.distracted = _names(m.group(1))
    else:
        raise StoryParseError("not a template modifier sentence", s, i)
    prev.modifier = s


def _classify_action(s: str, i: int, ctx: Context | None,
                     state_patterns: list[tuple[re.Pattern[str], StateChange]]) -> _Raw:
    """The template action sentence s matches."""
    # A context's free-text state-change template is tried first, but only taken when its {object} slot holds
    # one of the context's objects: "{person} left the {object} out in the rain." must not read as leaving a
    # room called "trowel out in the rain", and no built-in sentence names a context object in that slot.
    for pat, sc in state_patterns:
        m = pat.match(s)
        if m and ctx is not None and m.group("object") in ctx.objects:
            return _Raw("update", (m.group("person"), m.group("object")), s, i, change=sc)
    for kind, pat in _PATTERNS:
        if m := pat.match(s):
            return _Raw(kind, m.groups(), s, i)
    hint = "" if ctx is not None else " (object-state sentences parse only when their context is given)"
    raise StoryParseError("not a template sentence" + hint, s, i)


def _classify(sentences: list[str], ctx: Context | None) -> list[_Raw]:
    state_patterns = _state_change_patterns(ctx)
    raws: list[_Raw] = []
    for i, s in enumerate(sentences):
        if s.startswith(WHILE_PREFIX):
            _attach_modifier(raws, s, i)
        else:
            raws.append(_classify_action(s, i, ctx, state_patterns))
    return raws


#: Which entity list each group of a template names, in group order. None: a group that adds no name (the thing of a
#: told fact must be named by another sentence; the fact's value is a room or a container, told apart once every
#: other sentence has named its rooms and containers).
_ROLES: Mapping[str, tuple[str | None, ...]] = MappingProxyType({
    "enter": ("people", "rooms"),
    "leave": ("people", "rooms"),
    "move_container": ("people", "objects", "containers", "rooms"),
    "move_room_leaving": ("people", "objects", "rooms", "containers"),
    "move_room": ("people", "objects", "rooms"),
    "update": ("people", "objects"),
    "tell_private_topic": ("people", "people", "topics"),
    "tell_public_topic": ("people", "topics"),
    "tell_private_fact": ("people", "people", None, "people", None),
    "tell_public_fact": ("people", None, "people", None),
})
#: The same for ToMi's forms (a distractor names nothing: its person and thing are not part of the story).
_TOMI_ROLES: Mapping[str, tuple[str | None, ...]] = MappingProxyType({
    "enter": ("people", "rooms"),
    "leave": ("people", "rooms"),
    "located": ("people", "rooms"),
    "located_two": ("people", "people", "rooms"),
    "move_container": ("people", "objects", "containers"),
    "place": ("objects", "containers"),
    "noise": (None, None),
})


def _collect_names(raws: list[_Raw], roles: Mapping[str, tuple[str | None, ...]]) -> _Names:
    """Entity names in order of first mention (people) or first use (the rest)."""
    n = _Names()
    for r in raws:
        for kind, name in zip(roles[r.kind], r.groups, strict=True):
            if kind is not None:
                n.add(kind, name)
        for p in (*r.peekers, *r.distracted):
            n.add("people", p)
    return n


def _collect(raws: list[_Raw]) -> _Names:
    """`_collect_names` of an ExploreToM story, after checking that every told fact's value is a known place."""
    n = _collect_names(raws, _ROLES)
    for r in raws:
        if r.kind in ("tell_private_fact", "tell_public_fact"):
            v = r.groups[-1]
            if v not in n.rooms and v not in n.containers:
                raise StoryParseError(f"cannot tell whether {v!r} is a room or a container", r.sentence, r.index)
    return n


def _merge(ctx: Context | None, names: _Names, raws: list[_Raw]) -> Context:
    if ctx is None:
        base = Context.__new__(Context)  # placeholder lists below
        people: list[str] = []
        rooms: list[str] = []
        objects: list[str] = []
        containers: list[str] = []
        topics: list[str] = []
        changes: tuple[StateChange, ...] = ()
        setting, cid = "", ""
    else:
        base = ctx
        people, rooms, objects = list(ctx.people), list(ctx.rooms), list(ctx.objects)
        containers, topics, changes = list(ctx.containers), list(ctx.topics), ctx.state_changes
        setting, cid = ctx.setting, ctx.id
    del base
    for src, dst in (
        (names.people, people),
        (names.rooms, rooms),
        (names.objects, objects),
        (names.containers, containers),
        (names.topics, topics),
    ):
        for x in src:
            if x not in dst:
                dst.append(x)
    try:
        return Context(
            people=tuple(people),
            rooms=tuple(rooms),
            objects=tuple(objects),
            containers=tuple(containers),
            topics=tuple(topics),
            state_changes=changes,
            setting=setting,
            id=cid,
        )
    except ContextError as e:
        first = raws[0] if raws else None
        raise StoryParseError(f"the story's entities do not form a valid context: {e}",
                              first.sentence if first else None, first.index if first else None) from None


def _action(r: _Raw, ctx: Context) -> Action:
    g = r.groups
    k = r.kind
    K, D = r.peekers, r.distracted
    if k == "enter":
        return EnterRoom(g[0], g[1])  # type: ignore[arg-type]
    if k == "leave":
        return LeaveRoom(g[0], g[1])  # type: ignore[arg-type]
    if k == "move_container":
        return MoveObjectContainer(g[0], g[1], g[2], K, D)  # type: ignore[arg-type]
    if k in ("move_room", "move_room_leaving"):
        return MoveObjectRoom(g[0], g[1], g[2])  # type: ignore[arg-type]
    if k == "update":
        assert r.change is not None
        return UpdateObjectState(g[0], g[1], r.change, K, D)  # type: ignore[arg-type]
    if k == "tell_private_topic":
        return TellPrivate(g[0], g[1], g[2], K, D)  # type: ignore[arg-type]
    if k == "tell_public_topic":
        return TellPublic(g[0], g[1], K, D)  # type: ignore[arg-type]
    if k == "tell_private_fact":
        return TellPrivate(g[0], g[1], _told_fact(ctx, *g[2:]), K, D)  # type: ignore[arg-type]
    return TellPublic(g[0], _told_fact(ctx, *g[1:]), K, D)  # type: ignore[arg-type]


def _told_fact(ctx: Context, thing: str | None, person: str | None, value: str) -> Fact:
    """The fact of "(the thing | person) is in the value": a sentence says where a thing or a person is, and whether
    the place is a room or a container only the context knows (`_collect` made sure it is one of them)."""
    entity = thing if thing is not None else person
    prop = "room" if value in ctx.rooms else "container"
    return Fact(entity, prop, value)  # type: ignore[arg-type]


def _tomi_render(r: _Raw) -> str:
    g = r.groups
    if r.kind == "enter":
        return f"{g[0]} entered the {g[1]}."
    if r.kind == "leave":
        return f"{g[0]} exited the {g[1]}."
    if r.kind == "move_container":
        return f"{g[0]} moved the {g[1]} to the {g[2]}."
    if r.kind == "located":
        return f"{g[0]} is in the {g[1]}."
    if r.kind == "located_two":
        return f"{g[0]} and {g[1]} are in the {g[2]}."
    return f"The {g[0]} is in the {g[1]}."


def _placer(story: Story, r: _Raw) -> str:
    """Who "places" the object in "The O is in the C.": the first person in the container's room if it has one,
    else in the room holding the most people (ToMi announces the object where its two protagonists stand)."""
    world = story.state.world
    by_room: dict[str, list[str]] = {}
    for p in story.state.people:
        room = world.get((p, "room"))
        if isinstance(room, str):
            by_room.setdefault(room, []).append(p)
    known = world.get((r.groups[1], "room"))
    if isinstance(known, str):
        if not by_room.get(known):
            raise StoryParseError(f"nobody is in the {known}, where the {r.groups[1]} is", r.sentence, r.index)
        return by_room[known][0]
    if not by_room:
        raise StoryParseError("nobody is in a room to see where the object is", r.sentence, r.index)
    most = max(len(v) for v in by_room.values())
    rooms = [room for room, v in by_room.items() if len(v) == most]
    if len(rooms) > 1:
        raise StoryParseError(f"cannot tell in which room the object is ({' or '.join(rooms)})", r.sentence, r.index)
    return by_room[rooms[0]][0]


def _classify_tomi(sentences: list[str]) -> list[_Raw]:
    """The ToMi form each sentence matches."""
    raws: list[_Raw] = []
    for i, s in enumerate(sentences):
        for kind, pat in _TOMI_PATTERNS:
            if m := pat.match(s):
                raws.append(_Raw(kind, m.groups(), s, i))
                break
        else:
            raise StoryParseError("not a ToMi sentence", s, i)
    return raws


def _tomi_action(story: Story, r: _Raw) -> Action:
    """The DSL action of a ToMi event sentence (the placement "The O is in the C." is a move by whoever `_placer`
    finds in the room)."""
    g = r.groups
    if r.kind == "enter":
        return EnterRoom(g[0], g[1])  # type: ignore[arg-type]
    if r.kind == "leave":
        return LeaveRoom(g[0], g[1])  # type: ignore[arg-type]
    if r.kind == "move_container":
        return MoveObjectContainer(g[0], g[1], g[2])  # type: ignore[arg-type]
    return MoveObjectContainer(_placer(story, r), g[0], g[1])  # type: ignore[arg-type]


def _replay_tomi(story: Story, r: _Raw) -> None:
    """Apply one ToMi sentence to the story, and check that it re-renders as written."""
    if r.kind in ("located", "located_two"):
        # "Mia is in the cellar.": she is there (seen by whoever is there); nothing happens if she already was
        room = r.groups[-1]
        for p in r.groups[:-1]:
            if story.state.world.get((p, "room")) != room:
                story.apply(EnterRoom(p, room))  # type: ignore[arg-type]
    else:
        action = _tomi_action(story, r)
        reason = story.check(action)
        if reason is not None:
            raise StoryParseError(f"impossible action: {reason}", r.sentence, r.index)
        story.apply(action)
    if _tomi_render(r) != r.sentence:
        raise StoryParseError(f"re-renders differently, as {_tomi_render(r)!r}", r.sentence, r.index)


def _parse_tomi(sentences: list[str], context: Context | None) -> Story:
    raws = _classify_tomi(sentences)
    names = _collect_names(raws, _TOMI_ROLES)
    acting = [r for r in raws if r.kind != "noise"]
    ctx = replace(_merge(context, names, acting), open_containers=True)
    story = Story(ctx)
    for r in acting:
        _replay_tomi(story, r)
    return story


def parse_structure(text: str, context: Context | None = None, *, dialect: Dialect = "auto") -> Story:
    """Parse a rendered story structure into a replayed `Story`.

    Without a context, the entities are inferred from the sentences (people in order of first mention); with one,
    its lists come first, its state-change templates make object-state sentences parseable, and names the story uses
    but the context lacks are appended. Raises `StoryParseError` naming the first sentence that is not a template
    sentence, describes an impossible action, or does not re-render identically. `dialect="tomi"` (chosen by
    `auto` when the story uses a ToMi-only form) reads ToMi stories (see the module docstring).
    """
    if dialect == "auto":
        dialect = detect_dialect(text)
    if dialect == "tomi":
        sentences = _tomi_sentences(text)
        if not sentences:
            raise StoryParseError("empty story")
        return _parse_tomi(sentences, context)
    if dialect != "exploretom":
        raise ValueError(f"Unknown dialect {dialect!r}. Must be one of: ['auto', 'exploretom', 'tomi']")
    sentences = split_sentences(text)
    if not sentences:
        raise StoryParseError("empty story")
    raws = _classify(sentences, context)
    ctx = _merge(context, _collect(raws), raws)
    story = Story(ctx)
    for r in raws:
        action = _action(r, ctx)
        step = story.try_apply(action)  # one check per action: the reason is looked up only for an error
        if step is None:
            raise StoryParseError(f"impossible action: {story.check(action)}", r.sentence, r.index)
        if step.sentence != r.sentence or step.modifier != r.modifier:
            raise StoryParseError(f"re-renders differently, as {step.sentence!r}", r.sentence, r.index)
    return story
