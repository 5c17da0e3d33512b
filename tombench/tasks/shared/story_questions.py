"""Story questions as Inspect Samples: one prompt, one metadata schema, one solver, one config for every ToM task.

The static, random, ToMi, live adversarial and transfer tasks all build their samples here, so a log of any of
them has the same metadata keys (the `breakdown` dimensions of `tombench.scorers.story_questions`) and asks the model exactly
the paper's way (`tombench.dsl.prompting`): system "You are a helpful assistant.", user
"{story}\\n{question} Short Answer.", temperature 0, top_p 1, 40 tokens.

    from tombench.tasks.shared.story_questions import story_samples, tom_solver, TOM_CONFIG
    samples = story_samples(story, story_id="s1", setting=Setting.make("tomi", 2, 2))
    Task(dataset=samples, solver=tom_solver(), scorer=tom_answer(), config=TOM_CONFIG)

Metadata of each sample (None where it does not apply):

| key | meaning |
|---|---|
| `action_set`, `asymmetric` | the story type split into its action set (`tomi+info-exchange`) and the +asymmetric flag |
| `story_type`, `setting_id` | the full story type and `Setting.id` (`tomi+asymmetric\\|p3\\|m3\\|r1`) |
| `people`, `moves`, `rooms` | the setting's p, m and number of rooms |
| `story_id` | stable id of the story (several questions share it) |
| `question`, `order`, `kind` | the question text, ToM order (0 = memory/state tracking, 1, 2) and §5.1 code |
| `interesting`, `false_belief` | the paper's flags (None for order 0) |
| `answer_type`, `candidates` | what the matcher reads: container/room/yes_no/knowledge, and the rival names |
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspect_ai.dataset import Sample
from inspect_ai.log import HeadlineMetric
from inspect_ai.model import GenerateConfig
from inspect_ai.solver import Solver, generate, system_message

from tombench.dsl.action_sets import Setting
from tombench.dsl.answers import AnswerType
from tombench.dsl.prompting import SYSTEM_PROMPT, build_prompt
from tombench.dsl.questions import Question
from tombench.dsl.story import Story

__all__ = [
    "HEADLINE",
    "TOM_CONFIG",
    "tom_solver",
    "tom_sample",
    "story_metadata",
    "question_metadata",
    "question_candidates",
    "story_samples",
    "split_story_type",
]

#: The paper's decoding (Appendix B.4): greedy, at most 40 new tokens. The task config default of every ToM task.
TOM_CONFIG = GenerateConfig(temperature=0.0, top_p=1.0, max_tokens=40)


#: The headline of every ToM task: overall accuracy (not the first breakdown key).
HEADLINE = HeadlineMetric(metric="accuracy")


def tom_solver(cache: bool = False) -> list[Solver]:
    """The paper's system prompt, then one generation (with Inspect's response cache when `cache`)."""
    return [system_message(SYSTEM_PROMPT), generate(cache=cache)]


def split_story_type(story_type: str) -> tuple[str, bool]:
    """("tomi+info-exchange+asymmetric") -> ("tomi+info-exchange", True)."""
    return story_type.removesuffix("+asymmetric"), story_type.endswith("+asymmetric")


def story_metadata(
    story_type: str | None,
    *,
    people: int | None,
    moves: int | None,
    rooms: int | None,
    story_id: str,
    setting_id: str | None = None,
) -> dict[str, Any]:
    """The per-story part of a sample's metadata (shared by all of a story's questions)."""
    action_set, asymmetric = split_story_type(story_type) if story_type else (None, None)
    if setting_id is None and story_type is not None:
        setting_id = f"{story_type}|p{people}|m{moves}|r{rooms}"
    return {
        "story_type": story_type,
        "action_set": action_set,
        "asymmetric": asymmetric,
        "people": people,
        "moves": moves,
        "rooms": rooms,
        "story_id": story_id,
        "setting_id": setting_id,
    }


def question_candidates(story: Story, answer_type: AnswerType | str) -> list[str]:
    """The names a rival answer may take: the story context's containers or rooms (none for yes/no questions)."""
    answer_type = AnswerType(answer_type)
    if answer_type is AnswerType.CONTAINER:
        return list(story.context.containers)
    if answer_type is AnswerType.ROOM:
        return list(story.context.rooms)
    return []


def question_metadata(question: Question, candidates: Sequence[str]) -> dict[str, Any]:
    """The per-question part of a sample's metadata, from a DSL `Question`."""
    return {
        "question": question.text,
        "order": question.order,
        "kind": question.kind,
        "interesting": question.interesting,
        "false_belief": question.false_belief,
        "answer_type": question.answer_type.value,
        "candidates": list(candidates),
    }


def tom_sample(id: str, story_text: str, question_text: str, answer: str, metadata: dict[str, Any]) -> Sample:
    """One question as a Sample: input is the paper's user message, target the expected answer.

    The system prompt is added by `tom_solver`, so `inspect view` shows the story and question as the input.
    """
    prompt = build_prompt(story_text, question_text)
    return Sample(id=id, input=prompt.user, target=answer, metadata={"question": question_text, **metadata})


def story_samples(
    story: Story,
    *,
    story_id: str,
    setting: Setting | None = None,
    orders: Sequence[int] = (0, 1, 2),
    extra: dict[str, Any] | None = None,
) -> list[Sample]:
    """Every question of `story` of the given ToM orders, as Samples with ids `{story_id}|q{index:02d}`.

    `setting` fills the story type, people, moves and rooms (None for a story without one: those keys are then None
    and the story is left out of their groups); `extra` is merged into every sample's metadata (e.g. provenance).
    """
    if setting is None:
        base = story_metadata(None, people=None, moves=None, rooms=None, story_id=story_id)
    else:
        base = story_metadata(
            setting.story_type,
            people=setting.people,
            moves=setting.moves,
            rooms=setting.rooms,
            story_id=story_id,
            setting_id=setting.id,
        )
    samples = []
    for i, q in enumerate(story.questions(orders=tuple(orders))):
        md = {**base, **question_metadata(q, question_candidates(story, q.answer_type)), **(extra or {})}
        samples.append(tom_sample(f"{story_id}|q{i:02d}", story.text, q.text, q.answer, md))
    return samples
