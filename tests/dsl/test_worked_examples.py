"""Every worked example of the semantics document (§9): the complete question sets, answers, orders and flags."""

from __future__ import annotations

import pytest

from tombench.dsl.story import Story
from tombench.dsl.tracker import ActionRejected

from .worked import C1, C2, K1, K2, R1, R2, S1, S2, Builder, M_before, M_begin, M_now, context

b = Builder("apple")
m = Builder("marble")
Y, N = True, False


def run(actions, obj="apple") -> Story:
    return Story(context(obj), actions)


def beliefs(story: Story, **kw) -> dict[str, tuple[str, int, bool, bool]]:
    out = {}
    for q in story.questions(orders=(1, 2), **kw):
        assert q.text not in out, f"repeated question {q.text}"
        out[q.text] = (q.answer, q.order, q.interesting, q.false_belief)
    return out


def memory(story: Story) -> dict[str, str]:
    out = {}
    for q in story.questions(orders=(0,)):
        assert q.order == 0 and q.interesting is None and q.false_belief is None
        out[q.text] = q.answer
    return out


def exp(*rows) -> dict[str, tuple[str, int, bool, bool]]:
    """rows: (texts, answer, interesting, false_belief); order is read from the text's template."""
    out = {}
    for texts, ans, intr, fb in rows:
        for t in [texts] if isinstance(texts, str) else texts:
            order = 2 if (" think that " in t or " think about " in t) else 1
            out[t] = (ans, order, intr, fb)
    return out


def test_e1_sally_anne():
    s = run([m.E("Sally"), m.E("Anne"), m.MC("Sally", "basket"), m.L("Sally"), m.MC("Anne", "box")], "marble")
    o = "marble"
    assert beliefs(s) == exp(
        (C1("Sally", o), "basket", Y, Y),
        (C1("Anne", o), "box", Y, N),
        ([C2("Sally", "Anne", o), C2("Anne", "Sally", o)], "basket", Y, Y),
        ([R2("Sally", "Anne", o), R2("Sally", "Anne", "basket"), R2("Anne", "Sally", o),
          R2("Anne", "Sally", "basket")], "kitchen", N, N),
    )
    assert memory(s) == {M_begin("container", o): "basket", M_now("container", o): "box"}


def test_e2_returner_keeps_stale_container():
    s = run([m.E("Sally"), m.E("Anne"), m.MC("Sally", "basket"), m.L("Sally"), m.MC("Anne", "box"),
             m.E("Sally")], "marble")
    o = "marble"
    assert beliefs(s) == exp(
        (C1("Sally", o), "basket", Y, Y),
        (C1("Anne", o), "box", Y, N),
        ([C2("Sally", "Anne", o), C2("Anne", "Sally", o)], "basket", Y, Y),
        ([R2(p, q, x) for p, q in (("Sally", "Anne"), ("Anne", "Sally")) for x in (o, "basket", "box")],
         "kitchen", N, N),
    )
    assert memory(s) == {M_begin("container", o): "basket", M_now("container", o): "box"}


def test_e3_second_order_false_belief():
    s = run([b.E("Anne"), b.E("Beth"), b.MC("Anne", "box"), b.L("Beth"), b.MC("Anne", "basket"), b.L("Anne"),
             b.E("Beth")])
    assert beliefs(s) == exp(
        (C1("Anne"), "basket", Y, N),
        (C1("Beth"), "box", Y, Y),
        (C2("Anne", "Beth"), "box", Y, Y),
        (C2("Beth", "Anne"), "box", Y, Y),
        ([R2("Anne", "Beth", "apple"), R2("Anne", "Beth", "box"), R2("Beth", "Anne", "apple"),
          R2("Beth", "Anne", "box")], "kitchen", N, N),
    )
    assert memory(s) == {M_begin("container"): "box", M_now("container"): "basket"}


def test_e4_peek():
    story = run([b.E("Anne"), b.E("Beth"), b.MC("Anne", "box"), b.L("Beth"), b.MC("Anne", "basket", K=("Beth",))])
    assert story.sentences[4:] == [
        "Anne moved the apple to the basket, which is also located in the kitchen.",
        "While this action was happening, Beth witnessed this action in secret (and only this action).",
    ]
    assert beliefs(story) == exp(
        ([C1("Anne"), C1("Beth")], "basket", Y, N),
        (C2("Anne", "Beth"), "box", Y, Y),
        (C2("Beth", "Anne"), "basket", Y, N),
        ([R2("Anne", "Beth", "apple"), R2("Anne", "Beth", "box"), R2("Beth", "Anne", "apple"),
          R2("Beth", "Anne", "box"), R2("Beth", "Anne", "basket")], "kitchen", N, N),
    )
    assert memory(story) == {M_begin("container"): "box", M_now("container"): "basket"}


