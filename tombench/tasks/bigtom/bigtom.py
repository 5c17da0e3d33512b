"""BigToM (Gandhi, Fränken, Gerstenberg, Goodman, NeurIPS 2023 Datasets and Benchmarks): causal-template ToM items.

Paper: "Understanding Social Reasoning in Language Models with Language Models" (https://arxiv.org/abs/2306.15448).
Data: `data/bigtom/bigtom.csv` of cicl-stanford/procedural-evals-tom at commit fe647d68 (pinned by SHA-256), MIT:
200 templates (`;`-separated: story, percepts, actions, questions, answers, a random control event). The test
items are the conditions the authors' `generate_conditions.py` derives from each template, rebuilt here by
`template_items` (own code, same rules): for each initial-belief setting (0: the initial-belief sentence hidden,
1: shown) and each variable (forward belief, forward action, backward belief), four conditions (true belief, false
belief, and their two controls, where a random event replaces the causal one): 24 items per template, 4,800 in all.

    inspect eval tombench/bigtom --model openai/gpt-4o-mini
    inspect eval tombench/bigtom -T variable=forward_belief -T condition=true_belief,false_belief -T init_belief=0
    inspect eval tombench/bigtom -T data=bigtom.csv --model tombench/random

The prompt is the paper's zero-shot chat protocol (`EvaluateLLM(method="chat-0shot")` with `--mcq`): system
"Answer the questions based on the context. Keep your answer concise, few words are enough, maximum one sentence.
Answer as 'Answer:<option>)<answer>'.", user "Story: {story}\\nQuestion: {question}\\nChoose one of the
following:\\na){option}\\nb){option}", temperature 0, 100 tokens. The two answers are shown in an order drawn per item
(seeded by the item's content). The answer is read with BigToM's rule (`bigtom` protocol: the response contains
"a)" or "b)"; a lone letter or the one option text where the paper fell back to an LLM grader). Accuracy per
condition: `cell` = variable/condition (the paper's table), `variable`, `condition`, `init_belief`; chance is 1/2.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.solver import generate, system_message

from tombench.kit.errors import OptionError
from tombench.kit.evals import task_data
from tombench.kit.options import check_bool
from tombench.kit.pinning import UrlFile, fetch
from tombench.kit.reading import read_text
from tombench.scorers.suites.choice import choice_answer, suite_metrics
from tombench.tasks.shared.choices import chance, digest, format_options, shuffled
from tombench.tasks.shared.suite import one_of, suite_metadata

__all__ = ["CONDITIONS", "FIELDS", "INSTRUCTION", "SOURCE", "VARIABLES", "bigtom", "build_user_message",
           "load_templates", "record_to_sample", "template_items"]

TASK_VERSION = "1.0.0"

SOURCE = UrlFile(
    "https://raw.githubusercontent.com/cicl-stanford/procedural-evals-tom/fe647d680bddb69f738519313bed625f9e93b549/"
    "data/bigtom/bigtom.csv",
    sha256="a14884fbff5b61d3fa194ab166764b553ab795fcb1359e69d1282eadf3011a46",
)
#: The paper's count: 25 conditions x 200 templates; the 25th (percept-to-belief) is left out here (README.md).
PAPER_ITEMS = 5000
DATA = task_data(__file__, "bigtom", {"data": SOURCE})
LICENSE = DATA.license  # eval.yaml's, the one place it is written
TEMPLATES = 200

#: The template columns, in file order (the release has no header row; two trailing columns are bookkeeping).
FIELDS: tuple[str, ...] = (
    "story", "aware_of_event", "not_aware_of_event", "action_aware", "action_not_aware", "belief_question",
    "desire_question", "action_question", "belief_answer_aware", "desire_answer_aware", "action_answer_aware",
    "belief_answer_not_aware", "desire_answer_not_aware", "action_answer_not_aware", "random_event",
    "aware_of_random_event", "not_aware_of_random_event",
)
VARIABLES: tuple[str, ...] = ("forward_belief", "forward_action", "backward_belief")
CONDITIONS: tuple[str, ...] = ("true_belief", "false_belief", "true_control", "false_control")
DIMENSIONS: tuple[str, ...] = ("cell", "variable", "condition", "init_belief")

#: The paper's instruction (code/prompt_instructions/evaluate.txt), the system message of its chat protocol.
INSTRUCTION = (
    "Answer the questions based on the context. Keep your answer concise, few words are enough, maximum one "
    "sentence. Answer as 'Answer:<option>)<answer>'."
)


def template_items(template: dict[str, str]) -> list[dict[str, Any]]:
    """The 24 test items of one template: story, question, the correct and the wrong answer, and the condition.

    The story's five sentences are: context, desire, percept, initial belief, causal event. Initial belief 0 drops
    the fourth. True/false belief append whether the agent perceives the event (forward) or the action that
    reveals it (backward); a control replaces the causal event with the random event, so the belief stays the
    initial one (the not-aware answer is correct in both controls).
    """
    parts = template["story"].split(".")
    if len(parts) < 6:
        raise ValueError(f"a BigToM story needs five sentences, got {len(parts) - 1}: {template['story'][:60]!r}")
    items = []
    for init in (0, 1):
        kept = parts[:3] + (parts[3:4] if init else []) + parts[4:5]
        story = ".".join(kept) + "."
        control = ".".join(parts[: 3 + init] + [" " + template["random_event"]])
        for variable in VARIABLES:
            kind = "action" if variable == "forward_action" else "belief"
            question = template[f"{kind}_question"]
            aware, unaware = template[f"{kind}_answer_aware"], template[f"{kind}_answer_not_aware"]
            if variable == "backward_belief":
                texts = {"true_belief": f"{story} {template['action_aware']}",
                         "false_belief": f"{story} {template['action_not_aware']}",
                         "true_control": f"{control} {template['action_not_aware']}",
                         "false_control": f"{control} {template['action_not_aware']}"}
            else:
                texts = {"true_belief": f"{story} {template['aware_of_event']}",
                         "false_belief": f"{story} {template['not_aware_of_event']}",
                         "true_control": f"{control} {template['aware_of_random_event']}",
                         "false_control": f"{control} {template['not_aware_of_random_event']}"}
            for condition in CONDITIONS:
                right, wrong = (aware, unaware) if condition == "true_belief" else (unaware, aware)
                items.append({"story": texts[condition], "question": question, "answer": right, "wrong": wrong,
                              "init_belief": init, "variable": variable, "condition": condition})
    return items


def build_user_message(story: str, question: str, options: list[str]) -> str:
    """The paper's user message: story, question and the two options as "a)..." / "b)..." lines."""
    choices = format_options(options, template="{letter}){text}", letters="ab")
    return f"Story: {story}\nQuestion: {question}\nChoose one of the following:\n{choices}"


