"""Judge calls per story of `tombench infill` (issue #31 point 7), offline, with Inspect's mockllm.

    python benchmarks/bench_infill_judge.py                    # this checkout: the default and the cheaper options
    PYTHONPATH=/path/to/older/checkout python benchmarks/bench_infill_judge.py --default-only   # "before"
    python benchmarks/bench_infill_judge.py runs/random/stories.jsonl   # `tombench search` stories instead

Seeded random stories (`random_story`, a four-person context with two rooms, three containers, two topics, a
visible and an invisible state change) of eight story types, plain and asymmetric, are infilled by a faithful
scripted writer (each step's sentence as its only candidate) and an honest scripted judge (the answer the tracked
state requires), both behind Inspect's `mockllm` with explicit outputs. Every candidate therefore passes, so the
counts are the cost of judging one accepted candidate per step plus the final label checks; a rejected candidate
costs at most as many step calls (judging stops at the first rejecting batch). Narration and goals are off.
Prints, per configuration: step and final judge calls per story, checks per step, and the characters of step
judge prompts per story (each batch repeats the story so far).
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import sys
import tempfile
from pathlib import Path
from statistics import mean

from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, ModelUsage, get_model

from tombench.dsl import Context, Setting, StateChange
from tombench.dsl.sampler import random_story
from tombench.generators.exploretom.infill import InfillConfig, infill_file

CTX = Context(
    people=("Anne", "Beth", "Carl", "Dana"),
    rooms=("kitchen", "bedroom"),
    objects=("apple",),
    containers=("box", "basket", "crate"),
    topics=("summer vacation", "new recipe"),
    state_changes=(
        StateChange("peel", "is peeled", "{person} peeled the {object}.", True),
        StateChange("poison", "is poisoned", "{person} poisoned the {object}.", False),
    ),
)
TYPES = ("tomi", "tomi+object-state", "tomi+room-changes", "fantom-public", "all")
EXPECTED_NO = (
    "Does the new text introduce",
    "Does the new text call",
    "Does the new text suggest",
    "Does the new text include",
    "Does the text",
    "In the new text",
)


def stories() -> list[dict]:
    """Three seeded stories per type (p3 and p4, m3), plain and asymmetric: 30 stories."""
    out = []
    for t in TYPES:
        for asym in ("", "+asymmetric"):
            for i, p in enumerate((3, 4, 4)):
                s = random_story(CTX, Setting.make(t + asym, p, 3), random.Random(f"{t}{asym}{i}"))
                if s is not None:
                    out.append({"setting": f"{t}{asym}|p{p}|m3", "story": s.to_dict()})
    return out


def _output(text: str) -> ModelOutput:
    """An explicit output with its usage (without usage, Inspect would count tokens with a downloaded tokenizer)."""
    out = ModelOutput.from_content(model="mockllm/model", content=text)
    out.usage = ModelUsage(input_tokens=50, output_tokens=10, total_tokens=60)
    return out


class Script:
    """Writer and judge in one mockllm callable; records every judge prompt."""

    def __init__(self) -> None:
        self.step_prompts: list[str] = []
        self.final_prompts: list[str] = []

    def __call__(self, input: list[ChatMessage], tools, tool_choice, config: GenerateConfig) -> ModelOutput:  # noqa: ANN001
        prompt = input[-1].text
        if prompt.startswith("You check a story"):
            (self.step_prompts if "NEW TEXT:" in prompt else self.final_prompts).append(prompt)
            lines = [
                f"{m.group(1)}: {'no' if m.group(2).startswith(EXPECTED_NO) else 'yes'}"
                for m in re.finditer(r"^(\d+)\. (.*)$", prompt, re.M)
            ]
            return _output("\n".join(lines))
        info = re.search(r"NEW ACTION OR INFORMATION TO INCLUDE: (.*)", prompt).group(1)
        return _output(f"STORY CONTINUATION: {info}")


def measure(src: Path, out: Path, n_stories: int, n_steps: int, **options: object) -> str:
    script = Script()
    config = InfillConfig(narration=False, goals=False, story_attempts=1, **options)
    report = asyncio.run(infill_file(get_model("mockllm/model", custom_outputs=script), src, out, config=config, cache=False))
    assert report.ok == n_stories, report.summary()
    checks = [len(re.findall(r"^\d+\. ", p, re.M)) for p in script.step_prompts]
    return (
        f"{len(script.step_prompts) / n_stories:5.1f} step + {len(script.final_prompts) / n_stories:4.1f} final judge "
        f"calls per story; {sum(checks) / n_steps:4.1f} checks per step (max per call {max(checks)}, mean "
        f"{mean(checks):.1f}); {sum(map(len, script.step_prompts)) / n_stories / 1000:5.1f}k characters of step "
        "judge prompts per story"
    )


def main(argv: list[str]) -> None:
    files = [Path(a) for a in argv if not a.startswith("--")]
    recs = [r for f in files for r in map(json.loads, f.read_text().splitlines()) if r.get("story")] or stories()
    n_steps = sum(len(r["story"]["actions"]) for r in recs)
    print(f"{len(recs)} stories, {n_steps} steps ({n_steps / len(recs):.1f} per story)")
    variants: list[tuple[str, dict]] = [("default", {})]
    if "--default-only" not in argv:
        variants += [
            ("--step-batch 24", {"step_batch": 24}),
            ("--step-batch 100 (one call per candidate)", {"step_batch": 100}),
            ("--belief-checks 4", {"max_belief_checks": 4}),
            ("--belief-checks 4 --step-batch 100", {"max_belief_checks": 4, "step_batch": 100}),
        ]
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "stories.jsonl"
        src.write_text("".join(json.dumps(r) + "\n" for r in recs))
        for i, (name, options) in enumerate(variants):
            print(f"{name:45s} {measure(src, Path(d) / f'out{i}.jsonl', len(recs), n_steps, **options)}")


if __name__ == "__main__":
    main(sys.argv[1:])
