"""The setting predicates of semantics §7.1 (S, N, isDesired) and the names a setting's story may use."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

from tombench.dsl.action_sets import STORY_TYPES, ActionSet, Setting, action_set
from tombench.dsl.catalogue import Kind, doomed_types, kind_of
from tombench.dsl.context import DEFAULT_CONTEXT, Context
from tombench.dsl.deferred import belief_free
from tombench.dsl.story import Story
from tombench.dsl.tracker import Step

__all__ = ["Conditions", "Plan", "plan_of", "setting_context", "doomed_now"]


def setting_context(context: Context, setting: Setting, rng: random.Random) -> Context:
    """The names a setting's story may use: the first p people, m containers, r rooms (§6).

    With the built-in default context, people, containers and rooms are sampled with `rng` instead.
    """
    if context is DEFAULT_CONTEXT or context.id == "default":
        people = tuple(rng.sample(context.people, min(setting.people, len(context.people))))
        containers = tuple(rng.sample(context.containers, min(setting.moves, len(context.containers))))
        rooms = tuple(rng.sample(context.rooms, min(setting.rooms, len(context.rooms))))
        return context._replace_unchecked(people=people, rooms=rooms, containers=containers)
    # remembered by the context (`Context.memo`): `random_story` restricts its context on every try, and
    # `Context.restrict` validates every name again, a quarter of the CPU of a random story
    memo = context.memo.restricted
    key = (setting.people, setting.rooms, setting.moves)
    out = memo.get(key)
    if out is None:
        out = memo[key] = context.restrict(people=setting.people, rooms=setting.rooms, containers=setting.moves)
    return out


class Plan(NamedTuple):
    """What every rollout over one action set reuses: a function of its allowed types alone."""

    allowed: tuple[str, ...]
    #: the sampler's handling of each allowed type, in order
    kinds: tuple[Kind, ...]
    #: `doomed_types` of the allowed types
    doomed_sets: tuple[frozenset[str], ...]
    #: rollouts defer their beliefs (`tombench.dsl.deferred.belief_free`)
    defer: bool


def plan_of(allowed: tuple[str, ...]) -> Plan:
    """The plan of an action set's allowed types (see `Plan`)."""
    return Plan(allowed, tuple(kind_of(name) for name in allowed), doomed_types(allowed), belief_free(allowed))


#: the plan of each story type's action set, built once at import: `random_story` makes a Conditions per call, and
#: building a plan costs a few microseconds (about 3% of a ToMi story)
_PLANS: Mapping[str, Plan] = MappingProxyType({t: plan_of(action_set(t).allowed) for t in STORY_TYPES})


@dataclass(frozen=True)
class Conditions:
    """The structural predicates of a setting (§7.1), evaluated on a story.

    It also holds its action set's `Plan` as plain attributes, `kinds`, `doomed_sets` and `defer` (not dataclass
    fields: they are not part of the value, and hold the sampler's functions, which do not pickle).
    """

    setting: Setting
    aset: ActionSet

    if TYPE_CHECKING:
        kinds: tuple[Kind, ...]
        doomed_sets: tuple[frozenset[str], ...]
        defer: bool

    def __post_init__(self) -> None:
        allowed = self.aset.allowed
        plan = _PLANS.get(self.aset.story_type)
        if plan is None or plan.allowed != allowed:  # an action set of one's own
            plan = plan_of(allowed)
        object.__setattr__(self, "kinds", plan.kinds)  # frozen: set once, here
        object.__setattr__(self, "doomed_sets", plan.doomed_sets)
        object.__setattr__(self, "defer", plan.defer)

    @classmethod
    def of(cls, setting: Setting) -> Conditions:
        return cls(setting, action_set(setting.story_type))

    def __getstate__(self) -> dict[str, object]:
        """The fields only (the plan holds the sampler's functions): `__setstate__` makes the plan again."""
        return {"setting": self.setting, "aset": self.aset}

    def __setstate__(self, state: dict[str, object]) -> None:
        object.__setattr__(self, "setting", state["setting"])
        object.__setattr__(self, "aset", state["aset"])
        self.__post_init__()

    def counts(self, s: Story) -> tuple[int, int, int, int]:
        """(important, differentiating, modified, sentences)."""
        return s.num_important, self.count_differentiating(s.steps), s.num_modified, len(s)

    def count_differentiating(self, steps: Sequence[Step]) -> int:
        """How many of `steps` are of a differentiating type (the search counts every neighbour's added steps)."""
        diff_names = self.aset.differentiating
        diff = 0
        for x in steps:
            if x.action.name in diff_names:
                diff += 1
        return diff

    def structural(self, s: Story) -> bool:
        """S(s): imp = m, diff >= 1, enough people and rooms, at most one modifier (at least one if asymmetric)."""
        st = self.setting
        mods = s._mods  # the counters read directly (num_important, num_modified): this runs after most actions
        if s._imp != st.moves or mods > 1 or (mods < 1 and self.aset.asymmetric):
            return False
        state = s.state
        if len(state.people) < st.people or len(state.rooms_involved) < st.rooms:
            return False
        diff_names = self.aset.differentiating
        for x in s.steps:  # a loop, not any(generator): this runs after most actions once imp = m
            if x.action.name in diff_names:
                return True
        return False

    def is_desired(self, s: Story) -> bool:
        return len(s) <= self.setting.max_sentences and self.structural(s)

    def never_desired(self, s: Story) -> bool:
        """N(s): no extension of s can become desired."""
        n = len(s)
        mx = self.setting.max_sentences
        if s.num_important > self.setting.moves or s.num_modified > 1 or n > mx:
            return True
        return n == mx and not self.structural(s)

    def finished(self, s: Story) -> bool:
        """S(s) or N(s), the default end of a rollout, tested after every added action.

        S or N = S or imp > m or mods > 1 or n > mx or (n == mx and not S) = S or imp > m or mods > 1 or n >= mx;
        and S needs imp == m, so the cheap counters decide nearly every call without `structural`.
        """
        # the story's counters read directly (len(s), s.num_important, s.num_modified): this runs after every
        # sampled action
        imp = s._imp
        moves = self.setting.moves
        if s._length >= self.setting.max_sentences or imp > moves or s._mods > 1:
            return True
        return imp == moves and self.structural(s)


def doomed_now(s: Story, conditions: Conditions) -> frozenset[str]:
    """The allowed types any of whose actions would make `s` never-desired now (`doomed_types`' four states)."""
    setting = conditions.setting
    sets = conditions.doomed_sets
    return sets[2 * (s._imp >= setting.moves) + (s._mods >= 1 or s._length > setting.max_sentences - 2)]
