"""What the infilling model is asked (ExploreToM, App. C.2): the system prompt (Fig. 9), the story's opening
(Fig. 10), the characters' goals (Fig. 11) and each step's continuation with its sampled desiderata (Fig. 12); and
who the characters are, which every prompt and check needs.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from tombench.dsl import Story

__all__ = [
    "FANTOM_LENGTHS",
    "FANTOM_TEXT_TYPE",
    "INFILL_SYSTEM_PROMPT",
    "LENGTHS",
    "TEXT_TYPES",
    "Desiderata",
    "Style",
    "goals_prompt",
    "infill_prompt",
    "names_in",
    "narration_prompt",
    "outsiders",
    "people_with_personas",
    "personas_of",
    "sample_desiderata",
]

Style = Literal["short", "fantom"]

#: Fig. 9, the system prompt of every infilling call
INFILL_SYSTEM_PROMPT = (
    "You are an expert writer that uses simple language, avoiding sounding unnatural or cliché. "
    "You are clear, creative, and helpful."
)
#: Fig. 12 caption: the length desideratum is drawn uniformly from these
LENGTHS: tuple[str, ...] = ("with a single sentence", "with up to two sentences")
#: Fig. 12 caption: the text-type desideratum is drawn uniformly from these
TEXT_TYPES: tuple[str, ...] = (
    "Make the new text be declarative, without including conversations.",
    "Make the new text conversational, using direct quotes to convey the words spoken by a character.",
)
#: `style="fantom"`: long, conversational infills in the manner of FANToM (people join and leave a conversation)
FANTOM_LENGTHS: tuple[str, ...] = ("with three to six lines of dialogue", "with up to ten lines of dialogue")
FANTOM_TEXT_TYPE = (
    "Make the new text a conversation between the characters who are present, one turn per line written as "
    "'Name: words'. Convey entering or leaving a room as joining or leaving the conversation; characters who are "
    "not present must not speak or hear anything."
)


@dataclass(frozen=True)
class Desiderata:
    """d_i of §2.3: how long the continuation is and what kind of text it is."""

    length: str
    text_type: str


def sample_desiderata(rng: random.Random, style: Style = "short") -> Desiderata:
    """Fig. 12: length and text type uniformly at random; the FANToM style is always a conversation."""
    if style == "fantom":
        return Desiderata(rng.choice(FANTOM_LENGTHS), FANTOM_TEXT_TYPE)
    return Desiderata(rng.choice(LENGTHS), rng.choice(TEXT_TYPES))


# ---------------------------------------------------------------------------------------------------------- prompts
def personas_of(story: Story) -> dict[str, str]:
    """Name -> description, as `tombench contexts` keeps them from the Fig. 7 answer ("Emily, a meticulous ...")."""
    personas = story.context.metadata.get("personas") if story.context.metadata else None
    if not isinstance(personas, dict):
        return {}
    return {k: v for k, v in personas.items() if isinstance(k, str) and isinstance(v, str) and v.strip()}


def people_with_personas(story: Story, sep: str = "; ") -> str:
    """The story's people with their descriptions ("Emily, a meticulous office manager"), Fig. 12's
    {people_with_personas} and Fig. 10-11's {characters_description}; bare names where a context has none."""
    personas = personas_of(story)
    return sep.join(f"{p}, {personas[p]}" if p in personas else p for p in story.people)


def _characters(story: Story) -> str:
    return people_with_personas(story, sep="\n")


def outsiders(story: Story) -> list[str]:
    """People the context knows who are not in the story: the context's other names and those its personas name
    (a story's context is restricted to its own people, but the personas and the setting text keep the others)."""
    known = [*story.context.people, *personas_of(story)]
    inside = set(story.people)
    return [p for p in dict.fromkeys(known) if p not in inside]


def _setting_without_outsiders(story: Story) -> str:
    """The context's setting text without the sentences naming someone outside the story (an LLM-written setting
    names all six people of the context; a two-person story's narration must not bring the other four in)."""
    others = outsiders(story)
    sentences = re.split(r"(?<=[.!?])\s+", story.context.setting.strip())
    return " ".join(x for x in sentences if x and not names_in(x, others))


def _script(story: Story) -> str:
    return "\n".join(" ".join(s.sentences) for s in story.steps)


