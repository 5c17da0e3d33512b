"""Iterative story infilling with a per-step LLM judge (ExploreToM, Sclar et al. 2024, arXiv:2412.12175, §2.3, App. C.2).

A story structure (the DSL's one-sentence-per-action text) is turned into a natural narration one step at a time:

    SI(0) = c                                  (a two-sentence setting, Fig. 10; optional)
    SI(i) = infill(a_i, SI(i-1), d_i, g)       (Fig. 12: k candidate continuations in one call)

where `d_i` are the stylistic desiderata sampled per step (length and text type, uniformly as in Fig. 12) and `g`
the characters' goals (Fig. 11; optional). Infilling step by step keeps the order of the actions, which is what
keeps the tracked mental states valid. After each step a judge (temperature 0) checks each candidate against the
tracked state *after* that step (`judge_checks`); the first candidate that passes every check is kept. A step whose
candidates all fail (after `step_attempts` generations) marks the story `failed`: it is written with its failing
step and never silently kept as infilled text.

    import asyncio
    from tombench.generators.exploretom.infill import InfillConfig, infill_file
    report = asyncio.run(infill_file("openai/gpt-4o", "search.jsonl", "infilled.jsonl", config=InfillConfig()))
    print(report.summary())

Every story is known by its content digest (`tombench.generators.exploretom.identity`), never by a search id: merged inputs
infill each story once, and the output is resumable by digest. A story gets up to `story_attempts` whole-story
rounds (across runs); every call of round r carries r in its cache key, so a retry really asks the model again,
while re-running a finished command is served from Inspect's cache for free. The finished text is judged once more
against every label the export can use (`final_checks`), and the export labels an infilled text only with the
questions the judge confirmed.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tombench.dsl import Question, Story, StoryError, derive_seed
from tombench.generators.exploretom.identity import story_digest
from tombench.kit.calls import Asker, MalformedOutput, make_asker
from tombench.kit.replies import read_yes_no as parse_yes_no

if TYPE_CHECKING:
    from inspect_ai.model import CachePolicy, Model

__all__ = [
    "INFILL_SYSTEM_PROMPT",
    "LENGTHS",
    "TEXT_TYPES",
    "FANTOM_LENGTHS",
    "FANTOM_TEXT_TYPE",
    "Check",
    "Desiderata",
    "InfillConfig",
    "InfillError",
    "InfillReport",
    "StoryInput",
    "Style",
    "goals_prompt",
    "infill_file",
    "infill_prompt",
    "infill_story",
    "judge_checks",
    "judge_prompt",
    "load_story_inputs",
    "narration_prompt",
    "parse_candidates",
    "parse_goals",
    "parse_judge",
    "precheck",
    "sample_desiderata",
    "final_checks",
    "final_judge_prompt",
    "narration_checks",
    "narration_judge_prompt",
    "outsiders",
    "people_with_personas",
    "read_infill_output",
    "story_acceptance",
]

Style = Literal["short", "fantom"]
Ask = Callable[[str], Awaitable[str]]

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

_MARKER = re.compile(r"^[\s*#>_-]*(?:\d+[.)]\s*)?story\s+continuation\s*(?:\d+\s*)?[*_]*\s*:[*_]*\s*", re.I | re.M)


class InfillError(ValueError):
    """An input file that cannot be read as stories (the message names the file and the line)."""


# ---------------------------------------------------------------------------------------------------------- inputs
@dataclass(frozen=True)
class StoryInput:
    """One story to infill or export, with what the input line said about it."""

    id: str
    story: Story
    story_type: str = "unknown"
    setting: str = ""
    #: the input record itself (an infill output line keeps its infilled text here)
    record: dict[str, Any] = field(default_factory=dict, compare=False)
    #: the content identity (`tombench.generators.exploretom.identity.story_digest`): what every join and resume uses
    digest: str = ""

    def __post_init__(self) -> None:
        if not self.digest:
            object.__setattr__(self, "digest", story_digest(self.story, self.story_type))


def _story_type(rec: dict[str, Any]) -> tuple[str, str]:
    setting = next((rec[k] for k in ("setting", "setting_id") if isinstance(rec.get(k), str) and rec[k]), "")
    st = rec.get("story_type")
    if isinstance(st, str) and st:
        return st, setting or ""
    return (setting.split("|")[0] if setting else "unknown"), setting or ""


def load_story_inputs(path: str | Path) -> tuple[list[StoryInput], int]:
    """Stories from a JSONL file: search results (`{"story": ...}`), infill outputs, or plain `Story.to_dict()` lines.

    Returns the stories and the number of lines without one (a search that found nothing writes `"story": null`).
    Anything else that does not load raises `InfillError` naming the line, because silently dropping a story would
    skew every rate computed downstream. Every story gets its content digest from what the line holds (files written
    before the `digest` field existed load the same); a line whose stored digest disagrees with its own story is an
    error, since joining by it would attach text or labels to another story.
    """
    path = Path(path)
    if not path.is_file():
        raise InfillError(f"{path}: no such file")
    out: list[StoryInput] = []
    empty = 0
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            raise InfillError(f"{path}:{lineno}: invalid JSON ({e.msg})") from None
        if not isinstance(rec, dict):
            raise InfillError(f"{path}:{lineno}: expected a JSON object")
        if "story" in rec:
            data = rec["story"]
            if data is None:
                empty += 1
                continue
        elif "actions" in rec:
            data = rec
        else:
            raise InfillError(f"{path}:{lineno}: no 'story' key and not a story (no 'actions')")
        if not isinstance(data, dict):
            raise InfillError(f"{path}:{lineno}: 'story' must be an object")
        try:
            story = Story.from_dict(data)
        except StoryError as e:
            raise InfillError(f"{path}:{lineno}: {e}") from None
        st, setting = _story_type(rec)
        digest = story_digest(story, st)
        stored = rec.get("digest") if "story" in rec else None
        if stored is not None and stored != digest:
            raise InfillError(f"{path}:{lineno}: stored digest {stored!r} does not match its story ({digest})")
        sid = rec.get("id") if isinstance(rec.get("id"), str) and rec.get("id") else digest
        out.append(StoryInput(id=sid, story=story, story_type=st, setting=setting, record=rec, digest=digest))
    return out, empty


# ---------------------------------------------------------------------------------------------------------- desiderata
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
def _personas(story: Story) -> dict[str, str]:
    """Name -> description, as `tombench contexts` keeps them from the Fig. 7 answer ("Emily, a meticulous ...")."""
    personas = story.context.metadata.get("personas") if story.context.metadata else None
    if not isinstance(personas, dict):
        return {}
    return {k: v for k, v in personas.items() if isinstance(k, str) and isinstance(v, str) and v.strip()}


def people_with_personas(story: Story, sep: str = "; ") -> str:
    """The story's people with their descriptions ("Emily, a meticulous office manager"), Fig. 12's
    {people_with_personas} and Fig. 10-11's {characters_description}; bare names where a context has none."""
    personas = _personas(story)
    return sep.join(f"{p}, {personas[p]}" if p in personas else p for p in story.people)


