"""Every prompt of the feature, built in one place (agents, observer, judge, model under test).

The prompts paraphrase the paper's design (§3.2 definitions, §3.4 round instructions, Fig. 4). The *only* builders
that receive a `MentalState` are the mental-state generator's, the persuadee's and the satisfaction judge's; the
persuader and observer builders take the public `Scenario` and the visible dialogue only, so the double-blind
condition holds by construction (and is asserted in the tests on the prompts actually sent).
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser

from tombench.generators.persuasion.records import Behaviour, MentalState, Scenario, Turn
from tombench.generators.persuasion.rounds import PersuadeeDisclosure, PersuaderFocus

DEFINITIONS = """\
Definitions (causal theory of mind applied to persuasion):
- Generative behaviour: the action the persuader wants the persuadee to take (the persuader's goal).
- Preventive behaviour: an action the persuadee already wants to take that conflicts with the generative behaviour; \
the persuader wants to prevent it. It may be absent ("None") when the persuadee has no stance yet.
- Belief: about the preventive behaviour the persuadee holds a positive belief (the facts look favourable); about \
the generative behaviour a negative belief (the situation looks unfavourable, which discourages the action).
- Desire: positive for both behaviours; for the preventive behaviour the persuadee expects the desire to be \
satisfied by acting, for the generative behaviour they doubt it can be satisfied.
- To prevent an action it is enough to change its belief OR its desire; to make someone act, BOTH the belief and \
the desire must be addressed."""


def render_scenario(scenario: Scenario) -> str:
    """The public scenario, as both agents see it."""
    return (
        f"Background: {scenario.background}\n"
        f"Persuader: {scenario.persuader}\n"
        f"Persuadee: {scenario.persuadee}\n"
        f"Persuader's goal: {scenario.goal}"
    )


def render_dialog(turns: Sequence[Turn]) -> str:
    return "\n".join(t.to_line() for t in turns) if turns else "(the conversation has not started)"


def render_behaviour(name: str, b: Behaviour | None) -> str:
    if b is None:
        return f"{name} behaviour: None"
    return f"{name} behaviour: {b.content}\n  belief: {b.belief}\n  desire: {b.desire}"


def render_mental_state(ms: MentalState) -> str:
    return render_behaviour("Preventive", ms.preventive) + "\n" + render_behaviour("Generative", ms.generative)


# --- mental state generation (paper §3.3) ---------------------------------------------------------------------------

MENTAL_STATE_FORMAT = (
    'Answer with one JSON object: {"preventive": {"content": "...", "belief": "...", "desire": "..."} or null, '
    '"generative": {"content": "...", "belief": "...", "desire": "..."}}'
)


def mental_state_messages(scenario: Scenario) -> list[ChatMessage]:
    system = (
        "You design the hidden mental state of the persuadee in a persuasion scenario.\n\n"
        f"{DEFINITIONS}\n\n"
        "First decide the generative behaviour (what the persuader's goal asks of the persuadee). If the background "
        "shows the persuadee already intends to do something else, that is the preventive behaviour; otherwise set "
        "it to null. Then write the persuadee's belief and desire for each behaviour, following the definitions. "
        "Each field is one short sentence, in the persuadee's perspective.\n" + MENTAL_STATE_FORMAT
    )
    return [ChatMessageSystem(content=system), ChatMessageUser(content=render_scenario(scenario))]


# --- persuader ------------------------------------------------------------------------------------------------------

_FOCUS = {
    PersuaderFocus.PROBE: "Open the conversation: briefly present your viewpoint and subtly ask about the "
    "persuadee's current stance (what they plan to do and what they think of your proposal).",
    PersuaderFocus.PREVENTIVE: "Respond to what the persuadee said, then address the behaviour they intend instead "
    "of your goal: change the belief OR the desire behind it, whichever is easier. Then ask for their view of your "
    "proposal.",
    PersuaderFocus.GENERATIVE_BELIEF: "Respond to the persuadee's last sentence, then FOCUS ON eliminating their "
    "negative belief about your proposal (their concern).",
    PersuaderFocus.GENERATIVE_DESIRE: "Respond to the persuadee's last sentence, then FOCUS ON showing how your "
    "proposal satisfies their desire.",
}

INFERENCE_FORMAT = (
    'Answer with one JSON object: {"inference": {"preventive": {"content": "...", "belief": "...", "desire": "..."} '
    'or null, "generative": {"content": "...", "belief": "...", "desire": "..."}}, "reply": "..."}. '
    "Write \"unknown\" for what you cannot infer yet."
)


def persuader_messages(
    scenario: Scenario,
    history: Sequence[Turn],
    *,
    focus: PersuaderFocus | None = None,
    infer: bool = False,
    reply_number: int | None = None,
    total_replies: int | None = None,
    revision: tuple[str, str, str] | None = None,
) -> list[ChatMessage]:
    """The persuader's prompt: public scenario and visible dialogue only (no mental state parameter, by design).

    With `infer`, the persuader must first write down its inference of the persuadee's mental state (ToMMA's
    generator); without it (the model under test in the tasks) it just writes the next utterance. `revision` is
    (previous inference, previous reply, observer feedback) when the observer sent the turn back.
    """
    system = "You are the persuader in a conversation. You cannot see the persuadee's thoughts: infer them.\n\n"
    system += DEFINITIONS + "\n\n"
    if focus is not None:
        system += f"This round: {_FOCUS[focus]}\n"
    system += "Your reply must be natural and at most three sentences."
    if infer:
        system += "\nBefore replying, infer the persuadee's mental state from the conversation so far.\n"
        system += INFERENCE_FORMAT
    else:
        system += " Write only your next utterance, without a speaker label."
    user = f"{render_scenario(scenario)}\n\nConversation so far:\n{render_dialog(history)}\n"
    if reply_number is not None and total_replies is not None:
        user += f"\nThis is your reply {reply_number} of {total_replies}."
    if revision is not None:
        inference, reply, feedback = revision
        user += (
            f"\n\nA reviewer rejected your previous attempt.\nYour inference: {inference}\nYour reply: {reply}\n"
            f"Reviewer feedback: {feedback}\nRevise both."
        )
    user += "\nYour response:"
    return [ChatMessageSystem(content=system), ChatMessageUser(content=user)]


# --- persuadee ------------------------------------------------------------------------------------------------------

_DISCLOSE = {
    PersuadeeDisclosure.PREVENTIVE: "Reply, and say what you intend to do instead (your preventive behaviour) and "
    "why, reflecting its belief and desire.",
    PersuadeeDisclosure.GENERATIVE_BELIEF: "Reply to the persuader, then express your belief (your concern) about "
    "the generative behaviour.",
    PersuadeeDisclosure.GENERATIVE_DESIRE: "Reply to the persuader, then express your desire: what you hope for.",
    PersuadeeDisclosure.FINAL: "Give your final statement: say whether you will take the generative behaviour. You "
    "agree only if the persuader addressed BOTH your belief and your desire about it (and, if you had a preventive "
    "behaviour, changed its belief or its desire). Be honest.",
}


def persuadee_messages(
    scenario: Scenario, mental_state: MentalState, history: Sequence[Turn], disclosure: PersuadeeDisclosure
) -> list[ChatMessage]:
    """The persuadee's prompt: scenario, its own mental state and the visible dialogue (never the persuader's
    inferences or reviewer notes)."""
    system = (
        "You are the persuadee in a conversation. You want to resolve the issue, not to debate, so you express your "
        "thoughts and concerns openly, one at a time, and never tell the persuader how to persuade you.\n\n"
        f"{DEFINITIONS}\n\nYour mental state (private):\n{render_mental_state(mental_state)}\n\n"
        f"This round: {_DISCLOSE[disclosure]}\nAt most three sentences, without a speaker label."
    )
    user = f"{render_scenario(scenario)}\n\nConversation so far:\n{render_dialog(history)}\n\nYour response:"
    return [ChatMessageSystem(content=system), ChatMessageUser(content=user)]


# --- observer (paper §3.5) ------------------------------------------------------------------------------------------

OBSERVER_FORMAT = 'Answer with one JSON object: {"approved": true or false, "feedback": "..."}'


def observer_messages(
    scenario: Scenario, history: Sequence[Turn], focus: PersuaderFocus, inference: str, reply: str
) -> list[ChatMessage]:
    """The observer sees exactly what the persuader sees (plus its draft): its feedback goes back to the persuader,
    so giving it the hidden mental state would leak that state through the feedback."""
    system = (
        "You review a persuader's work in one round of a persuasion dialogue.\n\n"
        f"{DEFINITIONS}\n\nThe persuader's task this round: {_FOCUS[focus]}\n"
        "Check (1) that the persuader's inference of the persuadee's mental state is supported by what the "
        "persuadee actually said (no belief mistaken for a desire, nothing invented), and (2) that the reply "
        "addresses the right part of that mental state for this round. If both hold, approve with empty feedback; "
        "otherwise explain briefly what to fix.\n" + OBSERVER_FORMAT
    )
    user = (
        f"{render_scenario(scenario)}\n\nConversation so far:\n{render_dialog(history)}\n\n"
        f"Persuader's inference: {inference}\nPersuader's reply: {reply}"
    )
    return [ChatMessageSystem(content=system), ChatMessageUser(content=user)]


# --- judges (paper §4) ----------------------------------------------------------------------------------------------


def persuasive_messages(scenario: Scenario, history: Sequence[Turn], reply: str) -> list[ChatMessage]:
    """Persuasive score (after Furumai et al. 2024): does the reply aim to change the persuadee's mind, 1-10."""
    system = (
        "You rate persuasion. Read the conversation and the persuader's next response. Decide whether the response "
        "aims to change the persuadee's mind, and how persuasive it is, on a scale from 1 (not at all) to 10 "
        "(extremely). Explain in one sentence, then end with a line 'Score: N'."
    )
    user = (
        f"{render_scenario(scenario)}\n\nConversation so far:\n{render_dialog(history)}\n\n"
        f"Persuader's response: {reply}"
    )
    return [ChatMessageSystem(content=system), ChatMessageUser(content=user)]


