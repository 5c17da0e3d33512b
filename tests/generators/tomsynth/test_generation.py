"""Generation with a scripted `mockllm/model`: valid outputs, malformed ones (counted and retried), resume."""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, ModelUsage, get_model

from tombench.generators.tomsynth.generation import failures_path, generate_items
from tombench.generators.tomsynth.items import read_items
from tombench.generators.tomsynth.units import select_units, unit_by_id


def mock_output(content: str) -> ModelOutput:
    """A mockllm output with explicit token usage (mockllm's own default would count tokens)."""
    out = ModelOutput.from_content(model="mockllm/model", content=content)
    out.usage = ModelUsage(
        input_tokens=100, output_tokens=max(1, len(content) // 4), total_tokens=100 + max(1, len(content) // 4)
    )
    return out


def entry_json(fmt: str, text: str, answer: str = "B", tag: str = "") -> str:
    """A valid App. B entry; `tag` makes text and options unique per item."""
    return json.dumps(
        [
            {
                fmt: text,
                "Question": f"What does Ann most likely believe about the report?{tag}",
                "Options": {
                    "A": f"She believes it is still on her desk{tag}",
                    "B": f"She believes Tom already submitted it{tag}",
                    "C": f"She believes the manager has not read it{tag}",
                    "D": f"She believes it was lost in the move{tag}",
                },
                "Answer": answer,
                "Analysis": "Ann left before Tom moved it.",
            }
        ]
    )


STORY = (
    "Ann left the meeting room early. While she was away, Tom picked up her report from the table, "
    "read the summary, and quietly filed it in the manager's tray."
)


def _prompt_text(messages: list[ChatMessage]) -> str:
    return messages[-1].text


def scripted_model(script: Callable[[str, int], str]) -> Model:
    """mockllm whose reply depends on the prompt and on how many times this prompt was seen (retries)."""
    seen: Counter[str] = Counter()

    def reply(messages: list[ChatMessage], tools: object, tool_choice: object, config: GenerateConfig) -> ModelOutput:
        prompt = _prompt_text(messages)
        seen[prompt] += 1
        return mock_output(script(prompt, seen[prompt]))

    return get_model("mockllm/model", custom_outputs=reply, memoize=False)


def _fmt(prompt: str) -> str:
    return re.search(r"- Format: (\w+)", prompt).group(1)


def _names(prompt: str) -> str:
    return re.search(r"Select the characters from \[(.*?)\]", prompt).group(1)


def test_generates_items_with_unit_metadata(tmp_path: Path) -> None:
    units = select_units("3", seed=0)
    model = scripted_model(lambda p, n: entry_json(_fmt(p), STORY, "C", tag=f" ({_names(p)})"))
    out = tmp_path / "items.jsonl"
    stats = asyncio.run(generate_items(model, units, 2, out, seed=7, cache=False))
    assert (stats.planned, stats.generated, stats.failed, stats.calls) == (6, 6, 0, 6)
    items = read_items(out)
    assert sorted(i.id for i in items) == sorted(f"{u.id}#{k}" for u in units for k in range(2))
    for item in items:
        unit = unit_by_id(item.unit_id)
        assert (item.dimension, item.sub_dimension, item.format) == (
            unit.mental_state.dimension,
            unit.mental_state.sub_dimension,
            unit.format,
        )
        assert item.answer == "C" and item.text == STORY and item.generator == "mockllm/model"
        assert len(item.characters) == 4 and ", ".join(item.characters) in item.question


def test_prompt_is_app_b_with_unit_configuration(tmp_path: Path) -> None:
    unit = unit_by_id("hidden-emotions.healthcare.delivering-bad-news.narrative")
    prompts: list[str] = []

    def script(p: str, n: int) -> str:
        prompts.append(p)
        return entry_json("Narrative", STORY)

    asyncio.run(generate_items(scripted_model(script), [unit], 1, tmp_path / "o.jsonl", cache=False))
    (p,) = prompts
    for needle in (
        "- Format: Narrative",
        "- Social Scenario: Healthcare",
        "- Specific Situation: Delivering Bad News",
        "- Target Mental State Dimension: Emotion",
        "- Target Concept (Key Focus): Hidden Emotions",
        "should not exceed 800 characters",
        "should not exceed 4",
        "Do NOT explicitly state",
        "randomized among A, B, C, and D",
        "Option lengths should not exhibit obvious bias",
        "highly deceptive distractors",
        '"Narrative": "Third-person story description..."',
    ):
        assert needle in p, needle


def test_malformed_outputs_are_counted_and_retried(tmp_path: Path) -> None:
    units = select_units("2", seed=3)
    bad = ["Sorry, I can't do that.", '{"Story": "x", "Answer": "A"}', '```json\n[{"Narrative": "unterminated']

    def script(p: str, n: int) -> str:
        # first unit: two malformed replies, then a fenced valid one; second unit: never valid
        if units[0].situation.situation in p and units[0].mental_state.sub_dimension in p:
            return bad[n - 1] if n <= 2 else f"```json\n{entry_json(_fmt(p), STORY)}\n```\nHope this helps!"
        return bad[(n - 1) % 3]

    out = tmp_path / "items.jsonl"
    stats = asyncio.run(generate_items(scripted_model(script), units, 1, out, max_retries=2, cache=False))
    assert (stats.generated, stats.failed, stats.calls) == (1, 1, 6)
    assert stats.parse_errors == {"no_json": 2, "wrong_keys": 2, "invalid_json": 1}
    assert [i.unit_id for i in read_items(out)] == [units[0].id]
    failures = [json.loads(line) for line in failures_path(out).read_text().splitlines()]
    assert [f["id"] for f in failures] == [f"{units[1].id}#0"] and failures[0]["last_output"] == bad[2]


def test_resume_skips_done_items_and_torn_lines(tmp_path: Path) -> None:
    units = select_units("2", seed=5)
    out = tmp_path / "items.jsonl"
    model = scripted_model(lambda p, n: entry_json(_fmt(p), STORY))
    first = asyncio.run(generate_items(model, units[:1], 2, out, cache=False))
    assert first.generated == 2
    with open(out, "a", encoding="utf-8") as f:
        f.write('{"id": "torn')  # a run killed mid-write
    second = asyncio.run(generate_items(model, units, 2, out, cache=False))
    assert (second.already_done, second.generated, second.calls) == (2, 2, 2)
    assert len(read_items(out)) == 4


def test_characters_depend_only_on_seed_and_item_id(tmp_path: Path) -> None:
    units = select_units("2", seed=9)
    model = scripted_model(lambda p, n: entry_json(_fmt(p), STORY))
    asyncio.run(generate_items(model, units, 1, tmp_path / "a.jsonl", seed=1, cache=False))
    asyncio.run(generate_items(model, units[::-1], 1, tmp_path / "b.jsonl", seed=1, cache=False))
    a = {i.id: i.characters for i in read_items(tmp_path / "a.jsonl")}
    b = {i.id: i.characters for i in read_items(tmp_path / "b.jsonl")}
    assert a == b


def test_inspect_cache_replays_and_retries_are_not_cached_together(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    unit = select_units("1", seed=11)
    calls = Counter()

    def script(p: str, n: int) -> str:
        calls["n"] += 1
        return "no json here" if n == 1 else entry_json(_fmt(p), STORY)

    model = scripted_model(script)
    s1 = asyncio.run(generate_items(model, unit, 1, tmp_path / "a.jsonl", cache=True))
    assert (s1.generated, s1.calls, calls["n"]) == (1, 2, 2)
    # a fresh output file: same prompts, served from the cache (the mock is not called again)
    s2 = asyncio.run(generate_items(model, unit, 1, tmp_path / "b.jsonl", cache=True))
    assert (s2.generated, s2.calls, calls["n"]) == (1, 2, 2)


def test_rerun_after_failures_asks_again_under_the_default_cache(tmp_path: Path, monkeypatch) -> None:
    """The bug this guards against: with the cache keyed by item and attempt only, a re-run replayed the cached bad
    outputs (0 of 2 recovered); the number of failed runs is now in the cache scope."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    units = select_units("2", seed=13)
    calls: Counter[str] = Counter()

    def script(p: str, n: int) -> str:  # every item is unreadable for its first 3 calls (one whole run)
        calls[p] += 1
        return "I'd rather not." if calls[p] <= 3 else entry_json(_fmt(p), STORY, tag=f" ({_names(p)})")

    model = scripted_model(script)
    out = tmp_path / "items.jsonl"
    first = asyncio.run(generate_items(model, units, 1, out, max_retries=2))  # cache on, as by default
    assert (first.generated, first.failed, first.calls) == (0, 2, 6)
    failures = [json.loads(line) for line in failures_path(out).read_text().splitlines()]
    assert sorted(f["runs"] for f in failures) == [1, 1]

    second = asyncio.run(generate_items(model, units, 1, out, max_retries=2))
    assert (second.retried, second.recovered, second.generated, second.failed) == (2, 2, 2, 0)
    assert sum(calls.values()) == 8  # one fresh call per item, not a replay of the cached failures
    assert len(read_items(out)) == 2 and failures_path(out).read_text() == ""

    third = asyncio.run(generate_items(model, units, 1, out, max_retries=2))
    assert (third.already_done, third.calls, sum(calls.values())) == (2, 0, 8)


def test_failures_file_keeps_one_line_per_item(tmp_path: Path) -> None:
    units = select_units("1", seed=17)
    model = scripted_model(lambda p, n: "never valid")
    out = tmp_path / "items.jsonl"
    for _ in range(3):
        asyncio.run(generate_items(model, units, 2, out, max_retries=0, cache=False))
    rows = [json.loads(line) for line in failures_path(out).read_text().splitlines()]
    assert sorted(r["id"] for r in rows) == [f"{units[0].id}#0", f"{units[0].id}#1"]
    assert [r["runs"] for r in rows] == [3, 3] and rows[0]["last_output"] == "never valid"


def test_failures_file_of_an_older_version_counts_one_run_per_line(tmp_path: Path) -> None:
    from tombench.generators.tomsynth.generation import read_failures

    path = tmp_path / "x.failures.jsonl"
    path.write_text('{"id": "a#0", "errors": {}}\n{"id": "a#0", "errors": {}}\n{"id": "b#0", "runs": 4}\n')
    assert {k: v["runs"] for k, v in read_failures(path).items()} == {"a#0": 2, "b#0": 4}
