"""Multiple-choice items of the established suites: lettered options, a seeded option order, chance level.

The prompt side only (pure, no Inspect): each suite words its own prompt around `format_options`, and its scorer
reads the answer with `tombench.scorers.suites.choice.match_choice`. Sample metadata of every multiple-choice suite holds
`options` (the option texts in the order shown), `letters` (their labels as shown, e.g. "A".."O" or "a", "b") and
`chance` (1/k), so the offline `random` baseline, the scorer and the chance test all see the same k.

    opts = shuffled(["believes it is oat milk", "believes it is almond milk"], key=item_digest)
    text = format_options(opts, template="{letter}){text}", letters="ab")   # "a)...\\nb)..."
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence

__all__ = ["LETTERS", "letters_for", "format_options", "chance", "shuffled", "digest"]

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def letters_for(k: int, letters: str = LETTERS) -> str:
    """The first k labels ("ABC" for k=3); ValueError past the alphabet."""
    if not 1 <= k <= len(letters):
        raise ValueError(f"cannot label {k} options with {letters!r}")
    return letters[:k]


def format_options(
    options: Sequence[str], *, template: str = "{letter}. {text}", sep: str = "\n", letters: str = LETTERS
) -> str:
    """Options as lettered lines ("A. x\\nB. y"); `template` and `sep` give each suite its own layout."""
    labels = letters_for(len(options), letters)
    return sep.join(template.format(letter=lab, text=opt) for lab, opt in zip(labels, options, strict=True))


def chance(k: int) -> float:
    """Accuracy of a uniform guess among k options."""
    if k < 1:
        raise ValueError("chance needs at least one option")
    return 1.0 / k


def digest(*parts: str) -> str:
    """A content identity for an item (SHA-256 of its parts): ids and option orders never depend on file position."""
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


def shuffled(options: Sequence[str], *, key: str, seed: int = 0) -> list[str]:
    """The options in an order drawn from `random.Random(sha256(seed, key))`: the same item is always shown the same way
    on every machine, and the order does not depend on which other items are loaded."""
    rng = random.Random(int(digest(str(seed), key)[:16], 16))
    out = list(options)
    rng.shuffle(out)
    return out