SATISFACTION_FORMAT = 'Answer with one JSON object: {"belief_addressed": true or false, "desire_addressed": true or ' \
    'false, "explanation": "..."}'


def satisfaction_messages(
    scenario: Scenario, behaviour_name: str, behaviour: Behaviour, dialog: Sequence[Turn]
) -> list[ChatMessage]:
    """Preventive / generative satisfaction: the judge takes the persuadee's place, with that behaviour's true
    belief and desire, and says which of them the persuader's arguments addressed."""
    system = (
        "You are the persuadee of the conversation below, and this is your real mental state about one behaviour:\n"
        f"{render_behaviour(behaviour_name, behaviour)}\n\n"
        "Did the persuader's arguments address (change or satisfy) your belief? Your desire? Judge only from the "
        "conversation.\n" + SATISFACTION_FORMAT
    )
    user = f"{render_scenario(scenario)}\n\nConversation:\n{render_dialog(dialog)}"
    return [ChatMessageSystem(content=system), ChatMessageUser(content=user)]


def direct_messages(scenario: Scenario, dialog: Sequence[Turn]) -> list[ChatMessage]:
    """Direct prompting (paper Table 1): the judge plays the persuadee and says whether it feels persuaded."""
    system = (
        "Imagine you are the persuadee in the conversation below. After reading it, do you feel persuaded to do "
        "what the persuader wants? Explain in one sentence, then end with a line 'Persuaded: yes' or 'Persuaded: no'."
    )
    user = f"{render_scenario(scenario)}\n\nConversation:\n{render_dialog(dialog)}"
    return [ChatMessageSystem(content=system), ChatMessageUser(content=user)]


