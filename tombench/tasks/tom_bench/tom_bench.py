"""ToMBench (Chen et al., 2024): 2,860 bilingual multiple-choice items, accuracy per task, ability and language.

Paper: Chen, Wu, Zhou et al., "ToMBench: Benchmarking Theory of Mind in Large Language Models" (ACL 2024,
https://arxiv.org/abs/2402.15052). Data: the authors' `data/*.jsonl` (one file per task; each record holds the
Chinese and the English version of the item), pinned by commit and SHA-256.

    inspect eval tombench/tom_bench --model openai/gpt-4o-mini                     # both languages, 5 tries
    inspect eval tombench/tom_bench -T language=en -T tries=1 --model tombench/random
    inspect eval tombench/tom_bench -T data=path/to/ToMBench/data --model ...

Protocol (the paper's `run_api.py` and `get_results.py`, prompts of its Table 20): the system prompt of the item's
language asks for the answer as `[[X]]`; the user message gives the story, the question and the options, shuffled
anew for each of the `tries` (5); the item's prediction is the majority of the tries mapped back to the original
letters. The headline is the paper's AVG: per language, the unweighted mean of the accuracies of its 8 tasks
(`avg_zh`, `avg_en`; `avg` their mean), as in its task table; its ability table's AVG (mean of the 6 ability
categories) is `ability_avg_zh` / `ability_avg_en`. Every task x language, category x language and ability x
language cell is logged (`task_language=zh/False Belief Task`, ...), as is accuracy per task (file), per ability
(31 ATOMS abilities; an item may test two), per ability category (6) and per language, pooled over the items.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig
from inspect_ai.solver import Generate, Solver, TaskState, solver

from tombench.kit.evals import task_data
from tombench.kit.options import check_int
from tombench.kit.pinning import UrlFile, fetch_files
from tombench.kit.reading import convert_records, read_jsonl
from tombench.tasks.shared.suite import one_of, suite_metadata

__all__ = [
    "FILES",
    "LANGUAGES",
    "LICENSE",
    "PAPER_ITEMS",
    "SYSTEM_PROMPTS",
    "abilities",
    "build_user_prompt",
    "iter_records",
    "option_order",
    "record_to_sample",
    "tom_bench",
]

TASK_VERSION = "1.1.0"

#: The authors' GitHub repository (no Hub release by the authors), pinned by commit and each file's SHA-256
#: (computed on the real files, 2026-11). One file per task; each line is one bilingual item.
RELEASE = "github.com/zhchen18/ToMBench@4f491f0784ed31ef93a8837615fbc48f885cf78d"
_RAW = "https://raw.githubusercontent.com/zhchen18/ToMBench/4f491f0784ed31ef93a8837615fbc48f885cf78d/data/"
_SHA256 = {
    "Ambiguous Story Task.jsonl": "c99f365b6d3d0e982228623d4328afbafe11cf9a8da3a2838ed6c846e4f154d0",
    "Completion of Failed Actions.jsonl": "cb68348ef3eb53d7c6bf0e426b9279856264748b94f181ce042c91dcf56ba5af",
    "Discrepant Desires.jsonl": "73093d99923efac243e3610c393613c000b5dc04f88771c39a3b641b993a6b70",
    "Discrepant Emotions.jsonl": "100b7f05ba5b76aeaa8d2daf3897c90c6a4f08dc23b75a0dd87be0e82db11bf4",
    "Discrepant Intentions.jsonl": "d72c8353aa5b65f35073d72808996b6f8e980f7683539e25510a251ed8f1dac2",
    "Emotion Regulation.jsonl": "553d0ee61733cddfa3a9c531c3f7306c40929edc9f0e1e1dda7088ed8804c96c",
    "False Belief Task.jsonl": "1a5c38362c4c883b219381e24d7b51c1f60abd959f39b6dc3e977ca11d7abff8",
    "Faux-pas Recognition Test.jsonl": "374272690aedfe34529cb83fc4368a38960da288fb8d787a7bf50aba65dd349c",
    "Hidden Emotions.jsonl": "57d0882eafddca8fb8d81148bf4291db0c5c6bbdd3a8ad5004c445d249b05124",
    "Hinting Task Test.jsonl": "fd3a930403c7e0514e8730c48030da17d8bcd8a453e96001ca0795cbaee61afa",
    "Knowledge-Attention Links.jsonl": "9ea4c7bfc2086d4ebaa2a31cc1993ea2774f72e642d7415dbb9c9c0e21ead94f",
    "Knowledge-Pretend Play Links.jsonl": "67e3d451089db0a3ac4a7702f4c6c58c2909dbe338aa53bda5e00e4cf9396242",
    "Moral Emotions.jsonl": "fac3eb293d2901b35274eab8244515b7e138e9cb3311037d5c4a0bda3810dd51",
    "Multiple Desires.jsonl": "7a49186ab802a2a199806ca191160019ae21d9ff85db9203799fb36b8960a914",
    "Percepts-Knowledge Links.jsonl": "dda5b279b926eef0e0c440cef4ef68cbebbf82fc6c7b109b213c15c2f9d94804",
    "Persuasion Story Task.jsonl": "aefef5b6beb7097370cf3bc0c6503ed8caa495530297a4b184c4c31002e23169",
    "Prediction of Actions.jsonl": "23c56589e459d253bafc2cdc0ea786fba1912c8bf388861a96042666f10b8a47",
    "Scalar Implicature Test.jsonl": "4264d1842f556f8bcfd7fd56c5058aa8c55f6001931d27d253a85d7ecc19247e",
    "Strange Story Task.jsonl": "f0a1c6e12b9d9b8b5c936ea3383b24100ef28ed6610078c1fc7bd6769d7ef914",
    "Unexpected Outcome Test.jsonl": "f4ee872c98e17480272c40d5406a8eca31eed29b455f4155b9684328bf6dbf9c",
}
FILES: dict[str, UrlFile] = {n: UrlFile(url=_RAW + quote(n), sha256=h) for n, h in _SHA256.items()}
#: The paper's count: 2,860 items, each in Chinese and in English.
PAPER_ITEMS = 2860
DATA = task_data(__file__, "tom_bench", FILES)
LICENSE = DATA.license  # eval.yaml's, the one place it is written
#: `run_api.py`: temperature 0, top_p 0.99; its `try_times` 5 with shuffled options, majority vote.
CONFIG = GenerateConfig(temperature=0.0, top_p=0.99)
TRIES = 5
#: The pooled breakdown: by language and number of options. Per task, category and ability the log has the cells
#: per language (`tombench_cells`); pooling them again over the languages gave the summary ~90 more groups for
#: numbers the cells already determine.
DIMENSIONS: tuple[str, ...] = ("language", "k")
LANGUAGES: tuple[str, ...] = ("zh", "en")

#: The paper's system prompts (Table 20; `prompts.py` SystemEvaluatePrompt_{zh,en}), vanilla (no chain of thought).
SYSTEM_PROMPTS: dict[str, str] = {
    "zh": (
        "下面给你提供一段故事，一个问题和若干答案选项，请你根据故事内容和给定的问题，按照常理推测，选择一个最可能的答案选项，"
        "并输出答案序号。\n注意：\n（1）请只输出最可能的答案序号，格式为：[[答案序号]]，例如，最可能的答案选项为“A. 手提包”，"
        "则输出“[[A]]”；\n（2）请必须从给定的答案选项“A、B、C、D”中选择一个做为最可能的答案作为输出，无论故事中是否提供足够的信息，"
        "如果你认为故事里没有足够的信息选出答案，请随机输出“[[A]]”，“[[B]]”，“[[C]]”，“[[D]]”其中之一；\n"
        "（3）请只输出在给定的信息下最可能的答案序号，不要输出其他内容。"
    ),
    "en": (
        "Below is a multiple-choice question with a story and serveral answer options. Based on the content of the "
        "story and the given question, please infer the most likely answer and output the answer index.\nNote:\n"
        "(1) Please only output the most likely answer index in the format: [[Answer Index]], for example, if the "
        "most likely answer option is 'A. Handbag', then output '[[A]]';\n(2) You must choose one of the given "
        "answer options 'A, B, C, D' as the most likely answer, regardless of whether the story provides enough "
        "information. If you think there is not enough information in the story to choose an answer, please randomly "
        'output one of "[[A]]", "[[B]]", "[[C]]", or "[[D]]";\n(3) Please only output the most likely answer index '
        "based on the given information, and do not output any other content."
    ),
}
_HEADINGS = {"zh": ("[故事]", "[问题]", "[答案选项]"), "en": ("[Story]", "[Question]", "[Candidate Answers]")}
#: The record fields of each language (the authors' bilingual column names).
_FIELDS = {
    "zh": ("故事", "问题", ("选项A", "选项B", "选项C", "选项D")),
    "en": ("STORY", "QUESTION", ("OPTION-A", "OPTION-B", "OPTION-C", "OPTION-D")),
}
_ANSWER, _ABILITY, _INDEX = "答案\nANSWER", "能力\nABILITY", "序号\nINDEX"
_LETTERS = ("A", "B", "C", "D")
_CATEGORY = r"(?:Emotion|Desire|Intention|Knowledge|Belief|Non-[Ll]iteral [Cc]ommunication):"
_ABILITY_SPLIT = re.compile(rf"\s+(?={_CATEGORY})")
#: The two finer labels of one ATOMS ability ("Desires influence on emotions and actions") in the data.
_MERGED = {
    "Desire: Desires influence on actions": "Desire: Desires influence on emotions and actions",
    "Desire: Desires influence on emotions (beliefs)": "Desire: Desires influence on emotions and actions",
}


def _option(value: Any, letter: str) -> str | None:
    """An option's text without its own "A. " / "A．" prefix; None for a missing option (null, NaN or blank)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    text = re.sub(rf"^\s*{letter}\s*[.．、:：]\s*", "", str(value)).strip()
    return text or None


