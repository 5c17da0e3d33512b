"""What the infilling judge checks (ExploreToM §2.3): after each step, that the new text conveys the step, keeps the
whole world state and every first-order belief the DSL tracks, and keeps a witness or a distraction to its one
action (`judge_checks`, with the deterministic `precheck` before the judge is paid); the opening
(`narration_checks`); and the finished text against every label the export can use (`final_checks`).

The authors' released infiller judges the world state and every first-order belief after each step too (their
second-order ones are skipped there "since models are quite bad on them"); tombench judges those at the end instead,
together with every exported label. docs/design-notes/infill-and-export.md compares the two check by check.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from tombench.dsl import Question, Story
from tombench.dsl.render import join_names
from tombench.dsl.state import State
from tombench.dsl.values import CONTAINER, NO_CONTAINER, ROOM, NotIn
from tombench.generators.exploretom.infill_prompts import Style, names_in, outsiders, personas_of

__all__ = [
    "Check",
    "failed_checks",
    "final_checks",
    "final_judge_prompt",
    "judge_checks",
    "judge_prompt",
    "narration_checks",
    "narration_judge_prompt",
    "precheck",
    "scope_checks",
    "world_statements",
]


@dataclass(frozen=True)
class Check:
    """One yes/no question for the judge and the answer the tracked state requires."""

    question: str
    expected: bool
    kind: Literal[
        "conveys",
        "modifier",
        "scope",
        "new_content",
        "renamed",
        "surface",
        "absent_speaker",
        "world",
        "belief",
        "people",
        "object",
        "events",
        "label",
    ]


def _yes_no(answer: str) -> str:
    return answer if answer in ("yes", "no") else f"'{answer}'"


def _present(story: Story, index: int) -> list[str]:
    """People in a room just before or just after step `index` (one who leaves may speak before going, one who
    enters may speak after arriving); everyone else is absent and must stay silent in a conversation."""
    before = Story(story.context, story.actions[:index])
    after = Story(story.context, story.actions[: index + 1])
    here = [p for st in (before, after) for p in st.people if isinstance(st.state.world.get((p, "room")), str)]
    return list(dict.fromkeys(here))


def judge_checks(story: Story, index: int, *, max_beliefs: int | None = None, style: Style = "short") -> list[Check]:
    """The judge's checks after step `index` (0-based): what the infilled text must say for the labels to hold.

    The step's own checks come first (a candidate that fails one is rejected before the rest is paid for):

    * conveys: "Does the new text convey that: <the step's sentence>?" (yes)
    * modifier: for a step with a witness/distraction sentence, "... also convey that: <that sentence>?" (yes)
    * scope (`scope_checks`): a secret witness or a distraction stays unnoticed and ends with the action (no)
    * new_content: does the new text add a character, or an action on the object that is not in the step? (no)
    * renamed: does it call a character by another name or replace one? (no)
    * surface: is it coherent English (yes); does it carry writer notes or comments (no)
    * absent_speaker (`style="fantom"`): does anyone who is not in a room now (never entered, or left) speak or hear
      anything? (no)

    Then the tracked state after the step, whole, as the authors' infiller checks it:

    * world: every world fact (`world_statements`: where each person, object and container is, the object's
      states), "According to the story so far, is this true now: <fact>?" (yes)
    * belief: every first-order question of the story prefix (C1, R1, K1, S1: every first-order belief about an
      object or a topic, "no" answers included), as "According to the story so far: <question> Is the answer
      <answer>?" (yes), those whose answer this step created or changed first. `max_beliefs` caps them (None: all);
      a cap leaves some people's beliefs unjudged at this step (an infill that lets an absent person watch would
      pass it), so it is for cost only.

    Second-order beliefs and memory questions are judged on the finished text (`final_checks`, orders 0-2).
    """
    prefix = Story(story.context, story.actions[: index + 1])
    checks = _step_checks(story, index, prefix, style)
    checks += [
        Check(f"According to the story so far, is this true now: {s}?", True, "world")
        for s in world_statements(prefix.state)
    ]
    return checks + _belief_checks(story, index, prefix, max_beliefs)


def _step_checks(story: Story, index: int, prefix: Story, style: Style) -> list[Check]:
    """What the new text itself must do (and must not do) for this step."""
    step = story.steps[index]
    people = ", ".join(prefix.people)
    checks = [Check(f"Does the new text convey that: {step.sentence}", True, "conveys")]
    if step.modifier is not None:
        checks.append(Check(f"Does the new text also convey that: {step.modifier}", True, "modifier"))
    checks += scope_checks(story, index)
    checks.append(
        Check(
            f"Does the new text introduce a character other than {people}, or describe someone moving, hiding or "
            "changing an object in a way that the new action or information does not state?",
            False,
            "new_content",
        )
    )
    checks.append(
        Check(
            f"Does the new text call any of {people} by a different name, or replace one of them by someone else?",
            False,
            "renamed",
        )
    )
    checks.append(Check("Is the new text reasonable, coherent English?", True, "surface"))
    checks.append(
        Check(
            "Does the new text include writer notes, comments or anything else that does not belong in the story?",
            False,
            "surface",
        )
    )
    if style == "fantom":
        absent = [p for p in prefix.people if p not in _present(story, index)]
        if absent:
            checks.append(
                Check(f"In the new text, does {' or '.join(absent)} speak or hear anything?", False, "absent_speaker")
            )
    return checks


def scope_checks(story: Story, index: int) -> list[Check]:
    """A secret witness or a distraction covers this one action (the modifier sentence says so): nobody notices the
    witness (nobody models a peeker), nobody notices the distraction (everyone assumes the distracted person saw),
    the distracted person misses the action, and both end with it. Each of these decides first- or second-order
    labels; the authors' infiller asks the same five questions in its "ad hoc" judge call."""
    action = story.steps[index].action
    peekers: tuple[str, ...] = getattr(action, "peekers", ())
    distracted: tuple[str, ...] = getattr(action, "distracted", ())
    checks = []
    if peekers:
        k = join_names(peekers)
        checks += [
            Check(f"Does the new text suggest that anyone notices {k} watching?", False, "scope"),
            Check(f"Does the new text suggest that {k} goes on watching after this action?", False, "scope"),
        ]
    if distracted:
        d = join_names(distracted)
        checks += [
            Check(f"Does the new text suggest that anyone notices that {d} is distracted?", False, "scope"),
            Check(f"Does the new text suggest that {d} notices anything of this action?", False, "scope"),
            Check(f"Does the new text suggest that {d} stays distracted after this action?", False, "scope"),
        ]
    return checks


