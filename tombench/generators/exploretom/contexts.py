"""Story contexts: the built-in bank, context files, and quality checks.

ExploreToM (Sclar et al., 2024, https://arxiv.org/abs/2412.12175, §2.1) samples a *context* (names, rooms, an object,
opaque containers, chit-chat topics and object-state changes) with an LLM before searching for stories. Most users
just want plausible contexts without a model key, so tombench ships a hand-written bank of them
(`tombench/data/contexts.json`), and any other list of contexts lives in a plain JSON/JSONL file that
`tombench search` and the tasks (`-T contexts=FILE`) read with `load_contexts`.

    from tombench.generators.exploretom.contexts import load_context_bank, load_contexts
    bank = load_context_bank()              # 76 validated contexts
    mine = load_contexts("my_contexts.jsonl")

`context_problems` is the one place that says what a *usable* context is beyond the DSL's own validation (counts,
sentence templates, answer phrases that cannot shadow each other); the bank tests and the LLM generator both use it.
"""

from __future__ import annotations

import asyncio
import functools
import json
import random
import re
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inspect_ai.model import CachePolicy, Model

from tombench.dsl.context import DEFAULT_CONTEXT, Context, ContextError, StateChange, normalise_noun
from tombench.generators.exploretom.context_prompts import (
    NAMES_PROMPT,
    SETTINGS_PROMPT,
    context_prompt,
    judge_containers_prompt,
    judge_plausible_change_prompt,
    judge_rooms_prompt,
    judge_topics_prompt,
    judge_visible_change_prompt,
    state_changes_prompt,
)
from tombench.kit.calls import Asker, MalformedOutput, make_asker
from tombench.kit.replies import find_json, read_yes_no

__all__ = [
    "BANK_RESOURCE",
    "ContextError",
    "context_by_id",
    "context_problems",
    "load_context_bank",
    "resolve_contexts",
    "load_contexts",
    "parse_contexts",
    "save_contexts",
]

#: Package-relative location of the built-in bank.
BANK_RESOURCE = "data/contexts.json"


# ---------------------------------------------------------------------------------------------------------- quality
def _contains_phrase(haystack: str, needle: str) -> bool:
    return re.search(r"(?<![\w-])" + re.escape(needle) + r"(?![\w-])", haystack) is not None


def context_problems(
    ctx: Context,
    *,
    min_people: int = 6,
    rooms: int = 2,
    min_containers: int = 6,
    min_topics: int = 6,
    min_visible: int = 2,
    min_invisible: int = 2,
) -> list[str]:
    """What keeps a (DSL-valid) context from being a good ExploreToM context; empty when it is fine.

    Answers are matched by phrase, so no room, object or container may contain another as a whole phrase ("box" and
    "toolbox" are fine, "box" and "cardboard box" are not: the answer "cardboard box" would also match "box").
    """
    return [
        *_count_problems(
            ctx, min_people=min_people, rooms=rooms, min_containers=min_containers, min_topics=min_topics
        ),
        *_visibility_problems(ctx, min_visible=min_visible, min_invisible=min_invisible),
        *_shadowing_problems(ctx),
        *_state_change_text_problems(ctx),
        *_topic_problems(ctx),
    ]


def _count_problems(ctx: Context, *, min_people: int, rooms: int, min_containers: int, min_topics: int) -> list[str]:
    """Enough people, containers and topics for the searches to vary stories; the two rooms and the one object the
    ExploreToM story types are written for."""
    problems: list[str] = []
    if len(ctx.people) < min_people:
        problems.append(f"needs at least {min_people} people, has {len(ctx.people)}")
    if len(ctx.rooms) != rooms:
        problems.append(f"needs exactly {rooms} rooms, has {len(ctx.rooms)}")
    if len(ctx.objects) != 1:
        problems.append(f"needs exactly 1 object, has {len(ctx.objects)}")
    if len(ctx.containers) < min_containers:
        problems.append(f"needs at least {min_containers} containers, has {len(ctx.containers)}")
    if len(ctx.topics) < min_topics:
        problems.append(f"needs at least {min_topics} topics, has {len(ctx.topics)}")
    return problems