def abilities(raw: str) -> list[str]:
    """The ATOMS abilities an item tests: "Belief: Location false beliefs Belief: Second-order beliefs" is two.

    Case and spacing are normalised ("Non-literal communication" and "Non-Literal Communication" are one category).
    """
    out = []
    for part in _ABILITY_SPLIT.split(str(raw).strip()):
        category, _, name = part.partition(":")
        category = "Non-Literal Communication" if category.lower() == "non-literal communication" else category
        label = f"{category.strip()}: {name.strip()[:1].upper()}{name.strip()[1:]}"
        out.append(_MERGED.get(label, label))
    return list(dict.fromkeys(out))


def option_order(sample_id: str, try_index: int, k: int) -> list[int]:
    """The seeded shuffle of a try: original option indices in the order shown (a SHA-256 of id and try)."""
    order = list(range(k))
    seed = int.from_bytes(hashlib.sha256(f"{sample_id}\n{try_index}".encode()).digest()[:8], "big")
    random.Random(seed).shuffle(order)
    return order


def build_user_prompt(language: str, story: str, question: str, options: list[str]) -> str:
    """The paper's user message (UserEvaluatePrompt{4,2}Choices_{zh,en}) for options in the order shown."""
    h_story, h_question, h_options = _HEADINGS[language]
    lines = "\n".join(f"{letter}. {text}" for letter, text in zip(_LETTERS, options, strict=False))
    return f"{h_story}\n{story}\n\n{h_question}\n{question}\n\n{h_options}\n{lines}"


