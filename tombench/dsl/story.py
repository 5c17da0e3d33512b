"""A story: a context, the applied steps, and the tracked state they produce.

Stories are values for their consumers: `text`, `questions()`, `to_dict()`. The only mutation is `apply`, which is
transactional (a rejected action changes nothing). `Story.from_dict` replays the stored action records, so a stored
story always reproduces every label.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from tombench.dsl.actions import (
    Action,
    EnterRoom,
    LeaveRoom,
    MoveObjectContainer,
    MoveObjectRoom,
    TellPrivate,
    TellPublic,
    UpdateObjectState,
    action_from_dict,
    action_to_dict,
)
from tombench.dsl.context import Context
from tombench.dsl.deferred import WORLD_APPLY, DeferredState, deferred_copy
from tombench.dsl.questions import Question, generate_questions
from tombench.dsl.state import State
from tombench.dsl.tracker import APPLY, ActionRejected, Step, apply, check

__all__ = ["Story", "STORY_SCHEMA_VERSION", "StoryError"]

#: bump when the JSON form of a story changes incompatibly
STORY_SCHEMA_VERSION = 1


class StoryError(ValueError):
    """A stored story that cannot be loaded or replayed."""


#: record types whose every action is important; a tell is important only about an abstract topic
_ALWAYS_IMPORTANT = (MoveObjectContainer, UpdateObjectState, MoveObjectRoom)
_TELLS = (TellPrivate, TellPublic)
#: the importance of each exact record type, None for a tell (it depends on the topic): one lookup per sampled action
_IMPORTANT_BY_TYPE: Mapping[type, bool | None] = MappingProxyType({
    EnterRoom: False, LeaveRoom: False, **dict.fromkeys(_ALWAYS_IMPORTANT, True), **dict.fromkeys(_TELLS, None)
})


def _is_important(a: Action) -> bool:
    """Important actions add new world knowledge (the paper's 𝒜′): moves, state changes, abstract-topic tells."""
    t = type(a)
    important = _IMPORTANT_BY_TYPE.get(t)
    if important is not None:
        return important
    if t in _TELLS:
        return isinstance(a.topic, str)
    # a subclass of a record type
    if isinstance(a, _ALWAYS_IMPORTANT):
        return True
    return isinstance(a, _TELLS) and isinstance(a.topic, str)


class Story:
    """A sequence of applied actions over one context, with its tracked state."""

    __slots__ = ("context", "state", "steps", "_length", "_imp", "_mods")

    def __init__(self, context: Context, actions: Iterable[Action] = ()) -> None:
        self.context = context
        self.state = State(context)
        self.steps: list[Step] = []
        self._length = 0
        self._imp = 0
        self._mods = 0
        for a in actions:
            self.apply(a)

    # ------------------------------------------------------------------ building
    def check(self, action: Action) -> str | None:
        """Why `action` would be rejected now, or None."""
        return check(self.state, action)

    def try_apply(self, action: Action) -> Step | None:
        """Apply `action` if valid; return its step, or None with the story unchanged."""
        if check(self.state, action) is not None:
            return None
        return self._commit(action)

    def apply(self, action: Action) -> Step:
        """Apply `action` or raise `ActionRejected` (naming the reason) with the story unchanged."""
        reason = check(self.state, action)
        if reason is not None:
            raise ActionRejected(reason)
        return self._commit(action)

    def _commit(self, action: Action) -> Step:
        st = self.state
        if st._shared:  # a deferred rollout replays from it: write to a copy (see `tombench.dsl.deferred`)
            st = self.state = st.copy()
        index = len(self.steps)
        kind = type(action)
        if type(st) is DeferredState and (world_effect := WORLD_APPLY.get(kind)) is not None:
            # the world effects only, the action recorded for the beliefs' replay
            st._pending.append((action, index))
            step = world_effect(st, action, index)
        else:
            # (a tell or a subclass on a deferred state: the tracker's first read of a belief replays them)
            effect = APPLY.get(kind)  # `apply`, without its call: this runs for every sampled action
            step = apply(st, action, index) if effect is None else effect(st, action, index)
        self.steps.append(step)
        if step.modifier is None:  # Step.length, inlined: this runs for every sampled action
            self._length += 1
        else:
            self._length += 2
            self._mods += 1
        important = _IMPORTANT_BY_TYPE.get(kind)  # `_is_important`, its exact-type lookup inlined
        if important is None:
            important = _is_important(action)
        if important:
            self._imp += 1
        return step

    def defer_beliefs(self) -> None:
        """Track the world only from here on, the beliefs replayed when first read (`tombench.dsl.deferred`):
        for rollouts of belief-free action sets, whose draws never read a belief."""
        if type(self.state) is not DeferredState:
            self.state = deferred_copy(self.state)

    def copy(self, *, defer_beliefs: bool = False) -> Story:
        """An independent copy; with `defer_beliefs` (or when this story's beliefs are deferred already), one whose
        beliefs are deferred, which shares this story's state instead of copying its belief stores."""
        new = Story.__new__(Story)
        new.context = self.context
        st = self.state
        new.state = deferred_copy(st) if defer_beliefs or type(st) is DeferredState else st.copy()
        new.steps = list(self.steps)
        new._length = self._length
        new._imp = self._imp
        new._mods = self._mods
        return new

    # ------------------------------------------------------------------ reading
    @property
    def actions(self) -> list[Action]:
        return [s.action for s in self.steps]

    @property
    def sentences(self) -> list[str]:
        """All sentences, modifier sentences included, in order."""
        return [x for s in self.steps for x in s.sentences]

    @property
    def text(self) -> str:
        """The story as the model sees it: all sentences joined by single spaces (semantics §5.5)."""
        return " ".join(self.sentences)

    def __str__(self) -> str:
        return self.text

    def __len__(self) -> int:
        """Number of sentences (a modified action counts 2)."""
        return self._length

    @property
    def num_important(self) -> int:
        return self._imp

    @property
    def num_modified(self) -> int:
        return self._mods

    @property
    def people(self) -> list[str]:
        return self.state.people

    def questions(
        self, *, first_order_room_questions: bool = False, orders: Sequence[int] = (0, 1, 2)
    ) -> list[Question]:
        """Every question of the requested ToM orders (0 = state tracking), with answers and flags."""
        return generate_questions(
            self.state,
            [s.sentence for s in self.steps] if 0 in orders else (),  # only memory questions (order 0) use them
            first_order_room_questions=first_order_room_questions,
            orders=orders,
        )

    def requires_tom(self, *, first_order_only: bool = False) -> bool:
        """The original's `is_false_belief_story`: at least one interesting question (§5.3)."""
        orders = (1,) if first_order_only else (1, 2)
        return any(q.interesting for q in self.questions(orders=orders))

    # ------------------------------------------------------------------ (de)serialisation
    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": STORY_SCHEMA_VERSION,
            "context": self.context.to_dict(),
            "actions": [action_to_dict(s.action) for s in self.steps],
            "sentences": [list(s.sentences) for s in self.steps],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Story:
        """Replay a stored story. The stored sentences, if present, must match the replayed ones."""
        version = d.get("schema_version")
        if version != STORY_SCHEMA_VERSION:
            raise StoryError(f"unsupported story schema version {version!r} (expected {STORY_SCHEMA_VERSION})")
        try:
            ctx = Context.from_dict(d["context"])
            actions = [action_from_dict(a) for a in d["actions"]]
        except (KeyError, ValueError) as e:
            raise StoryError(f"malformed story: {e}") from None
        story = cls(ctx)
        for i, a in enumerate(actions):
            reason = story.check(a)
            if reason is not None:
                raise StoryError(f"action {i + 1} cannot be replayed: {reason}")
            story.apply(a)
        stored = d.get("sentences")
        if stored is not None and [list(s.sentences) for s in story.steps] != [list(x) for x in stored]:
            raise StoryError("replayed sentences differ from the stored ones")
        return story