def _characters(story: Story) -> str:
    return people_with_personas(story, sep="\n")


def outsiders(story: Story) -> list[str]:
    """People the context knows who are not in the story: the context's other names and those its personas name
    (a story's context is restricted to its own people, but the personas and the setting text keep the others)."""
    known = [*story.context.people, *_personas(story)]
    inside = set(story.people)
    return [p for p in dict.fromkeys(known) if p not in inside]


def _setting_without_outsiders(story: Story) -> str:
    """The context's setting text without the sentences naming someone outside the story (an LLM-written setting
    names all six people of the context; a two-person story's narration must not bring the other four in)."""
    others = outsiders(story)
    sentences = re.split(r"(?<=[.!?])\s+", story.context.setting.strip())
    return " ".join(x for x in sentences if x and not _names_in(x, others))


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


# ---------------------------------------------------------------------------------------------------------- parsing
def parse_candidates(text: str) -> list[str]:
    """The continuations after each `STORY CONTINUATION:` label; prose before the first label is ignored.

    Raises `MalformedOutput` when there is no label with text after it. Surrounding quotes of a whole candidate,
    a literal `<fill>` and trailing "Note: ..." paragraphs are removed; duplicates are dropped.
    """
    marks = list(_MARKER.finditer(text))
    out: list[str] = []
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        chunk = text[m.end() : end].replace("<fill>", "")
        chunk = re.split(r"\n\s*(?:\(?\s*note\b|\*\*note)", chunk, maxsplit=1, flags=re.I)[0]
        chunk = chunk.strip().strip("*").strip()
        if len(chunk) >= 2 and chunk[0] == chunk[-1] == '"' and chunk.count('"') == 2:
            chunk = chunk[1:-1].strip()
        if chunk and chunk not in out:
            out.append(chunk)
    if not out:
        raise MalformedOutput("no 'STORY CONTINUATION:' with text in the answer")
    return out


