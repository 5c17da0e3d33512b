"""The prompt builder reproduces the paper's protocol exactly and is a usable cache key."""

import dataclasses
import subprocess
import sys

import pytest

from tombench.dsl.prompting import DEFAULT_TEMPLATE, SYSTEM_PROMPT, Prompt, build_prompt

STORY = (
    "Anne entered the kitchen. Beth entered the kitchen. Anne moved the apple to the box, which is also located in "
    "the kitchen. Beth left the kitchen."
)
QUESTION = "In which container will Beth search for the apple?"


def test_default_prompt_is_the_papers():
    prompt = build_prompt(STORY, QUESTION)
    assert prompt.system == "You are a helpful assistant." == SYSTEM_PROMPT
    assert prompt.user == STORY + "\n" + QUESTION + " Short Answer."
    assert (prompt.temperature, prompt.top_p, prompt.max_tokens) == (0.0, 1.0, 40)
    assert DEFAULT_TEMPLATE == "{story}\n{question} Short Answer."


def test_texts_are_not_altered():
    story = "  Anne  entered the kitchen.  {question} {0} "  # braces in the story must survive untouched
    prompt = build_prompt(story, "Q?")
    assert prompt.user == story + "\nQ? Short Answer."


def test_custom_template_and_system():
    prompt = build_prompt("S.", "Q?", template="Story: {story}\nQuestion: {question}\nAnswer:", system="Be brief.")
    assert prompt == Prompt(system="Be brief.", user="Story: S.\nQuestion: Q?\nAnswer:")


@pytest.mark.parametrize(
    "template", ["{story} Short Answer.", "{question}", "{story}\n{question} {answer}", "{story} {question} {0}"]
)
def test_bad_templates_fail_with_one_line(template):
    with pytest.raises(ValueError, match="template"):
        build_prompt("S.", "Q?", template=template)


def test_prompt_is_a_frozen_hashable_cache_key():
    a, b = build_prompt(STORY, QUESTION), build_prompt(STORY, QUESTION)
    assert a == b and hash(a) == hash(b)
    assert len({a: 1, b: 2}) == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.user = "x"  # type: ignore[misc]
    hotter = dataclasses.replace(a, temperature=0.7)
    assert hotter != a
    assert a.to_dict() == {
        "system": SYSTEM_PROMPT,
        "user": a.user,
        "temperature": 0.0,
        "top_p": 1.0,
        "max_tokens": 40,
    }


def test_cache_key_depends_on_model_and_every_field():
    prompt = build_prompt(STORY, QUESTION)
    key = prompt.cache_key("openai/gpt-4o")
    assert len(key) == 64 and int(key, 16) >= 0
    assert key == prompt.cache_key("openai/gpt-4o")
    assert key != prompt.cache_key("openai/gpt-4o-mini")
    for change in ({"system": "x"}, {"user": "x"}, {"temperature": 0.5}, {"top_p": 0.9}, {"max_tokens": 41}):
        assert dataclasses.replace(prompt, **change).cache_key("openai/gpt-4o") != key


def test_cache_key_is_stable_across_processes():
    code = (
        f"from tombench.dsl.prompting import build_prompt;print(build_prompt({STORY!r}, {QUESTION!r}).cache_key('m'))"
    )
    keys = {
        subprocess.run(
            [sys.executable, "-c", code], env={"PYTHONHASHSEED": seed}, capture_output=True, text=True, check=True
        ).stdout.strip()
        for seed in ("0", "1")
    }
    assert keys == {build_prompt(STORY, QUESTION).cache_key("m")}
