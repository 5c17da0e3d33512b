"""The sampler's candidates: every argument tuple of an action type in a story's state, in context order.

Candidates are plain argument tuples, in exactly the order (and number) of the action records the tracker would be
offered, so a draw consumes the same random numbers as drawing from the records (`tombench.dsl.catalogue` builds the
record of the one drawn and accepted). `ENUMERATORS` lists them for each base type, `modified_enumerator` for its
`_peeking_distracted` variant.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from itertools import groupby, product
from operator import itemgetter
from types import MappingProxyType

from tombench.dsl.action_sets import PEEKING
from tombench.dsl.context import Context
from tombench.dsl.story import Story
from tombench.dsl.values import CONTAINER, ROOM

__all__ = ["Modifiers", "Enumerator", "modifier_options", "location_tells", "with_modifiers", "ENUMERATORS",
           "modified_enumerator"]

def modifier_options(context: Context, actor: str, W: tuple[str, ...]) -> tuple[Modifiers, ...]:
    """Every single-peeker / single-distracted modifier of an action by `actor` witnessed by `W` (§4.7).

    Each option passes `_check_modifiers` against the same `W` by construction: the peeker is a context person who is
    neither the actor nor a witness, the distracted person is a witness other than the actor.

    Remembered by the context (`Context.memo`): the options are a pure function of the names, and a rollout asks for
    the same few (actor, witnesses) over and over (every actor/listener of every modified type drawn, in every state).
    """
    memo = context.memo.modifier_options
    key = (actor, W)
    opts = memo.get(key)
    if opts is None:
        opts = memo[key] = _modifier_options(actor, W, context.people)
    return opts


def _modifier_options(actor: str, W: tuple[str, ...], people: tuple[str, ...]) -> tuple[Modifiers, ...]:
    """`modifier_options`, computed."""
    opts: list[Modifiers] = []
    ks = []
    for k in people:
        if k != actor and k not in W:
            ks.append(k)
            opts.append(((k,), ()))
    ds = []
    for d in W:
        if d != actor:
            ds.append(d)
            opts.append(((), (d,)))
    for k in ks:
        for d in ds:
            opts.append(((k,), (d,)))
    return tuple(opts)


# ---------------------------------------------------------------------------------------------------- enumerators
# Candidates are plain argument tuples, in exactly the order (and number) of the action records the tracker would be
# offered, so a draw consumes the same random numbers as drawing from the records. The record is built only for the
# tuple that is drawn and accepted: building a frozen dataclass for every rejected tuple dominated the profile.
# A told location fact travels as its store slot, `(entity, prop), value`, and becomes a `Fact` only when built.

Modifiers = tuple[tuple[str, ...], tuple[str, ...]]
Enumerator = Callable[[Story], list[tuple]]
# The static enumerators use itertools.product: the tuples, in the order, of the nested loops over the context lists.


def _enter_room(story: Story) -> list[tuple]:
    ctx = story.context
    return list(product(ctx.people, ctx.rooms))


def _leave_room(story: Story) -> list[tuple]:
    w = story.state.world
    out = []
    for p in story.state.people:  # a loop, not a comprehension: a few people, enumerated in nearly every state
        r = w.get((p, ROOM))
        if type(r) is str:  # is_concrete, inlined
            out.append((p, r))
    return out


def _move_object_container(story: Story) -> list[tuple]:
    ctx = story.context
    return list(product(ctx.people, ctx.objects, ctx.containers))


def _update_object_state(story: Story) -> list[tuple]:
    ctx = story.context
    return list(product(ctx.people, ctx.objects, ctx.state_changes))


def _move_object_room(story: Story) -> list[tuple]:
    ctx = story.context
    return list(product(ctx.people, ctx.objects, ctx.rooms))


def _tell_private_topic(story: Story) -> list[tuple]:
    ctx = story.context
    return [(p, q, t) for p in ctx.people for q in ctx.people if p != q for t in ctx.topics]


def _tell_public_topic(story: Story) -> list[tuple]:
    ctx = story.context
    return list(product(ctx.people, ctx.topics))


def location_tells(prop: str, private: bool, modified: bool = False) -> Enumerator:
    """Tells of every concrete `prop` ("container" or "room") belief of each speaker, in the speaker's store order:
    `(p, q, slot, value)` for a private tell to q, `(p, slot, value)` for a public one; with `modified`, each followed
    by each of its modifiers `(K, D)`.

    The modified variant gives the tuples, in the order, of `with_modifiers` over the unmodified one, built in one
    pass: these are the largest candidate lists the sampler enumerates (a rollout does so in nearly every state).
    """

    def enumerate_tells(story: Story) -> list[tuple]:
        ctx = story.context
        people = ctx.people
        st = story.state
        fos = st.fo
        w = st.world
        out: list[tuple] = []
        for p in people:
            fo = fos.get(p)
            if not fo:
                continue
            # a loop, not a comprehension: a store holds a few slots, and a comprehension's own call would cost more
            facts = []
            for item in fo.items():  # (slot, value)
                if item[0][1] == prop and type(item[1]) is str:
                    facts.append(item)
            if not facts:
                continue
            # loops again: each (speaker, listener) has a few facts
            if private:
                for q in people:
                    if q == p:
                        continue
                    if modified:
                        opts = modifier_options(ctx, p, (p, q))
                        for k, v in facts:
                            for K, D in opts:
                                out.append((p, q, k, v, K, D))
                    else:
                        for k, v in facts:
                            out.append((p, q, k, v))
            elif modified:
                r = w.get((p, ROOM))
                if type(r) is not str:  # not in a room: every tuple of this speaker would be rejected, none is offered
                    continue
                opts = modifier_options(ctx, p, tuple(st.people_in(r)))
                for k, v in facts:
                    for K, D in opts:
                        out.append((p, k, v, K, D))
            else:
                for k, v in facts:
                    out.append((p, k, v))
        return out

    return enumerate_tells


def with_modifiers(base: Enumerator, private: bool) -> Enumerator:
    """The `_peeking_distracted` variant of `base`: each tuple followed by each of its modifiers (K, D).

    The options depend only on the actor (and, for a private tell, the listener), and every base enumerator emits its
    tuples grouped by actor (and listener), so each run of one group is expanded by a single comprehension.
    """
    group = itemgetter(0, 1) if private else itemgetter(0)

    def enumerate_modified(story: Story) -> list[tuple]:
        st = story.state
        w = st.world
        ctx = story.context
        out: list[tuple] = []
        for who, run in groupby(base(story), key=group):
            if private:
                actor, W = who[0], who
            else:
                actor = who
                r = w.get((actor, ROOM))
                if type(r) is not str:  # not in a room: every tuple of this actor would be rejected, none is offered
                    continue
                W = tuple(st.people_in(r))
            opts = modifier_options(ctx, actor, W)
            out += [(*args, K, D) for args in run for K, D in opts]
        return out

    return enumerate_modified


#: the candidates of each base action type
ENUMERATORS: Mapping[str, Enumerator] = MappingProxyType({
    "enter_room": _enter_room,
    "leave_room": _leave_room,
    "move_object_container": _move_object_container,
    "update_object_state": _update_object_state,
    "move_object_room": _move_object_room,
    "privately_tell_about_abstract_topic": _tell_private_topic,
    "publicly_tell_about_abstract_topic": _tell_public_topic,
    "privately_tell_about_object_container_location": location_tells(CONTAINER, private=True),
    "publicly_tell_about_object_container_location": location_tells(CONTAINER, private=False),
    "privately_tell_about_object_room_location": location_tells(ROOM, private=True),
    "publicly_tell_about_object_room_location": location_tells(ROOM, private=False),
})
#: the modified location tells are built in one pass, not by `with_modifiers` (the same tuples, faster)
_MODIFIED_TELLS: Mapping[str, Enumerator] = MappingProxyType({
    f"{how}_tell_about_object_{prop}_location" + PEEKING: location_tells(prop, private=how == "privately", modified=True)
    for how in ("privately", "publicly")
    for prop in (CONTAINER, ROOM)
})


def modified_enumerator(name: str) -> Enumerator:
    """The candidates of `name`, a `<base>_peeking_distracted` type: each of the base's tuples with each modifier."""
    base = name.removesuffix(PEEKING)
    return _MODIFIED_TELLS.get(name) or with_modifiers(ENUMERATORS[base], base.startswith("privately"))