def parse_goals(text: str, people: Sequence[str]) -> dict[str, str]:
    """`Name: goal` lines for the story's people (markdown, bullets and braces around names tolerated).

    Lines about anyone else are dropped (Fig. 11 says "only the characters mentioned"). Raises `MalformedOutput`
    when no line names a story person.
    """
    goals: dict[str, str] = {}
    for line in text.splitlines():
        m = re.match(r"^\s*(?:[-*•]|\d+[.)])?\s*[*_{\[]*\s*([A-Z][\w'\-]*)\s*[*_}\]]*\s*[:\-–]\s*(.+)$", line)
        if m and m.group(1) in people and m.group(1) not in goals:
            goal = m.group(2).strip().strip("*").strip()
            if goal:
                goals[m.group(1)] = goal
    if not goals:
        raise MalformedOutput("no 'Name: goal' line for a story character")
    return goals


def parse_judge(text: str, n: int) -> list[bool | None]:
    """Verdicts for checks 1..n from `k: yes|no` lines; None for a check answered otherwise ("maybe") or not at all.

    With a single check, a bare "Yes."/"No." answer counts too.
    """
    verdicts: list[bool | None] = [None] * n
    for line in text.splitlines():
        m = re.match(r"^\s*[*#(\[]*\s*(?:q(?:uestion)?\s*)?(\d+)\s*[*)\]]*\s*[:.)\-]\s*(.*)$", line, re.I)
        if m:
            k = int(m.group(1))
            if 1 <= k <= n and verdicts[k - 1] is None:
                verdicts[k - 1] = parse_yes_no(m.group(2).strip().strip("*"))
    if n == 1 and verdicts[0] is None:
        verdicts[0] = parse_yes_no(text)
    return verdicts