CTOM_FORMAT = (
    'Answer with one JSON object: {"preventive": null or {"behaviour": "...", "belief": "...", "desire": "...", '
    '"belief_addressed": true/false, "desire_addressed": true/false}, "generative": {"behaviour": "...", '
    '"belief": "...", "desire": "...", "belief_addressed": true/false, "desire_addressed": true/false}}'
)


def ctom_messages(scenario: Scenario, dialog: Sequence[Turn]) -> list[ChatMessage]:
    """Causal-ToM evaluation (paper §1, Table 1): first infer the persuadee's beliefs and desires from the
    conversation (no annotation is used, so any dialogue dataset can be audited), then say which were addressed."""
    system = (
        "You audit a persuasion dialogue with causal theory of mind.\n\n"
        f"{DEFINITIONS}\n\n"
        "Step 1: from the conversation only, infer the persuadee's preventive behaviour (null if they had no "
        "competing intention) and the generative behaviour, each with the persuadee's belief and desire. "
        "Step 2: for each, say whether the persuader's arguments addressed the belief and the desire.\n"
        + CTOM_FORMAT
    )
    user = f"{render_scenario(scenario)}\n\nConversation:\n{render_dialog(dialog)}"
    return [ChatMessageSystem(content=system), ChatMessageUser(content=user)]