def test_e5_distracted():
    s = run([b.E("Anne"), b.E("Beth"), b.MC("Anne", "box"), b.MC("Anne", "basket", D=("Beth",))])
    assert beliefs(s) == exp(
        (C1("Anne"), "basket", Y, N),
        (C1("Beth"), "box", Y, Y),
        (C2("Anne", "Beth"), "basket", Y, N),
        (C2("Beth", "Anne"), "box", Y, Y),
        ([R2("Anne", "Beth", x) for x in ("apple", "box", "basket")]
         + [R2("Beth", "Anne", x) for x in ("apple", "box")], "kitchen", N, N),
    )
    assert memory(s) == {M_begin("container"): "box", M_now("container"): "basket"}


def test_e6_peek_and_distract_combined():
    s = run([b.E("Anne"), b.E("Beth"), b.E("Charles"), b.MC("Anne", "box"), b.L("Charles"),
             b.MC("Anne", "basket", K=("Charles",), D=("Beth",))])
    assert s.sentences[5:] == [
        "Anne moved the apple to the basket, which is also located in the kitchen.",
        "While this action was happening, Charles witnessed this action in secret (and only this action); also, "
        "Beth got distracted and did not realize what happened, without anyone noticing the brief lack of attention, "
        "and going back to paying attention immediately after the action was finished.",
    ]
    assert len(s) == 7
    assert beliefs(s) == exp(
        (C1("Anne"), "basket", Y, N),
        (C1("Beth"), "box", Y, Y),
        (C1("Charles"), "basket", Y, N),
        ([C2("Anne", "Beth"), C2("Charles", "Anne"), C2("Charles", "Beth")], "basket", Y, N),
        ([C2("Anne", "Charles"), C2("Beth", "Anne"), C2("Beth", "Charles")], "box", Y, Y),
        ([R2("Anne", "Beth", x) for x in ("apple", "box", "basket")]
         + [R2("Anne", "Charles", x) for x in ("apple", "box")]
         + [R2("Beth", "Anne", x) for x in ("apple", "box")]
         + [R2("Beth", "Charles", x) for x in ("apple", "box")]
         + [R2("Charles", "Anne", x) for x in ("apple", "box", "basket")]
         + [R2("Charles", "Beth", x) for x in ("apple", "box", "basket")], "kitchen", N, N),
    )
    assert memory(s) == {M_begin("container"): "box", M_now("container"): "basket"}


def test_e7_visible_and_invisible_changes_with_returner():
    s = run([b.E("Anne"), b.E("Beth"), b.L("Anne"), b.U("Beth", "peel"), b.U("Beth", "poison"), b.E("Anne")])
    assert beliefs(s) == exp(
        ([S1("Anne", "is peeled"), S1("Beth", "is peeled")], "yes", N, N),
        (S1("Anne", "is poisoned"), "no", Y, Y),
        (S1("Beth", "is poisoned"), "yes", Y, N),
        ([R2("Anne", "Beth", "apple"), R2("Beth", "Anne", "apple")], "kitchen", N, N),
        ([S2("Anne", "Beth", "is peeled"), S2("Beth", "Anne", "is peeled")], "yes", N, N),
        ([S2("Anne", "Beth", "is poisoned"), S2("Beth", "Anne", "is poisoned")], "no", Y, Y),
    )
    assert memory(s) == {}


def test_e8_visible_state_hidden_by_container():
    actions = [b.E("Anne"), b.U("Anne", "paint"), b.MC("Anne", "box"), b.E("Beth")]
    s = run(actions)
    assert s.state.world.get(("apple", "container")) == "box"
    assert beliefs(s) == exp(
        (C1("Anne"), "box", N, N),
        (S1("Anne", "is painted red"), "yes", Y, N),
        (S1("Beth", "is painted red"), "no", Y, Y),
        ([R2("Anne", "Beth", "box"), R2("Beth", "Anne", "box")], "kitchen", N, N),
        ([S2("Anne", "Beth", "is painted red"), S2("Beth", "Anne", "is painted red")], "no", Y, Y),
    )
    assert memory(s) == {}


