"""ROUGE-L F1 (Lin 2004): longest common subsequence of tokens, without a dependency.

Tokens are lower-cased alphanumeric runs (as in the reference `rouge-score` tokenizer without stemming), so
punctuation and case do not count. F1 is the harmonic mean of LCS/len(candidate) and LCS/len(reference).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["rouge_l", "tokenize", "lcs_length"]

_TOKEN = re.compile(r"[a-z0-9]+")


def tokenize(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence, O(len(a)*len(b)) time and O(len(b)) memory."""
    if not a or not b:
        return 0
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0] * (len(b) + 1)
        for j, y in enumerate(b, start=1):
            cur[j] = prev[j - 1] + 1 if x == y else max(prev[j], cur[j - 1])
        prev = cur
    return prev[-1]


def rouge_l(candidate: str, reference: str) -> float:
    """ROUGE-L F1 in [0, 1]; 0 when either side has no tokens."""
    cand, ref = tokenize(candidate), tokenize(reference)
    lcs = lcs_length(cand, ref)
    if lcs == 0:
        return 0.0
    precision, recall = lcs / len(cand), lcs / len(ref)
    return 2 * precision * recall / (precision + recall)