# ---------------------------------------------------------------------------------------------------------- checks
@dataclass(frozen=True)
class Check:
    """One yes/no question for the judge and the answer the tracked state requires."""

    question: str
    expected: bool
    kind: Literal[
        "conveys", "modifier", "new_content", "renamed", "absent_speaker", "belief", "people", "object", "events", "label"
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


def judge_checks(story: Story, index: int, *, max_beliefs: int = 4, style: Style = "short") -> list[Check]:
    """The judge's checks after step `index` (0-based): what the infilled text must say for the labels to hold.

    * conveys: "Does the new text convey that: <the step's sentence>?" (yes)
    * modifier: for a step with a witness/distraction sentence, "... also convey that: <that sentence>?" (yes)
    * new_content: does the new text add a character, or an action on the object that is not in the step? (no)
    * renamed: does it call a character by another name or replace one? (no)
    * absent_speaker (`style="fantom"`): does anyone who is not in a room now (never entered, or left) speak or hear
      anything? (no)
    * belief: first-order questions of the story prefix, as "According to the story so far: <question> Is the
      answer <answer>?" (yes), those whose answer this step created or changed first, then the rest, at most
      `max_beliefs`. The whole story is judged again at the end against every label the export can use
      (`final_checks`, orders 0-2).
    """
    step = story.steps[index]
    prefix = Story(story.context, story.actions[: index + 1])
    before = Story(story.context, story.actions[:index])
    people = ", ".join(prefix.people)
    checks = [Check(f"Does the new text convey that: {step.sentence}", True, "conveys")]
    if step.modifier is not None:
        checks.append(Check(f"Does the new text also convey that: {step.modifier}", True, "modifier"))
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
    if style == "fantom":
        absent = [p for p in prefix.people if p not in _present(story, index)]
        if absent:
            checks.append(
                Check(f"In the new text, does {' or '.join(absent)} speak or hear anything?", False, "absent_speaker")
            )
    old = {(q.text, q.answer) for q in before.questions(orders=(1,))}
    qs: list[Question] = prefix.questions(orders=(1,))
    ranked = [q for q in qs if (q.text, q.answer) not in old] + [q for q in qs if (q.text, q.answer) in old]
    for q in ranked[:max_beliefs]:
        checks.append(
            Check(f"According to the story so far: {q.text} Is the answer {_yes_no(q.answer)}?", True, "belief")
        )
    return checks


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
    """The judge sees the whole infilled text so far, the new part separately, and the numbered checks."""
    numbered = "\n".join(f"{i}. {c.question}" for i, c in enumerate(checks, start=1))
    return (
        "You check a story for consistency. Read the story so far and the new text that continues it.\n\n"
        f"STORY SO FAR:\n{story_so_far or '(nothing yet)'}\n\nNEW TEXT:\n{new_text}\n\n"
        "Answer each question about the story (the story so far followed by the new text) with yes or no. Answer "
        "'no' to a 'does it convey' question when the text leaves it ambiguous.\n\n"
        f"{numbered}\n\n"
        "Reply with one line per question, exactly as '<number>: yes' or '<number>: no', and nothing else."
    )


def _names_in(text: str, names: Iterable[str]) -> list[str]:
    return [n for n in names if re.search(r"(?<![\w])" + re.escape(n) + r"(?![\w])", text)]


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
    known = dict.fromkeys([*story.context.people, *_personas(story), *outsiders(story)])
    others = _names_in(candidate, [p for p in known if p not in present])
    if others:
        return f"names someone not in the story yet: {', '.join(others)}"
    here = set(_present(story, index)) if style == "fantom" else present
    for m in re.finditer(r"^\s*\**([A-Z][\w'\-]*)\**\s*:", candidate, re.M):
        if m.group(1) not in present:
            return f"speaker {m.group(1)!r} is not a story character"
        if m.group(1) not in here:
            return f"speaker {m.group(1)!r} is not present at this step"
    return None


def _verdicts_fail(checks: Sequence[Check], verdicts: Sequence[bool | None]) -> tuple[list[str], list[str]]:
    wrong = [c.kind for c, v in zip(checks, verdicts, strict=True) if v is not None and v != c.expected]
    unclear = [c.kind for c, v in zip(checks, verdicts, strict=True) if v is None]
    return wrong, unclear


# ---------------------------------------------------------------------------------------------------------- infilling
@dataclass(frozen=True)
class InfillConfig:
    """How to infill; the defaults follow the paper (3 candidates in one call, narration and goals on)."""

    #: candidate continuations asked for in one call (Fig. 12's num_tries_completions)
    candidates: int = 3
    #: generations per step before the step (and this round of the story) fails; 1 is the paper's single attempt
    step_attempts: int = 1
    #: whole-story rounds per story, across runs (a failed round is retried from the start, with new cache keys);
    #: the report gives the first round's acceptance (the paper's "single attempt") and the final one
    story_attempts: int = 3
    #: "short" (Fig. 12) or "fantom" (long, conversational)
    style: Style = "short"
    narration: bool = True
    goals: bool = True
    #: first-order belief checks per step (see `judge_checks`)
    max_belief_checks: int = 4
    #: question orders judged on the finished text (`final_checks`); the export labels only these
    final_orders: tuple[int, ...] = (0, 1, 2)
    #: label checks per final judge call
    final_batch: int = 12
    temperature: float = 1.0
    seed: int = 0
    #: stories infilled at once (steps of one story are sequential by construction)
    concurrency: int = 4

    def __post_init__(self) -> None:
        if min(self.candidates, self.step_attempts, self.story_attempts, self.final_batch, self.concurrency) < 1:
            raise ValueError("candidates, step_attempts, story_attempts, final_batch and concurrency must be >= 1")
        if self.style not in ("short", "fantom"):
            raise ValueError(f"Invalid style {self.style!r}. Must be one of: ['short', 'fantom']")
        if any(o not in (0, 1, 2) for o in self.final_orders):
            raise ValueError(f"final_orders must be a subset of (0, 1, 2), got {self.final_orders}")


@dataclass
class InfillReport:
    """Counts of one run, plus the acceptance of this input's stories over the whole output file.

    `first_round_ok / first_round_of` is the paper's "infilled in a single attempt" (§3: 40%, 73% in another
    version): stories whose first whole-story round passed every step and the final check, among the stories whose
    first round is in the file. `final_ok / final_of` counts stories accepted in any round, up to `story_attempts`.
    Both are read back from the file, so they cover earlier runs too and never depend on how often it was resumed.
    """

    stories: int = 0
    rounds: int = 0
    already_done: int = 0
    exhausted: int = 0
    no_story_lines: int = 0
    duplicate_inputs: int = 0
    ok: int = 0
    failed: int = 0
    steps: int = 0
    steps_accepted: int = 0
    steps_first_candidate: int = 0
    generations: int = 0
    candidates: int = 0
    candidates_judged: int = 0
    candidates_accepted: int = 0
    precheck_rejections: int = 0
    judge_rejections: int = 0
    judge_unclear: int = 0
    malformed_infills: int = 0
    malformed_narrations: int = 0
    narration_rejections: int = 0
    malformed_goals: int = 0
    final_checks: int = 0
    final_passed: int = 0
    final_contradicted: int = 0
    final_unclear: int = 0
    final_failures: int = 0
    model_calls: int = 0
    first_round_ok: int = 0
    first_round_of: int = 0
    final_ok: int = 0
    final_of: int = 0

    @staticmethod
    def _rate(num: int, den: int) -> float | None:
        return None if den == 0 else num / den

    @property
    def first_attempt_acceptance(self) -> float | None:
        """The paper's single-attempt acceptance (first whole-story round), over the output file."""
        return self._rate(self.first_round_ok, self.first_round_of)

    @property
    def story_acceptance(self) -> float | None:
        """Stories accepted in any round (up to `story_attempts`), over the output file."""
        return self._rate(self.final_ok, self.final_of)

    @property
    def step_acceptance(self) -> float | None:
        return self._rate(self.steps_accepted, self.steps)

    @property
    def candidate_acceptance(self) -> float | None:
        """Accepted / judged candidates (judging stops at the first accepted one of a step)."""
        return self._rate(self.candidates_accepted, self.candidates_judged)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = asdict(self)
        d.update(
            first_attempt_acceptance=self.first_attempt_acceptance,
            story_acceptance=self.story_acceptance,
            step_acceptance=self.step_acceptance,
            candidate_acceptance=self.candidate_acceptance,
        )
        return d

    def summary(self) -> str:
        """Counts only (the commands show rates with their intervals, `tombench.kit.format.percent`)."""
        return (
            f"{self.first_round_ok}/{self.first_round_of} stories infilled at the first attempt, "
            f"{self.final_ok}/{self.final_of} after up to the allowed whole-story retries; this run: {self.rounds} "
            f"rounds over {self.stories} stories, {self.steps_accepted}/{self.steps} steps, "
            f"{self.candidates_accepted}/{self.candidates_judged} judged candidates accepted, "
            f"{self.final_passed}/{self.final_checks} final label checks passed ({self.final_contradicted} "
            f"contradicted, {self.final_unclear} unclear); {self.malformed_infills} malformed infills, "
            f"{self.precheck_rejections} pre-check and {self.judge_rejections} judge rejections"
        )


def _join(parts: Sequence[str], style: Style) -> str:
    return ("\n" if style == "fantom" else " ").join(p for p in parts if p)


async def _judge_verdicts(judge: Asker, prompt: str, n: int, retry: dict[str, int]) -> list[bool | None]:
    try:
        return parse_judge(await judge(prompt, retry=retry), n)
    except MalformedOutput:  # a model error from the judge: no verdict
        return [None] * n


async def _narration(story: Story, writer: Asker, judge: Asker, report: InfillReport, retry: dict[str, int]) -> str:
    """Fig. 10's opening, kept only when the pre-check and the judge both pass it (it is optional: a bad one is
    dropped and counted, never fatal)."""
    try:
        text = (await writer(narration_prompt(story), retry=retry)).strip()
    except MalformedOutput:
        text = ""
    if not text or "{" in text or _names_in(text, [*story.context.people, *outsiders(story)]):
        report.malformed_narrations += 1
        return ""
    checks = narration_checks(story)
    wrong, unclear = _verdicts_fail(
        checks, await _judge_verdicts(judge, narration_judge_prompt(text, checks), len(checks), retry)
    )
    if wrong or unclear:
        report.narration_rejections += 1
        return ""
    return text


async def infill_story(
    item: StoryInput,
    writer: Asker,
    judge: Asker,
    config: InfillConfig,
    report: InfillReport,
    *,
    round: int = 0,
) -> dict[str, Any]:
    """Infill one story once (one whole-story `round`); the output record (status "ok" with `text`, or "failed"
    with `failed_stage` "step" and `failed_step`, or `failed_stage` "final").

    Desiderata come from `random.Random(derive_seed(seed, digest, round))`, so they do not depend on the order or
    the concurrency in which stories are processed, and a new round draws new ones. Every model call of round r
    carries r (and the step attempt) in its cache key, so a retry is asked anew, never replayed from the cache.
    """
    story = item.story
    rng = random.Random(derive_seed(config.seed, "infill", item.digest, *([round] if round else [])))
    base = {"round": round}
    narration = await _narration(story, writer, judge, report, base) if config.narration else ""
    goals = None
    if config.goals:
        try:
            goals = parse_goals(await writer(goals_prompt(story), retry=base), story.people)
        except MalformedOutput:
            report.malformed_goals += 1
    parts = [narration]
    steps: list[dict[str, Any]] = []
    record: dict[str, Any] = {
        "digest": item.digest,
        "id": item.id,
        "round": round,
        "status": "ok",
        "failed_stage": None,
        "failed_step": None,
        "story_type": item.story_type,
        "setting": item.setting,
        "style": config.style,
        "structure": story.text,
        "narration": narration,
        "goals": goals,
        "steps": steps,
        "verified": None,
        "text": None,
        "story": story.to_dict(),
    }
    characters = people_with_personas(story)
    for i, step in enumerate(story.steps):
        d = sample_desiderata(rng, config.style)
        checks = judge_checks(story, i, max_beliefs=config.max_belief_checks, style=config.style)
        so_far = _join(parts, config.style)
        new_info = " ".join(step.sentences)
        entry: dict[str, Any] = {
            "index": i,
            "structure": new_info,
            "desiderata": asdict(d),
            "infill": None,
            "attempts": 0,
            "rejections": [],
        }
        steps.append(entry)
        report.steps += 1
        judged_in_step = 0
        for attempt in range(config.step_attempts):
            entry["attempts"] += 1
            report.generations += 1
            retry = {**base, "attempt": attempt}
            prompt = infill_prompt(new_info, so_far, d, characters=characters, goals=goals, k=config.candidates)
            try:
                cands = parse_candidates(await writer(prompt, retry=retry))
            except MalformedOutput as e:
                report.malformed_infills += 1
                entry["rejections"].append({"candidate": None, "reason": str(e)})
                continue
            report.candidates += len(cands)
            for cand in cands:
                reason = precheck(cand, story, i, style=config.style)
                if reason is not None:
                    report.precheck_rejections += 1
                    entry["rejections"].append({"candidate": cand, "reason": reason})
                    continue
                report.candidates_judged += 1
                judged_in_step += 1
                verdicts = await _judge_verdicts(judge, judge_prompt(so_far, cand, checks), len(checks), retry)
                wrong, unclear = _verdicts_fail(checks, verdicts)
                if wrong or unclear:
                    report.judge_rejections += 1
                    report.judge_unclear += 1 if unclear and not wrong else 0
                    why = f"judge: failed {wrong}" if wrong else f"judge: no yes/no for {unclear}"
                    entry["rejections"].append({"candidate": cand, "reason": why})
                    continue
                report.candidates_accepted += 1
                entry["infill"] = cand
                break
            if entry["infill"] is not None:
                break
        if entry["infill"] is None:
            record.update(status="failed", failed_stage="step", failed_step=i)
            return record
        report.steps_accepted += 1
        if judged_in_step == 1 and entry["attempts"] == 1:
            report.steps_first_candidate += 1
        parts.append(entry["infill"])
    text = _join(parts, config.style)
    record["verified"] = verified = await _final_check(story, text, judge, config, report, base)
    if any(v["verdict"] is False for v in verified):
        report.final_failures += 1
        record.update(status="failed", failed_stage="final")
        return record
    record["text"] = text
    return record


async def _final_check(
    story: Story, text: str, judge: Asker, config: InfillConfig, report: InfillReport, retry: dict[str, int]
) -> list[dict[str, Any]]:
    """Judge the finished text against every label the export can use, in batches; one entry per question."""
    pairs = final_checks(story, config.final_orders)
    out: list[dict[str, Any]] = []
    for start in range(0, len(pairs), config.final_batch):
        batch = pairs[start : start + config.final_batch]
        checks = [c for _, c in batch]
        verdicts = await _judge_verdicts(
            judge, final_judge_prompt(text, checks), len(checks), {**retry, "final": start + 1}
        )
        for (q, _), v in zip(batch, verdicts, strict=True):
            report.final_checks += 1
            report.final_passed += v is True
            report.final_contradicted += v is False
            report.final_unclear += v is None
            out.append({"question": q.text, "answer": q.answer, "order": q.order, "kind": q.kind, "verdict": v})
    return out


def read_infill_output(out: str | Path) -> list[dict[str, Any]]:
    """The records of an infill output with their digests (computed for lines written before the field existed);
    a line cut by an interrupted run is skipped (that story is simply done again)."""
    path = Path(out)
    if not path.exists():
        return []
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(rec, dict) or not isinstance(rec.get("story"), dict):
            continue
        if not isinstance(rec.get("digest"), str):
            try:
                story = Story.from_dict(rec["story"])
            except StoryError:
                continue
            rec["digest"] = story_digest(story, _story_type(rec)[0])
        records.append(rec)
    return records


@dataclass
class _Progress:
    """What the output file says about one story: accepted or not, and how many whole-story rounds it used."""

    ok: bool = False
    rounds: int = 0
    first_round: bool | None = None


def _progress(records: Iterable[dict[str, Any]]) -> dict[str, _Progress]:
    by: dict[str, _Progress] = {}
    for rec in records:
        p = by.setdefault(rec["digest"], _Progress())
        r = rec.get("round") if isinstance(rec.get("round"), int) else 0
        ok = rec.get("status") == "ok"
        p.ok = p.ok or ok
        p.rounds = max(p.rounds, r + 1)
        if r == 0:
            p.first_round = ok if p.first_round is None else p.first_round or ok
    return by


def story_acceptance(out: str | Path, digests: Iterable[str] | None = None) -> tuple[int, int, int, int]:
    """(first-round ok, stories with a first round, ok in any round, stories with any round) in an infill output,
    over `digests` (default: every story in it)."""
    prog = _progress(read_infill_output(out))
    keys = list(prog) if digests is None else [d for d in dict.fromkeys(digests) if d in prog]
    firsts = [prog[d].first_round for d in keys if prog[d].first_round is not None]
    return sum(bool(f) for f in firsts), len(firsts), sum(prog[d].ok for d in keys), len(keys)


async def infill_file(
    model: Model | str | Ask,
    stories: str | Path,
    out: str | Path,
    *,
    judge: Model | str | Ask | None = None,
    config: InfillConfig = InfillConfig(),
    cache: bool | CachePolicy = True,
    limit: int | None = None,
    on_progress: Callable[[InfillReport], None] | None = None,
) -> InfillReport:
    """Infill every story of `stories` (JSONL) into `out` (JSONL, appended one round at a time, resumable).

    Stories are known by their content digest: an input listing the same story twice (two merged runs) infills it
    once, and the resume check is by digest, never by a search id. A story is done once it has an accepted round in
    `out`; otherwise it gets rounds `rounds used .. story_attempts - 1`, each written as it ends (failed rounds too,
    with their rejections). Raising `story_attempts` and re-running retries the stories that used up their rounds,
    with new cache keys, so the model is really asked again. The judge defaults to the writer, at temperature 0.
    """
    from inspect_ai.model import GenerateConfig

    items, empty = load_story_inputs(stories)
    out = Path(out)
    prog = _progress(read_infill_output(out))
    report = InfillReport(no_story_lines=empty)
    todo: list[tuple[StoryInput, int]] = []
    seen: set[str] = set()
    for it in items:
        if it.digest in seen:
            report.duplicate_inputs += 1
            continue
        seen.add(it.digest)
        p = prog.get(it.digest)
        if p is not None and p.ok:
            report.already_done += 1
        elif p is not None and p.rounds >= config.story_attempts:
            report.exhausted += 1
        else:
            todo.append((it, 0 if p is None else p.rounds))
    if limit is not None:
        todo = todo[:limit]
    report.stories = len(todo)

    def count() -> None:
        report.model_calls += 1

    writer = make_asker(
        model, config=GenerateConfig(temperature=config.temperature), cache=cache, system=INFILL_SYSTEM_PROMPT,
        on_call=count,
    )
    judge_ask = make_asker(
        judge if judge is not None else model, config=GenerateConfig(temperature=0.0), cache=cache,
        system=INFILL_SYSTEM_PROMPT, on_call=count,
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    sem = asyncio.Semaphore(config.concurrency)

    async def one(it: StoryInput, start: int) -> None:
        async with sem:
            for r in range(start, config.story_attempts):
                report.rounds += 1
                record = await infill_story(it, writer, judge_ask, config, report, round=r)
                with out.open("a", encoding="utf-8") as f:
                    f.write(json.dumps(record, ensure_ascii=False) + "\n")
                if record["status"] == "ok":
                    report.ok += 1
                    break
            else:
                report.failed += 1
            if on_progress is not None:
                on_progress(report)

    await asyncio.gather(*(one(it, start) for it, start in todo))
    acc = story_acceptance(out, seen)
    report.first_round_ok, report.first_round_of, report.final_ok, report.final_of = acc
    return report