def test_e8_world_container_stays_absent_after_state_change():
    s = run([b.E("Anne"), b.U("Anne", "paint")])
    assert ("apple", "container") not in s.state.world
    assert memory(s) == {}


def test_e8b_handling_reveals_paint():
    s = run([b.E("Anne"), b.U("Anne", "paint"), b.MC("Anne", "box"), b.E("Beth"), b.MC("Anne", "basket")])
    assert beliefs(s) == exp(
        ([C1("Anne"), C1("Beth"), C2("Anne", "Beth"), C2("Beth", "Anne")], "basket", N, N),
        ([S1("Anne", "is painted red"), S1("Beth", "is painted red"), S2("Anne", "Beth", "is painted red"),
          S2("Beth", "Anne", "is painted red")], "yes", N, N),
        ([R2(p, q, x) for p, q in (("Anne", "Beth"), ("Beth", "Anne")) for x in ("apple", "box", "basket")],
         "kitchen", N, N),
    )
    assert memory(s) == {M_begin("container"): "box", M_now("container"): "basket"}


E9 = [b.E("Anne"), b.E("Beth"), b.MC("Anne", "box"), b.L("Beth"), b.MR("Anne", "bedroom"), b.E("Charles", "bedroom")]


def test_e9_move_object_to_another_room():
    s = run(E9)
    assert s.sentences[4] == "Anne moved the apple to the bedroom, leaving the box in its original location."
    assert beliefs(s) == exp(
        (C1("Beth"), "box", N, Y),
        ([C2("Anne", "Beth"), C2("Beth", "Anne")], "box", N, Y),
        ([R2("Anne", "Beth", "apple"), R2("Beth", "Anne", "apple")], "kitchen", Y, Y),
        ([R2("Anne", "Beth", "box"), R2("Beth", "Anne", "box")], "kitchen", N, N),
        ([R2("Anne", "Charles", "apple"), R2("Charles", "Anne", "apple")], "bedroom", Y, N),
    )
    assert memory(s) == {
        M_begin("container"): "box",
        M_begin("room"): "kitchen",
        M_now("room"): "bedroom",
    }


def test_e9_with_first_order_room_questions():
    s = run(E9)
    got = beliefs(s, first_order_room_questions=True)
    assert got[R1("Anne")] == ("bedroom", 1, Y, N)
    assert got[R1("Beth")] == ("kitchen", 1, Y, Y)
    assert got[R1("Charles")] == ("bedroom", 1, Y, N)
    assert len(got) == len(beliefs(s)) + 3
    # Charles sees the loose apple (fixing B3)
    assert s.state.fo["Charles"][("apple", "room")] == "bedroom"


E10 = [b.E("Anne"), b.E("Beth"), b.MC("Anne", "box"), b.L("Anne"), b.MC("Beth", "basket")]


def test_e10_private_tell_of_stale_location():
    s = run([*E10, b.PT("Anne", "Charles", "the apple is in the box")])
    assert s.sentences[-1] == "Anne told privately to Charles that the apple is in the box."
    assert beliefs(s) == exp(
        (C1("Anne"), "box", Y, Y),
        (C1("Beth"), "basket", Y, N),
        (C1("Charles"), "box", Y, Y),
        ([C2("Anne", "Beth"), C2("Anne", "Charles"), C2("Beth", "Anne"), C2("Charles", "Anne")], "box", Y, Y),
        ([R2("Anne", "Beth", "apple"), R2("Anne", "Beth", "box"), R2("Beth", "Anne", "apple"),
          R2("Beth", "Anne", "box")], "kitchen", N, N),
    )
    assert memory(s) == {M_begin("container"): "box", M_now("container"): "basket"}


def test_e11_public_tell_of_location():
    s = run([*E10, b.E("Charles"), b.BT("Beth", "the apple is in the basket")])
    assert s.sentences[-1] == "Beth told out loud that the apple is in the basket."
    assert beliefs(s) == exp(
        (C1("Anne"), "box", Y, Y),
        (C1("Beth"), "basket", Y, N),
        (C1("Charles"), "basket", Y, N),
        ([C2("Anne", "Beth"), C2("Beth", "Anne")], "box", Y, Y),
        ([C2("Beth", "Charles"), C2("Charles", "Beth")], "basket", Y, N),
        ([R2("Anne", "Beth", "apple"), R2("Anne", "Beth", "box"), R2("Beth", "Anne", "apple"),
          R2("Beth", "Anne", "box")]
         + [R2(p, q, x) for p, q in (("Beth", "Charles"), ("Charles", "Beth")) for x in ("apple", "box", "basket")],
         "kitchen", N, N),
    )
    assert memory(s) == {M_begin("container"): "box", M_now("container"): "basket"}