def _belief_checks(story: Story, index: int, prefix: Story, max_beliefs: int | None) -> list[Check]:
    """Every first-order question of the prefix, those this step created or changed first, capped at `max_beliefs`."""
    before = Story(story.context, story.actions[:index])
    old = {(q.text, q.answer) for q in before.questions(orders=(1,), first_order_room_questions=True)}
    qs: list[Question] = prefix.questions(orders=(1,), first_order_room_questions=True)
    ranked = [q for q in qs if (q.text, q.answer) not in old] + [q for q in qs if (q.text, q.answer) in old]
    if max_beliefs is not None:
        ranked = ranked[:max_beliefs]
    return [
        Check(f"According to the story so far: {q.text} Is the answer {_yes_no(q.answer)}?", True, "belief")
        for q in ranked
    ]


def world_statements(state: State) -> list[str]:
    """The world state as plain statements, one per tracked fact, in the order the facts first appeared: where each
    person is (or the room they left), where each object and container is, and each state of the object."""
    people = set(state.people)
    out = []
    for (entity, prop), value in state.world.items():
        subject = entity if entity in people else f"the {entity}"
        if value is NO_CONTAINER:
            out.append(f"{subject} is not inside any container")
        elif isinstance(value, NotIn):
            out.append(f"{subject} is not in the {value.where}")
        elif prop in (ROOM, CONTAINER) and isinstance(value, str):
            out.append(f"{subject} is in the {value}")
        elif isinstance(value, str):
            out.append(f"{subject} {value}")
    return out


def narration_checks(story: Story) -> list[Check]:
    """Fig. 10 asks for a setting that names no one and tells nothing of what will happen; the judge checks both
    (and that it does not place the object somewhere, which would contradict the tracked state)."""
    objects = " or ".join(f"the {o}" for o in story.context.objects) or "any object"
    return [
        Check("Does the text mention, name or describe any person?", False, "people"),
        Check(f"Does the text say where {objects} is, or describe anything done to it?", False, "object"),
        Check(f"Does the text describe or suggest any of these events: {' '.join(story.sentences)}", False, "events"),
    ]