def record_to_sample(record: Mapping[str, Any], *, task: str, language: str) -> Sample:
    """One item in one language: the story, question and options in the original order; the answer letter.

    The prompt is built per try by the task's solver (options shuffled); the sample input holds the unshuffled
    user message for reading logs. Items with options C and D missing are two-way.
    """
    story_key, question_key, option_keys = _FIELDS[language]
    options = [_option(record[k], letter) for k, letter in zip(option_keys, _LETTERS, strict=True)]
    if options[2] is None and options[3] is None:
        options = options[:2]
    if any(o is None for o in options):
        raise ValueError(f"ToMBench {task} item {record.get(_INDEX)} ({language}): an option is missing: {options}")
    answer = str(record[_ANSWER]).strip().rstrip(".").strip().upper()
    if answer not in _LETTERS[: len(options)]:
        raise ValueError(f"ToMBench {task} item {record.get(_INDEX)} ({language}): bad answer {record[_ANSWER]!r}")
    story, question = str(record[story_key]).strip(), str(record[question_key]).strip()
    digest = hashlib.sha256(json.dumps([task, story, question, options], ensure_ascii=False).encode()).hexdigest()[:12]
    skills = abilities(record[_ABILITY])
    return Sample(
        id=f"tombench-{language}-{digest}",
        input=build_user_prompt(language, story, question, [str(o) for o in options]),
        choices=[str(o) for o in options],
        target=answer,
        metadata={
            "task": task,
            "language": language,
            "abilities": skills,
            "categories": list(dict.fromkeys(a.split(":")[0] for a in skills)),
            "k": len(options),
            "story": story,
            "question": question,
            "item_index": record.get(_INDEX),
        },
    )


