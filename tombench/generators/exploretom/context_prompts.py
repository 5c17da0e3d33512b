"""What the context generator asks (ExploreToM App. C.1): two list prompts (Fig. 8: names, settings), then one joint
context per call (Fig. 7), asked as JSON so that it parses reliably; then the object-state changes of Fig. 2B and the
yes/no judge's questions. `tombench.generators.exploretom.contexts` asks them and parses the answers.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "NAMES_PROMPT",
    "SETTINGS_PROMPT",
    "context_prompt",
    "judge_containers_prompt",
    "judge_plausible_change_prompt",
    "judge_rooms_prompt",
    "judge_topics_prompt",
    "judge_visible_change_prompt",
    "state_changes_prompt",
]

NAMES_PROMPT = "List 100 names. Do not include any other text."

SETTINGS_PROMPT = """Suggest 100 different general contexts in which a story may happen. The context should be able to \
have several people in the same location easily listening and observing each other.

1. a school
2. a hospital
3. a vet shop
4. a family living room

Follow the format and make the descriptions as short as possible. Do not include any text before the list."""


def context_prompt(
    *, num_people: int, num_containers: int, num_topics: int, location: str, names: Sequence[str]
) -> str:
    """Fig. 7 of the paper, with the answer requested as one JSON object instead of labelled sections."""
    return f"""Suggest a short context where {num_people} people are together in a room. It should be at most two \
sentences long, and they should be able to observe each other. Later in the story, characters are going to move \
around and store objects, so your context should be plausible under those constraints. Do not explicitly include \
that they can all see each other, it should be clear from context. The room could be in a house, work environment, \
etc.

Answer with one JSON object and nothing else, with these keys:
- "people": the {num_people} characters, each as "Name, a short description" (single first names),
- "story_context": the short story context,
- "room": the room in which this story begins,
- "alternative_room": one reasonable alternative room they could move to,
- "object": one object to be moved by a person during the story,
- "containers": {num_containers} reasonable opaque containers that could contain this object,
- "topics": {num_topics} distinct and reasonable topics they could be chatting about.

Here's an example for three people (with fewer containers and topics than you should give):
{{"people": ["Emily, a meticulous office manager.", "Jason, a tech-savvy intern.", "Karen, a diligent accountant."],
 "story_context": "Emily, Jason, and Karen gathered around the central table in the sleek office's conference room, \
discussing the upcoming audit. As they strategized, the shelves and storage compartments lining the walls around them \
held the tools and documents they would soon need to organize and pack away.",
 "room": "conference room", "alternative_room": "records room", "object": "stapler",
 "containers": ["filing cabinet", "desk drawer"], "topics": ["upcoming audit", "new expense policy"]}}

To get inspired, make this context happen in {location}. Suggested names are {", ".join(names)}, but feel free to \
come up with your own names if it would suit the story better. Be direct with your answers: do not include \
parentheses or clarifications beyond the responses requested. Do not refer to plural objects or give options if a \
singular thing is requested. The object could be anything--a pen, an apple, a spoon, a pair of scissors, etc.--, be \
creative! Topics are short lower-case noun phrases that read well after "they talked about the"."""


def state_changes_prompt(*, setting: str, obj: str, num_changes: int) -> str:
    """Fig. 2B: candidate ways to change the object's state, each as a sentence template and the resulting state."""
    return f"""Story context: {setting}
The story involves a {obj}.

List {num_changes} different things a person in this story could do to the {obj} that change its state without \
moving it (for example painting it, peeling it, wrapping it, poisoning it, disinfecting it). Include some changes \
that anyone looking at the {obj} afterwards would notice, and some that nobody could notice by looking.

Answer with a JSON list and nothing else. Each element is an object with these keys:
- "sentence": a past-tense sentence about the change using the literal placeholders {{person}} and {{object}}, \
e.g. "{{person}} painted the {{object}} bright orange.",
- "property": a short lower-case name of the property that changes, e.g. "paint color",
- "resulting_state": how the {obj} is afterwards, as words that complete "the {obj} ...", e.g. "is painted bright \
orange"."""


def judge_containers_prompt(setting: str, obj: str, containers: Sequence[str]) -> str:
    return (
        f"Story context: {setting}\nObject: {obj}\nContainers: {', '.join(containers)}\n\n"
        f"Is every one of these containers opaque (one cannot see what is inside without opening it), able to hold "
        f"the {obj}, and plausible in this story context? Answer yes or no."
    )


def judge_rooms_prompt(setting: str, rooms: Sequence[str]) -> str:
    return (
        f"Story context: {setting}\nRooms: {', '.join(rooms)}\n\n"
        f"Are these distinct, plausible rooms for this story context, such that people could walk from one to the "
        f"other? Answer yes or no."
    )


def judge_topics_prompt(setting: str, topics: Sequence[str]) -> str:
    return (
        f"Story context: {setting}\nTopics: {', '.join(topics)}\n\n"
        f"Are all of these distinct, plausible topics that these people could chat about? Answer yes or no."
    )


def judge_plausible_change_prompt(setting: str, obj: str, sentence: str) -> str:
    return (
        f"Story context: {setting}\nAction: {sentence}\n\n"
        f"Is this a plausible, physically possible action on the {obj} in this story, which leaves the {obj} in the "
        f"same place? Answer yes or no."
    )


def judge_visible_change_prompt(obj: str, sentence: str) -> str:
    return (
        f"Action: {sentence}\n\nSomeone saw the {obj} before this action and did not see the action. If they looked "
        f"at the {obj} afterwards, would they notice at a glance that it changed? Answer yes or no."
    )