def _visibility_problems(ctx: Context, *, min_visible: int, min_invisible: int) -> list[str]:
    """Both kinds of state change: visible ones make true beliefs after a glance, invisible ones false beliefs."""
    visible = sum(1 for sc in ctx.state_changes if sc.visible)
    invisible = len(ctx.state_changes) - visible
    problems: list[str] = []
    if visible < min_visible:
        problems.append(f"needs at least {min_visible} visible state changes, has {visible}")
    if invisible < min_invisible:
        problems.append(f"needs at least {min_invisible} invisible state changes, has {invisible}")
    return problems


def _shadowing_problems(ctx: Context) -> list[str]:
    """Answers are matched by phrase, so one noun inside another would let a wrong answer match a right one."""
    nouns = [*ctx.rooms, *ctx.objects, *ctx.containers]
    return [
        f"{a!r} is part of {b!r}: answers could not be told apart"
        for a in nouns
        for b in nouns
        if a != b and _contains_phrase(b, a)
    ]


def _state_change_text_problems(ctx: Context) -> list[str]:
    """Each state change must render a sentence and a predicate ("the object <value>"), since stories and
    questions are made from them verbatim."""
    problems: list[str] = []
    for sc in ctx.state_changes:
        sentence = sc.sentence("Anne", ctx.objects[0] if ctx.objects else "object")
        if not sentence.endswith(".") or not sentence[:1].isupper() or "{" in sentence or "}" in sentence:
            problems.append(f"state-change text does not render a sentence: {sc.text!r}")
        if not re.fullmatch(r"[a-z][^{}]*[^.!?]", sc.value):
            problems.append(f"state value must read as a predicate after 'the object': {sc.value!r}")
    return problems


def _topic_problems(ctx: Context) -> list[str]:
    """Topics follow "talked about the", so one starting with an article would read "the the"."""
    return [f"topic must not start with an article: {t!r}" for t in ctx.topics if re.match(r"^(the|a|an)\s", t)]


# ---------------------------------------------------------------------------------------------------------- files
def parse_contexts(text: str, *, source: str = "<string>") -> list[Context]:
    """Parse a JSON list of context objects, or JSONL (one object per line). Errors name the source and the entry."""
    stripped = text.strip()
    if not stripped:
        return []
    records: list[tuple[str, object]] = []
    if stripped.startswith("["):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as e:
            raise ContextError(f"{source}: invalid JSON at line {e.lineno}, column {e.colno}: {e.msg}") from None
        records = [(f"entry {i + 1}", rec) for i, rec in enumerate(data)]
    else:
        for lineno, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                records.append((f"line {lineno}", json.loads(line)))
            except json.JSONDecodeError as e:
                raise ContextError(f"{source}: line {lineno} is not valid JSON: {e.msg}") from None
    contexts: list[Context] = []
    for where, rec in records:
        try:
            contexts.append(Context.from_dict(rec))  # type: ignore[arg-type]
        except (ContextError, TypeError, ValueError) as e:
            ident = rec.get("id") if isinstance(rec, dict) else None
            label = f"{where} (id {ident!r})" if ident else where
            raise ContextError(f"{source}: {label}: {e}") from None
    return contexts