def record_to_sample(item: dict[str, Any]) -> Sample:
    """One BigToM item (from `template_items`) as a two-option Sample; the option order is seeded by content."""
    key = digest(str(item["init_belief"]), item["variable"], item["condition"], item["story"], item["question"])
    options = shuffled([item["answer"], item["wrong"]], key=key)
    return Sample(
        id=f"bigtom-{key[:12]}",
        input=build_user_message(item["story"], item["question"], options),
        target="ab"[options.index(item["answer"])],
        metadata={
            "suite": "bigtom",
            "variable": item["variable"],
            "condition": item["condition"],
            "init_belief": item["init_belief"],
            "cell": f"{item['variable']}/{item['condition']}",
            "question": item["question"],
            "letters": "ab",
            "options": options,
            "chance": chance(2),
        },
    )


def load_templates(path: Path) -> list[dict[str, str]]:
    """The templates of `bigtom.csv` (`;`-separated, no header), as dicts keyed by `FIELDS`."""
    text = read_text(path, what="BigToM data", expected="bigtom.csv: ';'-separated template rows", option="-T data=PATH")
    rows = list(csv.reader(io.StringIO(text), delimiter=";"))
    rows = [r for r in rows if any(c.strip() for c in r)]
    bad = [i + 1 for i, r in enumerate(rows) if len(r) < len(FIELDS)]
    if bad:
        raise OptionError(f"BigToM data {str(path)!r}: rows {bad[:5]} have fewer than {len(FIELDS)} ';' fields")
    return [dict(zip(FIELDS, r[: len(FIELDS)], strict=True)) for r in rows]  # as released (2 cells end in a space)


@task
def bigtom(
    variable: str | list[str] | None = None,
    condition: str | list[str] | None = None,
    init_belief: str | list[str] | None = None,
    data: str | None = None,
    cache: bool = False,
) -> Task:
    """BigToM with the paper's zero-shot multiple-choice protocol; accuracy per variable x condition.

    Args:
        variable: keep items of these variables: `forward_belief`, `forward_action`, `backward_belief`
            (comma-separated; default: all three).
        condition: keep items of these conditions: `true_belief`, `false_belief`, `true_control`, `false_control`
            (comma-separated; default: all four).
        init_belief: keep items with the initial-belief sentence hidden (`0`) or shown (`1`) (default: both).
        data: read this local `bigtom.csv` instead of the pinned release (default); its SHA-256 is recorded, and
            whether it is the pinned file.
        cache: use Inspect's response cache for the model's calls (`true` or `false`).
    """
    cache = check_bool("cache", cache)
    variables = one_of("variable", variable, VARIABLES)
    conditions = one_of("condition", condition, CONDITIONS)
    inits = one_of("init_belief", init_belief, [0, 1])
    path, provenance = fetch(SOURCE, data, suite="BigToM")
    templates = load_templates(path)
    try:
        items = [it for t in templates for it in template_items(t)]
    except ValueError as e:
        raise OptionError(f"cannot read BigToM data {str(path)!r}: {e}") from None
    items = [
        it for it in items
        if (variables is None or it["variable"] in variables)
        and (conditions is None or it["condition"] in conditions)
        and (inits is None or str(it["init_belief"]) in inits)
    ]
    if not items:
        raise OptionError("no BigToM items left after the filters (variable, condition, init_belief)")
    return Task(
        dataset=MemoryDataset([record_to_sample(it) for it in items], name="bigtom",
                              location=str(provenance["dataset_id"])),
        solver=[system_message(INSTRUCTION), generate(cache=cache)],
        scorer=choice_answer("bigtom"),
        metrics=suite_metrics(DIMENSIONS),
        config=GenerateConfig(temperature=0.0, max_tokens=100),
        version=TASK_VERSION,
        metadata=suite_metadata(
            "bigtom", provenance=provenance, records=len(templates),
            chance=0.5, protocol="bigtom", items=len(items),
        ),
    )
