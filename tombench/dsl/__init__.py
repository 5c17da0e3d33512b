"""The pure ExploreToM story DSL: state, actions, tracker, questions, rendering and parsing.

No I/O, no models, no Inspect imports: everything here is a deterministic function of its inputs.

    >>> from tombench.dsl import parse_structure
    >>> story = parse_structure("Anne entered the kitchen. Anne moved the apple to the box, which is also located in the kitchen.")
    >>> [(q.text, q.answer) for q in story.questions(orders=(1,))]
    [('In which container will Anne search for the apple?', 'box')]
"""

from tombench.dsl.action_sets import (
    ACTION_SETS,
    STORY_TYPES,
    ActionSet,
    Setting,
    action_set,
    derive_seed,
    settings_grid,
)
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
    action_from_dict,
    action_name,
    action_to_dict,
)
from tombench.dsl.answers import AnswerMemo, AnswerType, Verdict, check_answer, extract_answer, normalise
from tombench.dsl.context import DEFAULT_CONTEXT, Context, ContextError, StateChange
from tombench.dsl.parse import StoryParseError, parse_structure, split_sentences, tomi_question
from tombench.dsl.prompting import SYSTEM_PROMPT, Prompt, build_prompt
from tombench.dsl.questions import Question
from tombench.dsl.rollouts import Rollouts
from tombench.dsl.sampler import Conditions, random_story, rollout, sample_action, setting_context
from tombench.dsl.story import STORY_SCHEMA_VERSION, Story, StoryError
from tombench.dsl.tracker import ActionRejected, Step

__all__ = [
    "ACTION_SETS",
    "STORY_TYPES",
    "STORY_SCHEMA_VERSION",
    "SYSTEM_PROMPT",
    "DEFAULT_CONTEXT",
    "Action",
    "ActionRejected",
    "ActionSet",
    "AnswerMemo",
    "AnswerType",
    "Conditions",
    "Context",
    "ContextError",
    "EnterRoom",
    "Fact",
    "LeaveRoom",
    "MoveObjectContainer",
    "MoveObjectRoom",
    "Prompt",
    "Question",
    "Setting",
    "StateChange",
    "Step",
    "Story",
    "StoryError",
    "StoryParseError",
    "TellPrivate",
    "TellPublic",
    "UpdateObjectState",
    "Verdict",
    "action_from_dict",
    "action_name",
    "action_set",
    "action_to_dict",
    "build_prompt",
    "check_answer",
    "derive_seed",
    "extract_answer",
    "normalise",
    "parse_structure",
    "random_story",
    "rollout",
    "Rollouts",
    "sample_action",
    "setting_context",
    "settings_grid",
    "split_sentences",
    "tomi_question",
]