def test_e12_private_chit_chat():
    s = run([b.E("Anne"), b.E("Beth"), b.PT("Anne", "Beth", "summer vacation"), b.E("Charles")])
    t = "summer vacation"
    assert s.sentences[2] == "Anne told privately to Beth about the summer vacation."
    assert beliefs(s) == exp(
        ([K1("Anne", t), K1("Beth", t)], "yes", Y, N),
        (K1("Charles", t), "no", Y, N),
        ([K2("Anne", "Beth", t), K2("Beth", "Anne", t)], "knows about it", Y, N),
        ([K2("Anne", "Charles", t), K2("Beth", "Charles", t)], "does not know about it", Y, N),
        ([K2("Charles", "Anne", t), K2("Charles", "Beth", t)], "does not know about it", Y, Y),
    )


def test_e13_public_chit_chat_with_leaver_and_peeker():
    s = run([b.E("Anne"), b.E("Beth"), b.E("Charles"), b.L("Charles"), b.BT("Anne", "summer vacation", K=("Diane",))])
    t = "summer vacation"
    assert s.people == ["Anne", "Beth", "Charles", "Diane"]
    assert s.sentences[4] == "Anne told out loud about the summer vacation."
    assert beliefs(s) == exp(
        ([K1("Anne", t), K1("Beth", t), K1("Diane", t)], "yes", Y, N),
        (K1("Charles", t), "no", Y, N),
        ([K2("Anne", "Beth", t), K2("Beth", "Anne", t), K2("Diane", "Anne", t), K2("Diane", "Beth", t)],
         "knows about it", Y, N),
        ([K2("Anne", "Charles", t), K2("Beth", "Charles", t), K2("Diane", "Charles", t)],
         "does not know about it", Y, N),
        ([K2("Anne", "Diane", t), K2("Beth", "Diane", t), K2("Charles", "Anne", t), K2("Charles", "Beth", t),
          K2("Charles", "Diane", t)], "does not know about it", Y, Y),
    )


def test_e14_private_chit_chat_to_distracted_listener():
    s = run([b.E("Anne"), b.E("Beth"), b.PT("Anne", "Beth", "new recipe", D=("Beth",))])
    t = "new recipe"
    assert beliefs(s) == exp(
        (K1("Anne", t), "yes", Y, N),
        (K1("Beth", t), "no", Y, N),
        (K2("Anne", "Beth", t), "knows about it", Y, Y),
        (K2("Beth", "Anne", t), "does not know about it", Y, Y),
    )


E15 = [b.E("Anne"), b.MC("Anne", "box"), b.E("Beth"), b.MC("Beth", "basket", K=("Charles",)), b.MC("Anne", "crate")]


def test_e15_memory_modifier_and_repeated_event():
    s = run(E15)
    assert beliefs(s) == exp(
        ([C1("Anne"), C1("Beth")], "crate", Y, N),
        (C1("Charles"), "basket", Y, Y),
        ([C2("Anne", "Beth"), C2("Beth", "Anne")], "crate", Y, N),
        ([C2("Charles", "Anne"), C2("Charles", "Beth")], "basket", Y, Y),
        ([R2(p, q, x) for p, q in (("Anne", "Beth"), ("Beth", "Anne")) for x in ("apple", "box", "basket", "crate")]
         + [R2(p, q, x) for p, q in (("Charles", "Anne"), ("Charles", "Beth")) for x in ("apple", "basket")],
         "kitchen", N, N),
    )
    assert memory(s) == {
        M_begin("container"): "box",
        M_now("container"): "crate",
        M_before("container", "Beth moved the apple to the basket"): "box",
        M_before("container", "Anne moved the apple to the crate"): "basket",
    }


def test_e15_appending_a_repeated_event():
    s = run([*E15, b.MC("Anne", "box")])
    mem = memory(s)
    assert mem[M_now("container")] == "box"
    assert M_before("container", "Anne moved the apple to the box") not in mem
    assert mem[M_before("container", "Beth moved the apple to the basket")] == "box"
    assert mem[M_before("container", "Anne moved the apple to the crate")] == "basket"
    got = beliefs(s)
    assert got[C1("Anne")][0] == "box" and got[C1("Beth")][0] == "box"
    assert got[C1("Charles")][0] == "basket"


