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
    from tombench.generators.infill import InfillConfig, infill_file
    report = asyncio.run(infill_file("openai/gpt-4o", "search.jsonl", "infilled.jsonl", config=InfillConfig()))
    print(report.summary())

Models are Inspect models (or names, or `async (prompt) -> text` callables, for tests); Inspect's cache is used, so a
re-run of the same command costs nothing for the calls already made, and the output is resumable by story id.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tombench.dsl import Question, Story, StoryError, derive_seed
from tombench.generators.contexts import MalformedOutput, parse_yes_no

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
    "story_id",
]

Style = Literal["short", "fantom"]
Ask = Callable[[str], Awaitable[str]]
#: what `infill_story` calls: a prompt and the attempt number (0 for the first call of a step)
Asker = Callable[..., Awaitable[str]]

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


def story_id(story_dict: dict[str, Any]) -> str:
    """A stable id from the story's content, so re-runs and other files agree on it without an id column."""
    payload = json.dumps(story_dict, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def _story_type(rec: dict[str, Any]) -> tuple[str, str]:
    setting = rec.get("setting") if isinstance(rec.get("setting"), str) else ""
    st = rec.get("story_type")
    if isinstance(st, str) and st:
        return st, setting or ""
    return (setting.split("|")[0] if setting else "unknown"), setting or ""


def load_story_inputs(path: str | Path) -> tuple[list[StoryInput], int]:
    """Stories from a JSONL file: search results (`{"story": ...}`), infill outputs, or plain `Story.to_dict()` lines.

    Returns the stories and the number of lines without one (a search that found nothing writes `"story": null`).
    Anything else that does not load raises `InfillError` naming the line, because silently dropping a story would
    skew every rate computed downstream.
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
        sid = rec.get("id") if isinstance(rec.get("id"), str) and rec.get("id") else story_id(data)
        out.append(StoryInput(id=sid, story=story, story_type=st, setting=setting, record=rec))
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
def _characters(story: Story) -> str:
    personas = story.context.metadata.get("personas") if story.context.metadata else None
    lines = []
    for p in story.people:
        desc = personas.get(p) if isinstance(personas, dict) else None
        lines.append(f"{p}: {desc}" if isinstance(desc, str) and desc else p)
    return "\n".join(lines)


def _script(story: Story) -> str:
    return "\n".join(" ".join(s.sentences) for s in story.steps)


def narration_prompt(story: Story) -> str:
    """Fig. 10: the story's setting before anything happens (no people, no actions)."""
    setting = f"\n\nSETTING:\n{story.context.setting}" if story.context.setting else ""
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
    kind: Literal["conveys", "modifier", "new_content", "renamed", "belief"]


def _yes_no(answer: str) -> str:
    return answer if answer in ("yes", "no") else f"'{answer}'"


def judge_checks(story: Story, index: int, *, max_beliefs: int = 4) -> list[Check]:
    """The judge's checks after step `index` (0-based): what the infilled text must say for the labels to hold.

    * conveys: "Does the new text convey that: <the step's sentence>?" (yes)
    * modifier: for a step with a witness/distraction sentence, "... also convey that: <that sentence>?" (yes)
    * new_content: does the new text add a character, or an action on the object that is not in the step? (no)
    * renamed: does it call a character by another name or replace one? (no)
    * belief: first-order questions of the story prefix, as "According to the story so far: <question> Is the
      answer <answer>?" (yes), those whose answer this step created or changed first, then the rest, at most
      `max_beliefs`. First-order only: they are what every later label is built on, and a judge model answers them
      far more reliably than second-order ones.
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
    old = {(q.text, q.answer) for q in before.questions(orders=(1,))}
    qs: list[Question] = prefix.questions(orders=(1,))
    ranked = [q for q in qs if (q.text, q.answer) not in old] + [q for q in qs if (q.text, q.answer) in old]
    for q in ranked[:max_beliefs]:
        checks.append(
            Check(f"According to the story so far: {q.text} Is the answer {_yes_no(q.answer)}?", True, "belief")
        )
    return checks


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


def precheck(candidate: str, story: Story, index: int, *, max_chars: int = 1200) -> str | None:
    """Cheap deterministic rejections before the judge is paid; the reason, or None when the candidate may go on.

    Template leftovers (braces, `<fill>`), empty or runaway text, a context person who has not entered the story by
    this step, and (conversations) a speaker label that is not a story person.
    """
    if not candidate.strip():
        return "empty continuation"
    if re.search(r"[{}]|<fill>|\[insert", candidate, re.I):
        return "template leftovers (braces or placeholders)"
    if len(candidate) > max_chars:
        return f"longer than {max_chars} characters"
    present = set(Story(story.context, story.actions[: index + 1]).people)
    outsiders = _names_in(candidate, [p for p in story.context.people if p not in present])
    if outsiders:
        return f"names someone not in the story yet: {', '.join(outsiders)}"
    for m in re.finditer(r"^\s*\**([A-Z][\w'\-]*)\**\s*:", candidate, re.M):
        if m.group(1) not in present:
            return f"speaker {m.group(1)!r} is not a story character"
    return None


# ---------------------------------------------------------------------------------------------------------- infilling
@dataclass(frozen=True)
class InfillConfig:
    """How to infill; the defaults follow the paper (3 candidates in one call, narration and goals on)."""

    #: candidate continuations asked for in one call (Fig. 12's num_tries_completions)
    candidates: int = 3
    #: generations per step before the step (and the story) fails; 1 is the paper's single attempt
    step_attempts: int = 1
    #: "short" (Fig. 12) or "fantom" (long, conversational)
    style: Style = "short"
    narration: bool = True
    goals: bool = True
    #: first-order belief checks per step (see `judge_checks`)
    max_belief_checks: int = 4
    temperature: float = 1.0
    seed: int = 0
    #: stories infilled at once (steps of one story are sequential by construction)
    concurrency: int = 4

    def __post_init__(self) -> None:
        if self.candidates < 1 or self.step_attempts < 1:
            raise ValueError("candidates and step_attempts must be >= 1")
        if self.style not in ("short", "fantom"):
            raise ValueError(f"Invalid style {self.style!r}. Must be one of: ['short', 'fantom']")


@dataclass
class InfillReport:
    """Counts of one run; acceptance rates are derived from them (never estimated)."""

    stories: int = 0
    already_done: int = 0
    no_story_lines: int = 0
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
    malformed_goals: int = 0
    model_calls: int = 0

    @staticmethod
    def _rate(num: int, den: int) -> float | None:
        return None if den == 0 else num / den

    @property
    def story_acceptance(self) -> float | None:
        """Stories infilled end to end / stories attempted this run."""
        return self._rate(self.ok, self.ok + self.failed)

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
            story_acceptance=self.story_acceptance,
            step_acceptance=self.step_acceptance,
            candidate_acceptance=self.candidate_acceptance,
        )
        return d

    def summary(self) -> str:
        def pct(x: float | None) -> str:
            return "n/a" if x is None else f"{100 * x:.0f}%"

        return (
            f"{self.ok} of {self.ok + self.failed} stories infilled ({pct(self.story_acceptance)}), "
            f"{self.steps_accepted}/{self.steps} steps ({pct(self.step_acceptance)}), "
            f"{self.candidates_accepted}/{self.candidates_judged} judged candidates accepted "
            f"({pct(self.candidate_acceptance)}); {self.malformed_infills} malformed infills, "
            f"{self.precheck_rejections} pre-check and {self.judge_rejections} judge rejections "
            f"({self.judge_unclear} unclear verdicts)"
        )


def _with_attempt(cache: bool | CachePolicy, attempt: int) -> bool | CachePolicy:
    """A retry of the same prompt must not be answered from the cache with the output that just failed."""
    if attempt == 0 or cache is False:
        return cache
    from inspect_ai.model import CachePolicy

    policy = cache if isinstance(cache, CachePolicy) else CachePolicy()
    return policy.model_copy(update={"scopes": {**policy.scopes, "tombench_infill_attempt": str(attempt)}})


def _asker(model: Model | str | Ask, config: Any, cache: bool | CachePolicy, report: InfillReport | None) -> Asker:
    """One `async (prompt, attempt=0) -> text` for any kind of model; Inspect models get the Fig. 9 system prompt
    and the cache, with the attempt number in the cache key (`_with_attempt`)."""
    if callable(model) and not hasattr(model, "generate"):
        fn = model

        async def call(prompt: str, attempt: int = 0) -> str:
            return await fn(prompt)

    else:
        from inspect_ai.model import ChatMessageSystem, ChatMessageUser, get_model

        m = get_model(model) if isinstance(model, str) else model

        async def call(prompt: str, attempt: int = 0) -> str:
            messages = [ChatMessageSystem(content=INFILL_SYSTEM_PROMPT), ChatMessageUser(content=prompt)]
            output = await m.generate(messages, config=config, cache=_with_attempt(cache, attempt))
            if output.error:
                raise MalformedOutput(f"model error: {output.error}")
            return output.completion

    if report is None:
        return call

    async def counted(prompt: str, attempt: int = 0) -> str:
        report.model_calls += 1
        return await call(prompt, attempt)

    return counted


def _join(parts: Sequence[str], style: Style) -> str:
    return ("\n" if style == "fantom" else " ").join(p for p in parts if p)


async def infill_story(
    item: StoryInput, writer: Asker, judge: Asker, config: InfillConfig, report: InfillReport
) -> dict[str, Any]:
    """Infill one story; the output record (status "ok" with `text`, or "failed" with `failed_step`).

    Desiderata come from `random.Random(derive_seed(seed, story id))`, so they do not depend on the order or the
    concurrency in which stories are processed.
    """
    story, rng = item.story, random.Random(derive_seed(config.seed, "infill", item.id))
    narration, goals = "", None
    if config.narration:
        try:
            text = (await writer(narration_prompt(story))).strip()
        except MalformedOutput:
            text = ""
        if not text or "{" in text or _names_in(text, story.context.people):
            report.malformed_narrations += 1  # Fig. 10 says: no people; a bad setting is dropped, not fatal
        else:
            narration = text
    if config.goals:
        try:
            goals = parse_goals(await writer(goals_prompt(story)), story.people)
        except MalformedOutput:
            report.malformed_goals += 1
    parts = [narration]
    steps: list[dict[str, Any]] = []
    record: dict[str, Any] = {
        "id": item.id,
        "status": "ok",
        "failed_step": None,
        "story_type": item.story_type,
        "setting": item.setting,
        "style": config.style,
        "structure": story.text,
        "narration": narration,
        "goals": goals,
        "steps": steps,
        "text": None,
        "story": story.to_dict(),
    }
    characters = ", ".join(story.people)
    for i, step in enumerate(story.steps):
        d = sample_desiderata(rng, config.style)
        checks = judge_checks(story, i, max_beliefs=config.max_belief_checks)
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
            prompt = infill_prompt(new_info, so_far, d, characters=characters, goals=goals, k=config.candidates)
            try:
                cands = parse_candidates(await writer(prompt, attempt))
            except MalformedOutput as e:
                report.malformed_infills += 1
                entry["rejections"].append({"candidate": None, "reason": str(e)})
                continue
            report.candidates += len(cands)
            for cand in cands:
                reason = precheck(cand, story, i)
                if reason is not None:
                    report.precheck_rejections += 1
                    entry["rejections"].append({"candidate": cand, "reason": reason})
                    continue
                report.candidates_judged += 1
                judged_in_step += 1
                try:
                    verdicts = parse_judge(await judge(judge_prompt(so_far, cand, checks)), len(checks))
                except MalformedOutput:  # a model error from the judge: no verdict, the candidate is not accepted
                    verdicts = [None] * len(checks)
                wrong = [c.kind for c, v in zip(checks, verdicts, strict=True) if v is not None and v != c.expected]
                unclear = [c.kind for c, v in zip(checks, verdicts, strict=True) if v is None]
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
            record.update(status="failed", failed_step=i)
            report.failed += 1
            return record
        report.steps_accepted += 1
        if judged_in_step == 1 and entry["attempts"] == 1:
            report.steps_first_candidate += 1
        parts.append(entry["infill"])
    record["text"] = _join(parts, config.style)
    report.ok += 1
    return record


def _done_ids(out: Path) -> set[str]:
    done: set[str] = set()
    if not out.exists():
        return done
    for line in out.read_text(encoding="utf-8").splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut by an interrupted run: that story is simply done again
        if isinstance(rec, dict) and isinstance(rec.get("id"), str):
            done.add(rec["id"])
    return done


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
    """Infill every story of `stories` (JSONL) into `out` (JSONL, appended one story at a time, resumable by id).

    Failed stories are written too (status "failed"), so a re-run does not pay for them again; delete their lines
    to retry them. The judge defaults to the writer model, asked at temperature 0.
    """
    from inspect_ai.model import GenerateConfig

    items, empty = load_story_inputs(stories)
    out = Path(out)
    done = _done_ids(out)
    report = InfillReport(no_story_lines=empty)
    seen: set[str] = set()
    todo: list[StoryInput] = []
    for it in items:
        if it.id in seen:
            continue
        seen.add(it.id)
        if it.id in done:
            report.already_done += 1
        else:
            todo.append(it)
    if limit is not None:
        todo = todo[:limit]
    report.stories = len(todo)
    writer = _asker(model, GenerateConfig(temperature=config.temperature), cache, report)
    judge_ask = _asker(judge if judge is not None else model, GenerateConfig(temperature=0.0), cache, report)
    out.parent.mkdir(parents=True, exist_ok=True)
    sem = asyncio.Semaphore(config.concurrency)

    async def one(it: StoryInput) -> None:
        async with sem:
            record = await infill_story(it, writer, judge_ask, config, report)
            with out.open("a", encoding="utf-8") as f:
                f.write(json.dumps(record, ensure_ascii=False) + "\n")
            if on_progress is not None:
                on_progress(report)

    await asyncio.gather(*(one(it) for it in todo))
    return report
