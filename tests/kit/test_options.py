"""Numeric options of every task and command are checked at the boundary: one line with the valid range (issue #19)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from tombench.cli import main
from tombench.kit.errors import OptionError
from tombench.kit.options import check_bool, check_float, check_int, check_ints, people_limit, valid_range


def test_check_int_accepts_ints_and_integer_strings_only():
    assert check_int("k", 3, lo=1) == 3
    assert check_int("k", "3", lo=1) == 3
    assert check_int("k", 3.0, lo=1) == 3
    assert check_int("seed", -5) == -5
    for bad in (0, -1, 2.5, "x", True, None, [3]):
        with pytest.raises(OptionError, match=r"^Invalid k value: .*\. Must be an integer >= 1$"):
            check_int("k", bad, lo=1)
    with pytest.raises(OptionError, match="Must be an integer from 1 to 2$"):
        check_int("rooms", 3, 1, 2)


def test_check_float_range():
    assert check_float("refine", 0.5, 0.0, 1.0) == 0.5
    assert check_float("alpha", "0.1", lo=0.0) == 0.1
    for bad in (-0.1, 1.5, "nan", float("inf"), "x", False):
        with pytest.raises(OptionError, match="Must be a number from 0 to 1$"):
            check_float("refine", bad, 0.0, 1.0)


def test_check_ints_lists_and_comma_strings():
    assert check_ints("people", "2,3", 1, 6) == [2, 3]
    assert check_ints("people", [2, 4], 1, 6) == [2, 4]
    assert check_ints("people", 3, 1, 6) == [3]
    assert check_ints("people", None, 1, 6, default=(2, 3, 4)) == [2, 3, 4]
    with pytest.raises(OptionError, match=r"Invalid people value\(s\): -1,9\. Must be integers from 1 to 6"):
        check_ints("people", "2,-1,9", 1, 6)
    for bad in ("", [], "2,x", None):
        with pytest.raises(OptionError, match="Must be integers from 1 to 6"):
            check_ints("people", bad, 1, 6)


def test_valid_range_wording():
    assert valid_range(1, 6) == "an integer from 1 to 6"
    assert valid_range(0, 1, "a number") == "a number from 0 to 1"
    assert valid_range(1, None) == "an integer >= 1"
    assert valid_range(None, None) == "an integer"


def test_people_limit_is_the_largest_context():
    from tombench.generators.exploretom.contexts import resolve_contexts

    assert people_limit(resolve_contexts("bank")) == 6
    assert people_limit(resolve_contexts("default")) == 7


# --- tasks ------------------------------------------------------------------------------------------------------------

TASK_CASES = [
    ("exploretom_random", {"people": -1}, r"Invalid people value\(s\): -1\. Must be integers from 1 to 6"),
    ("exploretom_random", {"people": 0}, r"Invalid people value\(s\): 0\. Must be integers from 1 to 6"),
    ("exploretom_random", {"people": 99}, r"Invalid people value\(s\): 99\. Must be integers from 1 to 6"),
    ("exploretom_random", {"moves": 0}, r"Invalid moves value\(s\): 0\. Must be integers from 1 to 15"),
    ("exploretom_random", {"stories_per_setting": 0}, "stories_per_setting value: 0. Must be an integer >= 1"),
    ("exploretom_random", {"question_orders": "1,3"}, r"question_orders value\(s\): 3\. Must be integers from 0"),
    ("exploretom_random", {"seed": "x"}, "Invalid seed value: 'x'. Must be an integer"),
    ("exploretom_adversarial", {"people": 0}, "Must be integers from 1 to 6"),
    ("exploretom_adversarial", {"moves": -2}, "Must be integers from 1 to 15"),
    ("exploretom_adversarial", {"rooms": 3}, "Invalid rooms value: 3. Must be an integer from 1 to 2"),
    ("exploretom_adversarial", {"stories_per_setting": 0}, "Must be an integer >= 1"),
    ("exploretom_adversarial", {"budget": 0}, "Invalid budget value: 0. Must be an integer >= 1"),
    ("exploretom_adversarial", {"k": 0}, "Invalid k value: 0"),
    ("exploretom_adversarial", {"alpha": -0.5}, "Invalid alpha value: -0.5. Must be a number >= 0"),
    ("exploretom_adversarial", {"lookahead": 0}, "Invalid lookahead value: 0"),
    ("exploretom_adversarial", {"refine": 1.5}, "Invalid refine value: 1.5. Must be a number from 0 to 1"),
    ("exploretom_adversarial", {"seed": 0.5}, "Invalid seed value: 0.5"),
    ("exploretom_adversarial", {"question_orders": "4"}, "Invalid question_orders"),
    ("exploretom_adversarial", {"settings_limit": 0}, "Invalid settings_limit value: 0. Must be an integer >= 1"),
    ("exploretom_adversarial", {"settings_limit": "two"}, "Invalid settings_limit value: 'two'"),
    ("exploretom_transfer", {"stories": "x.jsonl", "question_orders": "-1"}, "Invalid question_orders"),
    ("exploretom_static", {"data": "tests/tasks/exploretom/fixtures/exploretom_sample.csv", "question_orders": 5},
     "Invalid question_orders"),
    ("tomsynth", {"data": "items.jsonl", "limit_per_unit": 0},
     "Invalid limit_per_unit value: 0"),
    # true/false options: a word that is neither is refused, never run as true
    ("exploretom_random", {"false_belief_only": "maybe"}, "Invalid false_belief_only value: 'maybe'. Must be true or false"),
    ("exploretom_random", {"cache": 2}, "Invalid cache value: 2. Must be true or false"),
    ("exploretom_static", {"relabel": "perhaps"}, "Invalid relabel value: 'perhaps'"),
    ("exploretom_adversarial", {"prune": "sometimes"}, "Invalid prune value: 'sometimes'"),
    ("exploretom_adversarial", {"short_story_shortcut": "x"}, "Invalid short_story_shortcut value: 'x'"),
    ("tomi", {"relabel": "maybe"}, "Invalid relabel value: 'maybe'"),
    ("hitom", {"tell": "maybe"}, "Invalid tell value: 'maybe'"),
    ("bigtom", {"cache": "maybe"}, "Invalid cache value: 'maybe'"),
    ("tomsynth", {"data": "items.jsonl", "cot": "maybe"}, "Invalid cot value: 'maybe'"),
    ("persuasion_fixed", {"cache": "maybe"}, "Invalid cache value: 'maybe'"),
    ("persuasion_dynamic", {"cache": "maybe"}, "Invalid cache value: 'maybe'"),
]


@pytest.mark.parametrize("name,kwargs,match", TASK_CASES, ids=[f"{c[0]}-{next(iter(c[1].items()))}" for c in TASK_CASES])
def test_task_options_fail_in_one_line_with_the_range(name, kwargs, match):
    import tombench._registry as registry

    with pytest.raises(OptionError, match=match) as info:
        getattr(registry, name)(**kwargs)
    assert "\n" not in str(info.value)


def test_random_task_without_any_story_does_not_suggest_the_bank_it_already_uses():
    from tombench.tasks.exploretom.random import exploretom_random

    with pytest.raises(OptionError) as info:
        exploretom_random(story_types="fantom-private", people=1, moves=2)  # no info exchange with one person
    assert "contexts='bank'" in str(info.value) and "try -T contexts=bank" not in str(info.value)


# --- commands ---------------------------------------------------------------------------------------------------------

COMMAND_CASES = [
    (["search", "--people", "0", "--out", "OUT"], "--people must be integers from 1 to 6, comma-separated; got '0'"),
    (["search", "--people", "2,9", "--out", "OUT"], "--people must be integers from 1 to 6"),
    (["search", "--moves", "-1", "--out", "OUT"], "--moves must be integers from 1 to 15"),
    (["search", "--rooms", "3", "--out", "OUT"], "--rooms must be an integer from 1 to 2; got 3"),
    (["search", "--budget", "0", "--out", "OUT"], "Invalid value for '--budget'"),
    (["search", "--k", "0", "--out", "OUT"], "Invalid value for '--k'"),
    (["search", "--refine", "2", "--out", "OUT"], "Invalid value for '--refine'"),
    (["search", "--stories-per-setting", "-3", "--out", "OUT"], "Invalid value for '--stories-per-setting'"),
    (["search", "--parallel-settings", "0", "--out", "OUT"], "Invalid value for '--parallel-settings'"),
    (["stats", "random", "--people", "8"], "--people must be integers from 1 to 7"),
    (["stats", "random", "--moves", "0"], "--moves must be integers from 1 to 6"),
    (["stats", "random", "-n", "0"], "Invalid value for '-n' / '--stories'"),
    (["demo", "--people", "0", "--model", "tombench/recency"], "Invalid value for '--people'"),
    (["demo", "--budget", "0", "--model", "tombench/recency"], "Invalid value for '--budget'"),
    (["persuasion", "generate", "--persuader", "x", "--out", "o.jsonl", "--limit", "0"], "Invalid value for '--limit'"),
    (["persuasion", "evaluate", "--judge", "x", "--max-concurrent", "0"], "Invalid value for '--max-concurrent'"),
    (["tomsynth", "generate", "-m", "x", "-o", "o.jsonl", "--temperature", "-1"], "Invalid value for '--temperature'"),
]


@pytest.mark.parametrize("args,message", COMMAND_CASES, ids=[" ".join(c[0][:3]) for c in COMMAND_CASES])
def test_command_options_fail_in_one_line_with_the_range(args, message, tmp_path):
    args = [str(tmp_path / "out") if a == "OUT" else a for a in args]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("value, expected", [
    (True, True), (False, False), (1, True), (0, False), ("true", True), ("False", False), (" YES ", True),
    ("no", False), ("on", True), ("off", False), ("1", True), ("0", False),
])
def test_true_false_options_read_the_usual_spellings(value, expected):
    assert check_bool("flag", value) is expected


@pytest.mark.parametrize("value", ["maybe", "", 2, -1, 0.5, None, [True]])
def test_anything_else_is_one_line_naming_the_option(value):
    with pytest.raises(OptionError, match=r"Invalid flag value: .*\. Must be true or false") as info:
        check_bool("flag", value)
    assert "\n" not in str(info.value)


def test_an_unset_third_state_passes_only_where_allowed():
    assert check_bool("tell", None, allow_none=True) is None
    with pytest.raises(OptionError):
        check_bool("tell", None)

