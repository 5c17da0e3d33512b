"""Question generation with reliable answers (semantics §5).

Templates are byte-identical to the public ExploreToM data. Only concrete beliefs yield location questions, so every
question asked has an answer. `interesting` (the paper's "non-unique mental state") and `false_belief` are computed
here, once, for every consumer (search objective, scorers, statistics).
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from tombench.dsl.answers import AnswerType
from tombench.dsl.state import State
from tombench.dsl.values import CONTAINER, ROOM, TOPIC, Key, Value, is_concrete

__all__ = ["Question", "generate_questions", "memory_questions", "belief_questions", "event_text"]

KNOWS = "knows about it"
DOES_NOT_KNOW = "does not know about it"

_ANSWER_TYPES = MappingProxyType({
    "C1": AnswerType.CONTAINER,
    "C2": AnswerType.CONTAINER,
    "R1": AnswerType.ROOM,
    "R2": AnswerType.ROOM,
    "K1": AnswerType.YES_NO,
    "K2": AnswerType.KNOWLEDGE,
    "S1": AnswerType.YES_NO,
    "S2": AnswerType.YES_NO,
})


@dataclass(frozen=True)
class Question:
    """One question about a story with its expected answer and metadata.

    `kind` is the code of semantics §5.1: C1, C2, R1, R2, K1, K2, S1, S2, M-begin, M-now, M-before. `order` is 0 for
    state tracking (memory), 1 or 2 for beliefs. `interesting` and `false_belief` are None for order 0.
    """

    text: str
    answer: str
    order: int
    kind: str
    people: tuple[str, ...] = ()
    thing: str = ""
    property: str = ""
    value: str | None = None
    interesting: bool | None = None
    false_belief: bool | None = None
    answer_type: AnswerType = field(default=AnswerType.CONTAINER)

    @builtins.property
    def expected_answer(self) -> str:
        return self.answer

    def to_dict(self) -> dict:
        return {
            "question": self.text,
            "expected_answer": self.answer,
            "order": self.order,
            "kind": self.kind,
            "people": list(self.people),
            "thing": self.thing,
            "property": self.property,
            "value": self.value,
            "interesting": self.interesting,
            "false_belief": self.false_belief,
            "answer_type": self.answer_type.value,
        }


def _question(text: str, answer: str, order: int, kind: str, people: tuple[str, ...], thing: str, prop: str,
              value: str | None, interesting: bool | None, false_belief: bool | None) -> Question:
    """Question(...) without the frozen-dataclass constructor.

    A frozen dataclass assigns each of its 11 fields through `object.__setattr__`, which made building the questions
    a fifth of the cost of a random ToMi story. Filling `__dict__` directly gives an equal, equally hashable and
    equally immutable object (no `__post_init__` or field defaults are skipped: every field is given here).
    """
    q = object.__new__(Question)
    d = q.__dict__  # item by item: cheaper than building a keyword dict for `update`
    d["text"] = text
    d["answer"] = answer
    d["order"] = order
    d["kind"] = kind
    d["people"] = people
    d["thing"] = thing
    d["property"] = prop
    d["value"] = value
    d["interesting"] = interesting
    d["false_belief"] = false_belief
    d["answer_type"] = _ANSWER_TYPES[kind]
    return q


# A draft is a tuple: (text, answer, order, kind, people, thing, property, value, false_belief, group, group_answer).
# The group is the slot a question asks about, and the group answer what a store holds there: a question is
# `interesting` when its group has more than one answer across all stores of both orders (§5.3). Tuples rather than
# objects, because a ToMi story drafts about twenty of them and this runs for every story the search generates.
Draft = tuple
#: the stores one order asks about, each as (p, q, store): order 1 has p's own beliefs (q is p), order 2 what p thinks
#: q believes
Believers = list[tuple[str, str, dict]]


def _believers(st: State, order: int) -> Believers:
    """Whose beliefs an order asks about: every person (order 1), every ordered pair of two people (order 2)."""
    P = st.people
    empty: dict = {}
    if order == 1:
        return [(p, p, st.fo.get(p, empty)) for p in P]
    return [(p, q, st.so.get((p, q), empty)) for p in P for q in P if p != q]


def _state_candidates(st: State) -> list[tuple[str, str, list[str]]]:
    """(object, state property, values) to ask S questions about: the values some store still holds (§5.2), so that
    a value nobody believes any more is not asked about."""
    candidates: list[tuple[str, str, list[str]]] = []
    if st.state_values:
        stores = [st.world, *st.fo.values(), *st.so.values()]
        for (o, s), values in st.state_values.items():
            held = [v for v in values if any(store.get((o, s)) == v for store in stores)]
            if held:
                candidates.append((o, s, held))
    return candidates


def _container_drafts(drafts: list[Draft], believers: Believers, order: int, slots: list[tuple[str, Key, Value]]) -> None:
    """C questions: in which container a believer will search for each object, asked only where the store holds a
    concrete container (an unknown or not-in belief has no answer to check)."""
    kind = f"C{order}"
    for p, q, store in believers:
        who = (p,) if order == 1 else (p, q)
        for o, slot, truth in slots:
            c = store.get(slot)
            if type(c) is str:  # is_concrete, inlined
                text = (
                    f"In which container will {p} search for the {o}?"
                    if order == 1
                    else f"In which container does {p} think that {q} will search for the {o}?"
                )
                drafts.append((text, c, order, kind, who, o, CONTAINER, None, c != truth, slot, c))


def _room_drafts(drafts: list[Draft], believers: Believers, order: int, slots: list[tuple[str, Key, Value]]) -> None:
    """R questions: in which room a believer will search for each thing, asked only where the store holds a concrete
    room. (The templates differ from C's in one word, but each is the text of the public data, kept literal.)"""
    kind = f"R{order}"
    for p, q, store in believers:
        who = (p,) if order == 1 else (p, q)
        for x, slot, truth in slots:
            r = store.get(slot)
            if type(r) is str:
                text = (
                    f"In which room will {p} search for the {x}?"
                    if order == 1
                    else f"In which room does {p} think that {q} will search for the {x}?"
                )
                drafts.append((text, r, order, kind, who, x, ROOM, None, r != truth, slot, r))


def _knowledge_drafts(drafts: list[Draft], believers: Believers, order: int, st: State) -> None:
    """K questions: whether a believer knows about each chit-chat topic. Order 2's false belief compares with what q
    really knows, and its group answer is yes/no so that both orders fall in one `interesting` group."""
    fo = st.fo
    empty: dict = {}
    for p, q, store in believers:
        for t in st.topics:
            knows = store.get((t, TOPIC)) is True
            yes_no = "yes" if knows else "no"
            if order == 1:
                text = f"Does {p} know about {t}? Answer yes or no."
                draft = (text, yes_no, 1, "K1", (p,), t, "knowledge", None, False, (t, "knowledge"), yes_no)
            else:
                actual = fo.get(q, empty).get((t, TOPIC)) is True
                text = f"What does {p} think about {q}'s belief on {t}? (knows about it / does not know about it)"
                draft = (text, KNOWS if knows else DOES_NOT_KNOW, 2, "K2", (p, q), t, "knowledge", None,
                         knows != actual, (t, "knowledge"), yes_no)
            drafts.append(draft)


def _state_drafts(drafts: list[Draft], believers: Believers, order: int, st: State,
                  candidates: list[tuple[str, str, list[str]]], seen_text: set[str]) -> None:
    """S questions: whether a believer thinks an object has each candidate value. Two properties of one object may
    share a value phrase, so the same text can come twice: the first wins (§5.2)."""
    world = st.world
    kind = f"S{order}"
    for p, q, store in believers:
        who = (p,) if order == 1 else (p, q)
        for o, s, values in candidates:
            held = store.get((o, s))
            for v in values:
                yes = held == v
                truth = world.get((o, s)) == v
                ans = "yes" if yes else "no"
                text = (
                    f"Does {p} believe that the {o} {v}? Answer yes or no."
                    if order == 1
                    else f"Does {p} think that {q} believes that the {o} {v}? Answer yes or no."
                )
                if text not in seen_text:
                    seen_text.add(text)
                    drafts.append((text, ans, order, kind, who, o, s, v, yes != truth, (o, s), ans))


def _interesting_groups(drafts: list[Draft]) -> set[tuple[str, str]]:
    """The groups (slots asked about) whose drafts do not all have the same answer: the paper's "non-unique mental
    state", where answering needs to know whose belief is asked."""
    groups: dict[tuple[str, str], set[str]] = {}
    for d in drafts:
        answers = groups.get(d[9])
        if answers is None:
            groups[d[9]] = {d[10]}
        else:
            answers.add(d[10])
    return {group for group, answers in groups.items() if len(answers) > 1}


def belief_questions(
    st: State, *, first_order_room_questions: bool = False, orders: Sequence[int] = (1, 2)
) -> list[Question]:
    """Order-1 and order-2 questions (C, R, K, S) in the emission order of §5.2, with interesting/false_belief."""
    objects = st.objects_seen
    world = st.world
    # The first question with a given text wins (§5.2). Only S texts can repeat (two properties of one object may
    # share a value phrase): every other text is a distinct template filled with distinct (person, person, thing or
    # topic) names, person names being single words, so `seen_text` is kept for S alone.
    drafts: list[Draft] = []
    seen_text: set[str] = set()
    candidates = _state_candidates(st)
    # (thing, its slot, the world's value) for the C and R questions: the slot doubles as the `interesting` group
    container_slots = [(o, (o, CONTAINER), world.get((o, CONTAINER))) for o in objects]
    room_slots = [(x, (x, ROOM), world.get((x, ROOM))) for x in (*objects, *st.containers_seen)]
    # Both orders are always generated: `interesting` groups span orders, so a flag must not depend on which
    # orders the caller asked for. Filtering happens at the end.
    for order in (1, 2):
        believers = _believers(st, order)
        _container_drafts(drafts, believers, order, container_slots)
        if order == 2 or first_order_room_questions:  # order 1 asks about the objects' rooms only
            _room_drafts(drafts, believers, order, room_slots if order == 2 else room_slots[: len(objects)])
        if st.topics:
            _knowledge_drafts(drafts, believers, order, st)
        if candidates:
            _state_drafts(drafts, believers, order, st, candidates, seen_text)
    interesting = _interesting_groups(drafts)
    return [
        _question(text, answer, order, kind, who, thing, prop, value, group in interesting, false_belief)
        for text, answer, order, kind, who, thing, prop, value, false_belief, group, _ in drafts
        if order in orders
    ]


_CUTS = (", which is also located in", ", leaving the")


def event_text(sentence: str) -> str:
    """The event of an M-before question: the action's own sentence without its final period, cut (§5.4)."""
    text = sentence[:-1] if sentence.endswith(".") else sentence
    for cut in _CUTS:
        i = text.find(cut)
        if i >= 0:
            text = text[:i]
    return text


def memory_questions(st: State, sentences: Sequence[str]) -> list[Question]:
    """Order-0 state-tracking questions from the world trajectories (§5.4). `sentences[i]` is action i's sentence."""
    events = [event_text(s) for s in sentences]
    counts: dict[str, int] = {}
    for e in events:
        counts[e] = counts.get(e, 0) + 1
    out: list[Question] = []
    for o in st.objects_seen:
        for prop, noun, atype in ((CONTAINER, "container", AnswerType.CONTAINER), (ROOM, "room", AnswerType.ROOM)):
            traj = st.trajectories.get((o, prop), [])
            n = len(traj)
            if n < 2:
                continue
            first, last = traj[0][0], traj[-1][0]
            if is_concrete(first):
                out.append(Question(f"In which {noun} was the {o} at the beginning?", first, 0, "M-begin", (), o,
                                    prop, answer_type=atype))
            if is_concrete(last):
                out.append(Question(f"In which {noun} is the {o} now?", last, 0, "M-now", (), o, prop,
                                    answer_type=atype))
            if n >= 3:
                for i in range(1, n):
                    prev = traj[i - 1][0]
                    ev = events[traj[i][1]]
                    if is_concrete(prev) and counts[ev] == 1:
                        out.append(Question(f"In which {noun} was the {o} before {ev}?", prev, 0, "M-before", (),
                                            o, prop, answer_type=atype))
    return out


def generate_questions(
    st: State,
    sentences: Sequence[str],
    *,
    first_order_room_questions: bool = False,
    orders: Sequence[int] = (0, 1, 2),
) -> list[Question]:
    """Every question of the requested orders: order 1, then order 2, then the memory questions (order 0)."""
    qs = belief_questions(st, first_order_room_questions=first_order_room_questions,
                          orders=[o for o in orders if o in (1, 2)])
    if 0 in orders:
        texts = {q.text for q in qs}
        qs.extend(q for q in memory_questions(st, sentences) if q.text not in texts)
    return qs