def narration_judge_prompt(narration: str, checks: Sequence[Check]) -> str:
    numbered = "\n".join(f"{i}. {c.question}" for i, c in enumerate(checks, start=1))
    return (
        "You check a story opening. Read it and answer each question with yes or no.\n\n"
        f"TEXT:\n{narration}\n\n{numbered}\n\n"
        "Reply with one line per question, exactly as '<number>: yes' or '<number>: no', and nothing else."
    )


def final_checks(story: Story, orders: Sequence[int] = (0, 1, 2)) -> list[tuple[Question, Check]]:
    """Every question the export can label for this story (the same `story.questions(orders=...)` call), each as a
    check the finished infilled text must pass: "According to the story: <question> Is the answer <answer>?"."""
    return [
        (q, Check(f"According to the story: {q.text} Is the answer {_yes_no(q.answer)}?", True, "label"))
        for q in story.questions(orders=tuple(orders))
    ]


def final_judge_prompt(text: str, checks: Sequence[Check]) -> str:
    """The finished story and a batch of label checks (the same answer format as the step judge)."""
    numbered = "\n".join(f"{i}. {c.question}" for i, c in enumerate(checks, start=1))
    return (
        "You check a story for consistency. Read the whole story, then answer each question about it with yes or "
        "no. Answer 'no' when the story leaves the answer ambiguous.\n\n"
        f"STORY:\n{text}\n\n{numbered}\n\n"
        "Reply with one line per question, exactly as '<number>: yes' or '<number>: no', and nothing else."
    )


def judge_prompt(story_so_far: str, new_text: str, checks: Sequence[Check]) -> str:
    """The judge sees the whole infilled text so far, the new part separately, and the numbered checks (one batch of
    a step's checks: the story and the new text are repeated in every batch, so each call stands alone).

    The two notes are the DSL's witness rule and where a contained object is, so that the judge reads the world and
    belief checks as the tracker does (the authors' judge prompt has similar "things to note")."""
    numbered = "\n".join(f"{i}. {c.question}" for i, c in enumerate(checks, start=1))
    return (
        "You check a story for consistency. Read the story so far and the new text that continues it.\n\n"
        f"STORY SO FAR:\n{story_so_far or '(nothing yet)'}\n\nNEW TEXT:\n{new_text}\n\n"
        "Answer each question about the story (the story so far followed by the new text) with yes or no. Answer "
        "'no' to a 'does it convey' question when the text leaves it ambiguous. Unless the story says otherwise, "
        "people in a room see what happens there and people elsewhere do not, and an object put in a container is "
        "still in that container's room.\n\n"
        f"{numbered}\n\n"
        "Reply with one line per question, exactly as '<number>: yes' or '<number>: no', and nothing else."
    )


def precheck(candidate: str, story: Story, index: int, *, max_chars: int = 1200, style: Style = "short") -> str | None:
    """Cheap deterministic rejections before the judge is paid; the reason, or None when the candidate may go on.

    Template leftovers (braces, `<fill>`), empty or runaway text, someone the context knows (its people, the names
    of its personas) who is not in the story by this step, a speaker label that is not a story person, and, in the
    fantom style, a speaker who is not in a room at this step (never entered, or already left).
    """
    if not candidate.strip():
        return "empty continuation"
    if re.search(r"[{}]|<fill>|\[insert", candidate, re.I):
        return "template leftovers (braces or placeholders)"
    if len(candidate) > max_chars:
        return f"longer than {max_chars} characters"
    present = set(Story(story.context, story.actions[: index + 1]).people)
    known = dict.fromkeys([*story.context.people, *personas_of(story), *outsiders(story)])
    others = names_in(candidate, [p for p in known if p not in present])
    if others:
        return f"names someone not in the story yet: {', '.join(others)}"
    here = set(_present(story, index)) if style == "fantom" else present
    for m in re.finditer(r"^\s*\**([A-Z][\w'\-]*)\**\s*:", candidate, re.M):
        if m.group(1) not in present:
            return f"speaker {m.group(1)!r} is not a story character"
        if m.group(1) not in here:
            return f"speaker {m.group(1)!r} is not present at this step"
    return None


def failed_checks(checks: Sequence[Check], verdicts: Sequence[bool | None]) -> tuple[list[str], list[str]]:
    wrong = [c.kind for c, v in zip(checks, verdicts, strict=True) if v is not None and v != c.expected]
    unclear = [c.kind for c, v in zip(checks, verdicts, strict=True) if v is None]
    return wrong, unclear
