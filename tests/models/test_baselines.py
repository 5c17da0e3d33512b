"""The pure baseline answerers: hand-written stories, fallbacks, determinism, and the oracle on random stories."""

from __future__ import annotations

import random

import pytest

from tests.dsl.worked import context as worked_context
from tombench.dsl import DEFAULT_CONTEXT, Setting, build_prompt, check_answer, random_story
from tombench.generators.exploretom.contexts import load_context_bank
from tombench.models import BASELINES, UNKNOWN, answer, answer_question, offered_answers, prompt_seed, split_prompt

SALLY_ANNE = (
    "Sally entered the kitchen. Anne entered the kitchen. "
    "Sally moved the marble to the basket, which is also located in the kitchen. Sally left the kitchen. "
    "Anne moved the marble to the box, which is also located in the kitchen."
)


def ask(name: str, story: str, question: str, **kw: object) -> str:
    via_prompt = answer(name, build_prompt(story, question).user, **kw)  # type: ignore[arg-type]
    assert answer_question(name, story, question, **kw) == via_prompt  # type: ignore[arg-type]
    return via_prompt


@pytest.mark.parametrize(
    ("name", "expected"),
    [("oracle", "basket"), ("reality", "box"), ("recency", "box"), ("primacy", "basket")],
)
def test_sally_anne_first_order(name: str, expected: str) -> None:
    assert ask(name, SALLY_ANNE, "In which container will Sally search for the marble?") == expected


def test_sally_anne_other_questions() -> None:
    q2 = "In which container does Anne think that Sally will search for the marble?"
    assert ask("oracle", SALLY_ANNE, q2) == "basket"
    assert ask("reality", SALLY_ANNE, q2) == "box"
    assert ask("oracle", SALLY_ANNE, "In which container was the marble at the beginning?") == "basket"
    assert ask("oracle", SALLY_ANNE, "In which room will Sally search for the marble?") == "kitchen"
    assert ask("random", SALLY_ANNE, "In which container will Sally search for the marble?") in {"basket", "box"}


def test_state_and_knowledge_questions() -> None:
    story = (
        "Anne entered the kitchen. Beth entered the kitchen. Beth left the kitchen. Anne peeled the apple. "
        "Anne told privately to Charles about the summer vacation."
    )
    ctx = worked_context()
    s1 = "Does Beth believe that the apple is peeled? Answer yes or no."
    assert ask("oracle", story, s1, contexts=[ctx]) == "no"
    assert ask("reality", story, s1, contexts=[ctx]) == "yes"
    assert ask("recency", story, s1) == "yes"
    assert ask("primacy", story, s1) == "no"
    k1 = "Does Beth know about summer vacation? Answer yes or no."
    assert ask("oracle", story, k1, contexts=[ctx]) == "no"
    assert ask("reality", story, k1, contexts=[ctx]) == "yes"
    k2 = "What does Anne think about Charles's belief on summer vacation? (knows about it / does not know about it)"
    assert ask("oracle", story, k2, contexts=[ctx]) == "knows about it"
    assert ask("primacy", story, k2) == "does not know about it"


def test_unknown_context_state_sentence_still_answers_locations() -> None:
    # "peeled" is not in the packaged bank: the oracle drops that sentence and still answers location questions
    story = SALLY_ANNE.replace("Sally left the kitchen.", "Sally peeled the marble. Sally left the kitchen.")
    assert ask("oracle", story, "In which container will Sally search for the marble?") == "basket"
    assert ask("reality", story, "In which container will Sally search for the marble?") == "box"


def test_split_prompt() -> None:
    p = split_prompt(build_prompt(SALLY_ANNE, "In which room does Anne think that Sally will search for the box?").user)
    assert p.story == SALLY_ANNE
    assert p.question == "In which room does Anne think that Sally will search for the box?"
    assert p.answer_type is not None and p.answer_type.value == "room"
    assert p.thing == "box"


@pytest.mark.parametrize("name", BASELINES)
def test_foreign_prompts_never_crash(name: str) -> None:
    mc = "Sally put the ball in the basket.\nWhere is the ball?\nA) basket\nB) box\nC) drawer\nAnswer with a letter."
    assert answer(name, mc) in {"A", "B", "C"}
    assert answer(name, "What is the capital of France?") == UNKNOWN
    assert answer(name, "") == UNKNOWN
    tomi = "Mary entered the hallway. Mary moved the apple to the green_drawer. Mary exited the hallway.\n" \
        "Where will Mary look for the apple?"
    assert answer(name, tomi) in {"hallway", "green_drawer"}
    # a template question about a story that is not a template story
    assert answer(name, "It rained all day.\nIn which container will Sally search for the marble? Short Answer.") == UNKNOWN


def test_multiple_choice_rules() -> None:
    mc = "Story.\nQuestion?\nA) one\nB) two\nC) three"
    assert answer("primacy", mc) == "A"
    assert answer("recency", mc) == "C"
    assert answer("oracle", mc) == "A"


def test_multiple_choice_formats() -> None:
    inspect_mc = (
        "Answer the following multiple choice question. The entire content of your response should be of the "
        "following format: 'ANSWER: $LETTER' (without quotes) where LETTER is one of A,B.\n\nWho?\n\nA) Ann\nB) Bob"
    )
    assert answer("primacy", inspect_mc) == "ANSWER: A"
    assert answer("recency", inspect_mc) == "ANSWER: B"
    think = "Who?\nA) Ann\nB) Bob\nThink ... inside <answer> </answer> tags, e.g. <think>...</think><answer>A</answer>."
    assert answer("oracle", think) == "<think>baseline</think><answer>A</answer>"


