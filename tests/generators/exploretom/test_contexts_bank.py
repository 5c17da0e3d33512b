"""The built-in context bank and context files (tombench.generators.exploretom.contexts)."""

from __future__ import annotations

import collections
import json
import re

import pytest

from tombench.dsl.context import Context, ContextError
from tombench.generators.exploretom.context_checks import context_problems
from tombench.generators.exploretom.contexts import (
    context_by_id,
    load_context_bank,
    load_contexts,
    parse_contexts,
    save_contexts,
)

BANK = load_context_bank()


def test_bank_size_and_unique_ids() -> None:
    assert len(BANK) >= 64
    ids = [c.id for c in BANK]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", i) for i in ids)


@pytest.mark.parametrize("ctx", BANK, ids=lambda c: c.id)
def test_bank_entry_is_usable(ctx: Context) -> None:
    assert context_problems(ctx) == []
    assert len(ctx.people) >= 6 and len(ctx.rooms) == 2 and len(ctx.objects) == 1
    assert len(ctx.containers) >= 6 and len(ctx.topics) >= 6
    assert ctx.setting.endswith(".") and ctx.setting[0].isupper()
    assert {sc.visible for sc in ctx.state_changes} == {True, False}
    obj = ctx.objects[0]
    for sc in ctx.state_changes:
        sentence = sc.sentence("Beth", obj)
        assert sentence.startswith("Beth ") and sentence.endswith(".") and f"the {obj}" in sentence
        assert re.match(r"(is|has) ", sc.value)
    for name in (*ctx.rooms, *ctx.objects, *ctx.containers, *ctx.topics):
        assert name == name.lower() or "'" in name or name.lower() == name.lower()
        assert not re.match(r"(the|a|an) ", name)
    assert Context.from_dict(ctx.to_dict()) == ctx


def test_bank_names_are_already_normalised() -> None:
    """The JSON file holds exactly what Context.from_dict produces, so diffs of the file stay meaningful."""
    from importlib import resources

    raw = json.loads(resources.files("tombench").joinpath("data/contexts.json").read_text(encoding="utf-8"))
    assert [Context.from_dict(r).to_dict() for r in raw] == raw


def test_bank_property_visibility_is_consistent_across_contexts() -> None:
    seen: dict[str, set[bool]] = collections.defaultdict(set)
    for c in BANK:
        for sc in c.state_changes:
            seen[sc.property].add(sc.visible)
    assert not [p for p, v in seen.items() if len(v) > 1]


def test_bank_is_diverse() -> None:
    assert len({c.objects[0] for c in BANK}) >= 50
    assert len({p for c in BANK for p in c.people}) >= 250
    assert len({r for c in BANK for r in c.rooms}) >= 100


def test_bank_is_cached_but_returns_a_fresh_list() -> None:
    a, b = load_context_bank(), load_context_bank()
    assert a == b and a is not b
    a.clear()
    assert len(load_context_bank()) == len(BANK)


def test_context_by_id() -> None:
    assert context_by_id(BANK, BANK[3].id) is BANK[3]
    with pytest.raises(ContextError, match="no context with id 'nope'"):
        context_by_id(BANK, "nope")


def test_context_problems_flags_phrase_traps_and_counts() -> None:
    d = BANK[0].to_dict()
    d["containers"] = ["box", "cardboard box"]
    d["people"] = d["people"][:2]
    problems = context_problems(Context.from_dict(d))
    assert any("'box' is part of 'cardboard box'" in p for p in problems)
    assert any("at least 6 people" in p for p in problems)
    assert any("at least 6 containers" in p for p in problems)
    d = BANK[0].to_dict()
    d["containers"] = ["box", "toolbox", "crate", "bag", "tin", "chest"]
    assert context_problems(Context.from_dict(d)) == []


# ------------------------------------------------------------------------------------------------ files
def test_save_and_load_round_trip(tmp_path) -> None:
    for name in ("c.jsonl", "c.json"):
        path = tmp_path / name
        save_contexts(path, BANK[:5])
        assert load_contexts(path) == BANK[:5]
    assert (tmp_path / "c.jsonl").read_text().count("\n") == 5
    assert (tmp_path / "c.json").read_text().lstrip().startswith("[")


def test_load_empty_file(tmp_path) -> None:
    (tmp_path / "e.jsonl").write_text("\n")
    assert load_contexts(tmp_path / "e.jsonl") == []


def test_load_missing_file(tmp_path) -> None:
    with pytest.raises(ContextError, match=r"nope\.json: no such contexts file"):
        load_contexts(tmp_path / "nope.json")


def test_load_malformed_json_names_file_and_position(tmp_path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('[{"people": ["Anne"],\n  "rooms": [}]')
    with pytest.raises(ContextError, match=r"bad\.json: invalid JSON at line 2"):
        load_contexts(path)


def test_load_malformed_jsonl_names_line(tmp_path) -> None:
    path = tmp_path / "bad.jsonl"
    good = json.dumps(BANK[0].to_dict())
    path.write_text(good + "\n\n{not json\n")
    with pytest.raises(ContextError, match=r"bad\.jsonl: line 3 is not valid JSON"):
        load_contexts(path)


def test_load_invalid_entry_names_entry_and_id(tmp_path) -> None:
    bad = BANK[1].to_dict()
    bad["people"] = ["anne lower"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([BANK[0].to_dict(), bad]))
    with pytest.raises(ContextError, match=rf"bad\.json: entry 2 \(id '{BANK[1].id}'\): person names"):
        load_contexts(path)


@pytest.mark.parametrize(
    "record, message",
    [
        ("[1, 2]", "entry 1: a context must be a JSON object"),
        ('[{"people": "Anne", "rooms": ["a"], "objects": ["b"]}]', "'people' must be a list of strings"),
        ('[{"people": [], "rooms": ["a"], "objects": ["b"]}]', "at least one person"),
        (
            '[{"people": ["Anne"], "rooms": ["a"], "objects": ["b"], "state_changes": [{"property": "p"}]}]',
            "state change is missing field 'value'",
        ),
    ],
)
def test_parse_errors_are_one_line(record: str, message: str) -> None:
    with pytest.raises(ContextError) as info:
        parse_contexts(record, source="x.json")
    assert message in str(info.value) and "\n" not in str(info.value)