def load_contexts(path: str | Path) -> list[Context]:
    """Read contexts from a JSON list or a JSONL file (the format `save_contexts` and `tombench contexts` write)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ContextError(f"{p}: no such contexts file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ContextError(f"{p}: cannot read contexts file: {e}") from None
    return parse_contexts(text, source=str(p))


def resolve_contexts(spec: str) -> list[Context]:
    """The contexts a `contexts` option names: "bank" (the built-in contexts), "default" (semantics §1's default
    names) or a JSON/JSONL file. Raises ContextError (one line) for a missing, malformed or empty file."""
    if spec == "bank":
        return load_context_bank()
    if spec == "default":
        return [DEFAULT_CONTEXT]
    if not Path(spec).exists():
        raise ContextError(f"{spec}: no such contexts file (use 'bank', 'default' or a JSON/JSONL file)")
    loaded = load_contexts(spec)
    if not loaded:
        raise ContextError(f"no contexts in {spec}")
    return loaded


def save_contexts(path: str | Path, contexts: Iterable[Context]) -> None:
    """Write contexts as JSONL (`.jsonl`) or as an indented JSON list (anything else)."""
    p = Path(path)
    rows = [c.to_dict() for c in contexts]
    if p.suffix == ".jsonl":
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    else:
        text = json.dumps(rows, indent=1, ensure_ascii=False) + "\n"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


@functools.lru_cache(maxsize=1)
def _bank() -> tuple[Context, ...]:
    text = resources.files("tombench").joinpath(BANK_RESOURCE).read_text(encoding="utf-8")
    return tuple(parse_contexts(text, source=f"tombench/{BANK_RESOURCE}"))


def load_context_bank() -> list[Context]:
    """The built-in, hand-written contexts (validated once, then cached; contexts are immutable)."""
    return list(_bank())


def context_by_id(contexts: Sequence[Context], ident: str) -> Context:
    """The context with this id, or a ContextError listing a few valid ids."""
    for c in contexts:
        if c.id == ident:
            return c
    some = ", ".join(c.id for c in contexts[:5])
    raise ContextError(f"no context with id {ident!r} (e.g. {some}, ...)")


# ====================================================================================================== LLM generation
# The App. C.1 prompt family (context_prompts.py), asked here, its JSON answers parsed, and each context judged.


# ------------------------------------------------------------------------------------------------------ parsing
def extract_json(text: str, kind: type[dict] | type[list]) -> dict | list:
    """The first JSON object (or list) in a model answer, ignoring prose and code fences around it."""
    value = find_json(text, kind, fenced_first=False)
    if value is None:
        raise MalformedOutput(f"no JSON {kind.__name__} in the answer")
    return value


def _str(d: dict, key: str) -> str:
    v = d.get(key)
    if not isinstance(v, str) or not v.strip():
        raise MalformedOutput(f"missing or empty field {key!r}")
    return " ".join(v.split())


def _str_list(d: dict, key: str) -> list[str]:
    v = d.get(key)
    if not isinstance(v, list) or not v or not all(isinstance(x, str) and x.strip() for x in v):
        raise MalformedOutput(f"field {key!r} must be a non-empty list of strings")
    return [" ".join(x.split()) for x in v]


def _person_name(entry: str) -> str:
    name = re.split(r"[,(:]| - | – ", entry, maxsplit=1)[0].strip().rstrip(".")
    if not re.fullmatch(r"[A-Z][A-Za-z'\-]*", name):
        raise MalformedOutput(f"person {entry!r} does not start with a single capitalised first name")
    return name


def _persona(entry: str, name: str) -> str:
    """The description after the name in "Emily, a meticulous office manager." ("" when there is none or it holds
    template braces): kept so the infilling prompts can say who the characters are (Fig. 10-12)."""
    rest = entry.strip()[len(name) :].strip().lstrip(",:(–-").strip().rstrip(").").strip()
    return "" if "{" in rest or "}" in rest else " ".join(rest.split())


def _noun(text: str) -> str:
    return normalise_noun(text.strip().rstrip("."))


def parse_context_answer(text: str) -> dict:
    """The Fig. 7 answer as a context dict without state changes (people, rooms, objects, containers, topics)."""
    d = extract_json(text, dict)
    assert isinstance(d, dict)
    entries = _str_list(d, "people")
    people = [_person_name(p) for p in entries]
    personas = {n: desc for n, e in zip(people, entries, strict=True) if (desc := _persona(e, n))}
    rooms = [_noun(_str(d, "room")), _noun(_str(d, "alternative_room"))]
    return {
        "setting": _str(d, "story_context"),
        "people": people,
        "rooms": rooms,
        "objects": [_noun(_str(d, "object"))],
        "containers": [_noun(c) for c in _str_list(d, "containers")],
        "topics": [_noun(t) for t in _str_list(d, "topics")],
        "personas": personas,
    }


#: Property names the DSL uses for locations and knowledge; a state change may not reuse them.
_RESERVED_PROPERTIES = frozenset({"room", "container", "topic", "topics"})


def parse_state_change_candidates(text: str, obj: str) -> list[dict]:
    """Candidate changes as {property, value, text} (visibility is the judge's call). Bad elements are dropped."""
    items = extract_json(text, list)
    out: list[dict] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        try:
            sentence, prop, state = _str(item, "sentence"), _str(item, "property"), _str(item, "resulting_state")
        except MalformedOutput:
            continue
        sentence = sentence.replace(f"the {obj}", "the {object}") if "{object}" not in sentence else sentence
        if "{person}" not in sentence or "{object}" not in sentence or re.search(r"\{(?!person\}|object\})", sentence):
            continue
        if not sentence.endswith("."):
            sentence += "."
        state = state.rstrip(".").strip()
        for prefix in (f"the {obj} ", "the {object} ", "it "):
            if state.lower().startswith(prefix.lower()):
                state = state[len(prefix) :]
        prop = normalise_noun(prop)
        if not re.fullmatch(r"[a-z][^{}]*", state) or prop in _RESERVED_PROPERTIES:
            continue
        out.append({"property": prop, "value": state, "text": sentence})
    if not out:
        raise MalformedOutput("no usable state change in the answer")
    return out


def parse_list(text: str) -> list[str]:
    """A numbered or bulleted list (Fig. 8 answers), one item a line, markers stripped."""
    items = []
    for line in text.splitlines():
        item = re.sub(r"^\s*(\d+[.)]|[-*•])\s*", "", line).strip().rstrip(".")
        if item and len(item) <= 80:
            items.append(item)
    return items


# ------------------------------------------------------------------------------------------------------ generation
@dataclass
class GenerationReport:
    """What a `generate_contexts` run did; every failure is counted, none is fatal."""

    requested: int
    existing: int = 0
    generated: int = 0
    attempts: int = 0
    malformed: int = 0
    judge_rejections: int = 0
    judge_unclear: int = 0
    duplicates: int = 0
    too_few_state_changes: int = 0
    quality_rejections: int = 0
    state_change_rejections: int = 0
    list_fallbacks: int = 0
    budget: int = 0
    reasons: Counter = field(default_factory=Counter)

    @property
    def total(self) -> int:
        return self.existing + self.generated

    @property
    def complete(self) -> bool:
        return self.total >= self.requested

    def summary(self) -> str:
        return (
            f"{self.total}/{self.requested} contexts ({self.generated} new, {self.existing} already there) in "
            f"{self.attempts} attempts: {self.malformed} malformed, {self.judge_rejections} judge rejections "
            f"({self.judge_unclear} unclear verdicts), {self.duplicates} duplicates, {self.too_few_state_changes} "
            f"with too few state changes, {self.quality_rejections} failing quality checks"
        )


class _Rejected(Exception):
    def __init__(self, counter: str, reason: str) -> None:
        super().__init__(reason)
        self.counter, self.reason = counter, reason


def _dedup_key(ctx: Context | dict) -> tuple[str, frozenset[str]]:
    """Two contexts with the same object and the same two rooms would make near-identical stories."""
    if isinstance(ctx, Context):
        return ctx.objects[0] if ctx.objects else "", frozenset(ctx.rooms)
    return (ctx["objects"] or [""])[0], frozenset(ctx["rooms"])


@dataclass(frozen=True)
class ContextSpec:
    """How big each generated context is (the paper's num_people/num_containers/num_topics variables)."""

    people: int = 6
    containers: int = 6
    topics: int = 6
    state_candidates: int = 8
    min_visible: int = 2
    min_invisible: int = 2


def _with_retry(ask: Asker | Callable[[str], Awaitable[str]], k: int) -> Callable[[str], Awaitable[str]]:
    """Attempt k's calls carry k in their cache key: a re-run's new attempts are asked anew, never replayed."""

    async def call(prompt: str) -> str:
        return await ask(prompt, retry={"attempt": k})  # type: ignore[call-arg]

    return call


def _location(settings: Sequence[str], seed: int, k: int) -> str:
    """Attempt k's location: a seeded permutation of the whole list, so n attempts use min(n, len) distinct
    locations (independent draws would repeat some and miss others)."""
    order = random.Random(f"{seed}:locations").sample(range(len(settings)), len(settings))
    return settings[order[k % len(settings)]]


def attempts_log(out: str | Path) -> Path:
    """Where `generate_contexts` records every attempt it made for `out` (`<out>.attempts.jsonl`), so a re-run
    continues numbering after the last attempt made, accepted or not, instead of after the last accepted one."""
    out = Path(out)
    return out.with_name(out.name + ".attempts.jsonl")


def _last_attempt(out: Path, existing: Sequence[Context], id_prefix: str) -> int:
    last = max((int(c.metadata.get("attempt", -1)) for c in existing if c.id.startswith(id_prefix)), default=-1)
    log = attempts_log(out)
    if log.exists():
        for line in log.read_text(encoding="utf-8").splitlines():
            try:
                last = max(last, int(json.loads(line)["attempt"]))
            except (ValueError, KeyError, TypeError):
                continue  # a line cut by an interrupted run
    return last


async def _judge(ask: Callable[[str], Awaitable[str]], prompt: str, what: str) -> None:
    verdict = read_yes_no(await ask(prompt))
    if verdict is None:
        raise _Rejected("judge_unclear", f"judge gave no yes/no on {what}")
    if not verdict:
        raise _Rejected("judge_rejections", f"judge rejected the {what}")


async def _state_changes(
    ask: Callable[[str], Awaitable[str]],
    judge: Callable[[str], Awaitable[str]],
    setting: str,
    obj: str,
    spec: ContextSpec,
    report: GenerationReport,
) -> list[StateChange]:
    """Candidate changes, each judged plausible (else dropped) and visible/invisible (else dropped)."""
    try:
        candidates = parse_state_change_candidates(
            await ask(state_changes_prompt(setting=setting, obj=obj, num_changes=spec.state_candidates)), obj
        )
    except MalformedOutput as e:
        raise _Rejected("malformed", f"state changes: {e}") from None
    changes: list[StateChange] = []
    visibility: dict[str, bool] = {}
    for cand in candidates:
        sentence = cand["text"].replace("{object}", obj).replace("{person}", "Someone")
        plausible = read_yes_no(await judge(judge_plausible_change_prompt(setting, obj, sentence)))
        visible = read_yes_no(await judge(judge_visible_change_prompt(obj, sentence))) if plausible else None
        if not plausible or visible is None:
            report.state_change_rejections += 1
            continue
        if visibility.setdefault(cand["property"], visible) != visible:
            report.state_change_rejections += 1  # one property, one visibility class (semantics §1)
            continue
        if any((c.property, c.value) == (cand["property"], cand["value"]) for c in changes):
            continue
        changes.append(StateChange(visible=visible, **cand))
    n_visible = sum(c.visible for c in changes)
    if n_visible < spec.min_visible or len(changes) - n_visible < spec.min_invisible:
        raise _Rejected(
            "too_few_state_changes", f"{n_visible} visible and {len(changes) - n_visible} invisible state changes"
        )
    return changes


async def _attempt(k: int, **kwargs: Any) -> Context:
    """One joint context call, its judges and its state changes; raises _Rejected with the counter to bump."""
    try:
        return await _attempt_unsafe(k, **kwargs)
    except MalformedOutput as e:  # e.g. a refusal or a provider-side content error: counted, never fatal
        raise _Rejected("malformed", str(e)) from None


async def _attempt_unsafe(
    k: int,
    *,
    ask: Callable[[str], Awaitable[str]],
    judge: Callable[[str], Awaitable[str]],
    names: Sequence[str],
    settings: Sequence[str],
    spec: ContextSpec,
    seed: int,
    id_prefix: str,
    taken: set[tuple[str, frozenset[str]]],
    report: GenerationReport,
) -> Context:
    rng = random.Random(f"{seed}:{k}")
    ask, judge = _with_retry(ask, k), _with_retry(judge, k)
    location = _location(settings, seed, k)
    suggested = rng.sample(list(names), min(spec.people, len(names)))
    prompt = context_prompt(
        num_people=spec.people,
        num_containers=spec.containers,
        num_topics=spec.topics,
        location=location,
        names=suggested,
    )
    try:
        d = parse_context_answer(await ask(prompt))
    except MalformedOutput as e:
        raise _Rejected("malformed", f"context: {e}") from None
    if _dedup_key(d) in taken:
        raise _Rejected("duplicates", f"duplicate of an earlier context ({d['objects'][0]})")
    await _judge(judge, judge_containers_prompt(d["setting"], d["objects"][0], d["containers"]), "containers")
    await _judge(judge, judge_rooms_prompt(d["setting"], d["rooms"]), "rooms")
    await _judge(judge, judge_topics_prompt(d["setting"], d["topics"]), "topics")
    changes = await _state_changes(ask, judge, d["setting"], d["objects"][0], spec, report)
    try:
        ctx = Context.from_dict(
            {
                **d,
                "id": f"{id_prefix}-{k:04d}",
                "state_changes": [c.to_dict() for c in changes],
                "metadata": {
                    "attempt": k,
                    "location": location,
                    "source": "llm",
                    **({"personas": d["personas"]} if d["personas"] else {}),
                },
            }
        )
    except ContextError as e:
        raise _Rejected("quality_rejections", str(e)) from None
    problems = context_problems(
        ctx,
        min_people=spec.people,
        min_containers=spec.containers,
        min_topics=spec.topics,
        min_visible=spec.min_visible,
        min_invisible=spec.min_invisible,
    )
    if problems:
        raise _Rejected("quality_rejections", problems[0])
    return ctx


async def _sample_lists(ask: Callable[[str], Awaitable[str]], report: GenerationReport) -> tuple[list[str], list[str]]:
    """Fig. 8: the names and settings lists, sampled once per run. A bad list falls back to the bank's."""

    async def items(prompt: str) -> list[str]:
        try:
            return parse_list(await ask(prompt))
        except MalformedOutput:
            return []

    names = [n for n in await items(NAMES_PROMPT) if re.fullmatch(r"[A-Z][A-Za-z'\-]*", n)]
    settings = [s for s in await items(SETTINGS_PROMPT) if "{" not in s and "}" not in s]
    bank = load_context_bank()
    if len(set(names)) < 20:
        report.list_fallbacks += 1
        names = sorted({p for c in bank for p in c.people})
    if len(set(settings)) < 10:
        report.list_fallbacks += 1
        settings = [c.setting.rstrip(".") for c in bank]
    return sorted(set(names)), list(dict.fromkeys(settings))


async def generate_contexts(
    model: Model | str | Callable[[str], Awaitable[str]],
    n: int,
    out: str | Path,
    *,
    judge: Model | str | Callable[[str], Awaitable[str]] | None = None,
    spec: ContextSpec = ContextSpec(),
    seed: int = 0,
    max_attempts: int | None = None,
    concurrency: int = 4,
    cache: bool | CachePolicy = True,
    temperature: float | None = 1.0,
    id_prefix: str = "llm",
    on_progress: Callable[[GenerationReport], None] | None = None,
) -> GenerationReport:
    """Generate contexts with an LLM until `out` (JSONL) holds `n`, within a budget of `max_attempts` attempts.

    Resumable: contexts already in `out` are kept, and attempt numbering continues after the last attempt made
    (`attempts_log(out)` records every one, accepted or not), so a re-run only generates what is missing and asks
    the model anew: attempt k carries k in its cache key, so a rejected attempt is never replayed from the cache. Each accepted context is appended as soon as it is
    accepted. Malformed answers, judge rejections (any verdict other than "yes"), duplicates and contexts with too
    few usable state changes are counted in the report and the next attempt is made, until the budget (default
    4 attempts per missing context) is spent.

    `model` and `judge` are Inspect models, model names, or `async (prompt) -> text` callables; the judge defaults
    to the model and is asked at temperature 0.
    """
    from inspect_ai.model import GenerateConfig

    out = Path(out)
    existing = load_contexts(out) if out.exists() else []
    report = GenerationReport(requested=n, existing=len(existing))
    missing = max(0, n - len(existing))
    report.budget = max_attempts if max_attempts is not None else 4 * missing
    if missing == 0:
        return report
    ask = make_asker(model, config=GenerateConfig(temperature=temperature), cache=cache)
    judge_ask = make_asker(judge if judge is not None else model, config=GenerateConfig(temperature=0.0), cache=cache)
    names, settings = await _sample_lists(ask, report)
    sink = _Sink(out, missing, report, {_dedup_key(c) for c in existing}, {c.id for c in existing})
    k = 1 + _last_attempt(out, existing, id_prefix)
    out.parent.mkdir(parents=True, exist_ok=True)
    attempt = functools.partial(
        _attempt,
        ask=ask,
        judge=judge_ask,
        names=names,
        settings=settings,
        spec=spec,
        seed=seed,
        id_prefix=id_prefix,
        taken=sink.taken,
        report=report,
    )
    while report.generated < missing and report.attempts < report.budget:
        batch = range(k, k + min(concurrency, report.budget - report.attempts, missing - report.generated))
        results = await asyncio.gather(*(attempt(i) for i in batch), return_exceptions=True)
        for i, result in zip(batch, results, strict=True):  # commit in attempt order, whatever the concurrency
            sink.commit(i, result)
            if on_progress is not None:
                on_progress(report)
        k = batch.stop
    return report


@dataclass
class _Sink:
    """Where a run's attempts end: the attempts log (every attempt), the report's counters, and the output file
    (accepted contexts, refusing one that duplicates a context already there or accepted in the same batch)."""

    out: Path
    missing: int
    report: GenerationReport
    #: the dedup keys and ids in the output (the attempts read `taken` too, to reject duplicates early)
    taken: set[tuple[str, frozenset[str]]]
    used_ids: set[str]

    def commit(self, i: int, result: Context | BaseException) -> None:
        """Record attempt `i`; an error other than a rejection (a bug, an interrupt) stops the run."""
        self.report.attempts += 1
        if not isinstance(result, (_Rejected, Context)):
            raise result
        with attempts_log(self.out).open("a", encoding="utf-8") as f:
            why = result.reason if isinstance(result, _Rejected) else None
            f.write(json.dumps({"attempt": i, "rejected": why}, ensure_ascii=False) + "\n")
        if isinstance(result, _Rejected):
            self._count(result)
        else:
            self._keep(result)

    def _count(self, rejected: _Rejected) -> None:
        report = self.report
        setattr(report, rejected.counter, getattr(report, rejected.counter) + 1)
        if rejected.counter == "judge_unclear":
            report.judge_rejections += 1
        report.reasons[rejected.reason] += 1

    def _keep(self, ctx: Context) -> None:
        report = self.report
        if _dedup_key(ctx) in self.taken or ctx.id in self.used_ids:
            report.duplicates += 1
            report.reasons["duplicate of a context accepted in the same batch"] += 1
        elif report.generated < self.missing:
            self.taken.add(_dedup_key(ctx))
            self.used_ids.add(ctx.id)
            with self.out.open("a", encoding="utf-8") as f:
                f.write(json.dumps(ctx.to_dict(), ensure_ascii=False) + "\n")
            report.generated += 1