def test_e16_transactional_rejections():
    s = run([b.E("Anne")])
    before = s.state.snapshot()
    with pytest.raises(ActionRejected):
        s.apply(b.E("Anne"))
    assert s.state.snapshot() == before and len(s.steps) == 1
    s.apply(b.E("Beth"))
    s.apply(b.BT("Anne", "summer vacation"))
    before = s.state.snapshot()
    assert s.try_apply(b.BT("Anne", "summer vacation", K=("Charles",))) is None
    assert s.state.snapshot() == before
    assert "Charles" not in s.people
    assert s.try_apply(b.PT("Beth", "Anne", "summer vacation")) is None
    assert s.state.snapshot() == before
    assert len(s.sentences) == 3
    assert s.people == ["Anne", "Beth"]
    t = "summer vacation"
    assert beliefs(s) == exp(
        ([K1("Anne", t), K1("Beth", t)], "yes", N, N),
        ([K2("Anne", "Beth", t), K2("Beth", "Anne", t)], "knows about it", N, N),
    )


def test_e17_object_expected_but_missing():
    s = run([b.E("Anne"), b.E("Beth"), b.U("Anne", "peel"), b.L("Anne"), b.MC("Beth", "box"), b.E("Anne")])
    from tombench.dsl.values import UNKNOWN

    for store in (s.state.fo["Anne"], s.state.so[("Beth", "Anne")], s.state.so[("Anne", "Beth")]):
        assert store[("apple", "room")] is UNKNOWN
        assert store[("apple", "container")] is UNKNOWN
    assert beliefs(s) == exp(
        (C1("Beth"), "box", N, N),
        ([S1("Anne", "is peeled"), S1("Beth", "is peeled")], "yes", N, N),
        ([R2("Anne", "Beth", "box"), R2("Beth", "Anne", "box")], "kitchen", N, N),
        ([S2("Anne", "Beth", "is peeled"), S2("Beth", "Anne", "is peeled")], "yes", N, N),
    )
    assert beliefs(s, first_order_room_questions=True)[R1("Beth")] == ("kitchen", 1, N, N)
    assert memory(s) == {}


def test_e18_room_tell_and_closure():
    s = run([*E9[:5], b.PT("Anne", "Beth", "the apple is in the bedroom")])
    from tombench.dsl.values import UNKNOWN

    assert s.state.fo["Beth"][("apple", "container")] is UNKNOWN
    assert s.state.so[("Anne", "Beth")][("apple", "container")] is UNKNOWN
    assert beliefs(s) == exp(
        ([R2("Anne", "Beth", "apple"), R2("Beth", "Anne", "apple")], "bedroom", N, N),
        ([R2("Anne", "Beth", "box"), R2("Beth", "Anne", "box")], "kitchen", N, N),
    )
    assert memory(s) == {M_begin("container"): "box", M_begin("room"): "kitchen", M_now("room"): "bedroom"}
    got = beliefs(s, first_order_room_questions=True)
    assert got[R1("Anne")] == ("bedroom", 1, N, N) and got[R1("Beth")] == ("bedroom", 1, N, N)


def test_e19_distracted_witness_of_visible_change_then_newcomer():
    s = run([b.E("Anne"), b.E("Beth"), b.U("Beth", "paint", D=("Anne",)), b.E("Charles")])
    v = "is painted red"
    assert beliefs(s) == exp(
        (S1("Anne", v), "no", Y, Y),
        ([S1("Beth", v), S1("Charles", v)], "yes", Y, N),
        ([S2("Anne", "Beth", v), S2("Anne", "Charles", v)], "no", Y, Y),
        ([S2("Beth", "Anne", v), S2("Beth", "Charles", v), S2("Charles", "Anne", v), S2("Charles", "Beth", v)],
         "yes", Y, N),
        ([R2("Beth", "Anne", "apple"), R2("Beth", "Charles", "apple"), R2("Charles", "Anne", "apple"),
          R2("Charles", "Beth", "apple")], "kitchen", N, N),
    )
    # Anne missed the apple's appearance, so she holds no belief about it
    assert not any(k[0] == "apple" for k in s.state.fo["Anne"])