def narration_prompt(story: Story) -> str:
    """Fig. 10: the story's setting before anything happens (no people, no actions)."""
    text = _setting_without_outsiders(story)
    setting = f"\n\nSETTING:\n{text}" if text else ""
    return (
        "Given the following story and knowing the description of the characters involved, write the start of a "
        "story. Don't actually describe any actions in the story, just the setting in which the story will happen. "
        "Only include the characters that are mentioned in the story.\n\n"
        f"STORY:\n{_script(story)}\n\nCHARACTERS:\n{_characters(story)}{setting}\n\n"
        "TWO-SENTENCE STORY BEGINNING THAT DOES NOT INCLUDE OR SUGGEST ANY INFORMATION OF WHAT WILL HAPPEN IN THE "
        "STORY. DO NOT MENTION PEOPLE:"
    )


def goals_prompt(story: Story) -> str:
    """Fig. 11: one goal per character of the story, one `Name: goal` line each."""
    return (
        "Given the following story and knowing the description of the characters involved, suggest a reasonable "
        "goal for each character. Only include the characters that were mentioned in the story.\n\n"
        f"STORY:\n{_script(story)}\n\nCHARACTERS:\n{_characters(story)}\n\n"
        "CHARACTERS GOALS: <insert here, one line per character as 'Name: goal'>\n\n"
        "Follow the format and do not include any other text. Only include the characters mentioned in the story, "
        "and do not even mention the others in your list."
    )


def infill_prompt(
    new_information: str,
    story_so_far: str,
    desiderata: Desiderata,
    *,
    characters: str,
    goals: dict[str, str] | None,
    k: int,
) -> str:
    """Fig. 12, verbatim but for the goals line (left out when there are none) and an explicit answer format.

    Built by concatenation, never `str.format`, so braces in names or model-written text cannot break it.
    """
    goals_text = "\n".join(f"{p}: {g}" for p, g in goals.items()) if goals else ""
    goals_block = f"WHAT ARE THEIR GOALS: {goals_text}\n\n" if goals_text else ""
    fills = "\n\n".join("STORY CONTINUATION: <fill>" for _ in range(k))
    return (
        f"Continue the story {desiderata.length}, clearly conveying the action or information below without "
        "altering it. Do not contradict any prior information. Avoid repeating the information verbatim, instead "
        "naturally (and possibly implicitly, but still unambiguously) conveying the meaning. Do not add characters "
        "or actions that were not explicitly described. Do not replace characters even if this would improve flow. "
        "Combining actions into a single sentence is OK as long as you do not alter the original information. "
        f"{desiderata.text_type}\n\n"
        "Make it a short, yet an interesting story to read. Make the text exciting to read as well as each "
        "character's speech, so try to avoid e.g. starting all the sentences the same way. The story needs to "
        "follow common sense, e.g. do not magically change an object's location without mentioning it. Do not "
        "include any notes, comments, parentheses, or any other form of extra text that would not belong in a "
        "story. Feel free to hint or describe characters' goals and motivations for performing the actions if it "
        "would make the story flow better.\n\n"
        "As a warning, take into account that when someone tells someone privately they might not be in the same "
        "location, e.g. they might be sending a text message or making a phone call; they might also be in the same "
        "location, in that case they could also communicate through a gesture, a whisper, etc. Do not assume a "
        "person is in the same room if it has not been made explicit before. Also, if someone was spying, or if "
        "they were distracted and did not listen/saw something happen, do not forget to include it!\n\n"
        f"Give {k} responses, ensuring to give {k} different phrasings of continuing the story conveying the "
        "action. Use very different wordings and sentence structures!\n\n"
        f"WHO ARE THE CHARACTERS: {characters}\n\n"
        f"{goals_block}"
        f"NEW ACTION OR INFORMATION TO INCLUDE: {new_information}\n\n"
        f"CURRENT SHORT STORY: {story_so_far}\n\n"
        "Follow the format and do not include any other text. Do not include any text before the list. Do not "
        f"enumerate. Continue the story {desiderata.length}. Avoid repeating the information verbatim, instead "
        "naturally (and possibly implicitly, but still unambiguously) conveying the meaning.\n\n"
        f"{fills}"
    )


def names_in(text: str, names: Iterable[str]) -> list[str]:
    return [n for n in names if re.search(r"(?<![\w])" + re.escape(n) + r"(?![\w])", text)]