def iter_records(paths: Mapping[str, Path]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(task, record) for every line of every task file (task = the file name without `.jsonl`), in name order."""
    for name in sorted(paths):
        for record in read_jsonl(paths[name], what="ToMBench data"):
            yield name.removesuffix(".jsonl"), record


def samples(records: Iterable[tuple[str, Mapping[str, Any]]], languages: Iterable[str]) -> list[Sample]:
    """Every record in every asked language (a record is one item per language)."""
    langs = list(languages)
    records = list(records)
    out: list[Sample] = []
    for task_file in dict.fromkeys(t for t, _ in records):  # per file, so an error names the file and its record
        per_record = convert_records(
            (r for t, r in records if t == task_file),
            lambda r, t=task_file: [record_to_sample(r, task=t, language=lang) for lang in langs],
            what="ToMBench data", path=f"{task_file}.jsonl", expected="a ToMBench record in the released layout")
        out += [s for items in per_record for s in items]
    return out


@solver
def shuffled_try() -> Solver:
    """One try of an item: the language's system prompt and the options in this try's seeded order."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        md = state.metadata
        order = option_order(str(state.sample_id), state.epoch, int(md["k"]))
        state.store.set("order", order)
        options = [state.choices[i].value for i in order]
        state.messages = [
            ChatMessageSystem(content=SYSTEM_PROMPTS[md["language"]]),
            ChatMessageUser(content=build_user_prompt(md["language"], md["story"], md["question"], options)),
        ]
        return await generate(state)

    return solve


@task
def tom_bench(
    data: str | None = None,
    language: str | list[str] = "zh,en",
    task_name: str | list[str] | None = None,
    tries: int = TRIES,
) -> Task:
    """ToMBench as in the paper: shuffled options per try, majority vote, accuracy per task, ability and language.

    Args:
        data: read this local copy of the authors' `data/` folder (the 20 `*.jsonl` files) instead of the pinned files
            (default); each file's SHA-256 is recorded, and whether every file is the pinned one.
        language: ask each item in these languages, `zh`, `en` (comma-separated), reported apart.
        task_name: keep the items of these task files: any of the 20 file names without `.jsonl`, e.g.
            "False Belief Task" (comma-separated or repeated; default: all 20).
        tries: ask each item this many times (1 to 99) with its options shuffled anew, the majority answer deciding
            (the paper's 5; 1 asks each item once).
    """
    from tombench.scorers.suites.choice import suite_metrics
    from tombench.scorers.suites.tom_bench import majority_vote, tombench_answer, tombench_cells

    langs = one_of("language", language, LANGUAGES) or list(LANGUAGES)
    names = [n.removesuffix(".jsonl") for n in FILES]
    wanted = one_of("task_name", task_name, names)
    tries = check_int("tries", tries, lo=1, hi=99)
    paths, provenance = fetch_files(FILES, data, suite="ToMBench", release=RELEASE)
    records = list(iter_records(paths))
    n_records = len(records)
    if wanted:
        records = [(t, r) for t, r in records if t in wanted]
    items = samples(records, langs)
    chance = sum(1 / s.metadata["k"] for s in items) / len(items) if items else None
    return Task(
        dataset=MemoryDataset(items, name="tombench", location=provenance["dataset_id"]),
        solver=shuffled_try(),
        scorer=tombench_answer(),
        metrics=[
            *suite_metrics(DIMENSIONS),
            tombench_cells(),
        ],
        epochs=Epochs(tries, majority_vote()),
        config=CONFIG,
        version=TASK_VERSION,
        metadata=suite_metadata(
            "tombench",
            headline_parts=[f"avg_{lang}" for lang in langs],
            provenance=provenance,
            records=n_records,
            chance=chance,
            paper_items=PAPER_ITEMS,
            languages=langs,
            tries=tries,
            license=LICENSE,
        ),
    )