def test_answers_offered_as_words() -> None:
    """A free-text prompt whose instruction names its answers (OpenToM): the baselines pick among those words."""
    three = (
        "Read the story.\n\nLena put the jar in the cupboard.\n\nQuestion: How would the jar's fullness change? "
        'Answer with "more full", "equally full", or "less full". Answer the question without any explanation.'
    )
    two = 'Read the story.\n\nLena left.\n\nQuestion: Is the jar still there? Answer the question with "Yes" or "No".'
    assert offered_answers(three) == ["more full", "equally full", "less full"]
    assert offered_answers(two) == ["Yes", "No"]
    assert offered_answers("Did Lena see it?\nQuestion: Does Lena know? Answer yes or no.\nAnswer:") == ["yes", "no"]
    assert (answer("primacy", three), answer("recency", three), answer("oracle", three)) == ("more full", "less full",
                                                                                              "more full")
    assert {answer("random", three, seed=s) for s in range(40)} == {"more full", "equally full", "less full"}
    assert {answer("random", two, seed=s) for s in range(20)} == {"Yes", "No"}
    # quoted speech in a story is not an offer; a free-text question offers nothing
    speech = 'Lena said "hello" or "goodbye" to the cat in the kitchen.\nWhere is the cat? Answer without explanation.'
    assert offered_answers(speech) == [] and answer("primacy", speech) not in {"hello", "goodbye"}
    # lettered options win, and template yes/no questions are still answered from the story
    assert answer("recency", "Story.\nQ? Answer with \"Yes\" or \"No\".\nA) Yes\nB) No") == "B"
    assert ask("recency", SALLY_ANNE, "Does Sally believe that the marble is in the box? Answer yes or no.") == "yes"


def test_random_is_seeded_and_stable() -> None:
    prompts = [build_prompt(SALLY_ANNE, f"In which container will {p} search for the marble?").user for p in ("Sally", "Anne")]
    runs = [[answer("random", pr, seed=s) for pr in prompts for s in range(20)] for _ in range(2)]
    assert runs[0] == runs[1]
    assert set(runs[0]) == {"basket", "box"}
    assert prompt_seed(0, "x") == prompt_seed(0, "x") != prompt_seed(1, "x")
    assert prompt_seed(0, "x") == 18058619777974700873  # sha256: the same in every process, unlike hash()


def test_unknown_baseline() -> None:
    with pytest.raises(ValueError, match="Must be one of"):
        answer("clairvoyant", "x")


def _stories() -> list[tuple[object, object]]:
    """~50 random stories over several story types and three contexts (default, bank, worked example)."""
    bank = next(c for c in load_context_bank() if c.topics and c.state_changes)
    types = ["tomi", "tomi+asymmetric", "tomi-object-state", "tomi+object-state", "tomi+room-changes",
             "tomi+info-exchange", "allbutfantom", "all", "fantom-private", "fantom-public"]
    rng = random.Random(7)
    out = []
    for i, story_type in enumerate(types * 5):
        ctx = (DEFAULT_CONTEXT, bank, worked_context())[i % 3]
        if ctx is DEFAULT_CONTEXT and ("object-state" in story_type or "fantom" in story_type or story_type == "all"):
            ctx = bank
        s = random_story(ctx, Setting.make(story_type, 3, 2), rng, max_tries=200)
        if s is not None:
            out.append((s, ctx))
    return out


def test_oracle_is_perfect_on_random_stories() -> None:
    stories = _stories()
    assert len(stories) >= 45
    kinds: set[str] = set()
    n = 0
    for story, ctx in stories:
        for q in story.questions(first_order_room_questions=True):  # type: ignore[attr-defined]
            prompt = build_prompt(story.text, q.text).user  # type: ignore[attr-defined]
            response = answer("oracle", prompt, contexts=[ctx])  # type: ignore[list-item]
            candidates = [*story.context.containers, *story.context.rooms]  # type: ignore[attr-defined]
            verdict = check_answer(response, q.answer, q.answer_type, candidates, question=q.text)
            assert verdict.correct, (story.text, q.text, q.answer, response)  # type: ignore[attr-defined]
            kinds.add(q.kind)
            n += 1
    assert n > 500
    assert {"C1", "C2", "R1", "R2", "K1", "K2", "S1", "S2", "M-now"} <= kinds


def test_reality_and_recency_differ_from_oracle_on_false_beliefs() -> None:
    wrong = {"reality": 0, "recency": 0, "primacy": 0}
    total = 0
    for story, ctx in _stories()[:20]:
        for q in story.questions(orders=(1,)):  # type: ignore[attr-defined]
            if not q.false_belief or q.kind != "C1":
                continue
            total += 1
            prompt = build_prompt(story.text, q.text).user  # type: ignore[attr-defined]
            for name in wrong:
                wrong[name] += answer(name, prompt, contexts=[ctx]) != q.answer  # type: ignore[list-item]
    assert total > 0
    assert wrong["reality"] == total  # a false belief is by definition not the world state
