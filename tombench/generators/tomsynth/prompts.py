"""The two prompts of ToM-Synth (paper App. B): data synthesis for a unit, and cross-model verification of an item.

Both follow the paper's wording and structure; the placeholders the paper leaves as `{format_key}`, `{xilidu_key}`
etc. are filled from the unit (`xilidu` is the paper's code name for the fine-grained sub-dimension). The one place
these texts live: generation and QC import them from here.
"""

from __future__ import annotations

from collections.abc import Sequence

from tombench.generators.tomsynth.items import Item
from tombench.generators.tomsynth.units import Unit

__all__ = ["synthesis_prompt", "verification_prompt", "MAX_TEXT_CHARS"]

#: The length the synthesis prompt asks for (paper App. B: "should not exceed 800 characters").
MAX_TEXT_CHARS = 800

_SYNTHESIS = """\
You are an expert in Theory of Mind (ToM). ToM involves reasoning about others' mental states. Your task is to \
generate a high quality ToM data entry.

# Generation Configuration
- Format: {format_key}
- Social Scenario: {scenario_key}
- Specific Situation: {situation}
- Target Mental State Dimension: {ability_key}
- Target Concept (Key Focus): {xilidu_key}
- {xilidu_key} Concept Definition: {xilidu_value}

# Generation Requirements
1. {format_key} Construction:
   - {format_value}
   - In {scenario_key} scenario, a {situation} situation. {format_key} should be natural and plausible.
   - Select the characters from {selected} that you will use to construct {format_key}. The number of characters \
in {format_key} should not exceed 4.
   - Do NOT explicitly state the character's mental state (e.g., do not say "John think X" or "Mary feel Y"). \
Instead, provide observable cues (context, actions, information access) that allow a reader to infer the mental state.
   - Ensure all necessary information to answer the question is embedded in the {format_key}, but requires \
synthesis (not just distinct recall).
   - The constructed {format_key} should not exceed {max_chars} characters.
2. Question Design:
   - For the {ability_key} mental state dimension.
   - The question must strictly target the {xilidu_key}.
3. Answer Options Requirements:
   - There should be 4 options (1 correct, 3 distractors) in total. The distractors options should be designed to \
appear plausible, avoiding obvious outliers that can be easily eliminated.
   - The position of the correct answer should be randomized among A, B, C, and D to avoid positional bias.
   - Option lengths should not exhibit obvious bias, such as the correct option being noticeably longer or shorter \
than others.
4. The overall design of the {format_key}, Question, and Answer options should be coherent and reasonable.
   - Avoid the question phrasing hinting at the correct answer, the correct answer being explicitly stated in the \
{format_key}, or spurious correlations between {format_key} elements and the correct answer that could enable \
shortcut reasoning without genuine comprehension.
   - Avoid overly detailed descriptions of body language or facial expressions in {format_key}. These factors \
should not dominate the questions and answers.
   - The question and corresponding answer options should be based on {format_key}, maintaining complete and \
rigorous logic. The correct answer should not be based on partial speculation or conjecture.
   - The overall design must be unambiguous; there should be no cases where two options both seem reasonable \
answers to the question.
5. Difficulty Requirement:
   - The question should be of a high level of difficulty and present a non-trivial challenge.
   - Increase the challenge by ensuring the correct answer relies on implicit inference rather than explicit \
statements.
   - Elevate difficulty by constructing highly deceptive distractors.

# Output Format
Return the result as a single valid JSON object contained within a list. Do not output markdown code blocks. Just \
the raw JSON.

Example Output:
[
  {{
    "{format_key}": "{format_value}...",
    "Question": "The specific question...",
    "Options": {{
      "A": "Option text...",
      "B": "Option text...",
      "C": "Option text...",
      "D": "Option text..."
    }},
    "Answer": "one of A, B, C, D",
    "Analysis": "explanation for the selected answer"
  }}
]
"""

_VERIFICATION = """\
You are an expert evaluator for Theory of Mind (ToM).
Your task is to evaluate the quality of a ToM data entry.

# Data Entry to Evaluate
### {key1}:
{val1}

### {key2}:
{val2}

### {key3}:
{val3}

Please evaluate the entry based on the following strict criteria logic:

1. **Ambiguity Check:**
   * Is the overall design coherent? Is the Question logically based on the {key1}?
   * Is there exactly one unique correct option? (Check to ensure there are no multiple reasonable answer options \
and no situations where all options are incorrect).
   * Decision: If any ambiguity exists, the Judgment is AMBIGUOUS.
2. **Answer Verification (If not ambiguous):**
   * Is the labeled answer {val4} the unique correct option?
   * Decision:
     * If YES, the Judgment is PASS.
     * If NO (another option is the correct one), the Judgment is FALSE.
3. **Other Defects:**
   * If the entry contains other significant flaws (e.g., severe logical gaps not covered above), the Judgment is \
OTHER.

# Output Format
You must output a single JSON object.
Do not output any other text.
{{
  "judgment": "AMBIGUOUS" | "PASS" | "FALSE" | "OTHER",
  "correct_answer": "Only fill this if judgment is FALSE, otherwise null",
  "reason": "A concise explanation for your judgment"
}}
"""


def synthesis_prompt(unit: Unit, characters: Sequence[str], max_chars: int = MAX_TEXT_CHARS) -> str:
    """The App. B data-synthesis prompt for one unit, offering `characters` (paper: names from Figure 8)."""
    return _SYNTHESIS.format(
        format_key=unit.format,
        format_value=unit.format_description,
        scenario_key=unit.situation.domain,
        situation=unit.situation.situation,
        ability_key=unit.mental_state.dimension,
        xilidu_key=unit.mental_state.sub_dimension,
        xilidu_value=unit.mental_state.definition,
        selected="[" + ", ".join(characters) + "]",
        max_chars=max_chars,
    )


def verification_prompt(item: Item) -> str:
    """The App. B cross-model verification prompt: the entry (text, question, options) and its labelled answer."""
    return _VERIFICATION.format(
        key1=item.format,
        val1=item.text,
        key2="Question",
        val2=item.question,
        key3="Options",
        val3=item.options_block(),
        val4=item.answer,
    )
